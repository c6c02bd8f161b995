"""What a bot author imports: :class:`Bot`, :class:`Option`, and the rules' names a bot works with.

``arena.bots`` re-exports all of it, and is the documented place to import it from::

    from arena.bots import Bot, Option, PASS

This package sits just above the rules engine and below everything else of the arena.
"""

from arena.api.bot import Bot
from arena.api.options import OPTION_TYPES, Option, OptionRange, format_option
from arena.rules import (
    BOARD,
    CELL_NAMES,
    COLORS,
    PASS,
    REGIONS,
    TILE_NAMES,
    WILD,
    Cells,
    GameSettings,
    GameState,
    IllegalMove,
    Move,
    MoveSet,
    SeatResult,
    SeatView,
    SplitMix64,
    TurnClock,
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

__all__ = [
    "BOARD", "CELL_NAMES", "COLORS", "OPTION_TYPES", "PASS", "REGIONS", "TILE_NAMES", "WILD",
    "Bot", "Cells", "GameSettings", "GameState", "IllegalMove", "Move", "MoveSet", "Option", "OptionRange",
    "SeatResult", "SeatView", "SplitMix64", "TurnClock",
    "cell_index", "color_index", "column", "column_of", "fits", "format_option", "groups", "neighbours",
    "region", "region_of", "row", "row_of", "tile_index",
]
