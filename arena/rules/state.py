"""The full state of a game of Uptown: moves, captures, passes and the end (M1-M6, E1-E3).

Only the referee holds a :class:`GameState`; a seat sees a
:class:`~arena.rules.view.SeatView`.  The state knows nothing of clocks,
files or global randomness: everything random comes in through the deal or a
generator the caller passes.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from functools import reduce
from operator import or_, sub

from arena.rules.base import (
    EVERY_TILE,
    PENALTIES,
    RACK_SIZE,
    SCORINGS,
    TILES_PLAYED,
    BaseGameState,
    GameSettings,
    SeatResult,
    deciding_rank,
    move_fields,
    tiles_played,
    winners,
)
from arena.rules.geometry import FULL, NEIGHBOURS, capturable_at, capturable_mask
from arena.rules.moves import PASS, IllegalMove, Move, MoveSet, legal_in
from arena.rules.playout import playout as _playout
from arena.rules.rng import SplitMix64
from arena.rules.tiles import COLORS, FITS, N_TILES

__all__ = [
    "EVERY_TILE", "PASS", "PENALTIES", "RACK_SIZE", "SCORINGS", "TILES_PLAYED", "BaseGameState", "GameSettings",
    "GameState", "IllegalMove", "Move", "MoveSet", "SeatResult", "deciding_rank", "legal_in", "tiles_played",
    "winners",
]

#: M3 for a board (:func:`~.geometry.capturable_mask`), remembered for the boards last asked about (a pure function).
_capturable_mask_of = functools.lru_cache(maxsize=1024)(capturable_mask)

_new_object = object.__new__
_new_move = tuple.__new__


class GameState(BaseGameState):
    """The whole game as the referee sees it: board, racks, piles, captures, history (the pure engine).

    The contract is :class:`~arena.rules.base.BaseGameState`'s, the same as the
    native engine's: :meth:`push` checks the move (:class:`IllegalMove` naming
    the rule, nothing changed), :meth:`push_unchecked` trusts its caller; the
    attributes are read-only and per-color ones read as fresh tuples indexed by
    color (0 or ``()`` for colors not in play); boards are 81-bit ints and
    ``occupied`` their union; a position is set up with :meth:`restore`.
    """

    __slots__ = (
        "_boards",
        "_capturable",
        "_capturable_of",
        "_captures",
        "_deals",
        "_drawn",
        "_history",
        "_occupied",
        "_over",
        "_passes",
        "_played",
        "_played_tiles",
        "_racks",
        "_settings",
        "_to_move",
    )

    _settings: GameSettings
    _deals: tuple[tuple[int, ...], ...]
    _drawn: list[int]
    _racks: list[list[int]]
    _boards: list[int]
    _occupied: int
    _played: list[int]
    _played_tiles: list[tuple[int, ...]]
    _captures: list[list[int]]
    _to_move: int
    _passes: int
    _history: list[tuple[Move, int]]
    _over: bool

    def __init__(self, settings: GameSettings, deals: Mapping[int, Sequence[int]]) -> None:
        """Set up a game (S1): ``deals[color]`` is that color's 28 tiles in draw order."""
        self._settings = settings
        if sorted(deals) != sorted(settings.colors):
            raise ValueError("a deal is needed for exactly the colors in play")
        full: list[tuple[int, ...]] = [()] * len(COLORS)
        everything = set(range(N_TILES))
        for color, tiles in deals.items():
            tiles = tuple(tiles)
            if len(tiles) != N_TILES or set(tiles) != everything:
                raise ValueError(f"the deal of {COLORS[color]} is not its 28 tiles")
            full[color] = tiles
        self._deals = tuple(full)
        self._drawn = [RACK_SIZE if tiles else 0 for tiles in full]
        self._racks = [list(tiles[:RACK_SIZE]) for tiles in full]
        self._boards = [0] * len(COLORS)
        self._occupied = 0
        self._played = [0] * len(COLORS)
        self._captures = [[0] * len(COLORS) for _ in settings.seat_colors]
        self._to_move = 0
        self._passes = 0
        self._history = []
        self._over = False
        self._played_tiles = [()] * len(COLORS)
        # M3 memo: _capturable[c] = capturable_mask(b) for the board b = _capturable_of[c].  Keyed by
        # the board itself, so it can never be stale.
        self._capturable_of = [-1] * len(COLORS)
        self._capturable = [0] * len(COLORS)

    # -- the attributes, read-only as the native engine's -----------------------------------------

    @property
    def settings(self) -> GameSettings:
        return self._settings

    @property
    def deals(self) -> tuple[tuple[int, ...], ...]:
        """``deals[color]``: the 28 tiles of ``color`` in draw order (``()`` for colors not in play)."""
        return self._deals

    @property
    def drawn(self) -> tuple[int, ...]:
        """``drawn[color]``: how many tiles of the deal have left the pile (the first five to the rack at once)."""
        return tuple(self._drawn)

    @property
    def racks(self) -> tuple[tuple[int, ...], ...]:
        """``racks[color]``: the tiles on the rack, oldest first."""
        return tuple(map(tuple, self._racks))

    @property
    def boards(self) -> tuple[int, ...]:
        """``boards[color]``: the cells holding ``color``'s tiles, a bitboard."""
        return tuple(self._boards)

    @property
    def occupied(self) -> int:
        """Every cell holding a tile: the union of :attr:`boards`."""
        return self._occupied

    @property
    def played(self) -> tuple[int, ...]:
        """``played[color]``: tiles placed so far (E1)."""
        return tuple(self._played)

    @property
    def played_tiles(self) -> tuple[tuple[int, ...], ...]:
        """``played_tiles[color]``: the tiles placed so far, in the order played (public, S2)."""
        return tuple(self._played_tiles)

    @property
    def captures(self) -> tuple[tuple[int, ...], ...]:
        """``captures[seat][color]``: tiles of ``color`` that ``seat`` has captured."""
        return tuple(map(tuple, self._captures))

    @property
    def to_move(self) -> int:
        return self._to_move

    @property
    def passes(self) -> int:
        """Passes in a row since the last placement (M6)."""
        return self._passes

    @property
    def history(self) -> list[tuple[Move, int]]:
        """Every turn so far: the move and the color it captured (-1 for none); the state's own list."""
        return self._history

    @property
    def over(self) -> bool:
        return self._over

    # -- set-up and copies ----------------------------------------------------------------------

    def _set(self, drawn: list[int], racks: list[Sequence[int]], boards: list[int], captures: Sequence[Sequence[int]],
             to_move: int, passes: int, history: list[tuple[Move, int]], over: bool,
             played_tiles: list[tuple[int, ...]], /) -> None:
        # Taken as given, unchecked (the native engine checks each part): the pure engine is the reference.
        self._drawn = drawn
        self._racks = list(map(list, racks))
        self._played = list(map(sub, drawn, map(len, racks)))
        if len(boards) < len(COLORS):
            boards += [0] * (len(COLORS) - len(boards))
        self._boards = boards
        self._occupied = reduce(or_, boards)
        # The capture memo comes along: samples of one view share its boards, so they are judged once.
        for color in self._settings.colors:
            board = self._boards[color]
            self._capturable_of[color] = board
            self._capturable[color] = _capturable_mask_of(board)
        self._captures = [list(row) for row in captures]
        self._to_move = to_move
        self._passes = passes
        self._history = history
        self._over = over
        self._played_tiles = played_tiles

    def copy(self) -> GameState:
        """An independent copy (cheap: a few short lists)."""
        new = _new_object(GameState)
        new._settings = self._settings
        new._deals = self._deals
        new._drawn = self._drawn[:]
        new._racks = [rack[:] for rack in self._racks]
        new._boards = self._boards[:]
        new._occupied = self._occupied
        new._played = self._played[:]
        new._captures = [row[:] for row in self._captures]
        new._to_move = self._to_move
        new._passes = self._passes
        new._history = self._history[:]
        new._over = self._over
        new._played_tiles = self._played_tiles[:]
        new._capturable_of = self._capturable_of[:]
        new._capturable = self._capturable[:]
        return new

    def set_next_draw(self, color: int, tile: int) -> None:
        """The next tile ``color`` draws is ``tile``; the tiles above it in its pile move down one place."""
        if not isinstance(color, int) or not isinstance(tile, int):
            raise TypeError(f"a color and a tile are ints, not {color!r} and {tile!r}")
        if not 0 <= color < len(COLORS) or not 0 <= tile < N_TILES:
            raise ValueError(f"no color {color} or no tile {tile}")
        if not self._deals[color]:
            raise ValueError(f"{COLORS[color]} is not in play")
        deal, at = self._deals[color], self._drawn[color]
        if tile not in deal[at:]:
            raise ValueError(f"{COLORS[color]} cannot draw {tile} next: it is not in its pile")
        where = deal.index(tile, at)
        if where != at:
            deals = list(self._deals)  # a new tuple: copies of this state share the old one
            deals[color] = (*deal[:at], tile, *deal[at:where], *deal[where + 1:])
            self._deals = tuple(deals)

    def playout(self, rng: SplitMix64, policy: str = "random") -> tuple[tuple[int, int, int], ...]:
        """Play a copy to the end with ``policy`` (``random`` or ``greedy``, :mod:`.playout`) drawing from
        ``rng``; each seat's ``(groups, captured_total, blockers_penalty)``.  The state is left as it was."""
        return _playout(self, rng, policy)

    # -- what is where ---------------------------------------------------

    def color_at(self, cell: int) -> int:
        """The color of the tile on ``cell``, or -1 if it is empty."""
        bit = 1 << cell
        if self._occupied & bit:
            boards = self._boards
            for color in self._settings.colors:
                if boards[color] & bit:
                    return color
        return -1

    # -- moves -------------------------------------------------------------

    def capturable_mask(self, color: int) -> int:
        """M3: the tiles of ``color`` that may be captured, from the memo when its board is unchanged."""
        board = self._boards[color]
        if self._capturable_of[color] != board:
            self._capturable[color] = capturable_mask(board)
            self._capturable_of[color] = board
        return self._capturable[color]

    def capturable_at(self, cell: int) -> bool:
        """M3: whether the tile on ``cell`` may be captured: the tiles of its color that touched it
        must stay connected without it.  (Whether the mover may capture that color at all is M2.)"""
        color = self.color_at(cell)
        if color < 0:
            return False
        board = self._boards[color]
        if self._capturable_of[color] == board:
            return bool(self._capturable[color] >> cell & 1)
        return capturable_at(board, cell)  # one tile: cheaper than judging the whole board for the memo

    def legal_moves(self) -> MoveSet:
        """Every legal move of the seat to move (M1-M4, E1); empty when it must pass (M6) or the game is over."""
        if self._over:
            return MoveSet._of((), 0)
        seat = self._to_move
        settings = self._settings
        boards = self._boards
        memo_of = self._capturable_of
        memo = self._capturable
        # Where a tile may go: an empty cell, or a rival tile whose capture splits nothing.
        targets = FULL ^ self._occupied
        for color in settings.rivals[seat]:
            if memo_of[color] != boards[color]:
                self.capturable_mask(color)
            targets |= memo[color]
        options = []
        count = 0
        played = self._played
        racks = self._racks
        for color in settings.seat_colors[seat]:
            if played[color] < TILES_PLAYED:
                for tile in racks[color]:
                    cells = FITS[tile] & targets
                    if cells:
                        options.append((color, tile, cells))
                        count += cells.bit_count()
        moves = _new_object(MoveSet)
        moves.options = tuple(options)
        moves.open_mask = targets
        moves._count = count
        return moves

    def push(self, move: Move) -> int:
        """Play ``move`` if it is legal (M1-M6, E1) and hand the turn on; the color it captured, -1 for none.

        An illegal move raises :class:`IllegalMove` naming the rule (:meth:`check`) and changes nothing;
        a value that is not a tuple of three fields is a TypeError.
        """
        if type(move) is not Move:
            fields = move_fields(move)
            self.check(fields)
            move = PASS if fields[0] == -1 else _new_move(Move, fields)
        else:
            self.check(move)
        return self.push_unchecked(move)

    def push_pass(self) -> None:
        """M6: the seat to move passes (it draws nothing); :class:`IllegalMove` (M4) while it has a legal move."""
        self.check(PASS)
        self._pass()

    def push_unchecked(self, move: Move) -> int:
        """Play ``move`` (a legal move, or :data:`PASS` when nothing is legal) and hand the turn on; the color
        it captured, -1 for none (as in :attr:`history`).  No legality check: the caller vouches for it."""
        color, tile, cell = move
        if color < 0:
            self._pass()
            return -1
        bit = 1 << cell
        boards = self._boards
        memo_of = self._capturable_of
        memo = self._capturable
        victim = -1
        if self._occupied & bit:
            for victim in self._settings.colors:
                if boards[victim] & bit:
                    break
            board = boards[victim]
            boards[victim] = board ^ bit
            self._captures[self._to_move][victim] += 1
            # A lone tile leaves the capture memo right as it is, less itself.
            if memo_of[victim] == board and not NEIGHBOURS[cell] & board:
                memo[victim] &= ~bit
                memo_of[victim] = board ^ bit
        else:
            self._occupied |= bit
        board = boards[color]
        boards[color] = board | bit
        if memo_of[color] == board:
            # Keep the capture memo when the new tile joins at most one tile of its color:
            # it is capturable itself, and the one it hangs on becomes a cut point if it
            # has other neighbours.  Nothing else changes: a leaf closes no loop.
            touching = NEIGHBOURS[cell] & board
            if not touching:
                memo[color] |= bit
                memo_of[color] = board | bit
            elif not touching & (touching - 1):
                if NEIGHBOURS[touching.bit_length() - 1] & board:
                    memo[color] = (memo[color] | bit) & ~touching
                else:
                    memo[color] |= bit
                memo_of[color] = board | bit
        rack = self._racks[color]
        rack.remove(tile)
        drawn = self._drawn[color]
        if drawn < N_TILES:  # M5: draw from the pile of the color played
            rack.append(self._deals[color][drawn])
            self._drawn[color] = drawn + 1
        self._played_tiles[color] += (tile,)
        played = self._played
        played[color] += 1
        self._history.append((move, victim))
        self._passes = 0
        # T3, E2: the next seat that still has a color to play.
        settings = self._settings
        seat_colors = settings.seat_colors
        for seat in settings.turn_order[self._to_move]:
            for c in seat_colors[seat]:
                if played[c] < TILES_PLAYED:
                    self._to_move = seat
                    return victim
        self._over = True  # E2: every color is finished
        return victim

    def _pass(self) -> None:
        """M6 played: the seat to move passes, and the turn goes on (or the game ends, E3)."""
        self._history.append((PASS, -1))
        self._passes += 1
        settings = self._settings
        if self._passes >= sum(1 for seat in range(settings.players) if self.seat_active(seat)):
            self._over = True  # E3: everyone still playing passed in a row
            return
        for seat in settings.turn_order[self._to_move]:
            if self.seat_active(seat):
                self._to_move = seat
                return
        self._over = True
