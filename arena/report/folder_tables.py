"""A folder's tables: the ones written into it, reused for as long as they are its own, else built again.

:func:`folder_tables` is the one place that decides, for ``arena run``, ``arena match`` and
``arena report`` alike (:mod:`.stamp` says whether the written tables are still the folder's).
Whichever it gives, the numbers are those the table files hold (six significant digits), so the
printed tables, ``report.html``, the plots and the ``.csv`` files always agree, whether the tables
were read back or built just now.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from arena.errors import os_error_line
from arena.plan.schedule import DealKeyMissing, Schedule
from arena.report.stamp import TABLE_NAMES, cached_tables, read_table, write_stamp
from arena.report.tables import TABLE_COLUMNS, Tables, build_tables, load_games, write_tables
from arena.report.teams import COLUMNS as TEAMS_COLUMNS
from arena.report.teams import teams_table, write_teams
from arena.results.checkpoints import rows_digest_matches
from arena.results.files import GAMES_FILE, RunError
from arena.results.verify import schedule_games


@dataclass
class FolderTables:
    """A folder's tables (:class:`~arena.report.tables.Tables`, None before a game is stored) and where they come from."""

    tables: Tables | None
    #: Games the tables count, and games left out as damaged or not the schedule's.
    games: int
    left_out: int
    #: The tables were the folder's own, unchanged since they were written (so are their pictures).
    reused: bool = False
    #: The games read to build them (with the columns the Teams? test reads too); None when reused.
    frame: pd.DataFrame | None = None
    #: The Teams? table, when asked for (None: not asked, two players, or no game stored).
    teams: pd.DataFrame | None = None


def folder_tables(folder: Path, schedule: Schedule, scoring: str | None = None, *, write: bool = False,
                  teams: bool = False) -> FolderTables:
    """The tables of the games ``folder`` stores, ordered by ``scoring`` (default: the tournament's), and with
    ``teams`` the Teams? table of the same games (:func:`~arena.report.teams.teams_table`).

    The folder's own tables when ``tables.json`` says they are still those of its files; else built from
    ``games.csv`` (rows the last checkpoint does not vouch for are checked against ``schedule``) and,
    with ``write``, written into the folder with their stamp (the Teams? table too, when asked for).
    Raises :class:`RunError` for a ``games.csv`` that cannot be read, or a keyed schedule without its deal key.
    """
    config = schedule.config
    scoring = scoring or config.scoring
    teams = teams and config.players >= 3  # two players: no third party to compare with
    cached = cached_tables(folder, scoring)
    if cached is not None and (cached.teams is not None or not teams):
        stamp = cached.stamp
        return FolderTables(Tables(scoring=scoring, **cached.frames), stamp.games, stamp.left_out, reused=True,
                            teams=cached.teams if teams else None)
    games = _stored_games(folder, schedule)
    left_out = int(games.attrs.get("unreadable", 0)) + int(games.attrs.get("foreign", 0))
    counted = int(games["game_id"].nunique())
    if games.empty and not write:
        return FolderTables(None, 0, left_out)
    pairs = teams_table(games, scoring, config.names) if teams and not games.empty else None
    if cached is not None:  # the tables are the folder's own: only the Teams? table was not stamped with them
        stamp = cached.stamp
        added = write and pairs is not None
        if added:
            write_teams(pairs, folder)
            write_stamp(folder, scoring, stamp.games, stamp.left_out, teams=True)
        # a page written before the Teams? table was is written again: not reused when the table was just added
        return FolderTables(Tables(scoring=scoring, **cached.frames), stamp.games, stamp.left_out, reused=not added,
                            frame=games, teams=pairs)
    if write and pairs is not None:
        write_teams(pairs, folder)
    return FolderTables(_as_stored(folder, _build(games, scoring, schedule), write, counted, left_out, pairs is not None),
                        counted, left_out, frame=games, teams=pairs)


def _stored_games(folder: Path, schedule: Schedule) -> pd.DataFrame:
    """``games.csv``'s complete games of the schedule (``attrs``: ``unreadable`` and ``foreign`` games left out)."""
    path = folder / GAMES_FILE
    try:
        # the columns of the Teams? test too: arena report tests the frame read here instead of reading it again
        games = load_games(path, schedule.config.players, (*TABLE_COLUMNS, *TEAMS_COLUMNS))
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


def _build(games: pd.DataFrame, scoring: str, schedule: Schedule) -> Tables:
    return build_tables(games, scoring, schedule.config.names)


def _as_stored(folder: Path, tables: Tables, write: bool, games: int, left_out: int, teams: bool) -> Tables:
    """``tables`` as their files hold them: written into ``folder`` (with their stamp) or, without ``write``,
    into a folder of their own, and read back, so that every number shown is the one stored."""
    if write:
        write_tables(folder, tables)
        write_stamp(folder, tables.scoring, games, left_out, teams=teams)
        return Tables(scoring=tables.scoring, **{name: read_table(folder / f"{name}.csv") for name in TABLE_NAMES})
    given = {name: getattr(tables, name) for name in TABLE_NAMES}
    with tempfile.TemporaryDirectory(prefix="arena-tables-") as scratch:  # a table not held stays not held
        write_tables(scratch, replace(tables, **{name: pd.DataFrame() for name, frame in given.items() if frame is None}))
        frames = {name: None if frame is None else read_table(Path(scratch) / f"{name}.csv")
                  for name, frame in given.items()}
    return Tables(scoring=tables.scoring, **frames)
