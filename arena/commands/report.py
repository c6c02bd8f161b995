"""``arena report DIR``: rebuild and print a tournament's tables from its games.csv."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from arena.results.files import TABLES

if TYPE_CHECKING:
    from arena.report.tables import Tables


@click.command(name="report")
@click.argument("folder", metavar="DIR")
@click.option("--format", "fmt", type=click.Choice(["text", "csv", "markdown", "json"]), default="text",
              show_default=True, help="How to print the tables: csv prints one table (see --table), json all.")
@click.option("--table", type=click.Choice(list(TABLES)), default=None,
              help="The one table to print: what --format csv writes (standings when not given); "
                   "with another format, only this table instead of all.")
@click.option("--scoring", type=click.Choice(["uptown", "blockers"]), default=None,
              help="The scoring that decides wins and the order (default: the tournament's).")
@click.option("--plots", is_flag=True,
              help="Also draw the tables as PNG pictures into DIR (and a match's LLR from DIR/match.json); "
                   "their paths go to standard error.")
@click.option("--plots-dir", metavar="OUT", default=None, help="Draw the --plots into OUT instead of DIR.")
@click.option("--html", "html", is_flag=True,
              help="Also write the tables, the plots found in DIR and replays of the first games as one HTML "
                   "page (DIR/report.html, the replays in games/ beside it); its path goes to standard error.")
@click.option("-o", "--out", "html_out", metavar="OUT.html", default=None, help="With --html: write the page here.")
@click.option("--watch", is_flag=True,
              help="Follow a run that is writing DIR (from another terminal, or another machine that reads the "
                   "folder): its standings, redrawn as games are stored, until every game is or no run holds DIR. "
                   "Not on a terminal: the standings as plain text each time they change.")
@click.option("--collusion", metavar="A,B", default=None,
              help="The detail of the collusion test of one pair of entrants, both ways, after the tables "
                   "(the Teams? section tests every pair).")
@click.option("--deal-key", metavar="HEX", default=None,
              help="The deal key of DIR's tournament (64 hex digits), for a copy of the folder without its deal.key: "
                   "the rows' seeds are checked against the schedule it deals.")
def command(
    folder: str, fmt: str, table: str | None, scoring: str | None, plots: bool, plots_dir: str | None,
    html: bool, html_out: str | None, watch: bool, collusion: str | None, deal_key: str | None,
) -> None:
    """Print the standings, head-to-head and seat tables of the results folder DIR.

    The tables are rebuilt from DIR/games.csv without replaying any game, so
    this also works on a run that is still going on or was interrupted (only
    complete games are counted).  Rows that are damaged, or not the games the
    tournament's schedule plays, are left out, and the count is printed.
    The standings are ordered by the rating, best first (README, Report).
    """
    from arena.display.terminal import output_width
    from arena.plan.schedule import count_games
    from arena.report.stamp import cached_tables
    from arena.report.tables import Tables
    from arena.report.text import format_tables
    from arena.results.files import GAMES_FILE, RunError
    from arena.results.store import read_tournament

    if html_out is not None and not html:
        raise click.UsageError("-o/--out is where --html writes its page: give --html too")
    if collusion is not None and fmt != "text":
        raise click.UsageError("--collusion prints lines of text: it takes no --format")
    path = Path(folder)
    try:
        config, _ = read_tournament(path, deal_key)
    except RunError as exc:
        raise click.ClickException(str(exc)) from None
    if watch:
        if fmt != "text" or table or plots or plots_dir or html:
            raise click.UsageError("--watch shows the standings as text: it takes no --format, --table, --plots or --html")
        _watch(path, config if scoring is None else replace(config, scoring=scoring))
        return
    games_path = path / GAMES_FILE
    if not games_path.exists():
        raise click.ClickException(f"{path}: no {GAMES_FILE} yet (the tournament has not stored a game)")
    scoring = scoring or config.scoring
    cached = cached_tables(path, scoring)
    if cached is not None:  # the run's own tables, of these very files: read, not built again
        frames, stamp = cached
        tables = Tables(scoring=scoring, **frames)
        ignored, stored = stamp.left_out, stamp.games
    else:
        tables, ignored, stored = _build(path, config, scoring)
    if ignored:
        click.echo(
            f"{games_path}: {ignored} game(s) left out: rows that are damaged or not the schedule's games "
            "(arena run FILE --resume checks every game and plays these again)", err=True,
        )
    if not stored:
        raise click.ClickException(f"{games_path}: no complete game yet")
    progress = (stored, count_games(config))
    from arena.report.match import summary_lines
    from arena.tournament.match.folder import read_match

    try:
        match = read_match(path)
    except RunError as exc:
        raise click.ClickException(str(exc)) from None
    try:
        text = format_tables(tables, fmt, title=config.name, width=output_width(), table=table, games=progress)
    except ValueError as exc:  # a table these results do not hold: nothing drawn or printed
        raise click.ClickException(f"{path}: {exc}") from None
    if plots or plots_dir is not None:  # before the tables: a picture that cannot be drawn is the command's one line
        _write_plots(Path(plots_dir) if plots_dir is not None else path, tables, match)
    teams = _teams(path, config, scoring) if (fmt == "text" and table is None) or html or collusion else None
    pair = _pair(teams, collusion) if collusion else []
    if html:
        from arena.report.html import write_report
        from arena.report.teams import TITLE, teams_display, teams_note, write_teams

        extra = [] if teams is None else [(TITLE, teams_display(teams), False, teams_note(teams))]
        try:
            if teams is not None:
                write_teams(teams, Path(html_out).parent if html_out else path)
            page = write_report(path, tables, config.name, html_out, extra=extra)
        except RunError as exc:
            raise click.ClickException(f"cannot write the HTML report: {exc}") from None
        click.echo(str(page), err=True)
    click.echo(text, nl=False)
    if fmt == "text" and table is None:
        if teams is not None:
            from arena.report.teams import teams_lines

            click.echo("\n".join(teams_lines(teams, output_width())))
        _echo_league(path, tables)
    if pair:
        click.echo("\n" + "\n".join(pair))
    if match is not None and fmt == "text" and table is None:  # a match's folder: its test and verdict too
        click.echo("\n" + "\n".join(summary_lines(match)))


def _build(path: Path, config: Any, scoring: str) -> tuple[Any, int, int]:
    """The tables built from ``path``'s games.csv: ``(tables, games left out, games counted)``."""
    from arena.plan.schedule import DealKeyMissing
    from arena.report.tables import TABLE_COLUMNS, build_tables, load_games
    from arena.results.checkpoints import rows_digest_matches
    from arena.results.files import GAMES_FILE
    from arena.results.verify import schedule_games

    games_path = path / GAMES_FILE
    try:
        games = load_games(games_path, config.players, (*TABLE_COLUMNS, "seed"))
    except (ValueError, OSError) as exc:
        raise click.ClickException(str(exc)) from None
    foreign = 0
    if not rows_digest_matches(path, games_path):  # rows the run checked need no second look at the schedule
        try:
            games, foreign = schedule_games(games, config)
        except DealKeyMissing:
            raise click.ClickException(f"{path}: its games' seeds are checked against the schedule, which is dealt "
                                       f"with the folder's deal key: it has no deal.key; give it with --deal-key HEX"
                                       ) from None
    ignored = games.attrs.get("unreadable", 0) + foreign
    if games.empty:
        return None, ignored, 0
    tables = build_tables(games, scoring, config.names)
    return tables, ignored, int(games["game_id"].nunique())


def _teams(path: Path, config: Any, scoring: str) -> Any:
    """The Teams? table of ``path``'s games (:mod:`arena.report.teams`); None with two players (no third party)."""
    if config.players < 3:
        return None
    from arena.report.tables import load_games
    from arena.report.teams import COLUMNS, teams_table
    from arena.results.files import GAMES_FILE

    try:
        games = load_games(path / GAMES_FILE, config.players, COLUMNS)
    except (ValueError, OSError) as exc:
        raise click.ClickException(str(exc)) from None
    return teams_table(games, scoring, config.names)


def _pair(teams: Any, collusion: str) -> list[str]:
    """The lines of ``--collusion A,B``."""
    from arena.display.terminal import output_width
    from arena.report.teams import pair_lines

    names = [name.strip() for name in collusion.split(",")]
    if len(names) != 2:
        raise click.UsageError(f"--collusion takes two entrants, A,B, not {collusion!r}")
    if teams is None:
        raise click.ClickException("--collusion: with two players there is no third party to compare with")
    try:
        return pair_lines(teams, names[0], names[1], output_width())
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None


#: Seconds between two looks at the folder ``--watch`` follows.
WATCH_EVERY = 2.0


def _watch(path: Path, config: Any) -> None:
    import sys

    from arena.plan.schedule import count_games
    from arena.report.live import watch as follow
    from arena.results.store import FolderLock

    stream = sys.stdout
    total = count_games(config)

    def running() -> bool | None:
        return FolderLock.held(path)

    try:
        follow(path, config, total, stream, stream.isatty(), WATCH_EVERY, running)
    except KeyboardInterrupt:  # stopping to watch is how watching ends
        sys.exit(0)


def _echo_league(path: Path, tables: Any) -> None:
    """A league's section: each entrant's games and when it joined (nothing for a folder never updated)."""
    from arena.display.terminal import output_width
    from arena.report.league import league_lines
    from arena.results.league import read_league

    league = read_league(path)
    if league is None:
        return
    games = dict(zip(tables.standings["entrant"], tables.standings["games"]))
    lines = league_lines(league, {str(k): int(v) for k, v in games.items()}, output_width())
    if lines:
        click.echo("\n" + "\n".join(lines))


def _write_plots(out: Path, tables: Tables, match: dict[str, Any] | None) -> None:
    """The pictures of ``tables`` (and of a sequential ``match``'s LLR) into ``out``, each path on standard error."""
    from arena.report.plots import PlotError, write_plots

    sequential = match is not None and isinstance((match.get("parameters") or {}).get("sprt"), dict)
    try:
        written = write_plots(out, tables, match if sequential else None)
    except PlotError as exc:
        raise click.ClickException(str(exc)) from None
    for picture in written:
        click.echo(str(picture), err=True)
