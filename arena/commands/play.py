"""``arena play``: one game between 2-5 bots, refereed, with its board and result."""

from __future__ import annotations

import errno
import math
import os
import secrets
import shutil
import stat
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import click

from arena import ranges as limits
from arena.commands.options import Seed, TimeLimit, clock_options, with_options
from arena.display.terminal import color_option, output_width, printable, use_color
from arena.errors import os_error_line
from arena.rules.state import PENALTIES, SCORINGS
from arena.timecontrol import TimeControl, time_control

if TYPE_CHECKING:  # the game's machinery is imported when a game is played: --help stays fast
    from arena.play.outcome import GameOutcome
    from arena.play.prepared import PreparedBot
    from arena.play.referee import Referee


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
        raise bad(f"cannot use {path}: {os_error_line(exc)}") from None
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
        raise click.ClickException(f"cannot write the record to standard output: {os_error_line(exc)}") from None


def _open_transcript(path: Path) -> TextIO:
    """The transcript file, made anew and readable by its owner only (it shows every rack); never
    written through a symbolic link."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        why = "it is a symbolic link" if exc.errno == errno.ELOOP else os_error_line(exc)
        raise click.BadParameter(f"cannot write {path}: {why}", param_hint="'--transcript'") from None
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.fchmod(fd, 0o600)  # an older file kept its mode
        return open(fd, "w", encoding="utf-8")  # noqa: SIM115 - closed by the caller
    except OSError as exc:
        os.close(fd)
        raise click.BadParameter(f"cannot write {path}: {os_error_line(exc)}", param_hint="'--transcript'") from None


def _log_folder(logs: Path | None) -> Path:
    """The folder for the bots' standard error: the one given (made if need be), or a new temporary one
    (which :func:`kept_logs` removes at the end when nothing in it needs reading)."""
    if logs is None:
        return Path(tempfile.mkdtemp(prefix=TEMPORARY_LOGS))
    try:
        logs.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise click.BadParameter(f"cannot make {logs}: {os_error_line(exc)}", param_hint="'--logs'") from None
    return logs


#: The exit status of a command stopped by Ctrl-C (128 + SIGINT), as a shell gives it.
INTERRUPTED = 130

#: How the temporary folders of the bots' logs are named, when no --logs is given.
TEMPORARY_LOGS = "arena-play-logs-"


def kept_logs(folder: Path, given: bool, faulted: bool) -> bool:
    """Whether the logs ``folder`` stays: the one --logs gave always does; a temporary one only when a bot
    faulted or wrote something of its own, else it is removed (a folder a game in /tmp would leave)."""
    from arena.play.logs import bots_wrote

    if given or faulted or bots_wrote(folder):
        return True
    shutil.rmtree(folder, ignore_errors=True)
    return False


@dataclass(frozen=True)
class PlayOptions:
    """The options of ``arena play``, as the command line gives them."""

    seed: int | None
    scoring: str
    penalty: str
    time_limit: float
    clock: str | None
    overage: float | None
    record_to: str | None
    isolation: str
    logs: Path | None
    transcript_path: Path | None
    quiet: bool
    color: bool | None

    @property
    def time(self) -> TimeControl:
        """``--time-limit``, ``--clock`` and ``--overage`` as the one control every bot seat gets."""
        return time_control(self.clock, self.overage, self.time_limit)

    @property
    def to_stdout(self) -> bool:
        """Whether the record goes to standard output (and everything else to standard error)."""
        return self.record_to == STDOUT

    @property
    def record_path(self) -> Path | None:
        """The file the record is written to (None: none, or standard output)."""
        return None if self.record_to is None or self.to_stdout else Path(self.record_to)

    @property
    def screen(self) -> TextIO:
        """Where the board and the result are shown: never where the record goes."""
        return sys.stderr if self.to_stdout else sys.stdout

    def echo(self, text: str = "", nl: bool = True, color: bool | None = None) -> None:
        """Show a line of the game on :attr:`screen`."""
        click.echo(text, nl=nl, err=self.to_stdout, color=color)


@dataclass(frozen=True)
class Played:
    """A game ``arena play`` played: its outcome, the walls its bots ran in, each seat's log (None: the human's)."""

    outcome: GameOutcome
    walls: list[str]
    logs: list[str | None]


def _check_bots(bots: tuple[str, ...]) -> None:
    """2 to 5 bots, each a spec that can be read (:class:`~arena.plugins.BotError` names one that cannot)."""
    from arena.plugins.specs import split_bot_spec

    if not 2 <= len(bots) <= 5:
        raise click.UsageError(f"Uptown is played by 2 to 5 bots, not {len(bots)}")
    for text in bots:
        split_bot_spec(text)


def _players(referee: Referee, bots: tuple[str, ...], log_names: list[str]) -> list[PreparedBot]:
    """Every seat's bot, prepared, with who it is for the record (the resolved class, its distribution
    and version, its code's hash); a person has no code to name: the human's seat has no identity."""
    from arena.plan.config import Entrant
    from arena.play.human import HUMAN
    from arena.play.prepared import with_identity
    from arena.results.identity import bot_identity

    players = referee.prepare_all([(text, log_names[seat], None) for seat, text in enumerate(bots)])
    return [bot if bot.spec.ref == HUMAN else with_identity(bot, bot_identity(Entrant(f"seat{seat}", text)))
            for seat, (bot, text) in enumerate(zip(players, bots, strict=True))]


def _play(bots: tuple[str, ...], seed: int, options: PlayOptions, log_dir: Path) -> Played:
    """Play the game: every bot prepared, the human's seat at this terminal, the transcript written when asked."""
    from arena.play.human import HUMAN, Terminal
    from arena.play.logs import seat_log_name
    from arena.play.referee import Referee

    path = options.transcript_path
    transcript = None if path is None else _open_transcript(path)
    screen = options.screen
    terminal = Terminal(sys.stdin, screen, use_color(options.color, screen), output_width(screen))
    # The transcript holds every seat's rack: no bot may see it.
    referee = Referee(options.time, isolation=options.isolation, logs=log_dir, hide=() if path is None else (str(path),),
                      transcript=transcript, terminal=terminal)
    # Each seat's log is named after the seat and the bot (seat0-random.log), and listed after the game.
    log_names = [seat_log_name(seat, text) for seat, text in enumerate(bots)]
    try:
        with referee:
            players = _players(referee, bots, log_names)
            outcome = referee.play(players, seed, scoring=options.scoring, penalty=options.penalty)
    finally:
        referee.close()
        if transcript is not None:
            transcript.close()
    logs = [None if bot.spec.ref == HUMAN else name for bot, name in zip(players, log_names, strict=True)]
    return Played(outcome, sorted(set(referee.walls.values())), logs)


def _save_record(outcome: GameOutcome, options: PlayOptions) -> None:
    """The game's record to standard output or its file, as ``--record`` says (a one-line error if it cannot be)."""
    from arena import records

    if options.to_stdout:
        _write_stdout(records.dumps(outcome.record))
    elif options.record_path is not None:
        try:
            records.write(options.record_path, outcome.record)
        except OSError as exc:
            raise click.ClickException(f"cannot write the record to {options.record_to}: {os_error_line(exc)}") from None


def _quiet_line(played: Played, seed: int, options: PlayOptions, log_dir: Path) -> str:
    """The one line of ``--quiet``: the seed, the winner and any faults (with the bots' logs folder)."""
    outcome = played.outcome
    names = [player["name"] for player in outcome.record["players"]]
    winners = ", ".join(f"{printable(names[s])} (seat {s})" for s in outcome.winners)
    line = f"seed {seed}: {'winners' if len(outcome.winners) > 1 else 'winner'} {winners} under {options.scoring} scoring"
    if outcome.faults:
        line += "; faults: " + ", ".join(
            f"seat {f['seat']} {printable(f['kind'])} at move {f['move']}" for f in outcome.faults
        )
        line += f"; bot logs in {log_dir}"
    return line


def _show(played: Played, seed: int, options: PlayOptions, log_dir: Path, kept: bool) -> None:
    """The game as it ended: what was played, the final board, the result, the clocks, the walls and the logs."""
    from arena.display.text import render_final
    from arena.isolation.sandbox import short_walls

    outcome, echo = played.outcome, options.echo
    state = outcome.state
    names = [player["name"] for player in outcome.record["players"]]
    time = options.time
    limit = "no time limit" if math.isinf(time.limit) else f"time limit {time.limit:g} s"
    shown = f"{limit}, {time}" if time.clocked else limit
    echo(f"seed {seed}, {state.settings.players} players, {options.scoring} scoring, {len(state.history)} moves, {shown}")
    colored = use_color(options.color, options.screen)
    echo(render_final(state, names, outcome.result, faults=outcome.faults, clock=outcome.clock, color=colored,
                      width=output_width()), nl=False, color=colored)
    for line in played.walls:
        echo(f"bots ran in {short_walls(line)}; arena info lists each wall")
    if options.isolation == "none":
        echo("Python bots ran in this process (isolation none: trusted code only)")
    if kept:
        echo(f"bot logs (their standard error) in {log_dir}: "
             + ", ".join(f"seat {seat} {name}.log" for seat, name in enumerate(played.logs) if name is not None))
    else:
        echo("bot logs: none kept, the bots wrote nothing on standard error (--logs DIR keeps every log)")
    if options.record_path is not None:
        echo(f"record written to {options.record_to}")


_options = with_options(
    click.argument("bots", nargs=-1, metavar="BOT BOT [BOT...]"),
    click.option("--seed", type=Seed(), help="The deal's seed, any whole number (default: a random 63-bit one, printed)."),
    click.option("--scoring", type=click.Choice(SCORINGS), default="uptown", show_default=True,
                 help="The scoring that decides the winner (both are shown)."),
    click.option("--penalty", type=click.Choice(PENALTIES), default="color", show_default=True,
                 help="Blockers! penalty: the largest count of one color, or of one opponent (C4)."),
    click.option("--time-limit", type=TimeLimit(), default=limits.DEFAULT_TIME_LIMIT, show_default=True,
                 metavar="SECONDS",
                 help=f"Seconds a bot may take per move (above 0, at most {limits.MAX_TIME_LIMIT:g}); a bot that "
                      "runs past it is faulted, and its seat plays random legal moves from then on."),
    clock_options("."),
    click.option("--record", "record_to", type=click.Path(allow_dash=True), metavar="FILE",
                 help="Write the game record (uptown-game/1) to FILE; '-': to standard output, and the rest of "
                      "the output to standard error.  A regular file is replaced whole (a symbolic link is "
                      "followed, and stays); a device or a FIFO is written to, never replaced."),
    click.option("--isolation", type=click.Choice(("process", "none")), default="process", show_default=True,
                 help="process: every bot a program in the sandbox; none: Python bots in this process, for "
                      "trusted code (exec: bots are programs either way)."),
    click.option("--logs", "logs", type=click.Path(file_okay=False, path_type=Path), metavar="DIR",
                 help="The folder for the bots' standard error, one file per bot (default: a new temporary "
                      "folder, named in the output)."),
    click.option("--transcript", "transcript_path", type=click.Path(dir_okay=False, path_type=Path),
                 metavar="FILE",
                 help="Write every protocol line between the referee and the bot programs to FILE (made "
                      "readable by you alone, and hidden from the bots: it shows every rack)."),
    click.option("--quiet", "-q", is_flag=True,
                 help="Print one line: the seed, the winner and any faults (with the bots' logs folder)."),
    color_option,
)


@click.command("play")
@_options
def command(bots: tuple[str, ...], **given: Any) -> None:
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
    options = PlayOptions(**given)
    _check_bots(bots)
    if options.record_path is not None:
        _check_record_path(options.record_path)
    # Too many to try: a bot cannot find the deal from its own tiles.
    seed = secrets.randbits(63) if options.seed is None else options.seed
    log_dir = _log_folder(options.logs)
    try:
        played = _play(bots, seed, options, log_dir)
    except KeyboardInterrupt:
        kept = kept_logs(log_dir, options.logs is not None, faulted=False)
        click.echo(f"\ninterrupted: the game of seed {seed} was not finished; the same command with --seed {seed} "
                   "plays it again" + (f" (bot logs in {log_dir})" if kept else ""), err=True)
        sys.exit(INTERRUPTED)
    kept = kept_logs(log_dir, options.logs is not None, faulted=bool(played.outcome.faults))
    _save_record(played.outcome, options)
    if options.quiet:
        options.echo(_quiet_line(played, seed, options, log_dir))
    else:
        _show(played, seed, options, log_dir, kept)
