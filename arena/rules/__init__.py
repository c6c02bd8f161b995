"""The shared rules engine of Uptown / Blockers!: pure, no I/O, no clock, no global randomness."""

from .deal import deal, deal_pile, derived_random
from .geometry import CELL_NAMES, REGIONS, cell_index, count_groups
from .state import PASS, GameSettings, GameState, Move, MoveSet, SeatResult
from .tiles import COLORS, TILE_NAMES, color_index, tile_index

__all__ = [
    "CELL_NAMES", "COLORS", "PASS", "REGIONS", "TILE_NAMES", "GameSettings", "GameState", "Move", "MoveSet",
    "SeatResult", "cell_index", "color_index", "count_groups", "deal", "deal_pile", "derived_random", "tile_index",
]
