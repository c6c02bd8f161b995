"""Options that several commands take, declared once, and how a command takes a list of them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]

#: ``--plots/--no-plots`` of arena run and arena match; ``ARENA_PLOTS=0`` in the environment is ``--no-plots``.
plots_option = click.option(
    "--plots/--no-plots", default=True, show_default=True, envvar="ARENA_PLOTS",
    help="Draw the tables as PNG pictures into the results folder at the end (a few seconds); --no-plots leaves "
         "them out, and removes the folder's older ones (arena report DIR --plots draws them later).")

#: ``--overwrite`` of arena run and arena match.
overwrite_option = click.option("--overwrite", is_flag=True, help="Delete this folder's earlier results and start again.")


def workers_option(help: str) -> Decorator:
    """``--workers/-j N`` of arena run and arena match: worker processes, at least one; ``help`` says how many."""
    return click.option("--workers", "-j", type=click.IntRange(min=1), default=None, help=help)


def deal_key_option(help: str) -> Decorator:
    """``--deal-key HEX``: a results folder's deal key (``deal.key``), given by hand; ``help`` says what for."""
    return click.option("--deal-key", metavar="HEX", default=None, help=help)


def with_options(*declared: Decorator) -> Decorator:
    """One decorator applying ``declared`` (arguments and options) in the order a ``--help`` lists them, so a
    command's options are a table of their own above it."""
    def apply(command: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(declared):
            command = option(command)
        return command
    return apply
