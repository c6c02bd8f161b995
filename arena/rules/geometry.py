"""Board geometry as 81-bit ints (rules B1-B3).

Cell ``i`` is row ``i // 9`` (A at the top) and column ``i % 9`` (1 at the
left); bit ``i`` of a bitboard is set when the cell belongs to the set.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

ROWS = "ABCDEFGHI"
COLUMNS = "123456789"
N_CELLS = 81
FULL = (1 << N_CELLS) - 1

#: The nine regions (B2), in reading order: index = 3 * (row // 3) + column // 3.
REGIONS = ("man", "ring", "woman", "sign", "skyline", "sax", "car", "cards", "champagne")

ROW_MASKS = tuple(((1 << 9) - 1) << (9 * r) for r in range(9))
COLUMN_MASKS = tuple(sum(1 << (9 * r + c) for r in range(9)) for c in range(9))
REGION_MASKS = tuple(
    sum(1 << (9 * r + c) for r in range(3 * (g // 3), 3 * (g // 3) + 3) for c in range(3 * (g % 3), 3 * (g % 3) + 3))
    for g in range(9)
)

NOT_COLUMN_1 = FULL & ~COLUMN_MASKS[0]
NOT_COLUMN_9 = FULL & ~COLUMN_MASKS[8]

CELL_NAMES = tuple(ROWS[i // 9] + COLUMNS[i % 9] for i in range(N_CELLS))
_CELL_INDEX = {name: i for i, name in enumerate(CELL_NAMES)}


def index_of(indexes: Mapping[str, int], kind: str, name: str) -> int:
    """``indexes[name]``: what a name of the records stands for; ValueError for an unknown ``kind`` otherwise."""
    try:
        return indexes[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown {kind} {name!r}") from None


def cell_index(name: str) -> int:
    """The index of a cell written as in the records (``"C5"``); ValueError if it is none."""
    return index_of(_CELL_INDEX, "cell", name)


def region_of(cell: int) -> int:
    """The region (B2) that holds ``cell``, as an index into :data:`REGIONS`."""
    return 3 * (cell // 27) + (cell % 9) // 3


def spread(board: int) -> int:
    """Every cell that touches a cell of ``board`` side to side (B3), ``board`` included."""
    return (
        board
        | (board << 1) & NOT_COLUMN_1
        | (board >> 1) & NOT_COLUMN_9
        | (board << 9) & FULL
        | board >> 9
    )


#: The cells touching each cell side to side (B3).
NEIGHBOURS = tuple(spread(1 << i) & ~(1 << i) for i in range(N_CELLS))


def flood(seed: int, within: int) -> int:
    """The cells of ``within`` connected side to side to ``seed`` (flood fill by shifts)."""
    reached = seed & within
    while True:
        grown = (
            reached
            | (reached << 1) & NOT_COLUMN_1
            | (reached >> 1) & NOT_COLUMN_9
            | reached << 9
            | reached >> 9
        ) & within
        if grown == reached:
            return reached
        reached = grown


def cut_candidates(board: int) -> int:
    """The tiles of ``board`` that may be cut points of their group (M3); every other tile can leave it.

    Judged from each tile's eight surrounding cells, all at once by shifts:
    going round a tile (up, right, down, left), each side neighbour joins the
    run of the previous one when that neighbour and the corner between them
    hold tiles too.  When the side neighbours form at most one run they stay
    connected without the tile; a tile whose neighbours fall into two or more
    runs is a candidate.
    """
    # Bit i of ``up``: the cell above cell i holds a tile.  (Bits past the board are
    # never shifted back down and the last ``& board`` drops them.)
    up = board << 9
    down = board >> 9
    left = board << 1 & NOT_COLUMN_1
    right = board >> 1 & NOT_COLUMN_9
    # A side neighbour that starts a run of its own, going round clockwise.
    starts_right = right & ~(up & right << 9)
    starts_down = down & ~(right & right >> 9)
    starts_left = left & ~(down & left >> 9)
    starts_up = up & ~(left & left << 9)
    return (
        starts_right & (starts_down | starts_left | starts_up)
        | starts_down & (starts_left | starts_up)
        | starts_left & starts_up
    ) & board


def _stays_joined(board: int, bit: int) -> bool:
    """Whether the tiles of ``board`` touching the tile ``bit`` stay connected without it (a flood fill)."""
    touching = spread(bit) & board ^ bit
    return not touching & ~flood(touching & -touching, board ^ bit)


def capturable_mask(board: int) -> int:
    """The tiles of ``board`` that can leave it without splitting their group (M3).

    Only the :func:`cut_candidates` need a flood fill of their group without them.
    """
    split = cut_candidates(board)
    free = board ^ split
    while split:
        bit = split & -split
        split ^= bit
        if _stays_joined(board, bit):
            free |= bit
    return free


def capturable_at(board: int, cell: int) -> bool:
    """``capturable_mask(board)`` for the one tile on ``cell`` (M3), without judging the others."""
    bit = 1 << cell
    return not cut_candidates(board) & bit or _stays_joined(board, bit)


def count_groups(board: int) -> int:
    """The number of groups (sets of tiles joined side to side) in ``board``."""
    # Lone tiles are counted all at once; only the larger groups need a flood fill.
    joined = board & ((board << 1) & NOT_COLUMN_1 | (board >> 1) & NOT_COLUMN_9 | board << 9 | board >> 9)
    groups = (board ^ joined).bit_count()
    while joined:
        joined ^= flood(joined & -joined, joined)
        groups += 1
    return groups


def iter_cells(board: int) -> Iterator[int]:
    """The cells of ``board`` in increasing order."""
    while board:
        low = board & -board
        yield low.bit_length() - 1
        board ^= low
