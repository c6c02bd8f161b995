"""Board geometry (B1-B3): cells, masks, neighbours, flood fill, groups and the capture test by shifts."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.rules.geometry import (
    CELL_NAMES,
    COLUMN_MASKS,
    FULL,
    NEIGHBOURS,
    REGION_MASKS,
    REGIONS,
    ROW_MASKS,
    capturable_mask,
    cell_index,
    count_groups,
    flood,
    iter_cells,
    region_of,
    spread,
)
from tests.fuzzing import examples


def bits(*names: str) -> int:
    board = 0
    for name in names:
        board |= 1 << cell_index(name)
    return board


def names(board: int) -> set[str]:
    return {CELL_NAMES[i] for i in range(81) if board >> i & 1}


# -- a plain reference: cells as (row, column), sets and breadth-first search ------------------------


def rc_cells(board: int) -> set[tuple[int, int]]:
    return {(i // 9, i % 9) for i in range(81) if board >> i & 1}


def rc_touching(cell: tuple[int, int]) -> list[tuple[int, int]]:
    r, c = cell
    return [(r + dr, c + dc) for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)) if 0 <= r + dr < 9 and 0 <= c + dc < 9]


def rc_groups(cells: set[tuple[int, int]]) -> list[set[tuple[int, int]]]:
    left = set(cells)
    groups = []
    while left:
        start = left.pop()
        group = {start}
        queue = [start]
        while queue:
            for n in rc_touching(queue.pop()):
                if n in left:
                    left.remove(n)
                    group.add(n)
                    queue.append(n)
        groups.append(group)
    return groups


def rc_removable(cells: set[tuple[int, int]], cell: tuple[int, int]) -> bool:
    """M3 by definition: removing the tile does not raise the number of groups of the others."""
    rest = cells - {cell}
    lone = not any(n in cells for n in rc_touching(cell))
    return len(rc_groups(rest)) <= len(rc_groups(cells)) - (1 if lone else 0)


boards = st.integers(min_value=0, max_value=FULL)
# Denser boards: the interesting cases (lines, loops, cut points) need many tiles.
dense_boards = st.tuples(boards, boards).map(lambda ab: ab[0] | ab[1])


# -- B1 ------------------------------------------------------------------------------------------


def test_B1_cells_are_row_then_column() -> None:
    assert len(CELL_NAMES) == 81
    assert CELL_NAMES[0] == "A1" and CELL_NAMES[8] == "A9" and CELL_NAMES[9] == "B1"
    assert CELL_NAMES[40] == "E5" and CELL_NAMES[80] == "I9"
    for i, name in enumerate(CELL_NAMES):
        assert cell_index(name) == i
        assert name[0] == "ABCDEFGHI"[i // 9] and name[1] == "123456789"[i % 9]


@pytest.mark.parametrize("bad", ["J1", "A0", "A10", "a1", "", "1A", None, 5])
def test_B1_unknown_cells_are_rejected(bad: object) -> None:
    with pytest.raises(ValueError):
        cell_index(bad)  # type: ignore[arg-type]


def test_B1_rows_and_columns() -> None:
    assert names(ROW_MASKS[0]) == {f"A{c}" for c in "123456789"}
    assert names(ROW_MASKS[8]) == {f"I{c}" for c in "123456789"}
    assert names(COLUMN_MASKS[0]) == {f"{r}1" for r in "ABCDEFGHI"}
    assert names(COLUMN_MASKS[4]) == {f"{r}5" for r in "ABCDEFGHI"}
    everything = 0
    for mask in ROW_MASKS:
        assert mask.bit_count() == 9
        assert not everything & mask
        everything |= mask
    assert everything == FULL == sum(COLUMN_MASKS)


# -- B2 ------------------------------------------------------------------------------------------


def test_B2_regions_are_the_nine_3x3_blocks() -> None:
    assert REGIONS == ("man", "ring", "woman", "sign", "skyline", "sax", "car", "cards", "champagne")
    assert names(REGION_MASKS[0]) == {"A1", "A2", "A3", "B1", "B2", "B3", "C1", "C2", "C3"}
    assert names(REGION_MASKS[1]) == {"A4", "A5", "A6", "B4", "B5", "B6", "C4", "C5", "C6"}
    assert names(REGION_MASKS[4]) == {"D4", "D5", "D6", "E4", "E5", "E6", "F4", "F5", "F6"}
    assert names(REGION_MASKS[8]) == {"G7", "G8", "G9", "H7", "H8", "H9", "I7", "I8", "I9"}
    assert sum(REGION_MASKS) == FULL
    for cell in range(81):
        assert REGION_MASKS[region_of(cell)] >> cell & 1
    assert REGIONS[region_of(cell_index("E5"))] == "skyline"
    assert REGIONS[region_of(cell_index("G3"))] == "car"
    assert REGIONS[region_of(cell_index("C7"))] == "woman"


# -- B3 ------------------------------------------------------------------------------------------


def test_B3_cells_touch_side_to_side_only() -> None:
    assert names(NEIGHBOURS[cell_index("E5")]) == {"D5", "F5", "E4", "E6"}
    assert names(NEIGHBOURS[cell_index("A1")]) == {"A2", "B1"}
    assert names(NEIGHBOURS[cell_index("A9")]) == {"A8", "B9"}  # no wrap to B1
    assert names(NEIGHBOURS[cell_index("B1")]) == {"A1", "C1", "B2"}  # no wrap to A9
    assert names(NEIGHBOURS[cell_index("I9")]) == {"I8", "H9"}
    for cell in range(81):
        assert rc_cells(NEIGHBOURS[cell]) == set(rc_touching((cell // 9, cell % 9)))


def test_B3_diagonal_tiles_are_two_groups() -> None:
    assert count_groups(bits("D4", "E5")) == 2
    assert count_groups(bits("D4", "D5")) == 1
    assert count_groups(bits("A9", "B1")) == 2  # the end of one row does not touch the next


def test_spread_and_flood() -> None:
    assert names(spread(bits("A1"))) == {"A1", "A2", "B1"}
    line = bits("C3", "C4", "C5", "E5")
    assert names(flood(bits("C3"), line)) == {"C3", "C4", "C5"}
    assert flood(bits("A1"), line) == 0  # a seed outside reaches nothing
    assert list(iter_cells(bits("I9", "A1", "E5"))) == [0, 40, 80]


@settings(max_examples=examples(300), derandomize=True, deadline=None)
@given(dense_boards)
@pytest.mark.slow
def test_count_groups_equals_breadth_first_count(board: int) -> None:
    assert count_groups(board) == len(rc_groups(rc_cells(board)))


# -- M3 by shifts --------------------------------------------------------------------------------


def test_removable_hand_checked() -> None:
    # A line of three: the ends may go, the middle may not.
    assert names(capturable_mask(bits("B1", "B2", "B3"))) == {"B1", "B3"}
    # A 2x2 block: every tile may go.
    block = bits("H7", "H8", "I7", "I8")
    assert capturable_mask(block) == block
    # A T: the centre holds three arms together.
    assert names(capturable_mask(bits("D4", "D5", "D6", "E5"))) == {"D4", "D6", "E5"}
    # A ring round an empty cell: every tile may go, though for a side tile the
    # way round leaves its 3x3 surroundings (the flood-fill path).
    ring = bits("C3", "C4", "C5", "D3", "D5", "E3", "E4", "E5")
    assert capturable_mask(ring) == ring
    # The same without C4 is a U: now the bottom and the arms are cut points.
    u = ring & ~bits("C4")
    assert names(capturable_mask(u)) == {"C3", "C5"}
    assert capturable_mask(0) == 0
    assert capturable_mask(FULL) == FULL


@settings(max_examples=examples(400), derandomize=True, deadline=None)
@given(dense_boards)
@pytest.mark.slow
def test_removable_equals_the_definition(board: int) -> None:
    cells = rc_cells(board)
    expected = {cell for cell in cells if rc_removable(cells, cell)}
    assert rc_cells(capturable_mask(board)) == expected


@pytest.mark.slow
def test_removable_on_random_boards_of_every_density() -> None:
    rng = random.Random(81)
    for trial in range(300):
        density = rng.random()
        board = sum(1 << i for i in range(81) if rng.random() < density)
        cells = rc_cells(board)
        assert rc_cells(capturable_mask(board)) == {c for c in cells if rc_removable(cells, c)}, trial
