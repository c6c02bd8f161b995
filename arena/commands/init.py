"""``arena init``: the files the tutorials use, copied into a folder of the user's own."""

from __future__ import annotations

from pathlib import Path

import click

from arena.errors import os_error_line


@click.command("init")
@click.argument("folder", default=".", type=click.Path(file_okay=False, path_type=Path))
def command(folder: Path) -> None:
    """Copy the files the tutorials use (tournaments/ and examples/) into FOLDER (default: this folder).

    After pip install, in an empty folder, `arena init` then `arena run
    tournaments/quickstart.toml` is the README's tournament; every tutorial
    runs from such a folder.  A file already there is kept as it is, never
    overwritten.
    """
    from arena.tutorial_files import copy_into

    try:
        written, kept = copy_into(folder)
    except OSError as exc:
        raise click.ClickException(f"{folder}: cannot copy the tutorial files there: {os_error_line(exc)}") from None
    for path in written:
        click.echo(f"wrote {folder / path}")
    if kept:
        click.echo(f"kept {len(kept)} file(s) already there as they are: {', '.join(str(p) for p in kept)}")
    go = f"cd {folder} && " if folder != Path(".") else ""
    click.echo(f"next: {go}arena run tournaments/quickstart.toml")
