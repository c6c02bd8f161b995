"""The Bot API: what a bot author imports, in one place.

A bot is a class.  The referee makes a fresh instance for every game::

    bot = MyBot(seat, settings, config, rng)

and then calls ``bot.choose(view)`` each time its seat is to move and has a legal move, with
that seat's :class:`~arena.rules.view.SeatView` (and nothing else); :meth:`Bot.choose` says what
it returns.  It may keep state between calls.  When the game is over the referee calls
``bot.game_over(result)``.

Options are declared once each, in :attr:`Bot.options`::

    options = {"depth": Option(2, min=1, max=5, doc="moves to look ahead")}

The type of the default is the type of the option (``int``, ``float``, ``bool``, ``str``);
``min``, ``max`` and ``choices`` say which values are valid, and :meth:`Bot.check_options` may
check them together; all of it is checked when a spec is read, before any game starts.
``self.config`` holds the value of every option in a game.  (The older form, ``options =
{name: default}`` with ``option_ranges = {name: OptionRange(...)}``, still works, with a
:class:`DeprecationWarning`.)

Bots are found through the entry-point group ``arena.bots``; a *bot spec* names a bot and the
values given to its options in one line of text (``mcts:iterations=400,seconds=0.5``, see
:mod:`arena.plugins.specs`).

This module is the stable surface: the API itself lives in :mod:`arena.api`, specs, loading and
discovery in :mod:`arena.plugins`; the names below stay importable from here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.api import *  # noqa: F403  (the stable surface is arena.api's, name for name)
from arena.api import Option, OptionRange
from arena.api import __all__ as _API
from arena.api.options import MAX_DECLARED, MAX_OPTIONS
from arena.faults import describe_failure, show_value
from arena.plugins import *  # noqa: F403  (kept here for the code that imports them from this module)
from arena.plugins import __all__ as _PLUGINS
from arena.plugins import check_given, convert_given
from arena.plugins.loading import entry_points

__all__ = [*_API, *_PLUGINS, "MAX_DECLARED", "MAX_OPTIONS", "check_declared", "check_options",
           "describe_failure", "entry_points", "show_value"]

#: The name :func:`~arena.plugins.loading.check_given` had before.
check_options = check_given


def check_declared(declared: Mapping[str, Any], ref: str, options: Mapping[str, Any],
                   ranges: Mapping[str, OptionRange] | None = None) -> dict[str, Any]:
    """The given ``options`` checked against ``declared`` defaults (or :class:`Option`\\ s) and
    ``ranges``, as before; new code calls :func:`~arena.plugins.specs.convert_given` with Options."""
    found = {}
    for key, default in declared.items():
        allowed = (ranges or {}).get(key)
        if isinstance(default, Option):
            found[key] = default
        elif allowed is None:
            found[key] = Option(default)
        else:
            found[key] = Option(default, min=allowed.min, max=allowed.max, choices=allowed.choices)
    return convert_given(found, ref, options)
