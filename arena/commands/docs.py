"""``arena docs``: build the documentation site of a checkout (MkDocs) and say where it is, or serve it."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import click

#: The site's configuration, at the root of a checkout: the package's parent folder.
CONFIG = Path(__file__).resolve().parents[2] / "mkdocs.yml"
INSTALL = "pip install -e '.[docs]'"


def _mkdocs(*args: str) -> int:
    """Run MkDocs with this Python on the checkout's configuration; its exit status."""
    # Material's notice about its successor is not about this site: the build prints only its own messages.
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run([sys.executable, "-m", "mkdocs", *args, "--config-file", str(CONFIG)],
                          cwd=CONFIG.parent, env=env).returncode


@click.command("docs")
@click.option("--out", "-o", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where the site is built (the checkout's site/ when not given).")
@click.option("--serve", is_flag=True, help="Serve the site on http://127.0.0.1:8000 and rebuild it as pages change "
                                            "(Ctrl-C stops), instead of building it once.")
def command(out: Path | None, serve: bool) -> None:
    """Build the documentation site (tutorials, how-to guides, the reference of every command and
    of the Python API, explanations) with MkDocs, warnings as errors, and print the path of its
    index.html to open in a browser."""
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        raise click.ClickException(f"building the documentation needs the docs extra: {INSTALL}")
    if not CONFIG.is_file():
        raise click.ClickException(
            f"no mkdocs.yml beside this installation ({CONFIG.parent}): the documentation is built from "
            f"a checkout of the arena's repository, installed with {INSTALL}")
    if serve:
        if out is not None:
            raise click.UsageError("--out is where the site is built: --serve builds it in memory")
        sys.exit(_mkdocs("serve", "--strict"))
    site = (out or CONFIG.parent / "site").resolve()
    status = _mkdocs("build", "--strict", "--quiet", "--site-dir", str(site))
    if status != 0:
        raise click.ClickException(f"the documentation did not build (mkdocs exit status {status}; its messages above)")
    click.echo(site / "index.html")
