"""``arena replay``: check a game record move by move and show the game."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click

from arena import records
from arena.display import text as render
from arena.display.terminal import color_option, output_width, printable, use_color
from arena.results.finding import RECORDS_FILES, find_in_file, records_in

#: What a key press does at the ``--step`` prompt on a terminal.
NEXT_KEYS = ("\r", "\n", " ", "n")
QUIT_KEYS = ("q", "Q")


class NoSuchGame(records.RecordError):
    """A file of many games holds none with the id asked for."""


def _is_lines_file(path: Path) -> bool:
    return path.name.endswith((".jsonl", ".jsonl.gz"))


def _find_game(path: Path, game_id: str) -> dict[str, Any]:
    """The record whose ``game_id`` is ``game_id`` in the JSON-lines file ``path``."""
    try:
        found = find_in_file(path, game_id)
    except OSError as exc:
        raise click.ClickException(f"cannot read {printable(path)}: {records.read_error(exc)}") from None
    if found.record is not None:
        return found.record
    if found.damaged:
        raise click.ClickException(f"cannot read {printable(path)}: a gzip member is damaged or cut short before "
                                   f"game {printable(game_id)} was found")
    where = f" ({found.why_not})" if found.why_not else ""
    raise NoSuchGame(f"no game with id {printable(game_id)} in {printable(path)}{where}")


def _load(path: Path, game_id: str | None) -> dict[str, Any]:
    shown = printable(path)
    if path.is_dir():
        if game_id is None:
            raise click.UsageError(f"{shown} is a folder: choose one of its games with --game ID")
        found = records_in(path)
        if found is not None:
            return _find_game(found, game_id)
        raise click.ClickException(f"{shown} holds no {' or '.join(RECORDS_FILES)}")
    if _is_lines_file(path) and path.is_file():
        if game_id is None:
            raise click.UsageError(f"{shown} holds many games: choose one with --game ID")
        return _find_game(path, game_id)
    if game_id is not None:
        raise click.UsageError("--game picks a game from a results folder or a .jsonl file, not from one record")
    try:
        return records.load(path)
    except records.RecordError as exc:
        message = printable(exc)
        raise records.RecordError(message if shown in message else f"{shown}: {message}") from None


def _label(path: Path, game_id: str | None) -> str:
    """How the game is named in what is shown: its file, and its id in a file of many."""
    return printable(f"{path} game {game_id}" if game_id is not None else path)


def _replayed(record: dict[str, Any], path: Path, game_id: str | None) -> records.Replay:
    """The record replayed and checked move by move; a :class:`~arena.records.RecordError` naming the game if it fails."""
    try:
        return records.replay(record)
    except records.RecordError as exc:
        raise records.RecordError(f"{_label(path, game_id)}: {printable(exc)}") from None


def _winners_text(game: records.Replay) -> str:
    winners = game.winners
    who = ", ".join(f"{printable(game.names[s])} (seat {s})" for s in winners)
    return f"{'winners' if len(winners) > 1 else 'winner'} {who} under {game.settings.scoring} scoring"


def _move_range(game: records.Replay, first: int | None, last: int | None) -> range:
    """The 0-based moves ``--from``/``--to`` ask for; a UsageError (one line) for a move the game does not have."""
    n = len(game.moves)
    span = f"the game has {n} moves, 0-{n - 1}" if n else "the game has no moves"
    for option, value in (("--from", first), ("--to", last)):
        if value is not None and not 0 <= value < n:
            raise click.UsageError(f"{option} {value}: {span}")
    start = 0 if first is None else first
    stop = n - 1 if last is None else last
    if start > stop:
        raise click.UsageError(f"--from {start} comes after --to {stop}")
    return range(start, stop + 1)


def _interactive() -> bool:
    """Step with key presses only when a person is there to press them: stdin and stdout both terminals."""
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


@contextlib.contextmanager
def _keys() -> Iterator[Iterator[str]]:
    """Key presses at the step prompt, one at a time, unechoed; Ctrl-C and Ctrl-D end them like ``q``.

    The terminal is put in cbreak mode once for the whole replay (and put back
    after), so a key pressed before a prompt is shown is kept, not flushed.
    """
    try:
        import termios
        import tty
    except ImportError:  # no termios (Windows): Click reads the keys
        yield _presses(click.getchar)
        return
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd, termios.TCSANOW)
        yield _presses(lambda: os.read(fd, 32).decode("utf-8", errors="replace"))
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def _presses(read: Callable[[], str]) -> Iterator[str]:
    while True:
        try:
            key = read()
        except (KeyboardInterrupt, EOFError):
            return
        if not key:  # the end of input
            return
        # One read may hold several keys (typed ahead, or an arrow key's sequence): one at a time.
        for char in key:
            if char in ("\x03", "\x04"):  # Ctrl-C or Ctrl-D read as keys
                return
            yield char


def _step(game: records.Replay, moves: range, color: bool) -> bool:
    """Show the board and racks after each move in ``moves``; False if the viewer quit before the last."""
    if not _interactive():
        _show_steps(game, moves, color, None)
        return True
    with _keys() as keys:
        try:
            return _show_steps(game, moves, color, keys)
        except KeyboardInterrupt:  # Ctrl-C while a board is being shown: quit like q
            click.echo("")
            return False


def _show_steps(game: records.Replay, moves: range, color: bool, keys: Iterator[str] | None) -> bool:
    times = game.times
    for index, seat, move, captured, state in game.states():
        if index < moves.start:
            continue
        if index >= moves.stop:
            break
        click.echo("")
        click.echo(render.describe_move(index, seat, move, captured, game.names)
                   + ("" if times is None else render.move_time_text(times[index])))
        highlight = None if move.is_pass else move.cell
        click.echo(render.render_board(state, color=color, highlight=highlight, legend=False), nl=False, color=color)
        click.echo(render.render_racks(state, game.names, color=color), nl=False, color=color)
        if keys is None or index == moves.stop - 1:
            continue
        click.echo(f"[move {index} of 0-{len(game.moves) - 1}] Enter: next move, q: quit ", nl=False)
        key = next((k for k in keys if k in NEXT_KEYS or k in QUIT_KEYS), "q")
        click.echo("")
        if key in QUIT_KEYS:
            return False
    return True


@click.command("replay")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--verify", is_flag=True, help="Only check the record: exit 0 if it is valid, 1 with the reason if not.")
@click.option("--step", is_flag=True,
              help="Show the board and every color's rack after each move; on a terminal, wait for Enter "
                   "(q quits) between moves.")
@click.option("--from", "first", type=int, metavar="K", help="With --step: start at move K (moves count from 0).")
@click.option("--to", "last", type=int, metavar="K", help="With --step: stop after move K.")
@click.option("--game", "game_id", metavar="ID",
              help="With a tournament results folder or a .jsonl(.gz) file of records: the game to replay.")
@color_option
def command(
    file: Path, verify: bool, step: bool, first: int | None, last: int | None, game_id: str | None,
    color: bool | None,
) -> None:
    """Replay the game record FILE (format uptown-game/1), checking every move.

    Shows the final board and the result table. FILE may be gzipped (.gz),
    or a tournament results folder (or its records.jsonl[.gz]), with --game ID
    naming the game.
    With --step the board follows every move; when standard input or output
    is not a terminal the boards are printed one after another without waiting.
    """
    if verify and step:
        raise click.UsageError("--verify only checks; it does not go with --step")
    if (first is not None or last is not None) and not step:
        raise click.UsageError("--from and --to choose the moves of --step")
    record = _load(file, game_id)
    game = _replayed(record, file, game_id)
    if verify:
        click.echo(f"valid: {len(game.moves)} moves, {_winners_text(game)}")
        return
    moves = _move_range(game, first, last) if step else range(0)
    colored = use_color(color)
    seed = f"seed {game.seed}, " if game.seed is not None else ""
    settings = game.settings
    click.echo(f"{_label(file, game_id)}: {seed}{settings.players} players, {settings.scoring} scoring, "
               f"{len(game.moves)} moves")
    if step:
        if not _step(game, moves, colored):
            return
        if moves.stop < len(game.moves):
            click.echo(f"\n(stopped after move {moves.stop - 1}; the game has {len(game.moves)} moves)")
            return
        click.echo("")
        click.echo("final board:")
    faults = game.faults if "faults" in game.record else None
    click.echo(render.render_final(game.state, game.names, game.result, faults=faults, clock=game.record.get("clock"),
                                   color=colored, width=output_width()), nl=False, color=colored)
