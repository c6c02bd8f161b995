"""``arena play``: one game between 2-5 bots, refereed, with its board and result."""

from __future__ import annotations

import math
import os
import secrets
import tempfile
from pathlib import Path

import click

from ..rules.state import PENALTIES, SCORINGS
from ..terminal import color_option, output_width, printable, use_color


def _check_record_path(path: Path) -> None:
    """Fail before the game, not after it, when the record could not be written."""
    if path.is_dir():
        raise click.BadParameter(f"{path} is a folder, not a file", param_hint="'--record'")
    folder = path.parent
    if not folder.is_dir():
        raise click.BadParameter(f"folder {folder} does not exist", param_hint="'--record'")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise click.BadParameter(f"{path} is not writable", param_hint="'--record'")


def _log_folder(logs: Path | None) -> Path:
    """The folder for the bots' standard error: the one given (made if need be), or a new one."""
    if logs is None:
        return Path(tempfile.mkdtemp(prefix="arena-play-logs-"))
    try:
        logs.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise click.BadParameter(f"cannot make {logs}: {exc.strerror or exc}", param_hint="'--logs'") from None
    return logs


@click.command("play")
@click.argument("bots", nargs=-1, metavar="BOT BOT [BOT...]")
@click.option("--seed", type=int, help="The deal's seed (default: a random one, printed).")
@click.option("--scoring", type=click.Choice(SCORINGS), default="uptown", show_default=True,
              help="The scoring that decides the winner (both are shown).")
@click.option("--penalty", type=click.Choice(PENALTIES), default="color", show_default=True,
              help="Blockers! penalty: the largest count of one color, or of one opponent (C4).")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), default=None, metavar="SECONDS",
              help="Per-move time limit; a bot that runs past it is faulted (default 10).")
@click.option("--record", "record_path", type=click.Path(path_type=Path), metavar="FILE",
              help="Write the game record (uptown-game/1) to FILE.")
@click.option("--isolation", type=click.Choice(("process", "none")), default="process", show_default=True,
              help="process: every bot a program in the sandbox; none: Python bots in this process (trusted code).")
@click.option("--logs", "logs", type=click.Path(file_okay=False, path_type=Path), metavar="DIR",
              help="The folder for the bots' standard error (default: a new temporary folder, printed).")
@click.option("--transcript", "transcript_path", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Write every protocol line between the referee and the bot programs to FILE.")
@click.option("--quiet", "-q", is_flag=True, help="Print only the seed, the winner and any faults.")
@color_option
def command(
    bots: tuple[str, ...],
    seed: int | None,
    scoring: str,
    penalty: str,
    time_limit: float | None,
    record_path: Path | None,
    isolation: str,
    logs: Path | None,
    transcript_path: Path | None,
    quiet: bool,
    color: bool | None,
) -> None:
    """Play one game between 2 to 5 BOTs and show the final board and the result.

    A BOT is a name from `arena bots`, package.module:Name,
    path/to/file.py:Name or exec:COMMAND (any program that speaks the
    protocol uptown-bot/1), optionally followed by options:
    mcts:iterations=400,seconds=0.5.  Seat 0 (the first BOT) moves first.

    \b
    Examples:
      arena play random random random random
      arena play greedy mcts:iterations=200 --seed 7 --record game.json
      arena play examples/example_bot.py:ExampleBot random --time-limit 2
      arena play "exec:node examples/protocol/random_bot.js" greedy
    """
    from .. import records, render
    from ..bots import BotError, split_bot_spec
    from ..referee import DEFAULT_TIME_LIMIT, Referee

    if not 2 <= len(bots) <= 5:
        raise click.UsageError(f"Uptown is played by 2 to 5 bots, not {len(bots)}")
    for text in bots:
        try:
            split_bot_spec(text)
        except BotError as exc:
            raise click.ClickException(str(exc)) from None
    if record_path is not None:
        _check_record_path(record_path)
    if seed is None:
        seed = secrets.randbits(63)  # too many to try: a bot cannot find the deal from its own tiles
    limit = DEFAULT_TIME_LIMIT if time_limit is None else time_limit
    log_dir = _log_folder(logs)

    transcript = None
    if transcript_path is not None:
        try:
            transcript = open(transcript_path, "w", encoding="utf-8")  # noqa: SIM115 - closed below
        except OSError as exc:
            raise click.BadParameter(f"cannot write {transcript_path}: {exc.strerror or exc}",
                                     param_hint="'--transcript'") from None
    referee = Referee(limit, isolation=isolation, logs=log_dir, transcript=transcript)
    try:
        with referee:
            try:
                players = referee.prepare_all([(text, "", None) for text in bots])
            except BotError as exc:
                raise click.ClickException(str(exc)) from None
            outcome = referee.play(players, seed, scoring=scoring, penalty=penalty)
    finally:
        referee.close()
        if transcript is not None:
            transcript.close()
    walls = sorted(set(referee.walls.values()))
    state = outcome.state
    names = [player["name"] for player in outcome.record["players"]]

    if record_path is not None:
        try:
            records.write(record_path, outcome.record)
        except OSError as exc:
            raise click.ClickException(
                f"cannot write the record to {record_path}: {exc.strerror or exc}"
            ) from None

    if quiet:
        winners = ", ".join(f"{printable(names[s])} (seat {s})" for s in outcome.winners)
        line = f"seed {seed}: {'winners' if len(outcome.winners) > 1 else 'winner'} {winners} under {scoring} scoring"
        if outcome.faults:
            line += "; faults: " + ", ".join(
                f"seat {f['seat']} {printable(f['kind'])} at move {f['move']}" for f in outcome.faults
            )
            line += f"; bot logs in {log_dir}"
        click.echo(line)
        return
    shown_limit = "no time limit" if math.isinf(limit) else f"time limit {limit:g} s"
    click.echo(
        f"seed {seed}, {state.settings.players} players, {scoring} scoring, "
        f"{len(state.history)} moves, {shown_limit}"
    )
    colored = use_color(color)
    click.echo(render.render_board(state, color=colored, names=names, width=output_width()), nl=False, color=colored)
    click.echo("")
    click.echo(
        render.render_result(
            outcome.result, names, scoring, faults=outcome.faults,
            colors=state.settings.seat_colors, color=colored, width=output_width(),
        ),
        nl=False, color=colored,
    )
    for line in walls:
        click.echo(f"bots ran in {line}")
    if isolation == "none":
        click.echo("Python bots ran in this process (isolation none: trusted code only)")
    click.echo(f"bot logs (their standard error) in {log_dir}")
    if record_path is not None:
        click.echo(f"record written to {record_path}")
