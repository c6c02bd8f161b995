"""``arena play``: one game between 2-5 bots, refereed, with its board and result."""

from __future__ import annotations

import errno
import functools
import math
import os
import secrets
import stat
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

import click

from arena.display.terminal import color_option, output_width, printable, use_color
from arena.play import ranges as limits
from arena.rules.state import PENALTIES, SCORINGS


class TimeLimit(click.ParamType):
    """Seconds per move, checked by the rule tournament files use (:func:`arena.play.ranges.time_limit`)."""

    name = "seconds"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> float:
        if isinstance(value, float):
            number: object = value
        else:
            try:
                number = float(str(value))
            except ValueError:
                self.fail(f"{limits.shown(value)} is not a number of seconds", param, ctx)
        try:
            return limits.time_limit(number)
        except limits.LimitError as exc:
            self.fail(str(exc), param, ctx)


class Clock(click.ParamType):
    """A game clock, ``[MOVES/]BASE[+INCREMENT]`` in seconds, checked by the rule tournament files use
    (:func:`arena.play.clock.parse_clock`); kept as the text given."""

    name = "clock"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from arena.play.clock import parse_clock

        try:
            parse_clock(value)
        except limits.LimitError as exc:
            self.fail(str(exc), param, ctx)
        return str(value).strip()


class Overage(click.ParamType):
    """An overage bank in seconds (:func:`arena.play.clock.parse_overage`)."""

    name = "seconds"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> float:
        from arena.play.clock import parse_overage

        try:
            number = value if isinstance(value, float) else float(str(value))
        except ValueError:
            self.fail(f"{limits.shown(value)} is not a number of seconds", param, ctx)
        try:
            return parse_overage(number)
        except limits.LimitError as exc:
            self.fail(str(exc), param, ctx)


def clock_options(what: str) -> Callable[[Callable[..., object]], Callable[..., object]]:
    """The ``--clock`` and ``--overage`` options of ``arena play``, ``run`` and ``match``; ``what`` ends their help."""
    def decorate(command: Callable[..., object]) -> Callable[..., object]:
        command = click.option(
            "--overage", type=Overage(), default=None, metavar="SECONDS",
            help="An overage bank: seconds a bot may spend past the time limit over the whole game" + what)(command)
        return click.option(
            "--clock", type=Clock(), default=None, metavar="[MOVES/]BASE+INC",
            help="A game clock for every bot seat: BASE seconds for the game plus INC after each move, BASE "
                 "again every MOVES moves when given (60+0.5, 24/60+0); a bot out of time loses on time" + what,
        )(command)
    return decorate


class Seed(click.ParamType):
    """A deal's seed: any whole number (rule S1), shown shortened when it is refused."""

    name = "integer"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        try:
            return int(str(value).strip())
        except ValueError:
            self.fail(f"{limits.shown(value)} is not a valid integer", param, ctx)


#: ``--record -``: the record goes to standard output, everything else to standard error.
STDOUT = "-"


def _check_record_path(path: Path) -> None:
    """Fail before the game, not after it, when the record could not be written.

    What :func:`arena.records.write` does with ``path`` decides what is checked: a device or a FIFO
    is written through (it must be writable), anything else is a file replaced in its folder
    (found through any symbolic link), which must exist and be writable.
    """
    def bad(reason: str) -> click.BadParameter:
        return click.BadParameter(reason, param_hint="'--record'")

    try:
        mode: int | None = path.stat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:  # a loop of links, a file where a folder should be
        raise bad(f"cannot use {path}: {exc.strerror or exc}") from None
    if mode is not None and stat.S_ISDIR(mode):
        raise bad(f"{path} is a folder, not a file")
    if mode is not None and not stat.S_ISREG(mode):
        if not os.access(path, os.W_OK):
            raise bad(f"{path} is not writable")
        return
    target = Path(os.path.realpath(path))
    folder = target.parent if path.is_symlink() else path.parent
    if not folder.is_dir():
        via = f"{path} leads to {target}, but its " if path.is_symlink() else ""
        raise bad(f"{via}folder {folder} does not exist")
    if not os.access(folder, os.W_OK) or (mode is not None and not os.access(target, os.W_OK)):
        raise bad(f"{path} is not writable")


def _write_stdout(text: str) -> None:
    """``text`` to standard output; a one-line error if it cannot be written (a full disk, a closed pipe)."""
    try:
        click.echo(text, nl=False)
    except OSError as exc:
        try:  # so that the interpreter's last flush at exit does not fail again, with a traceback
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        raise click.ClickException(f"cannot write the record to standard output: {exc.strerror or exc}") from None


def _open_transcript(path: Path) -> TextIO:
    """The transcript file, made anew and readable by its owner only (it shows every rack); never
    written through a symbolic link."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        why = "it is a symbolic link" if exc.errno == errno.ELOOP else exc.strerror or exc
        raise click.BadParameter(f"cannot write {path}: {why}", param_hint="'--transcript'") from None
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.fchmod(fd, 0o600)  # an older file kept its mode
        return open(fd, "w", encoding="utf-8")  # noqa: SIM115 - closed by the caller
    except OSError as exc:
        os.close(fd)
        raise click.BadParameter(f"cannot write {path}: {exc.strerror or exc}", param_hint="'--transcript'") from None


def _seat_log(seat: int, text: str) -> str:
    """The name of a seat's log in ``arena play``: the seat and the bot's short name (``seat0-mcts``,
    ``seat1-rustbot``), without its options or folders."""
    from arena.play.referee import log_name
    from arena.plugins.specs import BotError, split_bot_spec

    try:
        ref = split_bot_spec(text)[0]
    except BotError:
        ref = text  # refused by prepare_all with its reason
    return f"seat{seat}-{log_name(ref, folder=False)}"


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
@click.option("--seed", type=Seed(), help="The deal's seed, any whole number (default: a random 63-bit one, printed).")
@click.option("--scoring", type=click.Choice(SCORINGS), default="uptown", show_default=True,
              help="The scoring that decides the winner (both are shown).")
@click.option("--penalty", type=click.Choice(PENALTIES), default="color", show_default=True,
              help="Blockers! penalty: the largest count of one color, or of one opponent (C4).")
@click.option("--time-limit", type=TimeLimit(), default=limits.DEFAULT_TIME_LIMIT, show_default=True,
              metavar="SECONDS",
              help=f"Seconds a bot may take per move (above 0, at most {limits.MAX_TIME_LIMIT:g}); a bot that "
                   "runs past it is faulted, and its seat plays random legal moves from then on.")
@clock_options(".")
@click.option("--record", "record_to", type=click.Path(allow_dash=True), metavar="FILE",
              help="Write the game record (uptown-game/1) to FILE; '-': to standard output, and the rest of "
                   "the output to standard error.  A regular file is replaced whole (a symbolic link is followed, "
                   "and stays); a device or a FIFO is written to, never replaced.")
@click.option("--isolation", type=click.Choice(("process", "none")), default="process", show_default=True,
              help="process: every bot a program in the sandbox; none: Python bots in this process, for trusted code "
                   "(exec: bots are programs either way).")
@click.option("--logs", "logs", type=click.Path(file_okay=False, path_type=Path), metavar="DIR",
              help="The folder for the bots' standard error, one file per bot (default: a new temporary folder, "
                   "named in the output).")
@click.option("--transcript", "transcript_path", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Write every protocol line between the referee and the bot programs to FILE (made readable "
                   "by you alone, and hidden from the bots: it shows every rack).")
@click.option("--quiet", "-q", is_flag=True,
              help="Print one line: the seed, the winner and any faults (with the bots' logs folder).")
@color_option
def command(
    bots: tuple[str, ...],
    seed: int | None,
    scoring: str,
    penalty: str,
    time_limit: float,
    clock: str | None,
    overage: float | None,
    record_to: str | None,
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
    The BOT human is you, at this terminal, with no time limit (type ? at
    your turn for the moves, q to resign).

    \b
    Examples:
      arena play random random random random
      arena play greedy mcts:iterations=200 --seed 7 --record game.json
      arena play examples/example_bot.py:ExampleBot random --time-limit 2
      arena play mcts:iterations=0,clock_share=0.05 greedy --clock 20+0.2
      arena play "exec:node examples/protocol/random_bot.js" greedy
      arena play human mcts random
    """
    from arena import records
    from arena.display import text as render
    from arena.play.referee import Referee
    from arena.plugins.specs import BotError, split_bot_spec

    if not 2 <= len(bots) <= 5:
        raise click.UsageError(f"Uptown is played by 2 to 5 bots, not {len(bots)}")
    for text in bots:
        try:
            split_bot_spec(text)
        except BotError as exc:
            raise click.ClickException(str(exc)) from None
    to_stdout = record_to == STDOUT
    record_path = None if record_to is None or to_stdout else Path(record_to)
    if record_path is not None:
        _check_record_path(record_path)
    # With the record on standard output, nothing else may go there.
    echo = functools.partial(click.echo, err=to_stdout)
    if seed is None:
        seed = secrets.randbits(63)  # too many to try: a bot cannot find the deal from its own tiles
    limit = time_limit
    log_dir = _log_folder(logs)

    transcript = None if transcript_path is None else _open_transcript(transcript_path)
    from arena.plan.config import Entrant
    from arena.play.clock import time_control
    from arena.play.human import HUMAN, Terminal
    from arena.play.prepared import with_identity
    from arena.results.identity import bot_identity

    screen = sys.stderr if to_stdout else sys.stdout
    terminal = Terminal(sys.stdin, screen, use_color(color, screen), output_width(screen))
    # The transcript holds every seat's rack: no bot may see it.
    hide = () if transcript_path is None else (str(transcript_path),)
    control = time_control(clock, overage)
    referee = Referee(limit, isolation=isolation, logs=log_dir, hide=hide, transcript=transcript, terminal=terminal,
                      clock=control)
    try:
        with referee:
            try:
                # Each seat's log is named after the seat and the bot (seat0-random.log), and listed below.
                log_names = [_seat_log(seat, text) for seat, text in enumerate(bots)]
                players = referee.prepare_all([(text, log_names[seat], None) for seat, text in enumerate(bots)])
                # Who played, in the record: the resolved class, its distribution and version, its code's hash.
                # A person has no code to name: the human's seat is "human", with no identity.
                players = [bot if bot.spec.ref == HUMAN else with_identity(bot, bot_identity(Entrant(f"seat{seat}", text)))
                           for seat, (bot, text) in enumerate(zip(players, bots, strict=True))]
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

    if to_stdout:
        _write_stdout(records.dumps(outcome.record))
    elif record_path is not None:
        try:
            records.write(record_path, outcome.record)
        except OSError as exc:
            raise click.ClickException(f"cannot write the record to {record_to}: {exc.strerror or exc}") from None

    if quiet:
        winners = ", ".join(f"{printable(names[s])} (seat {s})" for s in outcome.winners)
        line = f"seed {seed}: {'winners' if len(outcome.winners) > 1 else 'winner'} {winners} under {scoring} scoring"
        if outcome.faults:
            line += "; faults: " + ", ".join(
                f"seat {f['seat']} {printable(f['kind'])} at move {f['move']}" for f in outcome.faults
            )
            line += f"; bot logs in {log_dir}"
        echo(line)
        return
    shown_limit = "no time limit" if math.isinf(limit) else f"time limit {limit:g} s"
    if control:
        shown_limit += f", {control}"
    echo(
        f"seed {seed}, {state.settings.players} players, {scoring} scoring, "
        f"{len(state.history)} moves, {shown_limit}"
    )
    colored = use_color(color, sys.stderr if to_stdout else sys.stdout)
    echo(render.render_board(state, color=colored, names=names, width=output_width()), nl=False, color=colored)
    echo("")
    echo(
        render.render_result(
            outcome.result, names, scoring, faults=outcome.faults,
            colors=state.settings.seat_colors, color=colored, width=output_width(),
        ),
        nl=False, color=colored,
    )
    times = None if outcome.clock is None else records.move_times(outcome.clock, len(state.history))
    if outcome.clock is not None and times is not None:
        seats = records.turn_seats(state)
        echo(render.render_clocks(outcome.clock, times, seats, names), nl=False)
    for line in walls:
        echo(f"bots ran in {line}")
    if isolation == "none":
        echo("Python bots ran in this process (isolation none: trusted code only)")
    echo(f"bot logs (their standard error) in {log_dir}: "
         + ", ".join(f"seat {seat} {log_names[seat]}.log" for seat in range(len(bots)) if players[seat].spec.ref != HUMAN))
    if record_path is not None:
        echo(f"record written to {record_to}")
