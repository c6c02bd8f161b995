"""What the run commands (``arena run``, ``arena match``) say on standard error, unless told to be quiet."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import click


def teller(quiet: bool) -> Callable[[str], None]:
    """``say(line)``: ``line`` on standard error, unless ``quiet``."""
    def say(line: str) -> None:
        if not quiet:
            click.echo(line, err=True)

    return say


def tell_all(lines: Iterable[str]) -> None:
    """Every line on standard error, quiet or not (what went wrong, what changed)."""
    for line in lines:
        click.echo(line, err=True)
