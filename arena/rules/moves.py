"""Moves and the legal moves of a turn: :class:`Move`, :data:`PASS`, :class:`MoveSet`, :class:`IllegalMove`.

The lowest layer of the game state: both engines' states (:mod:`.state`,
:mod:`.native`), the playouts (:mod:`.playout`) and the referee build on it,
and it imports nothing of theirs.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from arena.errors import ArenaError
from arena.rules.geometry import CELL_NAMES, N_CELLS, cell_index, iter_cells
from arena.rules.tiles import COLORS, TILE_NAMES, color_index, tile_index


class Move(NamedTuple):
    """One turn: ``color`` plays ``tile`` onto ``cell``; :data:`PASS` when nothing is legal (M6).

    Text form ``red:ring@B2`` (or ``pass``), as made by ``str()`` and read by :meth:`parse`;
    the ``repr`` pastes back.  A Move is a tuple of three ints (color, tile and cell indices).

    >>> move = Move.parse("red:ring@B2")
    >>> move
    Move.parse('red:ring@B2')
    >>> tuple(move), move.cell == cell_index("B2"), str(move)
    ((0, 19, 10), True, 'red:ring@B2')
    >>> color, tile, cell = move
    >>> Move(color, tile, cell) == move, move.is_pass, PASS.is_pass, str(PASS)
    (True, False, True, 'pass')
    """

    color: int
    tile: int
    cell: int

    @property
    def is_pass(self) -> bool:
        return self.color < 0

    def __str__(self) -> str:
        if self.color < 0:
            return "pass"
        return f"{COLORS[self.color]}:{TILE_NAMES[self.tile]}@{CELL_NAMES[self.cell]}"

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read ``red:ring@B2`` or ``pass``; ValueError when it is neither (TypeError for a non-string)."""
        if not isinstance(text, str):
            raise TypeError(f"a move is written as a string, not {type(text).__name__}")
        if text == "pass":
            return PASS
        color, sep, rest = text.partition(":")
        tile, sep2, cell = rest.partition("@")
        if not sep or not sep2:
            raise ValueError(f"a move is written color:tile@cell or pass, not {text!r}")
        return cls(color_index(color), tile_index(tile), cell_index(cell))


PASS = Move(-1, -1, -1)

_new_move = Move.__new__


class IllegalMove(ArenaError, ValueError):
    """A move the rules do not allow now, from :meth:`GameState.check`.

    ``rule`` is the id of the rule it breaks (RULES.md: ``M1``, ``M3``, ``E1`` ...);
    the message is ``reason`` followed by the rule id in brackets.
    """

    def __init__(self, rule: str, reason: str) -> None:
        super().__init__(f"{reason} ({rule})")
        self.rule = rule
        self.reason = reason

    def __reduce__(self) -> tuple[type[IllegalMove], tuple[str, str]]:
        return IllegalMove, (self.rule, self.reason)


def legal_in(options: tuple[tuple[int, int, int], ...], value: object) -> Move | None:
    """``value`` if it is one of the moves in ``options`` (:attr:`MoveSet.options`), else None.

    The one membership test of the engine, the referee's included: ``value``
    must be a :class:`Move` itself (no subclass) holding plain ints, so no code
    that came with it runs here, and the move can be played as it is.
    """
    if type(value) is not Move:
        return None
    color, tile, cell = value
    if type(cell) is int and type(tile) is int and type(color) is int and 0 <= cell < N_CELLS:
        for c, t, cells in options:
            if t == tile and c == color:
                return value if cells >> cell & 1 else None
    return None


def _native_moveset(value: object) -> bool:
    """Whether ``value`` is the native engine's MoveSet (this module is below the engine that defines it)."""
    kind = type(value)
    return kind.__name__ == "MoveSet" and kind.__module__ == "arena.rules._native"


class MoveSet:
    """The legal moves of one turn, kept as one bitboard of target cells per (color, tile).

    Iterating yields :class:`Move` objects in a fixed order (the seat's colors
    in order, each rack in order, cells in increasing order); ``len()``,
    ``[i]``, ``choice()`` and ``in`` work on the bitboards without building them.
    A game's is :meth:`GameState.legal_moves`'s (or ``view.legal``); one can be made from its options:

    >>> from arena.rules.tiles import FITS
    >>> moves = MoveSet([(0, tile_index("A"), FITS[tile_index("A")] & 0b111), (0, tile_index("2"), 1 << 10)])
    >>> moves, len(moves), bool(MoveSet())
    (<MoveSet of 4 moves>, 4, False)
    >>> list(moves)
    [Move.parse('red:A@A1'), Move.parse('red:A@A2'), Move.parse('red:A@A3'), Move.parse('red:2@B2')]
    >>> moves[3], Move.parse("red:A@A2") in moves, Move.parse("red:A@B2") in moves
    (Move.parse('red:2@B2'), True, False)
    >>> bin(moves.targets_mask(0, tile_index("A"))), moves.targets_mask(1, 0)
    ('0b111', 0)
    >>> moves.choice(random.Random(1)) in moves
    True
    >>> moves == MoveSet(moves.options), moves == MoveSet(moves.options[:1])
    (True, False)
    """

    __slots__ = ("_count", "open_mask", "options")

    options: tuple[tuple[int, int, int], ...]
    open_mask: int | None
    _count: int

    def __init__(self, options: Iterable[tuple[int, int, int]] = ()) -> None:
        #: ``(color, tile, cells)`` for every rack tile with at least one legal cell (``cells`` a bitboard).
        self.options = tuple(options)
        #: From :meth:`GameState.legal_moves`: the cells open to the seat (empty, or holding a rival
        #: tile it may capture, M2-M3) as a bitboard, so a rack tile's legal cells are ``FITS[tile] & open_mask``.
        self.open_mask = None
        self._count = -1

    @classmethod
    def _of(cls, options: tuple[tuple[int, int, int], ...], count: int, open_mask: int | None = None) -> MoveSet:
        moves = cls.__new__(cls)
        moves.options = options
        moves.open_mask = open_mask
        moves._count = count
        return moves

    def copy(self) -> MoveSet:
        """A MoveSet of its own over the same (immutable) options."""
        return MoveSet._of(self.options, len(self), self.open_mask)

    def __len__(self) -> int:
        if self._count < 0:
            self._count = sum(cells.bit_count() for _, _, cells in self.options)
        return self._count

    def __bool__(self) -> bool:
        return bool(self.options)

    def __iter__(self) -> Iterator[Move]:
        for color, tile, cells in self.options:
            for cell in iter_cells(cells):
                yield Move(color, tile, cell)

    def __contains__(self, move: object) -> bool:
        """Whether ``move`` is one of these moves (see :func:`legal_in`: a :class:`Move` of plain ints)."""
        return legal_in(self.options, move) is not None

    def __repr__(self) -> str:
        return f"<MoveSet of {len(self)} moves>"

    def __eq__(self, other: object) -> bool:
        """The same moves: the same options in the same order, whichever engine made either."""
        if isinstance(other, MoveSet) or _native_moveset(other):
            return self.options == tuple(other.options)  # type: ignore[attr-defined]
        return NotImplemented

    # Its options may be replaced (a bot's own copy): a MoveSet is no dict key.
    __hash__ = None  # type: ignore[assignment]

    def __getitem__(self, index: int) -> Move:
        """The ``index``-th move in iteration order."""
        if index < 0:
            index += len(self)
            if index < 0:
                raise IndexError("move index out of range")
        for color, tile, cells in self.options:
            n = cells.bit_count()
            if index < n:
                if index > n >> 1:
                    # Nearer the top: walk down from the highest cell.
                    for _ in range(n - 1 - index):
                        cells ^= 1 << (cells.bit_length() - 1)
                    return _new_move(Move, color, tile, cells.bit_length() - 1)
                for _ in range(index):
                    cells &= cells - 1
                return _new_move(Move, color, tile, (cells & -cells).bit_length() - 1)
            index -= n
        raise IndexError("move index out of range")

    def choice(self, rng: random.Random) -> Move:
        """A legal move drawn uniformly with ``rng`` (one ``randrange(len)``); :data:`PASS` when there is none."""
        count = self._count
        if count < 0:
            count = len(self)
        if not count:
            return PASS
        return self[rng.randrange(count)]

    def targets_mask(self, color: int, tile: int) -> int:
        """The legal cells (a bitboard) for ``tile`` of ``color``; ``Cells(...)`` of it is the set."""
        for c, t, cells in self.options:
            if c == color and t == tile:
                return cells
        return 0
