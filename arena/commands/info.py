"""``arena info``: what this installation is: its version, Python, the rules engine, the sandbox, the extras."""

from __future__ import annotations

import importlib.metadata
import platform
import shutil
import sys

import click

#: The optional extras worth naming: (what ``arena info`` calls it, its distribution, what it is for).
EXTRAS = (
    ("dask", "distributed", "arena run --cluster"),
    ("playwright", "playwright", "the replay page's browser tests"),
    ("mkdocs-material", "mkdocs-material", "arena docs, the documentation site"),
)


#: The extras of the game-AI bridges (arena.envs.extras), one line each.
BRIDGES = ("openspiel", "rl")


def version() -> str:
    """The installed distribution's version (the source tree's when it is not installed)."""
    try:
        return importlib.metadata.version("uptown-arena")
    except importlib.metadata.PackageNotFoundError:
        from arena import __version__

        return __version__


def _extra(distribution: str, used_for: str) -> str:
    try:
        return f"{importlib.metadata.version(distribution)} ({used_for})"
    except importlib.metadata.PackageNotFoundError:
        return f"not installed ({used_for})"


def _browser() -> str:
    """Where the browser of the browser tests is (playwright drives the chromium on PATH), or that it is not."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        return "not found on PATH (the browser tests skip without it; apt-get install chromium)"
    return f"{found} (the browser tests)"


def lines() -> list[str]:
    """The lines ``arena info`` prints, ``key: value`` each."""
    from arena.isolation.sandbox import walls_report
    from arena.rules.engine import engine_line

    out = [
        f"arena: {version()}",
        f"python: {platform.python_implementation()} {platform.python_version()} ({sys.executable})",
        engine_line(),
        # The walls a bot program started now gets (ARENA_SANDBOX caps the level), as the referee says them.
        f"sandbox: {walls_report()}",
    ]
    out += [f"{name}: {_extra(distribution, used_for)}" for name, distribution, used_for in EXTRAS]
    out.append(f"chromium: {_browser()}")
    out += [_bridge(name) for name in BRIDGES]
    return out


def _bridge(extra: str) -> str:
    """The line of an extra of :mod:`arena.envs` (found without importing its libraries)."""
    from arena.envs.extras import EXTRAS as BRIDGE_EXTRAS
    from arena.envs.extras import extra_status

    found, line = extra_status(extra)
    used_for = BRIDGE_EXTRAS[extra][1]
    if found:
        return f"{extra}: {line} ({used_for})"
    return f"{extra}: not installed: {line} ({used_for}; pip install 'uptown-arena[{extra}]')"


@click.command("info")
def command() -> None:
    """Print the arena's version, Python, the rules engine in use (and why it is the pure one, if it is),
    the sandbox level this machine gives bot programs and the optional extras installed."""
    for line in lines():
        click.echo(line)
