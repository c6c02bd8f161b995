"""``arena report DIR``: rebuild and print a tournament's tables from its games.csv."""

from __future__ import annotations

from pathlib import Path

import click


@click.command(name="report")
@click.argument("folder", metavar="DIR")
@click.option("--format", "fmt", type=click.Choice(["text", "csv", "markdown", "json"]), default="text",
              show_default=True, help="How to print the tables.")
@click.option("--scoring", type=click.Choice(["uptown", "blockers"]), default=None,
              help="The scoring that decides wins and the order (default: the tournament's).")
def command(folder: str, fmt: str, scoring: str | None) -> None:
    """Print the standings, head-to-head and seat tables of the results folder DIR.

    The tables are rebuilt from DIR/games.csv without replaying any game, so
    this also works on a run that is still going on or was interrupted (only
    complete games are counted).
    """
    from ..tournament.results import build_tables, format_tables, load_games
    from ..tournament.schedule import count_games
    from ..tournament.store import GAMES_FILE, RunError, read_tournament

    path = Path(folder)
    try:
        config, _ = read_tournament(path)
    except RunError as exc:
        raise click.ClickException(str(exc)) from None
    games_path = path / GAMES_FILE
    if not games_path.exists():
        raise click.ClickException(f"{path}: no {GAMES_FILE} yet (the tournament has not stored a game)")
    try:
        games = load_games(games_path, config.players)
    except (ValueError, OSError) as exc:
        raise click.ClickException(str(exc)) from None
    if games.empty:
        raise click.ClickException(f"{games_path}: no complete game yet")
    scoring = scoring or config.scoring
    tables = build_tables(games, scoring, config.seed, config.names)
    stored = games["game_id"].nunique()
    total = count_games(config)
    title = config.name if stored == total else f"{config.name} (partial: {stored} of {total} games)"
    click.echo(format_tables(tables, fmt, title=title), nl=False)
    from ..tournament.match import read_match, summary_lines

    match = read_match(path)
    if match is not None and fmt == "text":  # a match's folder: its test and verdict too
        click.echo("\n" + "\n".join(summary_lines(match)))
