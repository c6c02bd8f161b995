"""What one seat may see (S2), and determinization for search bots.

A :class:`SeatView` is built from copies of public facts plus the seat's own
rack(s); it holds no reference to the :class:`GameState` it came from, so
nothing reachable from it leads to another rack or to any pile's order.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from operator import sub
from typing import NamedTuple

from arena.rules.base import EVERY_TILE, TILES_PLAYED, GameSettings
from arena.rules.cells import Cells, groups
from arena.rules.engine import GameState
from arena.rules.geometry import FULL, N_CELLS, capturable_mask
from arena.rules.moves import Move, MoveSet
from arena.rules.tiles import COLORS, N_TILES, color_index


class TurnClock(NamedTuple):
    """A seat's clock at its turn, as the referee tells it (numbers only: the rules read no clock).

    ``time`` is how long this turn may take (the per-move limit plus the overage bank, at most
    the clock's remaining time; ``inf`` for no limit); ``remaining`` is what is left on the game
    clock before the turn (None: the game has no clock), ``increment`` what each answered turn
    adds back, ``overage`` what is left of the bank (None: no bank) and ``moves_to_go`` the
    seat's turns before its base time is added again (None: no periods).
    """

    time: float
    remaining: float | None
    increment: float
    overage: float | None
    moves_to_go: int | None


@dataclass(frozen=True, slots=True)
class SeatView:
    """The game as ``seat`` sees it: public facts plus its own rack(s), nothing more (S2).

    A frozen record of copies, built by :meth:`of` for every turn; picklable.
    Per-color tuples are indexed by color (0-4); colors not in play hold 0.
    Views compare field by field (their MoveSets by the moves they hold), so two views of the same
    turn are equal; a view holds a dict (``racks``), so it has no hash.

    Two levels of the same facts, as python-chess has ``pieces_mask()`` and
    ``pieces()``: a name ending in ``_mask`` is a raw 81-bit int (a bitboard,
    for fast inner loops); the others are :class:`~arena.rules.cells.Cells`.

    >>> from arena.rules import GameSettings, GameState, deal
    >>> settings = GameSettings.for_players(3)
    >>> state = GameState(settings, deal(5, settings))
    >>> _ = state.push(state.legal_moves()[0])
    >>> view = SeatView.of(state, 1)
    >>> view
    <SeatView of seat 1, move 1, 45 legal moves>
    >>> view.seat, view.to_move, view.colors, view.racks
    (1, 1, (1,), {1: (4, 15, 26, 14, 3)})
    >>> view.occupied, view.occupied_mask == view.board_masks[0]
    (Cells(['A7']), True)
    >>> view.rack_sizes, view.pile_sizes
    ((5, 5, 5, 0, 0), (22, 23, 23, 0, 0))
    >>> view.history, view.legal[0]
    (((Move.parse('red:woman@A7'), -1),), Move.parse('blue:E@E1'))
    >>> view.board_masks[0] = 0
    Traceback (most recent call last):
    ...
    TypeError: 'tuple' object does not support item assignment
    >>> import pickle
    >>> view == SeatView.of(state, 1) == pickle.loads(pickle.dumps(view)), view == SeatView.of(state, 2)
    (True, False)
    """

    settings: GameSettings
    #: The seat this view belongs to.
    seat: int
    #: The seat to move (T3).
    to_move: int
    #: Whether the game has ended (E2, E3).
    over: bool
    #: One bitboard per color: ``board_masks[color]`` (``cells_of(color)`` is the same as a Cells).
    board_masks: tuple[int, ...]
    #: The seat's own rack(s): ``{color: tiles}``, oldest tile first.
    racks: dict[int, tuple[int, ...]]
    #: How many tiles each color has taken from its pile so far (its first five included).
    drawn: tuple[int, ...]
    #: The tiles each color has placed, in the order played.
    played_tiles: tuple[tuple[int, ...], ...]
    #: ``captures[seat][color]``: tiles of ``color`` that ``seat`` captured.
    captures: tuple[tuple[int, ...], ...]
    #: Every turn so far: the move and the color it captured (-1 for none).
    history: tuple[tuple[Move, int], ...]
    #: Passes in a row since the last placement (M6).
    passes: int
    #: The seat's legal moves; empty when it is not its turn, it must pass, or the game is over.
    legal: MoveSet
    #: The seat's clock at its turn, in a game with a clock or an overage bank; None otherwise.
    clock: TurnClock | None = None

    @classmethod
    def of(cls, state: GameState, seat: int, legal: MoveSet | None = None, *,
           settings: GameSettings | None = None) -> SeatView:
        """The view of ``seat`` in ``state``.

        ``legal`` may pass the ``state.legal_moves()`` the caller already made
        (the view takes its own copy, so a bot that tampers with it changes
        nothing outside); otherwise they are generated here.  ``settings``
        stands in for ``state.settings`` (a seat's own copy).
        """
        if state.to_move == seat and not state.over:
            legal = state.legal_moves() if legal is None else legal
            legal = MoveSet._of(legal.options, len(legal), legal.open_mask)
        else:
            legal = MoveSet._of((), 0)
        return turn_view(state, seat, legal, state.settings if settings is None else settings,
                         tuple(map(tuple, state.captures)))

    def __repr__(self) -> str:
        return f"<SeatView of seat {self.seat}, move {len(self.history)}, {len(self.legal)} legal moves>"

    @property
    def colors(self) -> tuple[int, ...]:
        """The seat's own colors."""
        return self.settings.seat_colors[self.seat]

    @property
    def rack_sizes(self) -> tuple[int, ...]:
        """How many tiles each color's rack holds."""
        return tuple(map(sub, self.drawn, map(len, self.played_tiles)))

    @property
    def pile_sizes(self) -> tuple[int, ...]:
        """How many tiles each color's pile holds."""
        return tuple(N_TILES - n if n else 0 for n in self.drawn)

    def color_at(self, cell: int) -> int:
        """The color of the tile on ``cell``, or -1 if it is empty."""
        for color, board in enumerate(self.board_masks):
            if board >> cell & 1:
                return color
        return -1

    def unplayed(self, color: int) -> frozenset[int]:
        """The tiles ``color`` has not played yet: its rack and pile together (public, S2)."""
        if not self.drawn[color]:
            return frozenset()  # not in play
        return EVERY_TILE.difference(self.played_tiles[color])

    def played_count(self, color: int) -> int:
        """How many tiles ``color`` has placed."""
        return len(self.played_tiles[color])

    def is_finished(self, color: int) -> bool:
        """E1: whether ``color`` has played its 24 tiles."""
        return len(self.played_tiles[color]) >= TILES_PLAYED

    # -- the boards: bitboards (``_mask``) and sets of cells (arena.rules.cells) ---------------------

    @property
    def occupied_mask(self) -> int:
        """Every cell that holds a tile, of any color, as a bitboard."""
        mask = 0
        for board in self.board_masks:
            mask |= board
        return mask

    @property
    def occupied(self) -> Cells:
        """Every cell that holds a tile, of any color."""
        return Cells(self.occupied_mask)

    @property
    def empty_mask(self) -> int:
        """Every cell that holds no tile, as a bitboard."""
        return FULL ^ self.occupied_mask

    @property
    def empty(self) -> Cells:
        """Every cell that holds no tile."""
        return Cells(self.empty_mask)

    @property
    def own_mask(self) -> int:
        """The cells holding the seat's own tiles (both its colors with two players), as a bitboard."""
        mask = 0
        for color in self.settings.seat_colors[self.seat]:
            mask |= self.board_masks[color]
        return mask

    @property
    def own(self) -> Cells:
        """The cells holding the seat's own tiles (both its colors with two players)."""
        return Cells(self.own_mask)

    def cells_of(self, color: int | str) -> Cells:
        """The cells holding ``color``'s tiles (a color 0-4 or its name): ``Cells(view.board_masks[color])``."""
        return Cells(self.board_masks[_color(color)])

    def groups_of(self, color: int | str) -> tuple[Cells, ...]:
        """The groups of ``color`` on the board (B3), ordered by first cell; their number is its score (C1)."""
        return groups(self.board_masks[_color(color)])

    def capturable_mask(self, color: int | str) -> int:
        """:meth:`capturable` as a bitboard."""
        return capturable_mask(self.board_masks[_color(color)])

    def capturable(self, color: int | str) -> Cells:
        """The tiles of ``color`` whose capture would not split its group (M3).

        Another seat may take one with a rack tile that fits the cell (M1);
        ``view.legal`` holds the captures the seat can make now.
        """
        return Cells(self.capturable_mask(color))

    def board_cells(self) -> list[int]:
        """The color on each of the 81 cells (-1 for empty)."""
        return [self.color_at(cell) for cell in range(N_CELLS)]

    def sample(self, rng: random.Random) -> GameState:
        """A full state consistent with what this seat knows (determinization).

        Opponent racks and every pile's order (its own piles included) are
        drawn with ``rng`` from each color's unplayed tiles; the board,
        captures, history, turn and this seat's racks are as seen.  The same
        generator state gives the same sample, a state of the engine in use
        (:mod:`arena.rules.engine`) with its capture memo already filled.
        """
        deals: dict[int, tuple[int, ...]] = {}
        drawn: dict[int, int] = {}
        racks: dict[int, list[int]] = {}
        rack_sizes = self.rack_sizes
        for color in self.settings.colors:
            played = self.played_tiles[color]
            unplayed = sorted(self.unplayed(color))
            if color in self.racks:
                rack = list(self.racks[color])
                pile = [t for t in unplayed if t not in rack]
                rng.shuffle(pile)
            else:
                pool = unplayed
                rng.shuffle(pool)
                size = rack_sizes[color]
                rack, pile = pool[:size], pool[size:]
            deals[color] = (*played, *rack, *pile)
            drawn[color] = len(played) + len(rack)
            racks[color] = rack
        return GameState.restore(
            self.settings, deals, drawn, racks, self.board_masks, self.captures,
            self.to_move, self.passes, self.history, self.over,
        )


def turn_view(state: GameState, seat: int, legal: MoveSet, settings: GameSettings,
              captures: tuple[tuple[int, ...], ...], clock: TurnClock | None = None) -> SeatView:
    """The one place a :class:`SeatView` is put together: ``legal`` and ``captures`` are taken as given.

    For the referee's loop, which builds a view every turn: ``legal`` goes into
    the view as it is when it is the pure engine's :class:`~.state.MoveSet`, else as one made
    from its options, so that a bot is handed the same object with either engine (the
    referee checks the answer against the options tuple it read before, whatever a bot
    does to its MoveSet), and ``captures`` is
    the copy of ``state.captures`` made at the last capture.  Everything else
    is copied from ``state`` here; ``settings`` is the seat's own copy of the
    settings, and ``clock`` the seat's clock as the referee tells it (None: no clock).
    :meth:`SeatView.of` is the general way in.
    """
    if type(legal) is not MoveSet:
        legal = MoveSet._of(legal.options, len(legal), legal.open_mask)
    racks = state.racks
    # The seat's colors by the state's own settings: ``settings`` may be a copy the seat's bot has changed.
    colors = state.settings.seat_colors[seat]
    if len(colors) == 1:
        own = {colors[0]: tuple(racks[colors[0]])}
    else:
        own = {c: tuple(racks[c]) for c in colors}
    return seat_view(settings, seat, state.to_move, state.over, tuple(state.boards), own, tuple(state.drawn),
                     tuple(state.played_tiles), captures, tuple(state.history), state.passes, legal, clock)


class _Draft:
    """A SeatView while it is filled in: the same slots in the same order, and writable."""

    __slots__ = SeatView.__slots__

    def __init__(self, settings: GameSettings, seat: int, to_move: int, over: bool, board_masks: tuple[int, ...],
                 racks: dict[int, tuple[int, ...]], drawn: tuple[int, ...], played_tiles: tuple[tuple[int, ...], ...],
                 captures: tuple[tuple[int, ...], ...], history: tuple[tuple[Move, int], ...], passes: int,
                 legal: MoveSet, clock: TurnClock | None) -> None:
        self.settings = settings
        self.seat = seat
        self.to_move = to_move
        self.over = over
        self.board_masks = board_masks
        self.racks = racks
        self.drawn = drawn
        self.played_tiles = played_tiles
        self.captures = captures
        self.history = history
        self.passes = passes
        self.legal = legal
        self.clock = clock


def seat_view(settings: GameSettings, seat: int, to_move: int, over: bool, board_masks: tuple[int, ...],
              racks: dict[int, tuple[int, ...]], drawn: tuple[int, ...], played_tiles: tuple[tuple[int, ...], ...],
              captures: tuple[tuple[int, ...], ...], history: tuple[tuple[Move, int], ...], passes: int,
              legal: MoveSet, clock: TurnClock | None = None) -> SeatView:
    """``SeatView(...)`` of these fields as they are (no copy, no check), for the loops that make one a turn.

    A frozen dataclass sets each field through ``object.__setattr__``, several times the cost
    of a tuple; this fills a writable twin of the same layout and then makes it a SeatView
    (``__class__`` may change between classes of one slot layout), as cheap as the named tuple
    the view once was.
    """
    view = _Draft(settings, seat, to_move, over, board_masks, racks, drawn, played_tiles, captures, history, passes,
                  legal, clock)
    view.__class__ = SeatView  # type: ignore[assignment]
    return view  # type: ignore[return-value]


def _color(color: int | str) -> int:
    """A color given as 0-4 or by name; ValueError for anything else."""
    if isinstance(color, str):
        return color_index(color)
    if type(color) is int and 0 <= color < len(COLORS):
        return color
    raise ValueError(f"unknown color {color!r}: a color is 0-4 or one of {', '.join(COLORS)}")
