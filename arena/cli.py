"""The ``arena`` command: a thin Click layer over the library.

Each command lives in its own module under :mod:`arena.commands` and is
imported only when it runs, so ``arena --help`` starts fast.  An
:class:`~arena.errors.ArenaError` raised by any of them is printed as one
line (``Error: ...``) with exit status 1, here.
"""

from __future__ import annotations

import importlib

import click

from arena.errors import ArenaError

# name -> (module, one-line help); the module defines a Click command called ``command``.
COMMANDS = {
    "play": ("arena.commands.play", "Play one game between 2-5 bots and show the result."),
    "replay": ("arena.commands.replay", "Replay a game record (or one game of a tournament) and check it."),
    "view": ("arena.commands.view", "Write a game's replay as one self-contained HTML page (opens offline)."),
    "bots": ("arena.commands.bots", "List every bot found, with its options, and plug-ins that failed to load; "
                                    "--probe starts one."),
    "run": ("arena.commands.run", "Run a seeded round-robin tournament in parallel processes."),
    "report": ("arena.commands.report", "Rebuild and print the tables of a tournament's results folder."),
    "match": ("arena.commands.match", "Play A against B (or a table of 3-5) to a fixed count or an SPRT verdict."),
    "serve": ("arena.commands.serve", "Show results folders as web pages that follow a run as it plays, games "
                                      "in progress move by move (needs the serve extra)."),
    "docs": ("arena.commands.docs", "Build the documentation site (needs the docs extra) and print the path of its "
                                    "index.html; --serve serves it."),
    "init": ("arena.commands.init", "Copy the files the tutorials use (tournaments/ and examples/) into a folder."),
    "info": ("arena.commands.info", "Print the version, Python, the rules engine in use (native or pure, and why), "
                                    "the sandbox level and the optional extras."),
}


class LazyGroup(click.Group):
    """A group that imports a command's module only when that command is used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module, _ = COMMANDS[name]
        return importlib.import_module(module).command

    def resolve_command(self, ctx: click.Context, args: list[str]) -> tuple[str | None, click.Command | None, list[str]]:
        """The command named first in ``args``; a misspelt name is refused with the nearest names (``reprot``: ``report``)."""
        if args and args[0] not in COMMANDS and not args[0].startswith("-"):
            import difflib

            near = difflib.get_close_matches(args[0], list(COMMANDS), n=2, cutoff=0.6)
            if near:
                ctx.fail(f"No such command {args[0]!r}. Did you mean {' or '.join(repr(n) for n in near)}?")
        return super().resolve_command(ctx, args)

    def invoke(self, ctx: click.Context) -> object:
        """Run the command; an :class:`~arena.errors.ArenaError` becomes one line and exit status 1 here, and only here."""
        try:
            return super().invoke(ctx)
        except ArenaError as exc:
            from arena.display.terminal import printable

            raise click.ClickException(printable(exc)) from None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, help_) for name, (_, help_) in COMMANDS.items()])


def _version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    """``--version``: the version, then the rules engine in use (imported only now: ``--help`` stays fast)."""
    if not value or ctx.resilient_parsing:
        return
    from arena.commands.info import version
    from arena.rules.engine import engine_line

    click.echo(f"{ctx.find_root().info_name or 'arena'}, version {version()}")
    click.echo(engine_line())
    ctx.exit()


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_version,
              help="Show the version and the rules engine in use, and exit.")
def main() -> None:
    """The Uptown arena: play, replay and run tournaments of bots for the tile game
    Uptown / Blockers! (Kory Heath).

    Every game is seeded: the same seed and bots give the same game record
    (format uptown-game/1), byte for byte, on any machine.
    """
