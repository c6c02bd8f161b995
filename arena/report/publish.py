"""What a results folder shows people beside its tables: the plots and ``report.html``, for run, match and report.

A run or a match publishes its folder when its games are stored: a picture or a page that cannot be
written then costs one line (:attr:`Published.problems`), never the results.  ``arena report`` asks for
them, with no log to write a failure to: there a failure is the command's one error line.  Tables the folder kept unchanged
(:attr:`~arena.report.stamp.FolderTables.reused`) keep their pictures and page as they are.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from arena.errors import os_error_line
from arena.report.folder_tables import FolderTables
from arena.report.tables import Tables
from arena.results.files import PLOT_FILES, REPORT_FILE, RunError


@dataclass
class Published:
    """What :func:`publish` wrote (pictures, then the page) and, when something could not be, why (a line each)."""

    paths: list[Path] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def sequential(match: dict[str, Any] | None) -> bool:
    """Whether ``match`` (``match.json``'s dict) is a sequential test's, with an LLR to draw."""
    return match is not None and isinstance((match.get("parameters") or {}).get("sprt"), dict)


@dataclass(frozen=True)
class Page:
    """The ``report.html`` :func:`publish` writes: where, its ``title``, the replays of the folder's first
    games beside it (``replays``: a run's and a match's own folder; else it links those the folder holds),
    and the ``teams`` table (:func:`~arena.report.teams.teams_table`) it shows."""

    path: Path
    title: str
    replays: bool = False
    teams: pd.DataFrame | None = None


def publish(
    folder: Path, found: FolderTables, match: dict[str, Any] | None = None, *,
    plots: Path | None = None, page: Page | None = None, log_file: Path | None = None,
) -> Published:
    """Draw ``found``'s tables (and a sequential ``match``'s LLR) into the folder ``plots`` and write the
    HTML report of ``folder`` as ``page`` (None: not drawn, not written).

    With a ``log_file`` (a run's, a match's) a failure is a line of :attr:`Published.problems`, also appended
    to the log; without one (``arena report``, which was asked for them) it raises
    (:class:`~arena.report.plots.PlotError`, :class:`RunError`).  The page's teams table goes into the page,
    and as ``teams.csv`` into the folder with the folder's own page; a ``match``'s verdict goes into the
    page's summary.
    """
    folder = Path(folder)
    strict = log_file is None
    done = Published()
    tables = found.tables
    if tables is None:  # no game stored: nothing to draw
        return done
    drawn = [folder / name for name in PLOT_FILES if (folder / name).is_file()]
    # Nothing changed since the page and its pictures were made: they stand (a page without pictures is made
    # again, with them when they are asked for, else in case it still shows pictures since removed).
    if not strict and found.reused and page is not None and page.path.is_file() and plots is not None and drawn:
        done.paths = drawn + [page.path]
        return done
    if plots is not None:
        done.paths += _plots(plots, tables, match if sequential(match) else None, strict, log_file, done)
    if page is not None:
        from arena.report.html import write_report
        from arena.report.teams import write_teams

        teams = page.teams
        try:
            if teams is not None and page.path.parent.resolve() == folder.resolve():  # a page elsewhere: that page alone
                write_teams(teams, folder)
            done.paths.append(write_report(folder, tables, page.title, page.path, replays=page.replays, match=match,
                                           teams=teams))
        except RunError as exc:
            if strict:
                raise RunError(f"cannot write the HTML report: {exc}") from None
            done.problems.append(f"cannot write the HTML report: {exc}")
    return done


def publish_played(folder: Path, found: FolderTables, title: str, match: dict[str, Any] | None, *, plots: bool,
                   log_file: Path) -> Published:
    """Publish a run's or a match's own folder when its games are stored: its pictures when ``plots`` (else
    the older ones removed), and its page with the replays of its first games."""
    if not plots:
        drop_plots(folder)
    page = Page(folder / REPORT_FILE, title, replays=True, teams=found.teams)
    return publish(folder, found, match, plots=folder if plots else None, page=page, log_file=log_file)


def drop_plots(folder: Path) -> None:
    """Remove the pictures ``folder`` holds: a run drawn without them must not show an older run's."""
    for name in PLOT_FILES:
        path = Path(folder) / name
        try:
            if path.is_file() or path.is_symlink():
                path.unlink()
        except OSError as exc:
            raise RunError(f"cannot remove the older picture {path}: {os_error_line(exc)}") from None


def _plots(into: Path, tables: Tables, match: dict[str, Any] | None, strict: bool, log_file: Path | None,
           done: Published) -> list[Path]:
    from arena.report.plots import try_write_plots, write_plots

    if strict:
        return write_plots(into, tables, match)
    written, problem = try_write_plots(into, tables, match, log_file=log_file)
    if problem is not None:
        done.problems.append(problem)
    return written
