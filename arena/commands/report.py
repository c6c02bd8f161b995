"""``arena report DIR``: rebuild and print a tournament's tables from its games.csv."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from arena.commands.options import deal_key_option, with_options
from arena.results.files import TABLES

_options = with_options(
    click.argument("folder", metavar="DIR"),
    click.option("--format", "fmt", type=click.Choice(["text", "csv", "markdown", "json"]), default="text",
                 show_default=True, help="How to print the tables: csv prints one table (see --table), json all."),
    click.option("--table", type=click.Choice(list(TABLES)), default=None,
                 help="The one table to print: what --format csv writes (standings when not given); "
                      "with another format, only this table instead of all."),
    click.option("--scoring", type=click.Choice(["uptown", "blockers"]), default=None,
                 help="The scoring that decides wins and the order (default: the tournament's)."),
    click.option("--plots", is_flag=True,
                 help="Also draw the tables as PNG pictures into DIR (and a match's LLR from DIR/match.json); "
                      "their paths go to standard error."),
    click.option("--plots-dir", metavar="OUT", default=None, help="Draw the --plots into OUT instead of DIR."),
    click.option("--html", "html", is_flag=True,
                 help="Also write the tables, the plots found in DIR and the games as one HTML page (DIR/report.html, "
                      "or --out); it links the replay pages DIR/games/ holds, and writes nothing else unless "
                      "--replays. Its path goes to standard error."),
    click.option("-o", "--out", "html_out", metavar="OUT.html", default=None, help="With --html: write the page here."),
    click.option("--replays", is_flag=True,
                 help="With --html: also write the replay pages of the first 100 games beside the page (games/ID.html), "
                      "as arena run does."),
    click.option("--watch", is_flag=True,
                 help="Follow a run that is writing DIR (from another terminal, or another machine that reads the "
                      "folder): its standings, redrawn as games are stored, until every game is or no run holds DIR. "
                      "Not on a terminal: the standings as plain text each time they change."),
    click.option("--collusion", metavar="A,B", default=None,
                 help="Print only the detail of the collusion test of one pair of entrants, both ways "
                      "(the Teams? section of the report tests every pair)."),
    deal_key_option("The deal key of DIR's tournament (64 hex digits), for a copy of the folder without its deal.key: "
                    "the rows' seeds are checked against the schedule it deals."),
)


@click.command(name="report")
@_options
def command(
    folder: str, fmt: str, table: str | None, scoring: str | None, plots: bool, plots_dir: str | None,
    html: bool, html_out: str | None, replays: bool, watch: bool, collusion: str | None, deal_key: str | None,
) -> None:
    """Print the standings, head-to-head and seat tables of the results folder DIR.

    The tables are rebuilt from DIR/games.csv without replaying any game, so
    this also works on a run that is still going on or was interrupted (only
    complete games are counted).  Rows that are damaged, or not the games the
    tournament's schedule plays, are left out, and the count is printed.
    The standings are ordered by the rating, best first (README, Report).
    """
    from arena.display.terminal import output_width
    from arena.plan.schedule import Schedule
    from arena.report.folder_report import ReportOptions, report_folder
    from arena.results.files import REPORT_FILE
    from arena.results.league import folder_numbering
    from arena.results.tournament_file import read_tournament

    _refuse_together(click.get_current_context().params)
    path = Path(folder)
    if watch:
        notes: list[str] = []
        config, _ = read_tournament(path, deal_key, notes)
        for line in notes:
            click.echo(line, err=True)
        _watch(path, Schedule(config, folder_numbering(path)), scoring)
        return
    pictures = (Path(plots_dir) if plots_dir is not None else path) if plots or plots_dir is not None else None
    page = (Path(html_out) if html_out is not None else path / REPORT_FILE) if html else None
    options = ReportOptions(fmt, table, scoring, pictures, page, replays, collusion, deal_key, output_width())
    report = report_folder(path, options, lambda line: click.echo(line, err=True))
    click.echo(report.text, nl=False)
    for section in report.sections:
        click.echo(section)


def _refuse_together(given: dict[str, Any]) -> None:
    """Options that need or exclude each other (``given``: the command's parameters), refused before
    anything is read."""
    html = given["html"]
    if given["html_out"] is not None and not html:
        raise click.UsageError("-o/--out is where --html writes its page: give --html too")
    if given["replays"] and not html:
        raise click.UsageError("--replays are the pages --html links: give --html too")
    if given["collusion"] is not None and given["fmt"] != "text":
        raise click.UsageError("--collusion prints lines of text: it takes no --format")
    if given["watch"] and (given["fmt"] != "text" or given["table"] or given["plots"] or given["plots_dir"] or html):
        raise click.UsageError("--watch shows the standings as text: it takes no --format, --table, --plots or --html")


#: Seconds between two looks at the folder ``--watch`` follows.
WATCH_EVERY = 2.0


def _watch(path: Path, schedule: Any, scoring: str | None) -> None:
    import sys

    from arena.report.live import watch as follow
    from arena.results.lock import FolderLock

    stream = sys.stdout
    config = schedule.config if scoring is None else replace(schedule.config, scoring=scoring)

    def running() -> bool | None:
        return FolderLock.held(path)

    try:
        follow(path, config, len(schedule), stream, stream.isatty(), WATCH_EVERY, running)
    except KeyboardInterrupt:  # stopping to watch is how watching ends
        sys.exit(0)
