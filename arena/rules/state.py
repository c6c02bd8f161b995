"""The full state of a game of Uptown: moves, captures, passes and the end (M1-M6, E1-E3).

Only the referee holds a :class:`GameState`; a seat sees a
:class:`~arena.rules.view.SeatView`.  The state knows nothing of clocks,
files or global randomness: everything random comes in through the deal or a
generator the caller passes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Iterator, NamedTuple, Sequence

from .geometry import CELL_NAMES, FULL, NEIGHBOURS, RING, cell_index, count_groups, flood, iter_cells
from .tiles import COLORS, FITS, N_TILES, TILE_NAMES, color_index, tile_index

RACK_SIZE = 5
#: A color is finished once it has played this many tiles (E1): 28 minus the last 4.
TILES_PLAYED = 24
SCORINGS = ("uptown", "blockers")
#: How the Blockers! penalty counts captures (C4): the largest count of one color
#: (the rule texts, the default) or of one opponent (BGA's two-player variant).
PENALTIES = ("color", "opponent")


@dataclass(frozen=True)
class GameSettings:
    """What is fixed for a whole game: who plays which colors and how it is scored.

    ``seat_colors[s]`` are the colors of seat ``s`` (two each with 2 players, T2;
    one each with 3-5 players).
    """

    seat_colors: tuple[tuple[int, ...], ...]
    scoring: str = "uptown"
    penalty: str = "color"

    def __post_init__(self) -> None:
        n = len(self.seat_colors)
        if not 2 <= n <= 5:
            raise ValueError(f"Uptown is played by 2 to 5 players, not {n}")
        want = 2 if n == 2 else 1
        for seat, colors in enumerate(self.seat_colors):
            if len(colors) != want:
                raise ValueError(f"with {n} players each seat plays {want} color(s); seat {seat} has {len(colors)}")
        flat = [c for colors in self.seat_colors for c in colors]
        if len(set(flat)) != len(flat) or not all(0 <= c < len(COLORS) for c in flat):
            raise ValueError("every seat needs colors of its own")
        if self.scoring not in SCORINGS:
            raise ValueError(f"unknown scoring {self.scoring!r} (choose uptown or blockers)")
        if self.penalty not in PENALTIES:
            raise ValueError(f"unknown penalty {self.penalty!r} (choose color or opponent)")

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

    @property
    def colors(self) -> tuple[int, ...]:
        """Every color in play, in seat order."""
        return tuple(c for colors in self.seat_colors for c in colors)

    def seat_of(self, color: int) -> int:
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
        """Read ``red:ring@B2`` or ``pass``; ValueError when it is neither."""
        if text == "pass":
            return PASS
        color, sep, rest = text.partition(":")
        tile, sep2, cell = rest.partition("@")
        if not sep or not sep2:
            raise ValueError(f"a move is written color:tile@cell or pass, not {text!r}")
        return cls(color_index(color), tile_index(tile), cell_index(cell))


PASS = Move(-1, -1, -1)


class MoveSet:
    """The legal moves of one turn, kept as one bitboard of target cells per (color, tile).

    Iterating yields :class:`Move` objects; ``len()``, ``choice()`` and ``in``
    work on the bitboards without building them.
    """

    __slots__ = ("options", "_count")

    def __init__(self, options: Sequence[tuple[int, int, int]]) -> None:
        #: ``(color, tile, cells)`` for every rack tile with at least one legal cell.
        self.options = tuple(options)
        self._count = -1

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
        if not isinstance(move, Move) or move.is_pass:
            return False
        return any(c == move.color and t == move.tile and cells >> move.cell & 1 for c, t, cells in self.options)

    def __repr__(self) -> str:
        return f"<MoveSet of {len(self)} moves>"

    def __getitem__(self, index: int) -> Move:
        """The ``index``-th move in iteration order."""
        if index < 0:
            index += len(self)
        for color, tile, cells in self.options:
            n = cells.bit_count()
            if index < n:
                while index:
                    cells &= cells - 1
                    index -= 1
                return Move(color, tile, (cells & -cells).bit_length() - 1)
            index -= n
        raise IndexError("move index out of range")

    def choice(self, rng: random.Random) -> Move:
        """A legal move drawn uniformly with ``rng``; :data:`PASS` when there is none."""
        if not self.options:
            return PASS
        return self[rng.randrange(len(self))]

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

    def to_dict(self) -> dict:
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


class GameState:
    """The whole game as the referee sees it: board, racks, piles, captures, history.

    Boards are one 81-bit int per color.  :meth:`push` does not check the
    move: check it against :meth:`legal_moves` first (the referee and the
    record reader do).
    """

    __slots__ = (
        "settings", "deals", "drawn", "racks", "boards", "occupied", "played",
        "captures", "to_move", "passes", "history", "over", "_colors", "_checked", "_removable",
    )

    def __init__(self, settings: GameSettings, deals: dict[int, Sequence[int]]) -> None:
        """Set up a game (S1): ``deals[color]`` is that color's 28 tiles in draw order."""
        self.settings = settings
        self._colors = settings.colors
        if sorted(deals) != sorted(self._colors):
            raise ValueError("a deal is needed for exactly the colors in play")
        full: list[tuple[int, ...]] = [()] * len(COLORS)
        for color, tiles in deals.items():
            tiles = tuple(tiles)
            if sorted(tiles) != list(range(N_TILES)):
                raise ValueError(f"the deal of {COLORS[color]} is not its 28 tiles")
            full[color] = tiles
        self.deals = tuple(full)
        self.drawn = [RACK_SIZE if self.deals[c] else 0 for c in range(len(COLORS))]
        self.racks = [list(self.deals[c][:RACK_SIZE]) for c in range(len(COLORS))]
        self.boards = [0] * len(COLORS)
        self.occupied = 0
        self.played = [0] * len(COLORS)
        #: ``captures[seat][color]``: tiles of ``color`` that ``seat`` has captured.
        self.captures = [[0] * len(COLORS) for _ in settings.seat_colors]
        self.to_move = 0
        #: Passes in a row since the last placement (M6).
        self.passes = 0
        #: Every turn so far: the move and the color it captured (-1 for none).
        self.history: list[tuple[Move, int]] = []
        self.over = False
        # Cells whose capture has been judged (bitboard), and those found capturable.
        # A cell's verdict depends only on its own color's board, so only the
        # cells of a color whose board changed are judged again.
        self._checked = 0
        self._removable = 0

    @classmethod
    def restore(
        cls,
        settings: GameSettings,
        deals: dict[int, Sequence[int]],
        drawn: dict[int, int],
        racks: dict[int, Sequence[int]],
        boards: Sequence[int],
        captures: Sequence[Sequence[int]],
        to_move: int,
        passes: int,
        history: Sequence[tuple[Move, int]],
    ) -> GameState:
        """A mid-game state from its parts (used to sample determinizations)."""
        state = cls(settings, deals)
        for color in settings.colors:
            state.drawn[color] = drawn[color]
            state.racks[color] = list(racks[color])
            state.played[color] = drawn[color] - len(racks[color])
        state.boards = list(boards)
        for board in boards:
            state.occupied |= board
        state.captures = [list(row) for row in captures]
        state.to_move = to_move
        state.passes = passes
        state.history = list(history)
        return state

    def copy(self) -> GameState:
        """An independent copy (cheap: a few short lists)."""
        new = GameState.__new__(GameState)
        new.settings = self.settings
        new._colors = self._colors
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
        new._checked = self._checked
        new._removable = self._removable
        return new

    # -- what is where ---------------------------------------------------

    def color_at(self, cell: int) -> int:
        """The color of the tile on ``cell``, or -1 if it is empty."""
        bit = 1 << cell
        if self.occupied & bit:
            boards = self.boards
            for color in self._colors:
                if boards[color] & bit:
                    return color
        return -1

    def pile(self, color: int) -> tuple[int, ...]:
        """The tiles still to be drawn by ``color``, in draw order."""
        return self.deals[color][self.drawn[color]:]

    def is_finished(self, color: int) -> bool:
        """E1: a color is finished once it has played 24 tiles."""
        return self.played[color] >= TILES_PLAYED

    def seat_active(self, seat: int) -> bool:
        """Whether ``seat`` still has a color to play (E2 skips it otherwise)."""
        played = self.played
        return any(played[c] < TILES_PLAYED for c in self.settings.seat_colors[seat])

    # -- moves -------------------------------------------------------------

    def can_capture(self, cell: int) -> bool:
        """M3: whether the tile on ``cell`` may be captured: its color's group must not split."""
        color = self.color_at(cell)
        if color < 0:
            return False
        board = self.boards[color]
        touching = NEIGHBOURS[cell] & board
        if not touching & (touching - 1):
            return True  # a lone tile or the end of a line
        start = touching & -touching
        # Usually the touching tiles meet again right around the cell...
        if not touching & ~flood(start, board & RING[cell]):
            return True
        # ...otherwise follow the whole group without the cell.
        return not touching & ~flood(start, board & ~(1 << cell))

    def _capturable(self, cells: int) -> int:
        """The cells of ``cells`` (all holding tiles) that may be captured."""
        new = cells & ~self._checked
        if new:
            removable = self._removable
            for cell in iter_cells(new):
                if self.can_capture(cell):
                    removable |= 1 << cell
            self._removable = removable
            self._checked |= new
        return cells & self._removable

    def legal_moves(self) -> MoveSet:
        """Every legal move of the seat to move (M1-M4, E1); empty when it must pass (M6)."""
        if self.over:
            return MoveSet(())
        boards = self.boards
        played = self.played
        colors = self.settings.seat_colors[self.to_move]
        own = 0
        for color in colors:
            own |= boards[color]
        empty = FULL & ~self.occupied
        opponents = self.occupied & ~own
        options = []
        for color in colors:
            if played[color] >= TILES_PLAYED:
                continue
            for tile in self.racks[color]:
                fits = FITS[tile]
                cells = fits & empty
                if fits & opponents:
                    cells |= self._capturable(fits & opponents)
                if cells:
                    options.append((color, tile, cells))
        return MoveSet(options)

    def push(self, move: Move) -> None:
        """Play ``move`` (a legal move or :data:`PASS`) and hand the turn on; no legality check."""
        if move.color < 0:
            self.push_pass()
            return
        color, tile, cell = move
        bit = 1 << cell
        boards = self.boards
        victim = -1
        changed = 0
        if self.occupied & bit:
            victim = self.color_at(cell)
            boards[victim] ^= bit
            self.captures[self.to_move][victim] += 1
            changed = boards[victim]
        else:
            self.occupied |= bit
        boards[color] |= bit
        changed = ~(changed | boards[color])
        self._checked &= changed
        self._removable &= changed
        rack = self.racks[color]
        rack.remove(tile)
        drawn = self.drawn[color]
        if drawn < N_TILES:  # M5: draw from the pile of the color played
            rack.append(self.deals[color][drawn])
            self.drawn[color] = drawn + 1
        self.played[color] += 1
        self.history.append((move, victim))
        self.passes = 0
        self._hand_on()

    def push_pass(self) -> None:
        """M6: the seat to move has no legal play and passes."""
        self.history.append((PASS, -1))
        self.passes += 1
        active = sum(1 for seat in range(self.settings.players) if self.seat_active(seat))
        if self.passes >= active:
            self.over = True  # E3: everyone still playing passed in a row
        else:
            self._hand_on()

    def _hand_on(self) -> None:
        """Give the turn to the next seat that still has a color to play (T3, E2)."""
        n = self.settings.players
        seat = self.to_move
        for _ in range(n):
            seat = seat + 1 if seat + 1 < n else 0
            if self.seat_active(seat):
                self.to_move = seat
                return
        self.over = True  # E2: every color is finished

    # -- scoring -------------------------------------------------------------

    def groups(self, seat: int) -> int:
        """The seat's groups on the board, counted per color and added (T2)."""
        return sum(count_groups(self.boards[c]) for c in self.settings.seat_colors[seat])

    def result(self) -> list[SeatResult]:
        """Both scorings for every seat (C1-C4); meaningful once the game is over."""
        settings = self.settings
        rows = []
        for seat in range(settings.players):
            counts = self.captures[seat]
            groups = self.groups(seat)
            total = sum(counts)
            if settings.penalty == "opponent":
                penalty = max(
                    (sum(counts[c] for c in colors) for s, colors in enumerate(settings.seat_colors) if s != seat),
                    default=0,
                )
            else:
                penalty = max(counts)
            rows.append((seat, groups, counts, total, penalty))
        uptown = [(g, t) for _, g, _, t, _ in rows]
        blockers = [(g + p, t) for _, g, _, t, p in rows]
        return [
            SeatResult(
                seat=seat,
                groups=groups,
                captures={COLORS[c]: n for c, n in enumerate(counts) if n},
                captured_total=total,
                blockers_penalty=penalty,
                blockers_score=groups + penalty,
                uptown_rank=1 + sum(other < uptown[seat] for other in uptown),
                blockers_rank=1 + sum(other < blockers[seat] for other in blockers),
            )
            for seat, groups, counts, total, penalty in rows
        ]

    def winners(self) -> list[int]:
        """C3: the seats of rank 1 under the game's scoring."""
        key = "uptown_rank" if self.settings.scoring == "uptown" else "blockers_rank"
        return [r.seat for r in self.result() if getattr(r, key) == 1]
