"""Where the Bot API is defined: :class:`Bot` (:mod:`.bot`), :class:`Option` (:mod:`.options`), and the
rules' names a bot works with.

:mod:`arena.bots` is the documented place to import them from, name for name the same
(``from arena.bots import Bot, Option, PASS``).  This package sits just above the rules engine and
below everything else of the arena.
"""

from arena.api.bot import Bot
from arena.api.options import Option
from arena.rules.base import GameSettings, SeatResult
from arena.rules.cells import BOARD, Cells, column, column_of, fits, groups, neighbours, region, region_of, row, row_of
from arena.rules.engine import GameState
from arena.rules.geometry import CELL_NAMES, REGIONS, cell_index
from arena.rules.moves import PASS, IllegalMove, Move, MoveSet
from arena.rules.rng import SplitMix64
from arena.rules.tiles import COLORS, TILE_NAMES, WILD, color_index, tile_index
from arena.rules.view import SeatView, TurnClock

__all__ = [
    "BOARD", "CELL_NAMES", "COLORS", "PASS", "REGIONS", "TILE_NAMES", "WILD",
    "Bot", "Cells", "GameSettings", "GameState", "IllegalMove", "Move", "MoveSet", "Option",
    "SeatResult", "SeatView", "SplitMix64", "TurnClock",
    "cell_index", "color_index", "column", "column_of", "fits", "groups", "neighbours",
    "region", "region_of", "row", "row_of", "tile_index",
]
