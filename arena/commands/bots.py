"""``arena bots``: every bot found through the entry points, and every plug-in that failed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from arena.display.terminal import printable

if TYPE_CHECKING:
    from arena.api.options import Option


def _probe(specs: tuple[str, ...]) -> None:
    """Start each bot as a program, shake hands, and show what it declares."""
    from arena.isolation.protocol import PROTOCOL
    from arena.play.referee import Referee

    referee = Referee(isolation="process")
    try:
        for text in specs:
            (bot,) = referee.prepare_all([(text, "", None)])  # a BotError is the command's one-line error
            assert bot.program is not None and bot.declared is not None
            about = printable(bot.declared.description or "(no description)")
            click.echo(f"{printable(bot.text)}: {printable(bot.declared.name)}: {about}")
            click.echo(f"  runs as:  {printable(bot.program.text)}")
            click.echo(f"  protocol: {PROTOCOL}, in {referee.walls[bot.program]}")
            declared = bot.declared.options
            _echo_options("  ", {key: (value, declared.get(key)) for key, value in bot.options.items()})
    finally:
        referee.close()


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
              help="Start BOT (exec:COMMAND, a name, module:Name or file.py:Name) as a program, shake hands "
                   "(uptown-bot/1) and show what it declares; may be given more than once.")
def command(probes: tuple[str, ...]) -> None:
    """List every bot registered in the entry-point group arena.bots.

    For each: its name, where it comes from (entry point and distribution),
    a one-line description and its options with their defaults.  Plug-ins
    that fail to load are listed after them with the reason; they never hide
    the others.  With --probe, start the given bots instead and show what
    they say of themselves in the protocol's handshake.
    """
    from arena.plugins import GROUP, discover

    if probes:
        _probe(probes)
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
