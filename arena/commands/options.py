"""Options that several commands take, declared once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

#: ``--plots/--no-plots`` of arena run and arena match; ``ARENA_PLOTS=0`` in the environment is ``--no-plots``.
plots_option = click.option(
    "--plots/--no-plots", default=True, show_default=True, envvar="ARENA_PLOTS",
    help="Draw the tables as PNG pictures into the results folder at the end (a few seconds); --no-plots leaves "
         "them out, and removes the folder's older ones (arena report DIR --plots draws them later).")


def deal_key_option(help: str) -> Callable[[Any], Any]:
    """``--deal-key HEX``: a results folder's deal key (``deal.key``), given by hand; ``help`` says what for."""
    return click.option("--deal-key", metavar="HEX", default=None, help=help)
