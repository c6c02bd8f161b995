"""The shared rules engine of Uptown / Blockers!: no I/O, no clock, no global randomness.

``GameState`` is the native engine's when the C extension is built (:mod:`.native`), else the pure one's.
"""

from .cells import BOARD, Cells, column, column_of, fits, groups, neighbours, region, region_of, row, row_of
from .deal import deal, deal_pile, derived_random
from .geometry import CELL_NAMES, REGIONS, cell_index, count_groups, removable
from .native import ENGINE, GameState
from .rng import SplitMix64
from .state import PASS, TILES_PLAYED, GameSettings, IllegalMove, Move, MoveSet, SeatResult, winners
from .tiles import COLORS, TILE_NAMES, WILD, color_index, tile_index
from .view import SeatView

__all__ = [
    "BOARD", "CELL_NAMES", "COLORS", "ENGINE", "PASS", "REGIONS", "TILES_PLAYED", "TILE_NAMES", "WILD", "Cells",
    "GameSettings", "GameState", "IllegalMove", "Move", "MoveSet", "SeatResult", "SeatView", "SplitMix64", "cell_index",
    "color_index", "column", "column_of", "count_groups", "deal", "deal_pile", "derived_random", "fits", "groups",
    "neighbours", "region", "region_of", "removable", "row", "row_of", "tile_index", "winners",
]
