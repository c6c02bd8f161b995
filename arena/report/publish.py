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
from arena.results.files import PLOT_FILES, RunError


@dataclass
class Published:
    """What :func:`publish` wrote (pictures, then the page) and, when something could not be, why (a line each)."""

    paths: list[Path] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def sequential(match: dict[str, Any] | None) -> bool:
    """Whether ``match`` (``match.json``'s dict) is a sequential test's, with an LLR to draw."""
    return match is not None and isinstance((match.get("parameters") or {}).get("sprt"), dict)


def publish(
    folder: Path, found: FolderTables, title: str, match: dict[str, Any] | None = None, *,
    plots: Path | None = None, page: Path | None = None, log_file: Path | None = None, teams: pd.DataFrame | None = None,
    replays: bool = False,
) -> Published:
    """Draw ``found``'s tables (and a sequential ``match``'s LLR) into the folder ``plots`` and write the
    HTML report of ``folder`` to ``page`` (None: not drawn, not written), with the replays of its first games
    beside it when ``replays`` (a run's and a match's own folder), else linking those the folder holds.

    With a ``log_file`` (a run's, a match's) a failure is a line of :attr:`Published.problems`, also appended
    to the log; without one (``arena report``, which was asked for them) it raises (:class:`~arena.report.plots.PlotError`, :class:`RunError`).  The ``teams`` table
    (:func:`~arena.report.teams.folder_teams`) goes into the page, and as ``teams.csv`` into the folder with the folder's own page; a
    ``match``'s verdict goes into the page's summary.
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
    if not strict and found.reused and page is not None and page.is_file() and plots is not None and drawn:
        done.paths = drawn + [page]
        return done
    if plots is not None:
        done.paths += _plots(plots, tables, match if sequential(match) else None, strict, log_file, done)
    if page is not None:
        from arena.report.html import write_report
        from arena.report.teams import write_teams

        try:
            if teams is not None and page.parent.resolve() == folder.resolve():  # a page elsewhere: that page alone
                write_teams(teams, folder)
            done.paths.append(write_report(folder, tables, title, page, replays=replays, match=match, teams=teams))
        except RunError as exc:
            if strict:
                raise RunError(f"cannot write the HTML report: {exc}") from None
            done.problems.append(f"cannot write the HTML report: {exc}")
    return done


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
