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

from arena.api import (
    BOARD,
    CELL_NAMES,
    COLORS,
    PASS,
    REGIONS,
    TILE_NAMES,
    WILD,
    Bot,
    Cells,
    GameSettings,
    GameState,
    IllegalMove,
    Move,
    MoveSet,
    Option,
    OptionRange,
    SeatResult,
    SeatView,
    SplitMix64,
    cell_index,
    color_index,
    column,
    column_of,
    fits,
    groups,
    neighbours,
    region,
    region_of,
    row,
    row_of,
    tile_index,
)
from arena.api.options import MAX_DECLARED, MAX_OPTIONS, OPTION_TYPES, format_option
from arena.faults import describe_failure, show_value
from arena.plugins import (
    EXEC_PREFIX,
    GROUP,
    BotError,
    BotInfo,
    BotSpec,
    PluginFailure,
    bot_options,
    check_given,
    clash,
    description,
    discover,
    dist_name,
    entry_point_of,
    load_bot,
    make_bot_spec,
    parse_bot_spec,
    resolve_ref,
    split_bot_spec,
)
from arena.plugins.loading import entry_points
from arena.plugins.specs import convert_given

__all__ = [
    # What a bot author needs (arena.api.__all__).
    "BOARD", "CELL_NAMES", "COLORS", "OPTION_TYPES", "PASS", "REGIONS", "TILE_NAMES", "WILD",
    "Bot", "Cells", "GameSettings", "GameState", "IllegalMove", "Move", "MoveSet", "Option", "OptionRange",
    "SeatResult", "SeatView", "SplitMix64",
    "cell_index", "color_index", "column", "column_of", "fits", "format_option", "groups", "neighbours",
    "region", "region_of", "row", "row_of", "tile_index",
    # Specs, loading and discovery, kept here for the code that imports them from this module.
    "EXEC_PREFIX", "GROUP", "MAX_DECLARED", "MAX_OPTIONS", "BotError", "BotInfo", "BotSpec", "PluginFailure",
    "bot_options", "check_declared", "check_options", "clash", "describe_failure", "description", "discover",
    "dist_name", "entry_point_of", "entry_points", "load_bot", "make_bot_spec", "parse_bot_spec", "resolve_ref",
    "show_value", "split_bot_spec",
]

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
