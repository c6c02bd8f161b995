"""The full state of a game of Uptown: moves, captures, passes and the end (M1-M6, E1-E3).

Only the referee holds a :class:`GameState`; a seat sees a
:class:`~arena.rules.view.SeatView`.  The state knows nothing of clocks,
files or global randomness: everything random comes in through the deal or a
generator the caller passes.
"""

from __future__ import annotations

import functools
import random
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from arena.rules.geometry import (
    CELL_NAMES,
    FULL,
    N_CELLS,
    NEIGHBOURS,
    cell_index,
    count_groups,
    iter_cells,
    removable,
    removable_at,
)
from arena.rules.tiles import COLORS, FITS, N_TILES, TILE_NAMES, color_index, tile_index

if TYPE_CHECKING:
    from arena.rules.rng import SplitMix64

RACK_SIZE = 5
#: A color is finished once it has played this many tiles (E1): 28 minus the last 4.
TILES_PLAYED = 24
SCORINGS = ("uptown", "blockers")
#: How the Blockers! penalty counts captures (C4): the largest count of one color
#: (the rule texts, the default) or of one opponent (BGA's two-player variant).
PENALTIES = ("color", "opponent")
EVERY_TILE = frozenset(range(N_TILES))


@dataclass(frozen=True)
class GameSettings:
    """What is fixed for a whole game: who plays which colors and how it is scored.

    ``seat_colors[s]`` are the colors of seat ``s`` (two each with 2 players, T2;
    one each with 3-5 players).  ``scoring`` decides the winners (C3);
    ``penalty`` is how Blockers! counts captures (C4).
    """

    seat_colors: tuple[tuple[int, ...], ...]
    scoring: str = "uptown"
    penalty: str = "color"
    #: Every color in play, in seat order.
    colors: tuple[int, ...] = field(init=False, repr=False, compare=False)
    #: ``rivals[s]``: the colors in play that seat ``s`` may capture (M2).
    rivals: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)
    #: ``turn_order[s]``: the seats in the order they come after seat ``s`` (T3), ``s`` itself last.
    turn_order: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        try:
            seat_colors = tuple(tuple(int(c) for c in colors) for colors in self.seat_colors)
        except (TypeError, ValueError):
            raise ValueError("seat_colors must be one tuple of color numbers per seat") from None
        n = len(seat_colors)
        if not 2 <= n <= 5:
            raise ValueError(f"Uptown is played by 2 to 5 players, not {n}")
        want = 2 if n == 2 else 1
        for seat, colors in enumerate(seat_colors):
            if len(colors) != want:
                raise ValueError(f"with {n} players each seat plays {want} color(s); seat {seat} has {len(colors)}")
        flat = tuple(c for colors in seat_colors for c in colors)
        if len(set(flat)) != len(flat) or not all(0 <= c < len(COLORS) for c in flat):
            raise ValueError("every seat needs colors of its own")
        if self.scoring not in SCORINGS:
            raise ValueError(f"unknown scoring {self.scoring!r} (choose uptown or blockers)")
        if self.penalty not in PENALTIES:
            raise ValueError(f"unknown penalty {self.penalty!r} (choose color or opponent)")
        # Derived once here so the hot paths of the state only index tuples.
        object.__setattr__(self, "seat_colors", seat_colors)
        object.__setattr__(self, "colors", flat)
        object.__setattr__(self, "rivals", tuple(tuple(c for c in flat if c not in own) for own in seat_colors))
        object.__setattr__(self, "turn_order", tuple(tuple((s + k) % n for k in range(1, n + 1)) for s in range(n)))

    @classmethod
    def for_players(cls, players: int, scoring: str = "uptown", penalty: str = "color") -> GameSettings:
        """The standard colors: red, blue, green, … in seat order; with 2 players red+blue and green+yellow."""
        if players == 2:
            seat_colors: tuple[tuple[int, ...], ...] = ((0, 1), (2, 3))
        elif 3 <= players <= 5:
            seat_colors = tuple((s,) for s in range(players))
        else:
            raise ValueError(f"Uptown is played by 2 to 5 players, not {players}")
        return cls(seat_colors, scoring, penalty)

    @property
    def players(self) -> int:
        return len(self.seat_colors)

    def seat_of(self, color: int) -> int:
        """The seat that plays ``color``; ValueError if it is not in play."""
        for seat, colors in enumerate(self.seat_colors):
            if color in colors:
                return seat
        raise ValueError(f"{COLORS[color]} is not in play")


class Move(NamedTuple):
    """One turn: ``color`` plays ``tile`` onto ``cell``; :data:`PASS` when nothing is legal (M6).

    Text form ``red:ring@B2`` (or ``pass``), as made by ``str()`` and read by :meth:`parse`.
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

#: M3 for a board (:func:`~.geometry.removable`), remembered for the boards last asked about (it is a pure function).
_removable_of = functools.lru_cache(maxsize=1024)(removable)

_new_move = Move.__new__
_new_object = object.__new__


class IllegalMove(ValueError):
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


class MoveSet:
    """The legal moves of one turn, kept as one bitboard of target cells per (color, tile).

    Iterating yields :class:`Move` objects in a fixed order (the seat's colors
    in order, each rack in order, cells in increasing order); ``len()``,
    ``[i]``, ``choice()`` and ``in`` work on the bitboards without building them.
    """

    __slots__ = ("_count", "open_cells", "options")

    options: tuple[tuple[int, int, int], ...]
    open_cells: int | None
    _count: int

    def __init__(self, options: Iterable[tuple[int, int, int]] = ()) -> None:
        #: ``(color, tile, cells)`` for every rack tile with at least one legal cell.
        self.options = tuple(options)
        #: From :meth:`GameState.legal_moves`: the cells open to the seat (empty, or holding a
        #: rival tile it may capture, M2-M3), so a rack tile's legal cells are ``FITS[tile] & open_cells``.
        self.open_cells = None
        self._count = -1

    @classmethod
    def _of(cls, options: tuple[tuple[int, int, int], ...], count: int, open_cells: int | None = None) -> MoveSet:
        moves = cls.__new__(cls)
        moves.options = options
        moves.open_cells = open_cells
        moves._count = count
        return moves

    def copy(self) -> MoveSet:
        """A MoveSet of its own over the same (immutable) options."""
        return MoveSet._of(self.options, len(self), self.open_cells)

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
        index = rng.randrange(count)
        for color, tile, cells in self.options:
            n = cells.bit_count()
            if index < n:
                for _ in range(index):
                    cells &= cells - 1
                return _new_move(Move, color, tile, (cells & -cells).bit_length() - 1)
            index -= n
        raise AssertionError("unreachable: index < count")

    def targets(self, color: int, tile: int) -> int:
        """The legal cells (a bitboard) for ``tile`` of ``color``."""
        for c, t, cells in self.options:
            if c == color and t == tile:
                return cells
        return 0


@dataclass(frozen=True)
class SeatResult:
    """One seat's line of the result (RULES.md, Scoring)."""

    seat: int
    groups: int
    captures: dict[str, int]
    captured_total: int
    blockers_penalty: int
    blockers_score: int
    uptown_rank: int
    blockers_rank: int

    def to_dict(self) -> dict[str, Any]:
        """The row as written in a game record."""
        return {
            "seat": self.seat,
            "groups": self.groups,
            "captures": dict(self.captures),
            "captured_total": self.captured_total,
            "blockers_penalty": self.blockers_penalty,
            "blockers_score": self.blockers_score,
            "uptown_rank": self.uptown_rank,
            "blockers_rank": self.blockers_rank,
        }


def deciding_rank(row: SeatResult | Mapping[str, Any], scoring: str) -> int:
    """C3: the rank of a result row (or of its dict, as a record holds it) under ``scoring``."""
    key = _RANK_FIELDS[scoring]
    return int(row[key] if isinstance(row, Mapping) else getattr(row, key))


def winners(result: Iterable[SeatResult | Mapping[str, Any]], scoring: str) -> list[int]:
    """C3: the seats of rank 1 under ``scoring`` (``"uptown"`` or ``"blockers"``)."""
    return [
        int(row["seat"] if isinstance(row, Mapping) else row.seat)
        for row in result
        if deciding_rank(row, scoring) == 1
    ]


_RANK_FIELDS = {"uptown": "uptown_rank", "blockers": "blockers_rank"}


def _no_such(what: str, value: object) -> str:
    """Why ``value`` names no color, tile or cell: shown only when it is a plain int (no code of it runs)."""
    if type(value) is int:
        return f"there is no {what} {value}"
    return f"the {what} is a {type(value).__name__}, not an int"


def tiles_played(colors: Sequence[int], deals: Sequence[Sequence[int]], counts: Sequence[int],
                 history: Sequence[tuple[Move, int]]) -> list[tuple[int, ...]]:
    """The tiles each color has played, in order, indexed by color (``restore``, both engines): from the
    history when it holds ``counts[c]`` placements of ``c``, else the first ``counts[c]`` of its deal."""
    placed: list[list[int]] = [[] for _ in COLORS]
    for move, _ in history:
        if move.color >= 0:
            placed[move.color].append(move.tile)
    played: list[tuple[int, ...]] = [()] * len(COLORS)
    for color in colors:
        n = counts[color]
        played[color] = tuple(placed[color]) if len(placed[color]) == n else tuple(deals[color][:n])
    return played


class BaseGameState:
    """What every engine's :class:`GameState` shares: the queries, :meth:`check` and the scoring.

    One definition of each rule for both engines: the pure :class:`GameState`
    below and the native one (:mod:`arena.rules.engine`) keep the state, this
    class reads it through the same attributes (``settings``, ``deals``,
    ``drawn``, ``racks``, ``played``, ``played_tiles``, ``captures``,
    ``history``, ``over``, ``to_move``) and ``legal_moves``, ``color_at`` and
    ``_removable``.
    """

    __slots__ = ()

    settings: GameSettings
    deals: tuple[tuple[int, ...], ...]
    drawn: Sequence[int]
    racks: Sequence[Sequence[int]]
    boards: Sequence[int]
    occupied: int
    played: Sequence[int]
    played_tiles: Sequence[tuple[int, ...]]
    captures: Sequence[Sequence[int]]
    to_move: int
    passes: int
    history: list[tuple[Move, int]]
    over: bool

    def legal_moves(self) -> MoveSet:
        raise NotImplementedError

    def color_at(self, cell: int) -> int:
        raise NotImplementedError

    def _removable(self, color: int) -> int:
        raise NotImplementedError

    def _keys(self) -> tuple[Sequence[int], Sequence[int], Sequence[int]]:
        """Every seat's groups, tiles captured and Blockers! penalty (C1, C4)."""
        n = self.settings.players
        return ([self.groups(seat) for seat in range(n)], [sum(row) for row in self.captures],
                [self.penalty(seat) for seat in range(n)])

    def pile(self, color: int) -> tuple[int, ...]:
        """The tiles still to be drawn by ``color``, in draw order (hidden from every seat, S2)."""
        return self.deals[color][self.drawn[color]:]

    def unplayed(self, color: int) -> frozenset[int]:
        """The tiles ``color`` has not played yet, rack and pile together (public, S2)."""
        if not self.deals[color]:
            return frozenset()
        return EVERY_TILE.difference(self.played_tiles[color])

    def is_finished(self, color: int) -> bool:
        """E1: a color is finished once it has played 24 tiles."""
        return self.played[color] >= TILES_PLAYED

    def seat_active(self, seat: int) -> bool:
        """Whether ``seat`` still has a color to play (E2 skips it otherwise)."""
        played = self.played
        for color in self.settings.seat_colors[seat]:
            if played[color] < TILES_PLAYED:
                return True
        return False

    @property
    def ended_by(self) -> str:
        """The rule that ended the game: ``"E3"`` (everyone still playing passed), ``"E2"`` (every color
        finished), or ``""`` while it goes on."""
        if not self.over:
            return ""
        return "E3" if self.history and self.history[-1][0].color < 0 else "E2"

    def check(self, move: Move) -> int:
        """Check ``move`` for the seat to move, rule by rule: the color it would capture (-1 for none),
        or :class:`IllegalMove` naming the first rule it breaks.

        A move passes exactly when it is in :meth:`legal_moves` (or is :data:`PASS` and
        nothing is legal, M6).  ``move`` must be a :class:`Move`; a field that is not a
        plain int is refused without running any code that came with it.
        """
        if self.over:
            raise IllegalMove(self.ended_by, "the game is over")
        color, tile, cell = move
        if type(color) is not int or not -1 <= color < len(COLORS):
            raise IllegalMove("T1", _no_such("color", color))
        seat = self.to_move
        if color < 0:
            legal = self.legal_moves()
            if legal:
                raise IllegalMove("M4", f"seat {seat} passes but has {len(legal)} legal move(s), e.g. {legal[0]}")
            return -1
        if type(tile) is not int or not 0 <= tile < N_TILES:
            raise IllegalMove("T1", _no_such("tile", tile))
        if type(cell) is not int or not 0 <= cell < N_CELLS:
            raise IllegalMove("B1", _no_such("cell", cell))
        colors = self.settings.seat_colors[seat]
        name = COLORS[color]
        if color not in colors:
            raise IllegalMove("T2", f"{name} is not a color of seat {seat}")
        if self.is_finished(color):
            raise IllegalMove("E1", f"{name} is finished")
        if tile not in self.racks[color]:
            raise IllegalMove("M1", f"{name} has no {TILE_NAMES[tile]} on its rack")
        cell_name = CELL_NAMES[cell]
        if not FITS[tile] >> cell & 1:
            raise IllegalMove("M1", f"{TILE_NAMES[tile]} does not fit {cell_name}")
        occupant = self.color_at(cell)
        if occupant == color:
            raise IllegalMove("M2", f"{cell_name} holds {name}'s own tile")
        if occupant in colors:
            raise IllegalMove("M2", f"{cell_name} holds {COLORS[occupant]}, the other color of seat {seat}")
        if occupant >= 0 and not self._removable(occupant) >> cell & 1:
            raise IllegalMove("M3", f"capturing {cell_name} would split {COLORS[occupant]}'s group")
        return occupant

    # -- scoring -------------------------------------------------------------

    def groups(self, seat: int) -> int:
        """The seat's groups on the board, counted per color and added (T2)."""
        return sum(count_groups(self.boards[c]) for c in self.settings.seat_colors[seat])

    def penalty(self, seat: int) -> int:
        """The seat's Blockers! penalty (C4): the largest count of captured tiles of one color,
        or with ``penalty="opponent"`` of one opponent seat."""
        counts = self.captures[seat]
        settings = self.settings
        if settings.penalty == "opponent":
            return max(
                (sum(counts[c] for c in colors) for s, colors in enumerate(settings.seat_colors) if s != seat),
                default=0,
            )
        return max(counts)

    def result(self) -> list[SeatResult]:
        """Both scorings for every seat (C1-C4); meaningful once the game is over."""
        n = self.settings.players
        groups, totals, penalties = self._keys()
        captures = self.captures
        # C1, C2: a seat's rank is 1 + the number of seats with a strictly better (smaller) key.
        uptown = list(zip(groups, totals))
        blockers = [(g + p, t) for g, p, t in zip(groups, penalties, totals)]
        uptown_sorted = sorted(uptown)
        blockers_sorted = sorted(blockers)
        return [
            SeatResult(
                seat=seat,
                groups=groups[seat],
                captures={COLORS[c]: k for c, k in enumerate(captures[seat]) if k},
                captured_total=totals[seat],
                blockers_penalty=penalties[seat],
                blockers_score=groups[seat] + penalties[seat],
                uptown_rank=1 + bisect_left(uptown_sorted, uptown[seat]),
                blockers_rank=1 + bisect_left(blockers_sorted, blockers[seat]),
            )
            for seat in range(n)
        ]

    def winners(self) -> list[int]:
        """C3: the seats of rank 1 under the game's scoring."""
        return winners(self.result(), self.settings.scoring)


class GameState(BaseGameState):
    """The whole game as the referee sees it: board, racks, piles, captures, history.

    Boards are one 81-bit int per color (index = color, 0 for colors not in
    play); ``occupied`` is their union.  :meth:`push` does not check the
    move: check it first, against :meth:`legal_moves` (the referee does) or
    with :meth:`check`, which names the rule a move breaks (the record reader
    does, and the referee's faults say it).  The lists may be edited by hand to set up a position
    (tests do); keep ``occupied`` equal to the union of ``boards``,
    ``played[c]`` equal to ``drawn[c] - len(racks[c])`` and to ``len(played_tiles[c])``.
    """

    __slots__ = (
        "_free",
        "_free_of",
        "boards",
        "captures",
        "deals",
        "drawn",
        "history",
        "occupied",
        "over",
        "passes",
        "played",
        "played_tiles",
        "racks",
        "settings",
        "to_move",
    )

    settings: GameSettings
    #: ``deals[color]``: the 28 tiles of ``color`` in draw order (``()`` for colors not in play).
    deals: tuple[tuple[int, ...], ...]
    #: ``drawn[color]``: how many tiles of the deal have left the pile (the first five to the rack at once).
    drawn: list[int]
    #: ``racks[color]``: the tiles on the rack, oldest first.
    racks: list[list[int]]
    boards: list[int]
    occupied: int
    #: ``played[color]``: tiles placed so far (E1).
    played: list[int]
    #: ``played_tiles[color]``: the tiles placed so far, in the order played (public, S2).
    played_tiles: list[tuple[int, ...]]
    #: ``captures[seat][color]``: tiles of ``color`` that ``seat`` has captured.
    captures: list[list[int]]
    to_move: int
    #: Passes in a row since the last placement (M6).
    passes: int
    #: Every turn so far: the move and the color it captured (-1 for none).
    history: list[tuple[Move, int]]
    over: bool

    def __init__(self, settings: GameSettings, deals: Mapping[int, Sequence[int]]) -> None:
        """Set up a game (S1): ``deals[color]`` is that color's 28 tiles in draw order."""
        self.settings = settings
        if sorted(deals) != sorted(settings.colors):
            raise ValueError("a deal is needed for exactly the colors in play")
        full: list[tuple[int, ...]] = [()] * len(COLORS)
        everything = set(range(N_TILES))
        for color, tiles in deals.items():
            tiles = tuple(tiles)
            if len(tiles) != N_TILES or set(tiles) != everything:
                raise ValueError(f"the deal of {COLORS[color]} is not its 28 tiles")
            full[color] = tiles
        self.deals = tuple(full)
        self.drawn = [RACK_SIZE if tiles else 0 for tiles in full]
        self.racks = [list(tiles[:RACK_SIZE]) for tiles in full]
        self.boards = [0] * len(COLORS)
        self.occupied = 0
        self.played = [0] * len(COLORS)
        self.captures = [[0] * len(COLORS) for _ in settings.seat_colors]
        self.to_move = 0
        self.passes = 0
        self.history = []
        self.over = False
        self.played_tiles = [()] * len(COLORS)
        # M3 memo: _free[c] = removable(b) for the board b = _free_of[c].  Keyed by
        # the board itself, so it can never be stale, even when boards are set by hand.
        self._free_of = [-1] * len(COLORS)
        self._free = [0] * len(COLORS)

    @classmethod
    def restore(
        cls,
        settings: GameSettings,
        deals: Mapping[int, Sequence[int]],
        drawn: Mapping[int, int],
        racks: Mapping[int, Sequence[int]],
        boards: Sequence[int],
        captures: Sequence[Sequence[int]],
        to_move: int,
        passes: int,
        history: Sequence[tuple[Move, int]],
        over: bool = False,
    ) -> GameState:
        """A mid-game state from its parts (used to sample determinizations and to set up positions).

        ``deals[c][:drawn[c]]`` must hold the tiles ``c`` has played and its rack;
        ``boards`` is indexed by color.
        """
        state = cls(settings, deals)
        for color in settings.colors:
            rack = list(racks[color])
            state.drawn[color] = drawn[color]
            state.racks[color] = rack
            state.played[color] = drawn[color] - len(rack)
        state.boards = list(boards) + [0] * (len(COLORS) - len(boards))
        for board in state.boards:
            state.occupied |= board
        # The capture memo comes along: samples of one view share its boards, so they are judged once.
        for color in settings.colors:
            board = state.boards[color]
            state._free_of[color] = board
            state._free[color] = _removable_of(board)
        state.captures = [list(row) for row in captures]
        state.to_move = to_move
        state.passes = passes
        state.history = list(history)
        state.over = over
        state.played_tiles = tiles_played(settings.colors, state.deals, state.played, state.history)
        return state

    def copy(self) -> GameState:
        """An independent copy (cheap: a few short lists)."""
        new = GameState.__new__(GameState)
        new.settings = self.settings
        new.deals = self.deals
        new.drawn = self.drawn[:]
        new.racks = [rack[:] for rack in self.racks]
        new.boards = self.boards[:]
        new.occupied = self.occupied
        new.played = self.played[:]
        new.captures = [row[:] for row in self.captures]
        new.to_move = self.to_move
        new.passes = self.passes
        new.history = self.history[:]
        new.over = self.over
        new.played_tiles = self.played_tiles[:]
        new._free_of = self._free_of[:]
        new._free = self._free[:]
        return new

    def playout(self, rng: SplitMix64, policy: str = "random") -> tuple[tuple[int, int, int], ...]:
        """Play a copy to the end with ``policy`` (``random`` or ``greedy``, :mod:`.playout`) drawing from
        ``rng``; each seat's ``(groups, captured_total, blockers_penalty)``.  The state is left as it was."""
        from arena.rules.playout import playout

        return playout(self, rng, policy)

    # -- what is where ---------------------------------------------------

    def color_at(self, cell: int) -> int:
        """The color of the tile on ``cell``, or -1 if it is empty."""
        bit = 1 << cell
        if self.occupied & bit:
            boards = self.boards
            for color in self.settings.colors:
                if boards[color] & bit:
                    return color
        return -1

    # -- moves -------------------------------------------------------------

    def _removable(self, color: int) -> int:
        """The tiles of ``color`` that may be captured (M3), from the memo when its board is unchanged."""
        if self._free_of[color] != self.boards[color]:
            self._judge(color)
        return self._free[color]

    def _judge(self, color: int) -> None:
        """Fill the M3 memo of ``color`` for its board as it is now (:func:`~.geometry.removable`)."""
        board = self.boards[color]
        self._free[color] = removable(board)
        self._free_of[color] = board

    def can_capture(self, cell: int) -> bool:
        """M3: whether the tile on ``cell`` may be captured: the tiles of its color that touched it
        must stay connected without it.  (Whether the mover may capture that color at all is M2.)"""
        color = self.color_at(cell)
        if color < 0:
            return False
        board = self.boards[color]
        if self._free_of[color] == board:
            return bool(self._free[color] >> cell & 1)
        return removable_at(board, cell)  # one tile: cheaper than judging the whole board for the memo

    def legal_moves(self) -> MoveSet:
        """Every legal move of the seat to move (M1-M4, E1); empty when it must pass (M6) or the game is over."""
        if self.over:
            return MoveSet._of((), 0)
        seat = self.to_move
        settings = self.settings
        boards = self.boards
        free_of = self._free_of
        free = self._free
        # Where a tile may go: an empty cell, or a rival tile whose capture splits nothing.
        targets = FULL ^ self.occupied
        for color in settings.rivals[seat]:
            if free_of[color] != boards[color]:
                self._judge(color)
            targets |= free[color]
        options = []
        count = 0
        played = self.played
        racks = self.racks
        for color in settings.seat_colors[seat]:
            if played[color] < TILES_PLAYED:
                for tile in racks[color]:
                    cells = FITS[tile] & targets
                    if cells:
                        options.append((color, tile, cells))
                        count += cells.bit_count()
        moves = _new_object(MoveSet)
        moves.options = tuple(options)
        moves.open_cells = targets
        moves._count = count
        return moves

    def push(self, move: Move) -> int:
        """Play ``move`` (a legal move or :data:`PASS`) and hand the turn on; no legality check (see :meth:`check`).

        Returns the color it captured, -1 for none (as in :attr:`history`).
        """
        color, tile, cell = move
        if color < 0:
            self.push_pass()
            return -1
        bit = 1 << cell
        boards = self.boards
        free_of = self._free_of
        free = self._free
        victim = -1
        if self.occupied & bit:
            for victim in self.settings.colors:
                if boards[victim] & bit:
                    break
            board = boards[victim]
            boards[victim] = board ^ bit
            self.captures[self.to_move][victim] += 1
            # A lone tile leaves the capture memo right as it is, less itself.
            if free_of[victim] == board and not NEIGHBOURS[cell] & board:
                free[victim] &= ~bit
                free_of[victim] = board ^ bit
        else:
            self.occupied |= bit
        board = boards[color]
        boards[color] = board | bit
        if free_of[color] == board:
            # Keep the capture memo when the new tile joins at most one tile of its color:
            # it is capturable itself, and the one it hangs on becomes a cut point if it
            # has other neighbours.  Nothing else changes: a leaf closes no loop.
            touching = NEIGHBOURS[cell] & board
            if not touching:
                free[color] |= bit
                free_of[color] = board | bit
            elif not touching & (touching - 1):
                if NEIGHBOURS[touching.bit_length() - 1] & board:
                    free[color] = (free[color] | bit) & ~touching
                else:
                    free[color] |= bit
                free_of[color] = board | bit
        rack = self.racks[color]
        rack.remove(tile)
        drawn = self.drawn[color]
        if drawn < N_TILES:  # M5: draw from the pile of the color played
            rack.append(self.deals[color][drawn])
            self.drawn[color] = drawn + 1
        self.played_tiles[color] += (tile,)
        played = self.played
        played[color] += 1
        self.history.append((move, victim))
        self.passes = 0
        # T3, E2: the next seat that still has a color to play.
        settings = self.settings
        seat_colors = settings.seat_colors
        for seat in settings.turn_order[self.to_move]:
            for c in seat_colors[seat]:
                if played[c] < TILES_PLAYED:
                    self.to_move = seat
                    return victim
        self.over = True  # E2: every color is finished
        return victim

    def push_pass(self) -> None:
        """M6: the seat to move has no legal play and passes (it draws nothing)."""
        self.history.append((PASS, -1))
        self.passes += 1
        settings = self.settings
        if self.passes >= sum(1 for seat in range(settings.players) if self.seat_active(seat)):
            self.over = True  # E3: everyone still playing passed in a row
            return
        for seat in settings.turn_order[self.to_move]:
            if self.seat_active(seat):
                self.to_move = seat
                return
        self.over = True
