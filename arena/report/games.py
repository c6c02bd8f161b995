"""A tournament's ``games.csv`` read as a frame, with each seat's tournament rank added.

``games.csv`` holds one row per seat per game (:data:`~arena.results.games_table.COLUMNS`, in any of its
versions: the columns an older version lacks are read as missing).  The *tournament
rank* puts a faulted seat behind every seat that did not fault; among seats that both faulted, or both
did not, the game's own ranks decide (see :mod:`arena.report.tables`).
"""

from __future__ import annotations

import io
import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from arena.results.games_table import COLUMNS, FLOAT_COLUMNS, OPTIONAL_COLUMNS, TEXT_COLUMNS, header_fields, version_of
from arena.rules.state import SCORINGS

_LOG = logging.getLogger(__name__)
#: What each column of ``games.csv`` is read as: text the few names, 64-bit integers the seeds, the
#: smallest integer that holds the rest (a million games' rows then take tens of megabytes, not hundreds).
_DTYPES: dict[str, str] = {
    **{c: "int32" for c in COLUMNS if c not in TEXT_COLUMNS},
    **{c: "int16" for c in ("groups", "captured_total", "blockers_penalty", "blockers_score")},
    **{c: "int8" for c in ("seat", "uptown_rank", "blockers_rank", "faulted")},
    "seed": "int64", "seconds": "float64", "game_id": "category", "entrant": "category", "bot": "category",
    # May be empty (an older arena's rows, written again with the whole header; no clock): fractions.
    **{c: "float32" for c in OPTIONAL_COLUMNS},
}
#: The columns the tables read (:func:`build_tables`); the others are for people and other tools.
TABLE_COLUMNS = ("game_id", "table", "deal", "seat", "entrant", "bot", "groups", "captured_total",
                 "blockers_penalty", "blockers_score", "uptown_rank", "blockers_rank", "faulted",
                 "seconds", "asked", "longest", "lost_on_time", "clock_left")


def load_games(path: str | Path, players: int | None = None, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """``games.csv`` as a frame, with each seat's tournament rank under both scorings added.

    Only complete lines are read, and with ``players`` given only games with a
    row for every seat, so the folder of a run still going on, or interrupted,
    can be read as it is.  ``columns`` (default: all) are the columns to read
    (``game_id``, ``seat``, ``faulted`` and the ranks always are).  A file a run
    wrote is parsed at once with each column's type; one with a damaged row
    is read as text first, and every game with a row that is not numbers
    where numbers belong is left out (counted in ``attrs["unreadable"]``; ``attrs["checked"]`` says why
    the file was read so, and the log too).  The columns an older version did not write are read as
    missing (NaN); a header of no version is a :class:`ValueError`.
    """
    wanted = list(COLUMNS) if columns is None else [c for c in COLUMNS if c in {*columns, *_ALWAYS}]
    checked = ""
    try:
        games = _read_typed(Path(path), wanted)
        ignored: set[str] = set()
    except _NotTyped as exc:
        checked = str(exc)
    except (ValueError, TypeError, OverflowError) as exc:
        checked = f"a row that does not fit its columns' types ({str(exc).splitlines()[0][:120]})"
    if checked:
        _LOG.info("%s: read as text and checked row by row: %s", path, checked)
        games, ignored = _read_checked(Path(path), wanted)
    games = _complete(games, players, len(ignored))
    games.attrs["checked"] = checked
    return games


def games_frame(data: bytes, source: str = "games.csv", players: int | None = None) -> pd.DataFrame:
    """:func:`load_games` of the text ``data`` of a ``games.csv`` (header first); ``source`` names it in errors."""
    games, ignored = _checked_frame(data, source, list(COLUMNS))
    return _complete(games, players, len(ignored))


def _complete(games: pd.DataFrame, players: int | None, unreadable: int) -> pd.DataFrame:
    """The games with a row for each of ``players`` seats, with their tournament ranks."""
    if players is not None and len(games):
        sizes = games.groupby("game_id", sort=False)["seat"].transform("size")
        if (sizes != players).any():
            games = games[sizes == players]
    games = with_tournament_ranks(games.reset_index(drop=True))
    games.attrs["unreadable"] = unreadable
    return games


#: The columns every frame of :func:`load_games` holds: what ranks and complete games are read from.
_ALWAYS = ("game_id", "seat", "faulted", "uptown_rank", "blockers_rank")


def _header(path: Path) -> list[str]:
    header = header_fields(path)
    if not header:
        raise ValueError(f"{path}: empty")
    missing = [c for c in COLUMNS if c not in header and c not in OPTIONAL_COLUMNS]
    if missing:
        raise ValueError(f"{path}: not a games table (no column {missing[0]})")
    return header


class _NotTyped(Exception):
    """Why a file is not parsed with the column types at once (it is read as text and checked instead)."""


def _read_typed(path: Path, wanted: list[str]) -> pd.DataFrame:
    """The file parsed with the column types at once; :class:`ValueError` when any row does not fit them."""
    header = _header(path)
    with open(path, "rb") as f:
        f.seek(0, 2)
        size = f.tell()
        f.seek(max(0, size - 1))
        whole_lines = size == 0 or f.read(1) == b"\n"
    if not whole_lines:
        raise _NotTyped("a half-written last line (a run writing the file, or cut short)")
    if version_of(header) is None:
        raise _NotTyped("its header is none of the versions of games.csv")
    present = [c for c in wanted if c in header]
    empty = [c for c in OPTIONAL_COLUMNS if c in present]
    games = pd.read_csv(path, usecols=present, dtype={c: _DTYPES[c] for c in present}, keep_default_na=False,
                        na_filter=bool(empty), na_values={c: [""] for c in empty}, engine="c")
    return _with_missing(games, wanted)


def _with_missing(games: pd.DataFrame, wanted: list[str]) -> pd.DataFrame:
    """``games`` with every ``wanted`` column, those an older arena did not write as missing (NaN)."""
    for column in wanted:
        if column not in games.columns:
            games[column] = np.nan
    return games[wanted]


def _read_checked(path: Path, wanted: list[str]) -> tuple[pd.DataFrame, set[str]]:
    """The file read as text, complete lines only, every game with a row that is not numbers left out."""
    return _checked_frame(path.read_bytes(), str(path), wanted)


def _checked_frame(data: bytes, path: str, wanted: list[str]) -> tuple[pd.DataFrame, set[str]]:
    """:func:`_read_checked` of the text ``data``; ``path`` names it in errors."""
    data = data[: data.rfind(b"\n") + 1]
    if not data:
        raise ValueError(f"{path}: empty")
    games = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False, on_bad_lines="skip")
    missing = [c for c in COLUMNS if c not in games.columns and c not in OPTIONAL_COLUMNS]
    if missing:
        raise ValueError(f"{path}: not a games table (no column {missing[0]})")
    games = _with_missing(games, wanted)
    # A row that is not numbers where numbers belong (an edited or damaged line) takes its game out; the
    # time-use columns may be empty (an older arena's rows; no clock), never what is not a number.
    numeric = [c for c in wanted if c not in TEXT_COLUMNS]
    values = games[numeric].apply(pd.to_numeric, errors="coerce")
    whole = [c for c in numeric if c not in FLOAT_COLUMNS and c not in OPTIONAL_COLUMNS]
    required = [c for c in numeric if c not in OPTIONAL_COLUMNS]
    given = games[numeric].apply(lambda column: column.notna() & (column.astype(str) != ""))
    bad = (values[required].isna().any(axis=1) | (values.isna() & given).any(axis=1)
           | (values[whole].fillna(0) % 1 != 0).any(axis=1))
    ignored = set(games.loc[bad, "game_id"])
    games = games[~games["game_id"].isin(ignored)].copy()
    # Read again once the bad rows are gone: with a NaN among them, 63-bit seeds would have become floats.
    for column in numeric:
        read = pd.to_numeric(games[column], errors="coerce")
        games[column] = read.astype("int64") if column in whole else read.astype(_DTYPES.get(column, "float64"))
    return games, ignored


def seat_grid(games: pd.DataFrame) -> np.ndarray | None:
    """The frame's rows as a ``(games, seats)`` grid of row numbers, when every game's rows are together in
    seat order 0, 1, … and every game has as many (a sorted ``games.csv``: what a run leaves); else None.

    The tables then read each game's seats side by side with numpy instead of grouping by game id,
    which for a million games takes seconds instead of minutes, and memory by the row, not by the pair.
    """
    if games.empty:
        return None
    seat = games["seat"].to_numpy()
    players = int(seat.max()) + 1
    if players < 2 or len(seat) % players or not np.array_equal(seat, np.tile(np.arange(players), len(seat) // players)):
        return None
    ids = games["game_id"].to_numpy().reshape(-1, players)
    if not all((ids[:, 0] == ids[:, s]).all() for s in range(1, players)) or not pd.Index(ids[:, 0]).is_unique:
        return None
    return np.arange(len(seat)).reshape(-1, players)


def with_tournament_ranks(games: pd.DataFrame) -> pd.DataFrame:
    """Add ``t_uptown_rank`` and ``t_blockers_rank``: the ranks with faulted seats put last."""
    games = games.copy(deep=False)  # copy-on-write: the caller's frame is never changed, and nothing is copied
    grid = seat_grid(games)
    for scoring in SCORINGS:
        if grid is not None:
            # Ranks are at most 5, so faulting dominates any rank difference; a seat's rank is one more
            # than the seats of its game with a smaller key ("min" ranks).
            key = (games["faulted"].to_numpy() * 10 + games[f"{scoring}_rank"].to_numpy())[grid]
            rank = 1 + (key[:, None, :] < key[:, :, None]).sum(axis=2, dtype=np.int8)
            games[f"t_{scoring}_rank"] = rank.ravel()
            games[f"t_{scoring}_won"] = (rank.ravel() == 1).astype(np.int8)
            continue
        # Ranks are at most 5, so faulting dominates any rank difference.
        key = games["faulted"].astype(int) * 10 + games[f"{scoring}_rank"]
        games[f"t_{scoring}_rank"] = key.groupby(games["game_id"], observed=True).rank(method="min").astype(np.int8)
        games[f"t_{scoring}_won"] = (games[f"t_{scoring}_rank"] == 1).astype(np.int8)
    return games
