"""The shared rules engine of Uptown / Blockers!: no I/O, no clock, no global randomness.

``GameState`` is the native engine's when the C extension is built (:mod:`.native`), else the pure one's.
"""

from arena.rules.base import TILES_PLAYED, GameSettings, SeatResult, winners
from arena.rules.cells import BOARD, Cells, column, column_of, fits, groups, neighbours, region, region_of, row, row_of
from arena.rules.deal import deal, deal_pile, derived_random
from arena.rules.engine import ENGINE, GameState
from arena.rules.geometry import CELL_NAMES, REGIONS, capturable_mask, cell_index, count_groups
from arena.rules.moves import PASS, IllegalMove, Move, MoveSet
from arena.rules.rng import SplitMix64
from arena.rules.tiles import COLORS, TILE_NAMES, WILD, color_index, tile_index
from arena.rules.view import SeatView, TurnClock

__all__ = [
    "BOARD", "CELL_NAMES", "COLORS", "ENGINE", "PASS", "REGIONS", "TILES_PLAYED", "TILE_NAMES", "WILD", "Cells",
    "GameSettings", "GameState", "IllegalMove", "Move", "MoveSet", "SeatResult", "SeatView", "SplitMix64", "TurnClock",
    "capturable_mask", "cell_index", "color_index", "column", "column_of", "count_groups", "deal", "deal_pile", "derived_random", "fits", "groups",
    "neighbours", "region", "region_of", "row", "row_of", "tile_index", "winners",
]
