"""``arena bots``: every bot found through the entry points, and every plug-in that failed."""

from __future__ import annotations

import math
import secrets
import shlex
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from arena import ranges as limits
from arena.commands.options import Seed, TimeLimit
from arena.commands.play import INTERRUPTED, kept_logs
from arena.display.terminal import printable

if TYPE_CHECKING:
    from arena.api.options import Option
    from arena.play.referee import Referee


def _probe(specs: tuple[str, ...], time_limit: float, isolation: str, seed: int | None) -> None:
    """Start each bot as a tournament would, shake hands, show what it declares, and play it one game
    against random; a bot that faults there is not usable (the command's one-line error names the first)."""
    from arena.play.referee import Referee

    seed = secrets.randbits(63) if seed is None else seed
    logs = Path(tempfile.mkdtemp(prefix="arena-probe-logs-"))
    referee = Referee(time_limit, isolation=isolation, logs=logs)
    limit = "no time limit" if math.isinf(time_limit) else f"time limit {time_limit:g} s"
    unusable: list[str] = []
    try:
        _probe_each(specs, referee, seed, limit, time_limit, isolation, unusable)
    except KeyboardInterrupt:
        click.echo(f"\ninterrupted: the probe was not finished; --seed {seed} plays its game again", err=True)
        sys.exit(INTERRUPTED)
    finally:
        referee.close()
        kept_logs(logs, given=False, faulted=bool(unusable))
    if unusable:
        more = f" (and {len(unusable) - 1} more, above)" if len(unusable) > 1 else ""
        raise click.ClickException(printable(unusable[0]) + more)


def _probe_each(specs: tuple[str, ...], referee: Referee, seed: int, limit: str, time_limit: float, isolation: str,
                unusable: list[str]) -> None:
    """Probe each bot in turn, adding to ``unusable`` the line of each that faulted."""
    from arena.play.human import HUMAN
    from arena.play.probe import OPPONENT, probe_game
    from arena.wire.protocol import PROTOCOL

    for text in specs:
        if text == HUMAN:
            raise click.BadParameter("human is you at the terminal: there is no bot to probe", param_hint="'--probe'")
        (bot,) = referee.prepare_all([(text, "", None)])  # a BotError is the command's one-line error
        if bot.program is not None and bot.declared is not None:
            about = printable(bot.declared.description or "(no description)")
            click.echo(f"{printable(bot.text)}: {printable(bot.declared.name)}: {about}")
            click.echo(f"  runs as:  {printable(bot.program.text)}")
            click.echo(f"  protocol: {PROTOCOL}, in {referee.walls[bot.program]}")
            declared = bot.declared.options
            _echo_options("  ", {key: (value, declared.get(key)) for key, value in bot.options.items()})
        else:  # a Python bot under isolation none: no program, no handshake
            assert bot.cls is not None
            click.echo(f"{printable(bot.text)}: {printable((bot.cls.__doc__ or '(no description)').strip().splitlines()[0])}")
            click.echo("  runs in:  this process (isolation none: trusted code only)")
            options = bot.cls.options if isinstance(bot.cls.options, dict) else {}
            _echo_options("  ", {key: (value, options.get(key)) for key, value in bot.options.items()})
        game = probe_game(referee, bot, seed)
        click.echo(f"  game:     seat 0 against {OPPONENT}, seed {seed}, {limit}: {printable(game.summary())}")
        if not game.usable:
            assert game.fault is not None
            click.echo(f"  log:      {game.log}")
            click.echo(f"  again:    {_again(text, seed, time_limit, isolation)}")
            unusable.append(f"bot {text!r} is not usable: it faulted at move {game.fault['move']} of the probe "
                            f"game: {game.fault['kind']}: {game.fault['message']}")


def _again(text: str, seed: int, time_limit: float, isolation: str) -> str:
    """The ``arena play`` command that plays the probe game again, board and all."""
    words = ["arena", "play", text, "random", "--seed", str(seed)]
    if not math.isinf(time_limit):
        words += ["--time-limit", f"{time_limit:g}"]
    return shlex.join(words + (["--isolation", isolation] if isolation != "process" else []))


def _refused(name: str, cls: Any) -> str:
    """Why the bot refuses to play with its defaults here (its own check_options: a missing extra), or ''."""
    from arena.plugins import BotError, check_given

    try:
        check_given(cls, name, {})
    except BotError as exc:
        return exc.reason
    return ""


def _echo_options(pad: str, options: dict[str, tuple[Any, Option | None]]) -> None:
    """Each option on a line of its own: ``name=value (its range): its doc``."""
    from arena.api.options import format_option

    click.echo(f"{pad}options:" + ("" if options else " none"))
    for key, (value, option) in options.items():
        shown = option.show(value) if option is not None else format_option(value)
        click.echo(f"{pad}  {printable(f'{key}={shown}')}")


@click.command("bots")
@click.option("--probe", "probes", multiple=True, metavar="BOT",
              help="Start BOT (exec:COMMAND, a name, module:Name or file.py:Name) as a tournament would, shake "
                   "hands (uptown-bot/1), show what it declares, and play it one game against random: a bot that "
                   "faults there (an illegal move, a late answer, a crash) is not usable, and the command fails "
                   "naming it.  May be given more than once.")
@click.option("--time-limit", type=TimeLimit(), default=limits.DEFAULT_TIME_LIMIT, show_default=True,
              metavar="SECONDS", help="With --probe: seconds the bot may take per move (a tournament's time_limit).")
@click.option("--isolation", type=click.Choice(("process", "none")), default="process", show_default=True,
              help="With --probe: where the bot runs, as in a tournament (none: a Python bot in this process).")
@click.option("--seed", type=Seed(), default=None,
              help="With --probe: the probe game's seed (default: a random one, printed).")
def command(probes: tuple[str, ...], time_limit: float, isolation: str, seed: int | None) -> None:
    """List every bot registered in the entry-point group arena.bots.

    For each: its name, where it comes from (entry point and distribution),
    a one-line description and its options with their defaults.  Plug-ins
    that fail to load are listed after them with the reason; they never hide
    the others.  With --probe, start the given bots instead, show what
    they say of themselves in the protocol's handshake, and play each one
    game at seat 0 against random under the tournament's isolation and time
    limit: the turns it answered, and its first fault as a tournament would
    show it.  A bot that faults is not usable: the command then ends with
    exit status 1 and a line naming it.
    """
    from arena.plugins import GROUP, discover

    if probes:
        _probe(probes, time_limit, isolation, seed)
        return

    found, failures = discover()
    if found:
        click.echo(f"Bots ({len(found)}, entry-point group {GROUP}):")
        width = max(len(printable(name)) for name in found)
        for info in found.values():
            click.echo("")
            click.echo(f"  {printable(info.name):<{width}}  {printable(info.description or '(no description)')}")
            pad = " " * (width + 4)
            click.echo(f"{pad}from {printable(info.source)}")
            refused = _refused(info.name, info.cls)
            if refused:
                click.echo(f"{pad}not usable here: {printable(refused)}")
            _echo_options(pad, {key: (option.default, option) for key, option in info.options.items()})
    else:
        click.echo(f"No bots found in the entry-point group {GROUP}.")
    if failures:
        click.echo("")
        click.echo(f"Plug-ins that failed to load ({len(failures)}):")
        width = max(len(printable(failure.name)) for failure in failures)
        for failure in failures:
            click.echo("")
            click.echo(f"  {printable(failure.name):<{width}}  {printable(failure.source)}")
            click.echo(f"{' ' * (width + 4)}{printable(failure.reason)}")
    click.echo("")
    click.echo("Play one with its options as NAME:key=value,...; DIST:NAME picks the bot NAME of the")
    click.echo("distribution DIST; any Bot subclass can also be given as package.module:Name or")
    click.echo("path/to/file.py:Name, and a program in any language that speaks uptown-bot/1 as")
    click.echo("exec:COMMAND (arena bots --probe \"exec:./mybot\" checks one).")
