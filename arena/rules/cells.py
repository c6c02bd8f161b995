"""Sets of cells for bot authors: :class:`Cells` over an 81-bit bitboard, and the board's shapes.

The engine keeps every color's tiles as one int, bit ``i`` set when cell
``i`` holds a tile (cell ``i`` is row ``i // 9``, ``A`` at the top, and
column ``i % 9``, ``1`` at the left: ``A1`` is 0, ``A2`` 1, ``B1`` 9,
``I9`` 80).  :class:`Cells` wraps such an int as an immutable set of cells
that can be iterated, counted, tested, combined and printed by name; its
``mask`` is the int again, for code that wants the raw bits.  The functions
here give the board's shapes as Cells: the neighbours of a cell (B3), the
groups of a set (B3), a cell's row, column and region (B1, B2) and the cells
a tile fits (M1).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from arena.rules.geometry import (
    CELL_NAMES,
    COLUMN_MASKS,
    COLUMNS,
    FULL,
    N_CELLS,
    NEIGHBOURS,
    REGION_MASKS,
    REGIONS,
    ROW_MASKS,
    ROWS,
    capturable_mask,
    cell_index,
    count_groups,
    flood,
    iter_cells,
    spread,
)
from arena.rules.geometry import region_of as _region_of
from arena.rules.tiles import FITS, TILE_NAMES, tile_index

CellLike = int | str
"""A cell: its index 0-80 or its name as the records write it (``"C5"``)."""


def _cell(cell: object) -> int:
    """The index of ``cell`` (an index or a name); ValueError for anything else."""
    if type(cell) is int:
        if 0 <= cell < N_CELLS:
            return cell
        raise ValueError(f"no cell {cell}: cells are numbered 0-80")
    if isinstance(cell, str):
        return cell_index(cell)
    raise ValueError(f"a cell is an index 0-80 or a name such as 'C5', not {cell!r}")


def _mask(other: object) -> int:
    if isinstance(other, Cells):
        return other.mask
    if type(other) is int and 0 <= other <= FULL:
        return other
    raise TypeError(f"not a set of cells: {other!r}")


class Cells:
    """An immutable set of cells, held as an 81-bit mask (bit ``i`` for cell ``i``).

    ``Cells(mask)`` takes a bitboard such as ``view.board_masks[color]``;
    ``Cells(["A1", "E5"])`` or ``Cells([0, 40])`` takes cells by name or
    index.  Iteration goes in increasing index (reading order, ``A1`` first);
    ``len``, ``in`` (an index or a name), ``|``, ``&``, ``-``, ``^``, ``~``
    (the rest of the board) and ``<=`` (subset) work as for sets, with another
    Cells or a raw int mask.  A Cells equals the Cells, or the int mask, of
    the same cells.

    >>> tiles = Cells(["A1", "A2", "B2", "E5"])
    >>> tiles
    Cells(['A1', 'A2', 'B2', 'E5'])
    >>> len(tiles), "B2" in tiles, 40 in tiles, 41 in tiles
    (4, True, True, False)
    >>> list(tiles)
    [0, 1, 10, 40]
    >>> print(tiles)
    A1 A2 B2 E5
    >>> tiles.groups()
    (Cells(['A1', 'A2', 'B2']), Cells(['E5']))
    >>> tiles & Cells(["E5", "I9"]), tiles - 0b11
    (Cells(['E5']), Cells(['B2', 'E5']))
    >>> Cells(tiles.mask) == tiles == tiles.mask, len(~tiles)
    (True, 77)
    """

    __slots__ = ("mask",)
    mask: int

    def __init__(self, cells: int | Iterable[CellLike] = 0) -> None:
        if type(cells) is int:
            if not 0 <= cells <= FULL:
                raise ValueError(f"a set of cells is an 81-bit mask, not {cells:#x}")
            mask = cells
        elif isinstance(cells, Cells):
            mask = cells.mask
        elif isinstance(cells, (str, bytes)) or not isinstance(cells, Iterable):
            raise ValueError(f"Cells takes an 81-bit mask or a list of cells, not {cells!r}")
        else:
            mask = 0
            for cell in cells:
                mask |= 1 << _cell(cell)
        object.__setattr__(self, "mask", mask)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Cells is immutable: cannot set {name!r}")

    def __reduce__(self) -> tuple[type[Cells], tuple[int]]:
        return Cells, (self.mask,)

    # -- a set ---------------------------------------------------------------------------------

    def __iter__(self) -> Iterator[int]:
        return iter_cells(self.mask)

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __bool__(self) -> bool:
        return self.mask != 0

    def __contains__(self, cell: object) -> bool:
        if type(cell) is int:
            return 0 <= cell < N_CELLS and bool(self.mask >> cell & 1)
        if isinstance(cell, str):
            try:
                return bool(self.mask >> cell_index(cell) & 1)
            except ValueError:
                return False
        return False

    def __int__(self) -> int:
        return self.mask

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Cells):
            return self.mask == other.mask
        if type(other) is int:
            return self.mask == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.mask)

    def __or__(self, other: Cells | int) -> Cells:
        return Cells(self.mask | _mask(other))

    def __and__(self, other: Cells | int) -> Cells:
        return Cells(self.mask & _mask(other))

    def __sub__(self, other: Cells | int) -> Cells:
        return Cells(self.mask & ~_mask(other))

    def __xor__(self, other: Cells | int) -> Cells:
        return Cells(self.mask ^ _mask(other))

    __ror__ = __or__
    __rand__ = __and__
    __rxor__ = __xor__

    def __invert__(self) -> Cells:
        return Cells(FULL ^ self.mask)

    def __le__(self, other: Cells | int) -> bool:
        return self.mask & ~_mask(other) == 0

    def __ge__(self, other: Cells | int) -> bool:
        return _mask(other) & ~self.mask == 0

    def isdisjoint(self, other: Cells | int) -> bool:
        """Whether no cell is in both."""
        return self.mask & _mask(other) == 0

    def first(self) -> int | None:
        """The lowest cell (the first in reading order), or None for no cell."""
        mask = self.mask
        return (mask & -mask).bit_length() - 1 if mask else None

    def names(self) -> tuple[str, ...]:
        """The cells' names, as the records write them, in reading order: ``('A1', 'E5')``."""
        return tuple(CELL_NAMES[cell] for cell in iter_cells(self.mask))

    def __repr__(self) -> str:
        return f"Cells({list(self.names())!r})"

    def __str__(self) -> str:
        return " ".join(self.names())

    # -- the board's shapes (B3, M3) ---------------------------------------------------------------

    def neighbours(self) -> Cells:
        """The cells outside this set that touch one of its cells side to side (B3)."""
        return Cells(spread(self.mask) & ~self.mask)

    def groups(self) -> tuple[Cells, ...]:
        """This set cut into groups: cells joined side to side (B3), ordered by their first cell."""
        return groups(self.mask)

    def group_count(self) -> int:
        """How many groups this set makes: ``len(self.groups())``, without building them."""
        return count_groups(self.mask)

    def group_of(self, cell: CellLike) -> Cells:
        """The group of this set that holds ``cell`` (no cell if ``cell`` is not in the set)."""
        return Cells(flood(1 << _cell(cell), self.mask))

    def capturable(self) -> Cells:
        """The cells that could leave this set without splitting a group of it (M3).

        For one color's tiles, the tiles an opponent may capture, given a tile
        that fits the cell (M1); a seat never captures its own colors (M2).
        """
        return Cells(capturable_mask(self.mask))


#: All 81 cells.
BOARD = Cells(FULL)


def neighbours(cell: CellLike) -> Cells:
    """The two to four cells touching ``cell`` side to side (B3); corners do not touch."""
    return Cells(NEIGHBOURS[_cell(cell)])


def groups(cells: Cells | int) -> tuple[Cells, ...]:
    """The groups of ``cells`` (a Cells or a bitboard such as ``view.board_masks[color]``), ordered by first cell.

    A group is a set of cells joined side to side (B3); a lone cell is a group.
    """
    board = _mask(cells)
    found = []
    while board:
        group = flood(board & -board, board)
        found.append(Cells(group))
        board ^= group
    return tuple(found)


def row_of(cell: CellLike) -> int:
    """The row of ``cell``: 0 for row ``A`` (the top) to 8 for row ``I`` (B1)."""
    return _cell(cell) // 9


def column_of(cell: CellLike) -> int:
    """The column of ``cell``: 0 for column ``1`` (the left) to 8 for column ``9`` (B1)."""
    return _cell(cell) % 9


def region_of(cell: CellLike) -> int:
    """The region of ``cell``: an index into :data:`~arena.rules.REGIONS`, 0 (``man``) to 8 (B2)."""
    return _region_of(_cell(cell))


def _index(value: int | str, names: str | tuple[str, ...], what: str) -> int:
    if type(value) is int and 0 <= value < 9:
        return value
    if isinstance(value, str) and value in names:
        return names.index(value)
    raise ValueError(f"no {what} {value!r}: a {what} is an index 0-8 or one of {', '.join(names)}")


def row(index: int | str) -> Cells:
    """The nine cells of a row, given as 0-8 (``A`` = 0) or by its letter (B1)."""
    return Cells(ROW_MASKS[_index(index, ROWS, "row")])


def column(index: int | str) -> Cells:
    """The nine cells of a column, given as 0-8 (column ``1`` = 0) or by its digit as text, ``"1"``-``"9"`` (B1)."""
    return Cells(COLUMN_MASKS[_index(index, COLUMNS, "column")])


def region(index: int | str) -> Cells:
    """The nine cells of a region, given as 0-8 or by its symbol (``"sax"``), in :data:`REGIONS` order (B2)."""
    return Cells(REGION_MASKS[_index(index, REGIONS, "region")])


def fits(tile: int | str) -> Cells:
    """The cells ``tile`` may be played on (M1): its row, column or region, or every cell for ``$``.

    ``tile`` is a tile number 0-27 or its name (``"C"``, ``"7"``, ``"ring"``, ``"$"``).
    """
    if isinstance(tile, str):
        return Cells(FITS[tile_index(tile)])
    if type(tile) is int and 0 <= tile < len(TILE_NAMES):
        return Cells(FITS[tile])
    raise ValueError(f"unknown tile {tile!r}: a tile is a number 0-27 or a name such as 'C', '7', 'ring', '$'")
