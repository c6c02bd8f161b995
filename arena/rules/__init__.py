"""The shared rules engine of Uptown / Blockers!: pure, no I/O, no clock, no global randomness."""

from .deal import deal, deal_pile, derived_random
from .geometry import CELL_NAMES, REGIONS, cell_index, count_groups, removable
from .state import PASS, GameSettings, GameState, IllegalMove, Move, MoveSet, SeatResult, winners
from .tiles import COLORS, TILE_NAMES, color_index, tile_index
from .view import SeatView

__all__ = [
    "CELL_NAMES", "COLORS", "PASS", "REGIONS", "TILE_NAMES", "GameSettings", "GameState", "IllegalMove", "Move",
    "MoveSet", "SeatResult", "SeatView", "cell_index", "color_index", "count_groups", "deal", "deal_pile",
    "derived_random", "removable", "tile_index", "winners",
]
