"""A folder's tables: the ones written into it, reused for as long as they are its own, else built again.

:func:`folder_tables` is the one place that decides, for ``arena run``, ``arena match`` and
``arena report`` alike.  Whichever it gives, the numbers are those the table files hold (six
significant digits), so the printed tables, ``report.html``, the plots and the ``.csv`` files always
agree, whether the tables were read back or built just now.

A run writes ``tables.json`` beside its tables: the digest of the ``games.csv``
and ``tournament.toml`` they were built from, the scoring that ordered them,
how many games they count, and the digest of every table file.  ``arena
report`` (:func:`cached_tables`) reads the tables back instead of building
them again only when all of these still hold, byte for byte: a changed,
added or removed game, an edited table or another scoring and it builds them
from ``games.csv`` as always.  Checking costs reading the files once (about
half a second for a million games' ``games.csv``), building the tables
minutes.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from arena.errors import os_error_line
from arena.results.files import GAMES_FILE, TABLE_FILES, TABLES_STAMP, TOURNAMENT_FILE, RunError, write_atomically

if TYPE_CHECKING:
    from arena.plan.schedule import Schedule

FORMAT = "arena-tables/1"
TABLE_NAMES = tuple(file.removesuffix(".csv") for file in TABLE_FILES)
#: The text columns of each table file (read back as text, empty for none).
_TEXT = ("entrant", "bot", "opponent", "before", "after")


def file_digest(path: Path) -> str:
    """A 128-bit BLAKE2b of the file ``path``."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, lambda: hashlib.blake2b(digest_size=16)).hexdigest()


@dataclass
class Stamp:
    """What a folder's tables were built from."""

    #: Games the tables count, and games left out as damaged or foreign.
    games: int
    left_out: int


def _sources(folder: Path) -> dict[str, str]:
    return {name: file_digest(folder / name) for name in (GAMES_FILE, TOURNAMENT_FILE)}


def write_stamp(folder: Path, scoring: str, games: int, left_out: int = 0) -> None:
    """Write ``tables.json`` for the tables (ordered by ``scoring``) just written into ``folder`` from its ``games.csv``."""
    value: dict[str, Any] = {
        "format": FORMAT, "scoring": scoring, "games": games, "left_out": left_out,
        "sources": _sources(folder),
        "tables": {name: file_digest(folder / f"{name}.csv") for name in TABLE_NAMES},
    }
    write_atomically(folder / TABLES_STAMP,
                     lambda tmp: tmp.write_text(json.dumps(value, indent=1) + "\n", encoding="utf-8"))


def cached_tables(folder: Path, scoring: str) -> tuple[dict[str, pd.DataFrame], Stamp] | None:
    """The tables written into ``folder`` by name (the fields of :class:`~arena.report.tables.Tables`), when
    ``tables.json`` says they are still those of its files; else None."""
    try:
        value = json.loads((folder / TABLES_STAMP).read_text(encoding="utf-8"))
        if value.get("format") != FORMAT or value.get("scoring") != scoring:
            return None
        if value.get("sources") != _sources(folder):
            return None
        frames = {}
        for name in TABLE_NAMES:
            path = folder / f"{name}.csv"
            if value["tables"].get(name) != file_digest(path):
                return None
            frames[name] = _read_table(path)
        return frames, Stamp(int(value["games"]), int(value["left_out"]))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _read_table(path: Path) -> pd.DataFrame:
    frame = pd.read_csv(path)
    for column in _TEXT:
        if column in frame.columns:
            frame[column] = frame[column].fillna("").astype(str)
    return frame


@dataclass
class FolderTables:
    """A folder's tables (:class:`~arena.report.tables.Tables`, None before a game is stored) and where they come from."""

    tables: Any
    #: Games the tables count, and games left out as damaged or not the schedule's.
    games: int
    left_out: int
    #: The tables were the folder's own, unchanged since they were written (so are their pictures).
    reused: bool = False


def folder_tables(folder: Path, schedule: Schedule, scoring: str | None = None, *, write: bool = False) -> FolderTables:
    """The tables of the games ``folder`` stores, ordered by ``scoring`` (default: the tournament's).

    The folder's own tables when ``tables.json`` says they are still those of its files; else built from
    ``games.csv`` (rows the last checkpoint does not vouch for are checked against ``schedule``) and,
    with ``write``, written into the folder with their stamp.  Raises :class:`RunError` for a ``games.csv``
    that cannot be read, or a keyed schedule without its deal key.
    """
    from arena.report.tables import Tables

    scoring = scoring or schedule.config.scoring
    cached = cached_tables(folder, scoring)
    if cached is not None:
        frames, stamp = cached
        return FolderTables(Tables(scoring=scoring, **frames), stamp.games, stamp.left_out, reused=True)
    games = _stored_games(folder, schedule)
    left_out = int(games.attrs.get("unreadable", 0)) + int(games.attrs.get("foreign", 0))
    counted = int(games["game_id"].nunique())
    if games.empty and not write:
        return FolderTables(None, 0, left_out)
    return FolderTables(_as_stored(folder, _build(games, scoring, schedule), write, counted, left_out),
                        counted, left_out)


def _stored_games(folder: Path, schedule: Schedule) -> pd.DataFrame:
    """``games.csv``'s complete games of the schedule (``attrs``: ``unreadable`` and ``foreign`` games left out)."""
    from arena.plan.schedule import DealKeyMissing
    from arena.report.tables import TABLE_COLUMNS, load_games
    from arena.results.checkpoints import rows_digest_matches
    from arena.results.verify import schedule_games

    path = folder / GAMES_FILE
    try:
        games = load_games(path, schedule.config.players, (*TABLE_COLUMNS, "seed"))
    except (OSError, ValueError) as exc:
        raise RunError(f"{path}: cannot read: {os_error_line(exc)}") from None
    unreadable = games.attrs.get("unreadable", 0)
    foreign = 0
    if not rows_digest_matches(folder, path):  # rows the run checked need no second look at the schedule
        try:
            games, foreign = schedule_games(games, schedule)
        except DealKeyMissing:
            raise RunError(f"{folder}: its games' seeds are checked against the schedule, which is dealt with the "
                           f"folder's deal key: it has no deal.key; give it with --deal-key HEX") from None
    games.attrs.update(unreadable=unreadable, foreign=foreign)
    return games


def _build(games: pd.DataFrame, scoring: str, schedule: Schedule) -> Any:
    from arena.report.tables import build_tables

    return build_tables(games, scoring, schedule.config.names)


def _as_stored(folder: Path, tables: Any, write: bool, games: int, left_out: int) -> Any:
    """``tables`` as their files hold them: written into ``folder`` (with their stamp) or, without ``write``,
    into a folder of their own, and read back, so that every number shown is the one stored."""
    from arena.report.tables import Tables, write_tables

    if write:
        write_tables(folder, tables)
        write_stamp(folder, tables.scoring, games, left_out)
        return Tables(scoring=tables.scoring, **{name: _read_table(folder / f"{name}.csv") for name in TABLE_NAMES})
    given = {name: getattr(tables, name) for name in TABLE_NAMES}
    with tempfile.TemporaryDirectory(prefix="arena-tables-") as scratch:  # a table not held stays not held
        write_tables(scratch, replace(tables, **{name: pd.DataFrame() for name, frame in given.items() if frame is None}))
        frames = {name: None if frame is None else _read_table(Path(scratch) / f"{name}.csv")
                  for name, frame in given.items()}
    return Tables(scoring=tables.scoring, **frames)
