"""Game records in the ``uptown-game/1`` format: write, read, validate, replay.

A record is one JSON object holding everything needed to replay and check a
game without the program that played it (see GAME-RECORD.md).  This module
turns a finished :class:`~arena.rules.GameState` into a record
(:func:`build_record`), writes it as canonical text (:func:`dumps`,
:func:`dumps_line`, :func:`write`), and reads any valid record back, checking
every move with the rules engine (:func:`loads`, :func:`load`, :func:`replay`).

Every problem with a record is a :class:`RecordError` whose message is one
line naming the 0-based move index and the rule broken, or what is wrong with
the file.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .rules import CELL_NAMES, COLORS, PASS, TILE_NAMES, GameSettings, GameState, Move, SeatResult
from .rules.state import PENALTIES, RACK_SIZE, SCORINGS, TILES_PLAYED
from .rules.tiles import FITS, N_TILES

FORMAT = "uptown-game/1"

#: The keys this module writes itself, in the order it writes them.
STANDARD_KEYS = ("format", "scoring", "penalty", "seed", "players", "deal", "moves", "result")
#: The fields of one result row (RULES.md, Scoring), in the order they are written.
RESULT_FIELDS = (
    "seat", "groups", "captures", "captured_total", "blockers_penalty", "blockers_score",
    "uptown_rank", "blockers_rank",
)


class RecordError(ValueError):
    """A record that cannot be read or is not a valid game; the message is one line."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(str(message).split()))


# -- writing -----------------------------------------------------------------


def _move_dict(seat: int, move: Move, captured: int) -> dict[str, Any]:
    if move.is_pass:
        return {"seat": seat, "pass": True}
    entry: dict[str, Any] = {
        "seat": seat,
        "color": COLORS[move.color],
        "tile": TILE_NAMES[move.tile],
        "cell": CELL_NAMES[move.cell],
    }
    if captured >= 0:
        entry["capture"] = COLORS[captured]
    return entry


def _seats_of_history(state: GameState) -> list[int]:
    """The seat that made each turn of ``state.history``."""
    settings = state.settings
    history = state.history
    if all(not move.is_pass for move, _ in history):
        # Without passes every placement's color names its seat.
        return [settings.seat_of(move.color) for move, _ in history]
    # A pass names no color: follow the turn order by playing the moves again.
    deals = {c: state.deals[c] for c in settings.colors}
    game = GameState(settings, deals)
    seats = []
    for move, _ in history:
        seats.append(game.to_move)
        game.push(move)
    return seats


def build_record(
    state: GameState,
    names: Sequence[str],
    seed: int | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``uptown-game/1`` record of ``state`` (normally a finished game).

    ``names[s]`` is the name of seat ``s``.  ``seed`` is written when given;
    ``extra`` keys (bots, faults, time limit, tournament …) follow the
    standard ones.  ``result`` is written only when the game is over.
    """
    settings = state.settings
    if len(names) != settings.players:
        raise ValueError(f"{settings.players} seats need {settings.players} names, not {len(names)}")
    record: dict[str, Any] = {"format": FORMAT, "scoring": settings.scoring}
    if settings.penalty != "color":
        # C4's option; readers of other programs ignore the key, this one honours it.
        record["penalty"] = settings.penalty
    if seed is not None:
        record["seed"] = seed
    record["players"] = [
        {"seat": seat, "name": str(name), "colors": [COLORS[c] for c in colors]}
        for seat, (name, colors) in enumerate(zip(names, settings.seat_colors))
    ]
    record["deal"] = {COLORS[c]: [TILE_NAMES[t] for t in state.deals[c]] for c in settings.colors}
    seats = _seats_of_history(state)
    record["moves"] = [_move_dict(seat, move, captured) for seat, (move, captured) in zip(seats, state.history)]
    if state.over:
        record["result"] = [row.to_dict() for row in state.result()]
    for key, value in (extra or {}).items():
        if key in STANDARD_KEYS:
            raise ValueError(f"extra key {key!r} would overwrite a standard key of the record")
        record[key] = value
    return record


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True, allow_nan=False, separators=(", ", ": "))


def _block(value: Any, indent: str) -> str:
    """``value`` with one element per line if it is a non-empty list or object, else compact."""
    inner = indent + "  "
    if isinstance(value, Mapping) and value:
        lines = [f"{inner}{_compact(str(k))}: {_compact(v)}" for k, v in value.items()]
        return "{\n" + ",\n".join(lines) + f"\n{indent}}}"
    if isinstance(value, (list, tuple)) and value:
        lines = [f"{inner}{_compact(v)}" for v in value]
        return "[\n" + ",\n".join(lines) + f"\n{indent}]"
    return _compact(value)


def dumps(record: Mapping[str, Any]) -> str:
    """The canonical text of ``record``: valid JSON, ASCII only, ending in a newline.

    One top-level key per line; a list or object value gets one element per
    line (one deal, one move, one result row), each written compactly.  Keys
    keep the record's order, so the same record gives the same bytes everywhere.
    """
    lines = [f"  {_compact(str(key))}: {_block(value, '  ')}" for key, value in record.items()]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def dumps_line(record: Mapping[str, Any]) -> str:
    """``record`` as one compact line of ASCII JSON (no newline), for JSON-lines files."""
    return json.dumps(record, ensure_ascii=True, allow_nan=False, separators=(",", ":"))


def write(path: str | os.PathLike[str], record: Mapping[str, Any]) -> None:
    """Write ``record`` to ``path`` as :func:`dumps` text, atomically (temp file + rename)."""
    path = Path(path)
    text = dumps(record)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
    try:
        with os.fdopen(fd, "w", encoding="ascii", newline="\n") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
