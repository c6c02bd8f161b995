"""The shared rules engine of Uptown / Blockers!: pure, no I/O, no clock, no global randomness."""

from .cells import BOARD, Cells, column, column_of, fits, groups, neighbours, region, region_of, row, row_of
from .deal import deal, deal_pile, derived_random
from .geometry import CELL_NAMES, REGIONS, cell_index, count_groups, removable
from .state import PASS, TILES_PLAYED, GameSettings, GameState, IllegalMove, Move, MoveSet, SeatResult, winners
from .tiles import COLORS, TILE_NAMES, WILD, color_index, tile_index
from .view import SeatView

__all__ = [
    "BOARD", "CELL_NAMES", "COLORS", "PASS", "REGIONS", "TILES_PLAYED", "TILE_NAMES", "WILD", "Cells",
    "GameSettings", "GameState", "IllegalMove", "Move", "MoveSet", "SeatResult", "SeatView", "cell_index",
    "color_index", "column", "column_of", "count_groups", "deal", "deal_pile", "derived_random", "fits", "groups",
    "neighbours", "region", "region_of", "removable", "row", "row_of", "tile_index", "winners",
]
