"""The tables a run wrote, reused for as long as they are the tables of the folder
(:func:`~arena.report.folder_tables.folder_tables` decides).

A run writes ``tables.json`` beside its tables: the digest of the ``games.csv``
and ``tournament.toml`` they were built from, the scoring that ordered them,
how many games they count, and the digest of every table file.  ``arena
report`` (:func:`cached_tables`) reads the tables back instead of building
them again only when all of these still hold, byte for byte: a changed,
added or removed game, an edited table or another scoring and it builds them
from ``games.csv`` as always.  Checking costs reading the files once (about
half a second for a million games' ``games.csv``), building the tables
minutes.  The Teams? table (``teams.csv``) is stamped beside them when it was
written with them: read back, it spares ``arena report`` reading ``games.csv``
again to test the pairs.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from arena.results.files import GAMES_FILE, TABLE_FILES, TABLES_STAMP, TEAMS_FILE, TOURNAMENT_FILE, write_atomically

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


def write_stamp(folder: Path, scoring: str, games: int, left_out: int = 0, *, teams: bool = False) -> None:
    """Write ``tables.json`` for the tables (ordered by ``scoring``) just written into ``folder`` from its ``games.csv``,
    and for its ``teams.csv`` too when ``teams`` (written with them)."""
    value: dict[str, Any] = {
        "format": FORMAT, "scoring": scoring, "games": games, "left_out": left_out,
        "sources": _sources(folder),
        "tables": {name: file_digest(folder / f"{name}.csv") for name in TABLE_NAMES},
    }
    if teams:
        value["teams"] = file_digest(folder / TEAMS_FILE)
    write_atomically(folder / TABLES_STAMP,
                     lambda tmp: tmp.write_text(json.dumps(value, indent=1) + "\n", encoding="utf-8"))


@dataclass
class Cached:
    """The tables read back by name (the fields of :class:`~arena.report.tables.Tables`), what they count, and
    the Teams? table when it was stamped with them and is unchanged (else None)."""

    frames: dict[str, pd.DataFrame]
    stamp: Stamp
    teams: pd.DataFrame | None = None


def cached_tables(folder: Path, scoring: str) -> Cached | None:
    """The tables written into ``folder``, when ``tables.json`` says they are still those of its files; else None."""
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
            frames[name] = read_table(path)
        teams = None
        if value.get("teams") is not None and value["teams"] == file_digest(folder / TEAMS_FILE):
            from arena.report.teams import read_teams

            teams = read_teams(folder / TEAMS_FILE)
        return Cached(frames, Stamp(int(value["games"]), int(value["left_out"])), teams)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def read_table(path: Path) -> pd.DataFrame:
    """A table file as a frame, its text columns as text (empty for none)."""
    frame = pd.read_csv(path)
    for column in _TEXT:
        if column in frame.columns:
            frame[column] = frame[column].fillna("").astype(str)
    return frame
