"""Checking a stored game of a tournament: its record against the rules and the schedule, its rows against its record.

A resume trusts nothing it reads back.  :func:`expected_rows` replays a
stored record with the rules engine (:func:`arena.records.replay`), checks
that it is the game the schedule plays (seed, deal, seats, names, scoring,
the ``tournament`` key) and gives the ``games.csv`` rows the record implies;
:func:`rows_digest` condenses rows, without their timing column, so that
the stored rows of every game can be compared with those without holding
them in memory.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

from arena.errors import ArenaError
from arena.plan.config import TournamentConfig
from arena.plan.schedule import Game, Schedule
from arena.records import RecordError, replay
from arena.results.games_table import COLUMNS, TIMING_COLUMNS, fields_by_name, without_timing
from arena.results.rows import SeatTime, game_rows_text
from arena.rules import GameSettings, deal

#: Why a stored game is dropped and played again, by reason class, as the terminal says it.
REASONS: dict[str, str] = {
    "incomplete": "incomplete (record or rows missing or half-written)",
    "twice": "stored more than once",
    "illegal": "record not valid under the rules",
    "schedule": "record not the game the schedule plays",
    "rows": "rows in games.csv differ from the record",
}


class GameCheckError(ArenaError):
    """A stored game that fails a check: ``reason`` is a key of :data:`REASONS`, the message one line."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def rows_digest(previous: bytes, row: str) -> bytes:
    """The digest of a game's rows so far (``previous``, ``b""`` before the first) and one more row."""
    return hashlib.blake2b(previous + without_timing(row).encode("utf-8"), digest_size=16).digest()


def digest_of(rows: Iterable[str]) -> bytes:
    """:func:`rows_digest` over all of ``rows``, in order."""
    digest = b""
    for row in rows:
        digest = rows_digest(digest, row)
    return digest


def _schedule_mismatch(record: Mapping[str, Any], game: Game, config: TournamentConfig,
                       names: list[str], settings: GameSettings, replayed: Any) -> str | None:
    """What makes ``record`` another game than ``game`` of the schedule, or None."""
    if replayed.settings != settings:
        return (f"it is played with {replayed.settings.players} seats, scoring {replayed.settings.scoring} "
                f"and penalty {replayed.settings.penalty}, not as the tournament says")
    if replayed.seed != game.seed:
        return f"its seed is {replayed.seed!r}, the schedule's is {game.seed}"
    if list(replayed.names) != names:
        return f"its players are {', '.join(replayed.names)}, the schedule seats {', '.join(names)}"
    if replayed.deals != deal(game.seed, settings):
        return "its deal is not the one its seed makes"
    clock = record.get("clock")
    played = {key: clock.get(key) for key in ("control", "overage")} if isinstance(clock, Mapping) else None
    if played != (config.time.record() if config.time.clocked else None):
        return f"it was played with {'no clock' if played is None else played}, the tournament has {config.time}"
    expected = {"name": config.name, "table": game.table, "deal": game.deal, "rotation": game.rotation}
    if record.get("tournament") != expected:
        return f'its "tournament" key is not {expected}'
    return None


def faulted_seats(record: Mapping[str, Any], players: int) -> set[int]:
    """The seats the record's ``faults`` key names; :class:`GameCheckError` when it is not a list of faults."""
    faults = record.get("faults", [])
    seats: set[int] = set()
    if not isinstance(faults, list):
        raise GameCheckError("schedule", '"faults" is not a list')
    for fault in faults:
        if not (isinstance(fault, Mapping) and type(fault.get("seat")) is int and 0 <= fault["seat"] < players
                and type(fault.get("move")) is int and isinstance(fault.get("kind"), str)
                and isinstance(fault.get("message"), str)):
            raise GameCheckError("schedule", '"faults" holds an entry that is not a fault')
        seats.add(fault["seat"])
    return seats


def expected_rows(record: Mapping[str, Any], game: Game, config: TournamentConfig) -> str:
    """The ``games.csv`` rows ``record`` implies as ``game`` of ``config`` (timing columns zero).

    Raises :class:`GameCheckError`: ``illegal`` when the rules engine rejects the record,
    ``schedule`` when it is a valid game but not this one.
    """
    try:
        replayed = replay(record)
    except RecordError as exc:
        raise GameCheckError("illegal", str(exc)) from None
    settings = GameSettings.for_players(config.players, config.scoring, config.penalty)
    names = [config.names[i] for i in game.seats]
    problem = _schedule_mismatch(record, game, config, names, settings, replayed)
    if problem is not None:
        raise GameCheckError("schedule", problem)
    faulted = faulted_seats(record, config.players)
    turns = [0] * config.players
    for seat in replayed.seats:
        turns[seat] += 1
    specs = [config.entrants[i].spec for i in game.seats]
    return game_rows_text(game, names, specs, replayed.result, turns, faulted, [SeatTime(0.0)] * config.players,
                          config.scoring)


def first_difference(stored: list[str], expected: list[str]) -> str:
    """Where a game's stored rows differ from the rows its record implies, in words (one line)."""
    if len(stored) != len(expected):
        return f"{len(stored)} rows for {len(expected)} seats"
    for seat, (have, want) in enumerate(zip(stored, expected)):
        a, b = fields_by_name(have), fields_by_name(want)
        for column in (c for c in COLUMNS if c not in TIMING_COLUMNS):
            if a.get(column) != b.get(column):
                return f"seat {seat} {column} is {a.get(column)!r}, the record gives {b.get(column)!r}"
        if len(a) != len(COLUMNS):
            return f"seat {seat}'s row has {len(a)} fields, not {len(COLUMNS)}"
    return "the rows are in another order"


def schedule_games(games: Any, schedule: Schedule) -> tuple[Any, int]:
    """``(kept, ignored)``: the rows of ``games`` (a frame from :func:`~arena.report.tables.load_games`) of the
    games the schedule plays, as stored, and how many games were left out (an unknown id, or a seat
    whose entrant, seed, table or deal is not the schedule's).

    Cheap enough for ``arena report`` on every call; a resume also replays the records.
    """
    if games.empty:
        return games, 0
    names = schedule.config.names
    wanted = {
        (g.game_id, seat): (g.table, g.deal, g.seed, names[entrant])
        for g in schedule for seat, entrant in enumerate(g.seats)
    }
    stored = zip(games["game_id"], games["seat"], games["table"], games["deal"], games["seed"], games["entrant"],
                 strict=True)
    ok = [wanted.get((game_id, seat)) == (table, deal, seed, entrant)
          for game_id, seat, table, deal, seed, entrant in stored]
    bad = set(games["game_id"][[not k for k in ok]])
    if not bad:
        return games, 0
    return games[~games["game_id"].isin(bad)].reset_index(drop=True), len(bad)
