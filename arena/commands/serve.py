"""``arena serve DIR...``: watch results folders in the browser, also while a run writes them."""

from __future__ import annotations

from pathlib import Path

import click


@click.command(name="serve")
@click.argument("folders", metavar="DIR...", nargs=-1, type=click.Path(file_okay=False, path_type=Path))
@click.option("--host", default=None, metavar="HOST",
              help="Listen on HOST (0.0.0.0: every address) instead of 127.0.0.1; a token printed at the start "
                   "is then asked of every visitor (the address printed carries it).")
@click.option("--port", type=click.IntRange(0, 65535), default=8111, show_default=True,
              help="The port to listen on (0: any free one; the address printed says which).")
def command(folders: tuple[Path, ...], host: str | None, port: int) -> None:
    """Show results folders (of arena run, arena match, a league) as web pages, updated as they change.

    Each DIR is a results folder or a folder of them (default: results).  A
    folder's page has its standings, head-to-head and seats tables, its plots,
    its games (sorted and filtered by the server, a page at a time), a match's
    SPRT and a league's history, and follows the folder while a run writes it;
    the games being played are shown move by move, then as their replays.
    Read-only: nothing on a page changes a file.  Listens on 127.0.0.1 unless
    --host is given (then with a token); stop it with Ctrl-C.
    """
    from arena.serve.server import ServeError, serve

    given = list(folders) or [Path("results")]
    missing = [str(f) for f in given if not f.is_dir()]
    if missing:
        raise ServeError(f"{missing[0]}: no such folder")
    try:
        serve(given, host, port, lambda line: click.echo(line, nl=True))
    except KeyboardInterrupt:
        pass
