"""The shared rules engine of Uptown / Blockers!: no I/O, no clock, no global randomness.

``GameState`` is the native engine's when the C extension is built (:mod:`.native`), else the pure one's.
"""

from .base import TILES_PLAYED, GameSettings, SeatResult, winners
from .cells import BOARD, Cells, column, column_of, fits, groups, neighbours, region, region_of, row, row_of
from .deal import deal, deal_pile, derived_random
from .geometry import CELL_NAMES, REGIONS, capturable_mask, cell_index, count_groups
from .moves import PASS, IllegalMove, Move, MoveSet
from .native import ENGINE, GameState
from .rng import SplitMix64
from .tiles import COLORS, TILE_NAMES, WILD, color_index, tile_index
from .view import SeatView

__all__ = [
    "BOARD", "CELL_NAMES", "COLORS", "ENGINE", "PASS", "REGIONS", "TILES_PLAYED", "TILE_NAMES", "WILD", "Cells",
    "GameSettings", "GameState", "IllegalMove", "Move", "MoveSet", "SeatResult", "SeatView", "SplitMix64",
    "capturable_mask", "cell_index", "color_index", "column", "column_of", "count_groups", "deal", "deal_pile", "derived_random", "fits", "groups",
    "neighbours", "region", "region_of", "row", "row_of", "tile_index", "winners",
]
