"""Whole playouts: play a state to its end with a cheap policy and a :class:`~.rng.SplitMix64`.

The reference for the native engine's playouts (``arena/rules/native/engine.c``
draws the same numbers in the same order).  Two policies:

* ``random``: a legal move drawn uniformly, ``moves[rng.below(len(moves))]``
  in the order of :meth:`~.state.GameState.legal_moves`; a pass when there is none.
* ``greedy``: for the seat to move, in this order of preference, a random one
  of: a rack tile onto a free cell next to its color's groups (``$`` only
  when nothing else fits); a capture next to its color's groups; a tile onto
  any free cell; any legal move (as ``random``).  Only the second step needs
  the capture test, and only on a few cells.

:func:`playout` plays a copy, so the state given is left as it was, and
returns each seat's ``(groups, captured_total, blockers_penalty)``, from which
either scoring's ranks follow (C1-C4).  ``state.playout(rng, policy)`` does the
same in one call on either engine; the native engine plays it in C.
"""

from __future__ import annotations

from arena.rules.base import TILES_PLAYED, BaseGameState
from arena.rules.geometry import FULL, spread
from arena.rules.moves import PASS, Move, MoveSet
from arena.rules.rng import SplitMix64
from arena.rules.tiles import FITS, WILD

POLICIES = ("random", "greedy")

# Moves are made without the NamedTuple constructor's argument handling (a hot path).
_new_move = tuple.__new__


def random_move(moves: MoveSet, rng: SplitMix64) -> Move:
    """A move of ``moves`` drawn uniformly with ``rng``; :data:`PASS` when there is none."""
    count = len(moves)
    if not count:
        return PASS
    return moves[rng.below(count)]


def greedy_move(state: BaseGameState, rng: SplitMix64) -> Move:
    """The move of the ``greedy`` playout policy for the seat to move (:data:`PASS` when nothing is legal)."""
    boards = state.boards
    racks = state.racks
    played = state.played
    occupied = state.occupied
    empty = FULL ^ occupied
    colors = state.settings.seat_colors[state.to_move]
    attach = []
    wild = None
    open_colors = []
    for color in colors:
        if played[color] >= TILES_PLAYED:
            continue
        b = boards[color]
        if b:
            around = spread(b) & ~b
            front = around & empty
        else:
            around = front = empty
        rack = racks[color]
        if front:
            for tile in rack:
                cells = FITS[tile] & front
                if cells:
                    if tile == WILD:
                        wild = (color, tile, cells)
                    else:
                        attach.append((color, tile, cells))
        open_colors.append((color, around, rack))
    if attach:
        color, tile, cells = attach[rng.below(len(attach))]
        return _new_move(Move, (color, tile, _pick(cells, rng)))
    if wild is not None:
        color, tile, cells = wild
        return _new_move(Move, (color, tile, _pick(cells, rng)))
    own = 0
    for color in colors:
        own |= boards[color]
    rivals = occupied & ~own
    near = []
    for color, around, rack in open_colors:
        targets = around & rivals
        if targets:
            for tile in rack:
                cells = FITS[tile] & targets
                if cells:
                    near.append((color, tile, cells))
    if near:
        start = rng.below(len(near))
        capturable_at = state.capturable_at  # M3, from the state's memo
        for i in range(len(near)):
            color, tile, cells = near[(start + i) % len(near)]
            while cells:
                low = cells & -cells
                cell = low.bit_length() - 1
                if capturable_at(cell):
                    return _new_move(Move, (color, tile, cell))
                cells ^= low
    free = []
    for color, around, rack in open_colors:
        for tile in rack:
            cells = FITS[tile] & empty
            if cells:
                free.append((color, tile, cells))
    if free:
        color, tile, cells = free[rng.below(len(free))]
        return _new_move(Move, (color, tile, _pick(cells, rng)))
    return random_move(state.legal_moves(), rng)


def play_out(state: BaseGameState, rng: SplitMix64, policy: str = "random") -> None:
    """Play ``state`` itself to the end of the game with ``policy``."""
    greedy = _policy(policy)
    while not state.over:
        # Both policies draw legal moves only (or PASS when nothing is legal): no need to check them again.
        state.push_unchecked(greedy_move(state, rng) if greedy else random_move(state.legal_moves(), rng))


def playout(state: BaseGameState, rng: SplitMix64, policy: str = "random") -> tuple[tuple[int, int, int], ...]:
    """Play a copy of ``state`` to the end with ``policy``; each seat's (groups, captured_total, blockers_penalty).

    The pure engine's :meth:`GameState.playout`; the native engine's is the same in C.
    """
    game = state.copy()
    play_out(game, rng, policy)
    groups, totals, penalties = game._keys()
    return tuple(zip(groups, totals, penalties))


def _policy(policy: str) -> bool:
    if policy not in POLICIES:
        raise ValueError("the playout policy is random or greedy")
    return policy == "greedy"


def _nth(cells: int, index: int) -> int:
    """The ``index``-th cell of ``cells`` in increasing order."""
    for _ in range(index):
        cells &= cells - 1
    return (cells & -cells).bit_length() - 1


def _pick(cells: int, rng: SplitMix64) -> int:
    """A cell of ``cells`` (not empty) drawn uniformly."""
    return _nth(cells, rng.below(cells.bit_count()))

