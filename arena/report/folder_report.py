"""``arena report DIR`` as one library call: :func:`report_folder` reads a results folder and returns what
the command prints (:class:`FolderReport`), having drawn the pictures and written the page it was asked for.

The command parses its options into :class:`ReportOptions`, calls this, and prints: as ``arena run`` calls
:func:`~arena.tournament.run.runner.run_tournament` and ``arena match`` calls ``run_match``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.errors import ArenaError

if TYPE_CHECKING:
    import pandas as pd

    from arena.report.tables import Tables


class ReportError(ArenaError):
    """A folder that has nothing to report, or a table it does not hold; the message is one line."""


@dataclass(frozen=True)
class ReportOptions:
    """What ``arena report`` is asked for: the ``fmt`` and ``table`` printed, the ``scoring`` that decides
    (None: the tournament's), where the pictures are drawn (``plots``; None: none), where the page is written
    (``page``; None: none) with its ``replays``, the one pair whose ``collusion`` detail is printed alone,
    the folder's ``deal_key`` when it lacks its key file, and the terminal's ``width``."""

    fmt: str = "text"
    table: str | None = None
    scoring: str | None = None
    plots: Path | None = None
    page: Path | None = None
    replays: bool = False
    collusion: str | None = None
    deal_key: str | None = None
    width: int | None = None


@dataclass
class FolderReport:
    """What the command prints on standard output: the ``text`` of the tables, then the ``sections``
    (Teams?, a league's, a match's test)."""

    text: str = ""
    sections: list[str] = field(default_factory=list)


def report_folder(path: Path, options: ReportOptions, tell: Callable[[str], None] = lambda line: None) -> FolderReport:
    """The report of the results folder ``path``: its tables rebuilt from ``games.csv`` (rows that are
    damaged or not the schedule's left out), the pictures and page drawn where ``options`` says.

    ``tell`` hears each note as it comes (how the folder was read, the rows left out) and each path written;
    :class:`ReportError` (or another :class:`~arena.errors.ArenaError`) when the report cannot be made."""
    from arena.plan.schedule import Schedule
    from arena.report.folder_tables import folder_tables
    from arena.report.publish import Page, publish
    from arena.report.teams import pair_lines
    from arena.report.text import format_tables
    from arena.results.files import GAMES_FILE
    from arena.results.league import folder_numbering
    from arena.results.match_file import read_match
    from arena.results.tournament_file import read_tournament

    report = FolderReport()
    notes: list[str] = []
    config, _ = read_tournament(path, options.deal_key, notes)
    for note in notes:
        tell(note)
    schedule = Schedule(config, folder_numbering(path))
    if not (path / GAMES_FILE).exists():
        raise ReportError(f"{path}: no {GAMES_FILE} yet (the tournament has not stored a game)")
    whole = options.fmt == "text" and options.table is None
    found = folder_tables(path, schedule, options.scoring,
                          teams=whole or options.page is not None or options.collusion is not None)
    if found.left_out:
        tell(f"{path / GAMES_FILE}: {found.left_out} game(s) left out: rows that are damaged or not the schedule's "
             "games (arena run FILE --resume checks every game and plays these again)")
    if not found.games or found.tables is None:
        raise ReportError(f"{path / GAMES_FILE}: no complete game yet")
    match = read_match(path)
    try:
        report.text = format_tables(found.tables, options.fmt, title=config.name, width=options.width,
                                    table=options.table, games=(found.games, len(schedule)))
    except ValueError as exc:  # a table these results do not hold: nothing drawn or printed
        raise ReportError(f"{path}: {exc}") from None
    # Before the tables: a picture or page that cannot be written is the command's one line.
    teams = found.teams
    page = Page(options.page, config.name, options.replays, teams) if options.page is not None else None
    for written in publish(path, found, match, plots=options.plots, page=page).paths:
        tell(str(written))
    if options.collusion is not None:  # the one pair's detail, alone: the tables are what arena report DIR prints
        report.text = ""
        report.sections = ["\n".join(pair_lines(teams, options.collusion, options.width))]
    elif whole:
        report.sections = _sections(path, found.tables, teams, match, options.width)
    return report


def _sections(path: Path, tables: Tables, teams: pd.DataFrame | None, match: dict[str, Any] | None,
              width: int | None) -> list[str]:
    """What the text report prints after the tables: Teams?, a league's section, a match's test and verdict."""
    from arena.report.league import league_lines
    from arena.report.match import summary_lines
    from arena.report.teams import teams_lines
    from arena.results.league import read_league

    sections = []
    if teams is not None:
        sections.append("\n".join(teams_lines(teams, width)))
    league = read_league(path)
    if league is not None:
        standings = tables.standings
        games = {str(k): int(v) for k, v in zip(standings["entrant"], standings["games"])}
        lines = league_lines(league, games, width)
        if lines:
            sections.append("\n" + "\n".join(lines))
    if match is not None:
        sections.append("\n" + "\n".join(summary_lines(match)))
    return sections
