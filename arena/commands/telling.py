"""What the run commands (``arena run``, ``arena match``) say on standard error, unless told to be quiet."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import click


def teller(quiet: bool) -> Callable[[str], None]:
    """``say(line)``: ``line`` on standard error, unless ``quiet``."""
    def say(line: str) -> None:
        if not quiet:
            click.echo(line, err=True)

    return say


def tell_all(lines: Iterable[str]) -> None:
    """Every line on standard error, quiet or not (what went wrong, what changed)."""
    for line in lines:
        click.echo(line, err=True)


def show_played(summary: Any, title: str, say: Callable[[str], None], written: list[Path], *,
                notes: Sequence[str] = (), verdict: Sequence[str] = (), first: tuple[str, ...] = ()) -> None:
    """What run and match show when their games are stored (``summary``: a
    :class:`~arena.tournament.run.runner.RunSummary`): the ``notes`` (what went wrong or changed) and the
    games played on standard error; the standings under ``title``, then the ``verdict``'s lines, on
    standard output; then where the results are (``first`` and the ``written`` pictures and page among
    them), the time use and the faults."""
    from arena.display.terminal import output_width
    from arena.report.text import format_tables
    from arena.tournament.run import showing

    tell_all([*notes, *summary.changed])
    say(showing.played_line(summary))
    width = output_width()
    click.echo(format_tables(summary.tables, "text", title=title, only_standings=True, width=width), nl=False)
    if verdict:
        click.echo("\n" + "\n".join(verdict))
    for line in [showing.results_line(summary, written, first=first), *showing.time_lines(summary, width),
                 *showing.fault_lines(summary)]:
        say(line)
