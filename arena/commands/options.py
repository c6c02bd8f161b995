"""Options that several commands take, declared once, the Click parameter types they check their values with,
and how a command takes a list of them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from arena import ranges as limits
from arena.timecontrol import parse_clock, parse_overage

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


class TimeLimit(click.ParamType):
    """Seconds per move, checked by the rule tournament files use (:func:`arena.ranges.time_limit`)."""

    name = "seconds"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> float:
        if isinstance(value, float):
            number: object = value
        else:
            try:
                number = float(str(value))
            except ValueError:
                self.fail(f"{limits.shown(value)} is not a number of seconds", param, ctx)
        try:
            return limits.time_limit(number)
        except limits.LimitError as exc:
            self.fail(str(exc), param, ctx)


class Clock(click.ParamType):
    """A game clock, ``[MOVES/]BASE[+INCREMENT]`` in seconds, checked by the rule tournament files use
    (:func:`arena.timecontrol.parse_clock`); kept as the text given."""

    name = "clock"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> str:
        try:
            parse_clock(value)
        except limits.LimitError as exc:
            self.fail(str(exc), param, ctx)
        return str(value).strip()


class Overage(click.ParamType):
    """An overage bank in seconds (:func:`arena.timecontrol.parse_overage`)."""

    name = "seconds"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> float:
        try:
            number = value if isinstance(value, float) else float(str(value))
        except ValueError:
            self.fail(f"{limits.shown(value)} is not a number of seconds", param, ctx)
        try:
            return parse_overage(number)
        except limits.LimitError as exc:
            self.fail(str(exc), param, ctx)


def clock_options(what: str) -> Decorator:
    """The ``--clock`` and ``--overage`` options of ``arena play``, ``run`` and ``match``; ``what`` ends their help."""
    return with_options(
        click.option(
            "--clock", type=Clock(), default=None, metavar="[MOVES/]BASE+INC",
            help="A game clock for every bot seat: BASE seconds for the game plus INC after each move, BASE "
                 "again every MOVES moves when given (60+0.5, 24/60+0); a bot out of time loses on time" + what),
        click.option(
            "--overage", type=Overage(), default=None, metavar="SECONDS",
            help="An overage bank: seconds a bot may spend past the time limit over the whole game" + what))


class Seed(click.ParamType):
    """A deal's seed: any whole number (rule S1), shown shortened when it is refused."""

    name = "integer"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        try:
            return int(str(value).strip())
        except ValueError:
            self.fail(f"{limits.shown(value)} is not a valid integer", param, ctx)
