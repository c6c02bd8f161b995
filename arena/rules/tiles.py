"""Tiles and colors (rules T1, M1).

A tile is an int 0-27: 0-8 the letters ``A``-``I``, 9-17 the numbers
``1``-``9``, 18-26 the symbols in region order, 27 the wild ``$``.
A color is an int 0-4 in the order of :data:`COLORS`.
"""

from __future__ import annotations

from arena.rules.geometry import COLUMN_MASKS, FULL, REGION_MASKS, REGIONS, ROW_MASKS, index_of

COLORS = ("red", "blue", "green", "yellow", "purple")
_COLOR_INDEX = {name: i for i, name in enumerate(COLORS)}

TILE_NAMES = tuple("ABCDEFGHI") + tuple("123456789") + REGIONS + ("$",)
_TILE_INDEX = {name: i for i, name in enumerate(TILE_NAMES)}
N_TILES = len(TILE_NAMES)
WILD = 27

#: The cells each tile may be played on (M1).
FITS = ROW_MASKS + COLUMN_MASKS + REGION_MASKS + (FULL,)


def tile_index(name: str) -> int:
    """The tile written as ``name`` in the records; ValueError if it is none."""
    return index_of(_TILE_INDEX, "tile", name)


def color_index(name: str) -> int:
    """The color called ``name``; ValueError if it is none."""
    return index_of(_COLOR_INDEX, "color", name)
