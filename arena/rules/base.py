"""What every engine's game state shares: the settings, :class:`BaseGameState` (the queries,
:meth:`~BaseGameState.check` and the scoring) and the result rows (C1-C4).

One definition of each rule for both engines: the pure state (:mod:`.state`)
and the native one (:mod:`.native`) keep the position, this module reads it.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Self

from arena.rules.geometry import CELL_NAMES, N_CELLS, count_groups
from arena.rules.moves import IllegalMove, Move, MoveSet
from arena.rules.tiles import COLORS, FITS, N_TILES, TILE_NAMES

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


def move_fields(value: object) -> Any:
    """``value`` as the three fields of a move, as both engines read one: a tuple (a subclass by iterating it)
    of three fields, else TypeError.  The fields are not judged here (:meth:`BaseGameState.check` does)."""
    if type(value) is tuple:
        fields = value
    elif isinstance(value, tuple):
        fields = tuple(value)
    else:
        raise TypeError(f"a move is a Move (color, tile, cell), not {type(value).__name__}")
    if len(fields) != 3:
        raise TypeError(f"a move is a Move (color, tile, cell), not {type(value).__name__}")
    return fields


def tiles_played(colors: Sequence[int], deals: Mapping[int, Sequence[int]], counts: Sequence[int],
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


class StateParts:
    """The parts of every engine's game state, declared once for the type checker: the read-only
    attributes, and ``_set``, which puts them all in place (for :meth:`BaseGameState.restore` and
    unpickling).  The pure engine defines them in Python, the native one in C (its stub, ``_native.pyi``,
    builds on this class)."""

    __slots__ = ()

    if TYPE_CHECKING:
        @property
        def settings(self) -> GameSettings: ...
        @property
        def deals(self) -> tuple[tuple[int, ...], ...]: ...
        @property
        def drawn(self) -> tuple[int, ...]: ...
        @property
        def racks(self) -> tuple[tuple[int, ...], ...]: ...
        @property
        def boards(self) -> tuple[int, ...]: ...
        @property
        def occupied(self) -> int: ...
        @property
        def played(self) -> tuple[int, ...]: ...
        @property
        def played_tiles(self) -> tuple[tuple[int, ...], ...]: ...
        @property
        def captures(self) -> tuple[tuple[int, ...], ...]: ...
        @property
        def to_move(self) -> int: ...
        @property
        def passes(self) -> int: ...
        @property
        def history(self) -> list[tuple[Move, int]]: ...
        @property
        def over(self) -> bool: ...
        def _set(self, drawn: list[int], racks: list[Sequence[int]], boards: list[int], captures: Sequence[Sequence[int]],
                 to_move: int, passes: int, history: list[tuple[Move, int]], over: bool,
                 played_tiles: list[tuple[int, ...]], /) -> None:
            """Put the parts in place, each indexed by color (``captures`` by seat); ``history`` becomes the
            state's own list."""


class BaseGameState(StateParts):
    """The one contract of a game state, kept by both engines, and what they share of it.

    Two engines hold the position: the pure :class:`~arena.rules.state.GameState`
    and the native one (:mod:`arena.rules.engine`).  This class defines every
    rule both apply (:meth:`check`, the queries, the scoring) once, reading
    the state through the attributes of :class:`StateParts` and :meth:`legal_moves`,
    :meth:`color_at` and :meth:`capturable_mask`.  A caller sees the same
    behaviour from either engine (tests/unit/test_native*.py hold them to it):

    * **Two speeds of play.** :meth:`push` checks ``move`` first and raises
      :class:`~arena.rules.moves.IllegalMove` (the rule id :meth:`check`
      names) without changing anything; :meth:`push_unchecked` trusts its
      caller, who vouches that the move comes from :meth:`legal_moves` (or is
      :data:`~arena.rules.moves.PASS` when that is empty).  An illegal move
      given to it may raise, or leave a position the rules cannot reach; it
      never crashes the interpreter.  :meth:`push_pass` is ``push(PASS)``.
      A value that is not a tuple of three fields is a TypeError for :meth:`check`
      and :meth:`push`.
    * **Read-only attributes.** ``settings``, ``deals``, ``drawn``,
      ``racks``, ``boards``, ``occupied``, ``played``, ``played_tiles``,
      ``captures``, ``to_move``, ``passes``, ``over`` and ``history`` cannot
      be assigned (AttributeError); the per-color ones read as fresh tuples
      (keep one in a local inside a loop).  ``history`` is the state's own
      list of ``(move, captured color)``: read it, never change it.  A
      position is set up with :meth:`restore`, and changes only by pushing.
    * **copy, restore, no pop.** :meth:`copy` is an independent state (cheap);
      :meth:`restore` builds a mid-game state from its parts.  There is no
      ``pop``: to try a move and go back, push it on a :meth:`copy`.
    * **Bitboards.** ``boards[color]`` and ``occupied`` are 81-bit ints
      (bit ``i`` for cell ``i``); the :class:`~arena.rules.cells.Cells`
      level is on :class:`~arena.rules.view.SeatView`.
    """

    __slots__ = ()

    # -- what each engine provides ---------------------------------------------------------------

    if TYPE_CHECKING:
        def __init__(self, settings: GameSettings, deals: Mapping[int, Sequence[int]]) -> None: ...

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
    ) -> Self:
        """A mid-game state from its parts (to sample determinizations and to set up positions).

        ``deals[c][:drawn[c]]`` must hold the tiles ``c`` has played and its rack;
        ``boards`` is indexed by color.
        """
        state = cls(settings, deals)
        history = list(history)
        drawn_by_color = [0] * len(COLORS)
        racks_by_color: list[Sequence[int]] = [()] * len(COLORS)
        counts = [0] * len(COLORS)
        for color in settings.colors:
            rack = racks_by_color[color] = racks[color]  # each engine's _set copies it
            n = drawn_by_color[color] = drawn[color]
            count = n - len(rack)
            counts[color] = count if count > 0 else 0  # a wrong count is the engine's _set to refuse
        played_tiles = tiles_played(settings.colors, deals, counts, history)
        state._set(drawn_by_color, racks_by_color, list(boards), captures, to_move, passes, history, bool(over),
                   played_tiles)
        return state

    def copy(self) -> Self:
        """An independent copy (cheap): pushing on one leaves the other as it was."""
        raise NotImplementedError

    def legal_moves(self) -> MoveSet:
        """Every legal move of the seat to move (M1-M4, E1); empty when it must pass (M6) or the game is over."""
        raise NotImplementedError

    def push(self, move: Move) -> int:
        """Play ``move`` if it is legal and hand the turn on; the color it captured, -1 for none.

        An illegal move raises :class:`IllegalMove` naming the rule (as :meth:`check`) and changes nothing.
        """
        raise NotImplementedError

    def push_unchecked(self, move: Move) -> int:
        """:meth:`push` for a move the caller vouches is legal (from :meth:`legal_moves`, or :data:`PASS`
        when it is empty): no legality check."""
        raise NotImplementedError

    def push_pass(self) -> None:
        """M6: the seat to move passes (draws nothing); :class:`IllegalMove` (M4) while it has a legal move."""
        raise NotImplementedError

    def set_next_draw(self, color: int, tile: int) -> None:
        """The next tile ``color`` draws (M5) is ``tile``, one of its pile: the tiles above it in the pile move
        down one place, in the order they were; ValueError for a tile not in the pile.  How a game whose
        draws come from outside (OpenSpiel's chance nodes) hands the engine each draw."""
        raise NotImplementedError

    def color_at(self, cell: int) -> int:
        """The color of the tile on ``cell``, or -1 if it is empty."""
        raise NotImplementedError

    def capturable_mask(self, color: int) -> int:
        """M3: the tiles of ``color`` (a bitboard) whose capture would not split its group."""
        raise NotImplementedError

    def capturable_at(self, cell: int) -> bool:
        """M3: whether the tile on ``cell`` may be captured: the tiles of its color that touched it
        must stay connected without it.  (Whether the mover may capture that color at all is M2.)"""
        raise NotImplementedError

    def playout(self, rng: SplitMix64, policy: str = "random") -> tuple[tuple[int, int, int], ...]:
        """Play a copy to the end with ``policy`` (``random`` or ``greedy``, :mod:`.playout`) drawing from
        ``rng``; each seat's ``(groups, captured_total, blockers_penalty)``.  The state is left as it was."""
        raise NotImplementedError

    # -- shared: the queries, check and the scoring ----------------------------------------------

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
        nothing is legal, M6).  ``move`` must be a :class:`Move` (a tuple of three fields is read as
        one; anything else is a TypeError); a field that is not a plain int is refused without running
        any code that came with it.
        """
        if type(move) is not Move:
            move = move_fields(move)
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
        if occupant >= 0 and not self.capturable_mask(occupant) >> cell & 1:
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
