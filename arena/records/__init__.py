"""Game records in the ``uptown-game/1`` format: write, read, validate, replay.

A record is one JSON object holding everything needed to replay and check a
game without the program that played it (see docs/reference/game-record.md).  This package
turns a finished :class:`~arena.rules.GameState` into a record
(:func:`build_record`), writes it as canonical text (:func:`dumps`,
:func:`dumps_line`, :func:`write`), and reads any valid record back, checking
every move with the rules engine (:func:`loads`, :func:`load`, :func:`replay`).

Every problem with a record is a :class:`RecordError` whose message is one
line naming the 0-based move index and the rule broken, or what is wrong with
the file.
"""


from __future__ import annotations

from arena.records.reader import load, loads, read_error
from arena.records.replayer import MoveTime, Replay, Step, move_times, replay
from arena.records.spec import FORMAT, RESULT_FIELDS, STANDARD_KEYS, RecordError
from arena.records.writer import build_record, dumps, dumps_line, record_line, referee_members, turn_seats, write

__all__ = [
    "FORMAT",
    "MoveTime",
    "RESULT_FIELDS",
    "RecordError",
    "Replay",
    "STANDARD_KEYS",
    "Step",
    "build_record",
    "dumps",
    "dumps_line",
    "load",
    "move_times",
    "loads",
    "read_error",
    "record_line",
    "referee_members",
    "replay",
    "turn_seats",
    "write",
]
