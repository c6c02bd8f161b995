"""The bot author's helpers (arena.rules.cells): Cells over a bitboard, neighbours, groups, the board's
shapes, checked against arena.rules.geometry over many seeded games."""

from __future__ import annotations

import pickle
import random

import pytest

from arena.rules import (
    CELL_NAMES,
    PASS,
    REGIONS,
    TILE_NAMES,
    Cells,
    GameSettings,
    GameState,
    cell_index,
    column,
    column_of,
    deal,
    fits,
    groups,
    neighbours,
    region,
    region_of,
    row,
    row_of,
)
from arena.rules.geometry import (
    COLUMN_MASKS,
    FULL,
    NEIGHBOURS,
    REGION_MASKS,
    ROW_MASKS,
    capturable_mask,
    count_groups,
    flood,
    iter_cells,
)
from arena.rules.tiles import FITS
from arena.rules.view import SeatView


def boards_of_seeded_games(games: int = 60) -> list[int]:
    """Every color's board after every tenth turn of ``games`` seeded random games of 2-5 players."""
    boards: list[int] = []
    for seed in range(games):
        settings = GameSettings.for_players(2 + seed % 4)
        state = GameState(settings, deal(seed, settings))
        rng = random.Random(seed)
        turn = 0
        while not state.over:
            moves = state.legal_moves()
            state.push(moves.choice(rng) if moves else PASS)
            turn += 1
            if turn % 10 == 0 or state.over:
                boards.extend(state.boards[c] for c in settings.colors)
                boards.append(state.occupied)
    return boards


BOARDS = boards_of_seeded_games()


# -- Cells: a set of cells over an 81-bit mask ------------------------------------------------------

def test_cells_is_the_set_of_its_mask_s_bits() -> None:
    for board in BOARDS[::7]:
        cells = Cells(board)
        assert cells.mask == int(cells) == board
        assert list(cells) == list(iter_cells(board))
        assert len(cells) == board.bit_count()
        assert bool(cells) is (board != 0)
        for cell in range(81):
            assert (cell in cells) is bool(board >> cell & 1)
            assert (CELL_NAMES[cell] in cells) is bool(board >> cell & 1)
        assert cells.names() == tuple(CELL_NAMES[c] for c in iter_cells(board))
        assert Cells(cells.names()) == cells == Cells(list(cells)) == Cells(cells)


def test_cells_set_operations_are_the_mask_s() -> None:
    rng = random.Random(4)
    for _ in range(300):
        a, b = rng.choice(BOARDS), rng.choice(BOARDS)
        x, y = Cells(a), Cells(b)
        assert (x | y).mask == a | b and (x & y).mask == a & b
        assert (x - y).mask == a & ~b and (x ^ y).mask == a ^ b
        assert (~x).mask == FULL & ~a and ~~x == x
        assert (x | b) == Cells(a | b) and (x & b) == Cells(a & b)  # an int mask works as the other side
        assert (x <= y) is (a & ~b == 0) and x.isdisjoint(y) is (a & b == 0)
        assert (x == y) is (a == b)
        if a == b:
            assert hash(x) == hash(y)


def test_cells_is_immutable_hashable_and_pastes_back() -> None:
    cells = Cells(["A1", "E5", "I9"])
    assert repr(cells) == "Cells(['A1', 'E5', 'I9'])"
    assert eval(repr(cells)) == cells
    assert str(cells) == "A1 E5 I9"
    assert {cells: 1}[Cells(cells.mask)] == 1
    assert pickle.loads(pickle.dumps(cells)) == cells
    with pytest.raises(AttributeError):
        cells.mask = 0  # type: ignore[misc]
    with pytest.raises(AttributeError):
        cells.other = 1  # type: ignore[attr-defined]
    assert repr(Cells()) == "Cells([])" and not Cells() and len(Cells()) == 0
    assert 81 not in cells and -1 not in cells and "J1" not in cells and None not in cells and True not in cells
    assert cells.first() == cell_index("A1") and Cells().first() is None


@pytest.mark.parametrize("bad, message", [
    (1 << 81, "81-bit"), (-1, "81-bit"), ([81], "no cell 81"), (["J1"], "unknown cell 'J1'"),
    ([1.5], "not 1.5"), (True, "not True"), ("A1", "a list of cells"),
])
def test_cells_refuses_what_is_not_cells(bad: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Cells(bad)  # type: ignore[arg-type]


# -- neighbours, groups and the board's shapes ---------------------------------------------------------

def test_B3_neighbours_are_the_side_neighbours() -> None:
    for cell in range(81):
        assert neighbours(cell).mask == NEIGHBOURS[cell]
        assert neighbours(CELL_NAMES[cell]) == neighbours(cell)
        r, c = divmod(cell, 9)
        expected = {(r + dr, c + dc) for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))}
        assert {divmod(n, 9) for n in neighbours(cell)} == {(a, b) for a, b in expected if 0 <= a < 9 and 0 <= b < 9}
    assert neighbours("A1").names() == ("A2", "B1")


@pytest.mark.slow
def test_B3_groups_of_a_board_are_its_flood_fills() -> None:
    for board in BOARDS:
        found = groups(board)
        assert len(found) == count_groups(board) == Cells(board).group_count()
        assert found == Cells(board).groups()
        union = 0
        for group in found:
            assert group.mask & union == 0
            union |= group.mask
            assert flood(group.mask & -group.mask, board) == group.mask  # each one whole, and joined
        assert union == board
        firsts = [(g.mask & -g.mask).bit_length() - 1 for g in found]
        assert [g.first() for g in found] == firsts == sorted(firsts)
        for cell in list(iter_cells(board))[:3]:
            assert Cells(board).group_of(cell).mask == flood(1 << cell, board)
    assert Cells(BOARDS[0]).group_of(CELL_NAMES[0]) == Cells(BOARDS[0]).group_of(0)


def test_B3_the_border_of_cells() -> None:
    for board in BOARDS[::5]:
        around = 0
        for cell in iter_cells(board):
            around |= NEIGHBOURS[cell]
        assert Cells(board).neighbours().mask == around & ~board


def test_M3_capturable_tiles_are_the_removable_ones() -> None:
    for board in BOARDS[::3]:
        assert Cells(board).capturable().mask == capturable_mask(board)


def test_B1_B2_rows_columns_and_regions() -> None:
    for cell in range(81):
        name = CELL_NAMES[cell]
        assert row_of(cell) == row_of(name) == "ABCDEFGHI".index(name[0])
        assert column_of(cell) == column_of(name) == int(name[1]) - 1
        assert cell in row(row_of(cell)) and cell in column(column_of(cell)) and cell in region(region_of(cell))
        assert REGION_MASKS[region_of(name)] >> cell & 1
    for i in range(9):
        assert row(i).mask == ROW_MASKS[i] and row("ABCDEFGHI"[i]) == row(i)
        assert column(i).mask == COLUMN_MASKS[i] and column(str(i + 1)) == column(i)
        assert region(i).mask == REGION_MASKS[i] and region(REGIONS[i]) == region(i)
    assert region("sax").names() == ("D7", "D8", "D9", "E7", "E8", "E9", "F7", "F8", "F9")
    for bad in (9, -1, "J", "0", True):
        with pytest.raises(ValueError, match="row"):
            row(bad)
    with pytest.raises(ValueError, match="region"):
        region("moon")
    with pytest.raises(ValueError, match="column"):
        column("10")


def test_M1_fits_are_the_cells_a_tile_may_go() -> None:
    for tile, name in enumerate(TILE_NAMES):
        assert fits(tile).mask == FITS[tile] and fits(name) == fits(tile)
    assert len(fits("$")) == 81 and fits("C") == row("C") and fits("7") == column("7") and fits("ring") == region(1)
    with pytest.raises(ValueError, match="unknown tile"):
        fits("Z")


# -- the view's helpers -------------------------------------------------------------------------------

@pytest.mark.slow
def test_the_view_s_cells_are_its_boards_over_many_games() -> None:
    for seed in range(40):
        players = 2 + seed % 4
        settings = GameSettings.for_players(players)
        state = GameState(settings, deal(seed, settings))
        rng = random.Random(seed)
        while not state.over:
            view = SeatView.of(state, state.to_move)
            occupied = 0
            for board in state.boards:
                occupied |= board
            assert view.occupied.mask == occupied == state.occupied
            assert view.empty.mask == FULL & ~occupied
            assert view.own.mask == sum(state.boards[c] for c in view.colors)
            for color in range(5):
                board = state.boards[color]
                assert view.cells_of(color).mask == board
                assert view.groups_of(color) == groups(board)
                assert len(view.groups_of(color)) == count_groups(board)
                assert view.capturable(color).mask == capturable_mask(board)
            for move in list(view.legal)[:5]:
                assert move.cell in fits(move.tile) and (move.cell in view.empty or move.cell in view.capturable(
                    view.color_at(move.cell)))
            moves = state.legal_moves()
            state.push(moves.choice(rng) if moves else PASS)
    view = SeatView.of(state, 0)
    assert view.cells_of("red") == view.cells_of(0)
    with pytest.raises(ValueError, match="unknown color"):
        view.cells_of("pink")
