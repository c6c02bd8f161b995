"""``arena replay``: check a game record move by move and show the game."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Any

import click

from .. import records, render

#: The file of a tournament results folder that holds every game's record, one per line.
RECORDS_FILES = ("records.jsonl", "records.jsonl.gz")


def _is_lines_file(path: Path) -> bool:
    return path.name.endswith((".jsonl", ".jsonl.gz"))


def _find_game(path: Path, game_id: str) -> dict[str, Any]:
    """The record whose ``game_id`` is ``game_id`` in the JSON-lines file ``path``."""
    opener = gzip.open if path.name.endswith(".gz") else open
    # Skip lines without the id's text, unless the id is something JSON might write escaped.
    quick = re.fullmatch(r"[A-Za-z0-9_.:+-]+", game_id) is not None
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace") as lines:  # type: ignore[operator]
            for line in lines:
                if quick and game_id not in line:
                    continue
                try:
                    record = json.loads(line)
                except ValueError:
                    continue  # a half-written last line of an interrupted run
                if isinstance(record, dict) and str(record.get("game_id")) == game_id:
                    return record
    except (OSError, EOFError) as exc:
        raise click.ClickException(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    raise click.ClickException(f"no game with id {game_id} in {path}")


def _load(path: Path, game_id: str | None) -> dict[str, Any]:
    if path.is_dir():
        if game_id is None:
            raise click.UsageError(f"{path} is a folder: choose one of its games with --game ID")
        for name in RECORDS_FILES:
            if (path / name).is_file():
                return _find_game(path / name, game_id)
        raise click.ClickException(f"{path} holds no {' or '.join(RECORDS_FILES)}")
    if _is_lines_file(path) and path.is_file():
        if game_id is None:
            raise click.UsageError(f"{path} holds many games: choose one with --game ID")
        return _find_game(path, game_id)
    if game_id is not None:
        raise click.UsageError("--game picks a game from a results folder or a .jsonl file, not from one record")
    try:
        return records.load(path)
    except records.RecordError as exc:
        message = str(exc)
        raise click.ClickException(message if str(path) in message else f"{path}: {message}") from None


def _winners_text(game: records.Replay) -> str:
    winners = game.winners
    who = ", ".join(f"{game.names[s]} (seat {s})" for s in winners)
    return f"{'winners' if len(winners) > 1 else 'winner'} {who} under {game.settings.scoring} scoring"


@click.command("replay")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--verify", is_flag=True, help="Only check the record: exit 0 if it is valid, 1 with the reason if not.")
@click.option("--step", is_flag=True, help="Show the board after every move.")
@click.option("--game", "game_id", metavar="ID",
              help="With a tournament results folder or a .jsonl(.gz) file of records: the game to replay.")
def command(file: Path, verify: bool, step: bool, game_id: str | None) -> None:
    """Replay the game record FILE (format uptown-game/1), checking every move.

    Shows the final board and the result table. FILE may be gzipped (.gz),
    or a tournament results folder (or its records.jsonl[.gz]), with --game ID
    naming the game.
    """
    if verify and step:
        raise click.UsageError("--verify only checks; it does not go with --step")
    record = _load(file, game_id)
    label = f"{file} game {game_id}" if game_id is not None else str(file)
    try:
        game = records.replay(record)
    except records.RecordError as exc:
        raise click.ClickException(f"{label}: {exc}") from None
    if verify:
        click.echo(f"valid: {len(game.moves)} moves, {_winners_text(game)}")
        return
    # ANSI colors are written always; click.echo strips them unless stdout is a terminal.
    seed = f"seed {game.seed}, " if game.seed is not None else ""
    settings = game.settings
    click.echo(f"{label}: {seed}{settings.players} players, {settings.scoring} scoring, {len(game.moves)} moves")
    if step:
        for index, seat, move, captured, state in game.states():
            click.echo("")
            click.echo(render.describe_move(index, seat, move, captured, game.names))
            highlight = None if move.is_pass else move.cell
            click.echo(render.render_board(state, color=True, highlight=highlight, legend=False), nl=False)
        click.echo("")
        click.echo("final board:")
    click.echo(render.render_board(game.state, color=True, names=game.names), nl=False)
    click.echo("")
    faults = game.faults if "faults" in game.record else None
    click.echo(
        render.render_result(
            game.result, game.names, game.settings.scoring, faults=faults,
            colors=game.settings.seat_colors, color=True,
        ),
        nl=False,
    )
