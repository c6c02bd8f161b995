"""The fixed action space: every move of any game of Uptown as an integer id.

A color has 324 *slots*, one per (tile, cell) the tile fits (M1):

* a letter, number or symbol tile ``t`` (0-26) fits 9 cells: slot ``9 * t + k``, where ``k`` (0-8) is
  the cell's place among those 9 in increasing cell order (a letter: its column; a number: its row; a
  symbol: row-major within the region);
* the wild ``$`` (tile 27) fits every cell: slot ``243 + cell``.

The id of ``color:tile@cell`` is ``324 * color + slot`` (0-1619); :data:`PASS_ID` (1620) is the pass
(M6).  :data:`N_ACTIONS` is 1621 whatever the number of players: colors not in play are never legal.
Ids grow with (color, tile, cell), so the ids of a :class:`~arena.rules.MoveSet` sorted by its moves are
sorted.  The mapping is part of the arena's interface (docs/reference/actions.md) and never changes.
"""

from __future__ import annotations

import operator

import numpy as np
import numpy.typing as npt

from arena.rules import engine as _engine
from arena.rules.geometry import N_CELLS
from arena.rules.moves import PASS, Move, MoveSet
from arena.rules.tiles import COLORS, FITS, N_TILES, WILD

#: Slots per color: 27 tiles of 9 cells each, and the wild tile's 81.
SLOTS_PER_COLOR = 9 * WILD + N_CELLS
#: The pass (M6).
PASS_ID = len(COLORS) * SLOTS_PER_COLOR
#: How many action ids there are: every placement of every color, and the pass.
N_ACTIONS = PASS_ID + 1


def _cells(mask: int) -> list[int]:
    return [cell for cell in range(N_CELLS) if mask >> cell & 1]


#: ``_SLOT[tile][cell]``: the slot of ``tile`` on ``cell``, -1 where it does not fit.
_SLOT: tuple[tuple[int, ...], ...] = tuple(
    tuple((9 * tile + _cells(FITS[tile]).index(cell)) if tile < WILD and FITS[tile] >> cell & 1
          else (9 * WILD + cell if tile == WILD else -1) for cell in range(N_CELLS))
    for tile in range(N_TILES)
)
#: The move of every id, :data:`PASS` last.
_MOVES: tuple[Move, ...] = tuple(
    Move(color, tile, cell)
    for color in range(len(COLORS))
    for tile in range(N_TILES)
    for cell in _cells(FITS[tile])
) + (PASS,)
assert len(_MOVES) == N_ACTIONS
#: ``ACTION_TABLE[id]``: the id's ``(color, tile, cell)`` as int16 (``(-1, -1, -1)`` for the pass), for
#: learners that compute features of many actions at once.
ACTION_TABLE: npt.NDArray[np.int16] = np.array(_MOVES, np.int16)
ACTION_TABLE.setflags(write=False)


def action_id(move: Move) -> int:
    """The id of ``move`` (:data:`PASS_ID` for the pass); ValueError for a tile on a cell it does not fit."""
    color, tile, cell = move
    if color < 0:
        return PASS_ID
    if not (0 <= color < len(COLORS) and 0 <= tile < N_TILES and 0 <= cell < N_CELLS):
        raise ValueError(f"no action id for color {color}, tile {tile}, cell {cell}: out of range")
    slot = _SLOT[tile][cell]
    if slot < 0:
        raise ValueError(f"no action id for {move}: the tile does not fit that cell (M1)")
    return SLOTS_PER_COLOR * color + slot


def action_move(action: int) -> Move:
    """The move of id ``action`` (0 to :data:`N_ACTIONS` - 1); ValueError for any other value."""
    if type(action) is not int:
        try:
            action = operator.index(action)  # numpy integers; not "3", not 2.5
        except TypeError:
            raise ValueError(f"an action id is an int, not {action!r}") from None
    if not 0 <= action < N_ACTIONS:
        raise ValueError(f"there is no action id {action} (ids run from 0 to {N_ACTIONS - 1})")
    return _MOVES[action]


#: ``_IDS[5 * tile + color]``: the id of each cell for that tile and color (0 where it does not fit).
_IDS = np.array([[SLOTS_PER_COLOR * color + slot if slot >= 0 else 0 for slot in _SLOT[tile]]
                 for tile in range(N_TILES) for color in range(len(COLORS))], np.intp)
_BYTES = (N_CELLS + 7) // 8
_PASS_ONLY = np.array([PASS_ID], np.intp)
#: The native engine's MoveSet, which computes its ids and mask in C (arena/rules/native/spaces.c).
_NATIVE_MOVES: type | None = _engine.NativeMoveSet


def legal_array(moves: MoveSet) -> npt.NDArray[np.intp]:
    """:func:`legal_ids` as a numpy array (every option's cells unpacked at once: no loop over cells)."""
    if type(moves) is _NATIVE_MOVES:
        return np.array(moves._action_ids(), np.intp)  # type: ignore[attr-defined]
    options = moves.options
    if not options:
        return _PASS_ONLY.copy()
    raw = b"".join(cells.to_bytes(_BYTES, "little") for _, _, cells in options)
    bits = np.unpackbits(np.frombuffer(raw, np.uint8), bitorder="little").reshape(len(options), -1)[:, :N_CELLS]
    rows = _IDS[[len(COLORS) * tile + color for color, tile, _ in options]]
    ids = rows[bits.view(bool)]
    ids.sort()
    return ids


def legal_ids(moves: MoveSet) -> list[int]:
    """The ids of ``moves`` in increasing order; ``[PASS_ID]`` when it is empty (the seat must pass, M6)."""
    if type(moves) is _NATIVE_MOVES:
        return moves._action_ids()  # type: ignore[attr-defined,no-any-return]
    return legal_array(moves).tolist()  # type: ignore[no-any-return]


def legal_mask(moves: MoveSet, out: npt.NDArray[np.int8] | None = None) -> npt.NDArray[np.int8]:
    """A vector of :data:`N_ACTIONS` int8, 1 at the ids of :func:`legal_ids` and 0 elsewhere (into ``out``,
    a contiguous int8 vector)."""
    if type(moves) is _NATIVE_MOVES:
        if out is None:
            out = np.empty(N_ACTIONS, np.int8)
        moves._action_mask_into(out)  # type: ignore[attr-defined]
        return out
    if out is None:
        out = np.zeros(N_ACTIONS, np.int8)
    else:
        out.fill(0)
    out[legal_array(moves)] = 1
    return out
