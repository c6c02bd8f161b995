"""What one seat may see (S2), and determinization for search bots.

A :class:`SeatView` is built from copies of public facts plus the seat's own
rack(s); it holds no reference to the :class:`GameState` it came from, so
nothing reachable from it leads to another rack or to any pile's order.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cached_property

from .geometry import N_CELLS
from .state import GameSettings, GameState, Move, MoveSet
from .tiles import COLORS, N_TILES


@dataclass(frozen=True, eq=False)
class SeatView:
    """The game as ``seat`` sees it when it is asked for a move.

    Per-color tuples are indexed by color (0-4); colors not in play hold 0 or ``()``.
    """

    settings: GameSettings
    seat: int
    #: One bitboard per color.
    boards: tuple[int, ...]
    #: The seat's own rack(s): ``{color: tiles}``.
    racks: dict[int, tuple[int, ...]]
    rack_sizes: tuple[int, ...]
    pile_sizes: tuple[int, ...]
    #: ``captures[seat][color]``: tiles of ``color`` that ``seat`` captured.
    captures: tuple[tuple[int, ...], ...]
    #: Every turn so far: the move and the color it captured (-1 for none).
    history: tuple[tuple[Move, int], ...]
    passes: int
    legal: MoveSet

    @classmethod
    def of(cls, state: GameState, seat: int) -> SeatView:
        """The view of ``seat`` in ``state``."""
        n_colors = len(COLORS)
        return cls(
            settings=state.settings,
            seat=seat,
            boards=tuple(state.boards),
            racks={c: tuple(state.racks[c]) for c in state.settings.seat_colors[seat]},
            rack_sizes=tuple(len(r) for r in state.racks),
            pile_sizes=tuple(len(state.deals[c]) - state.drawn[c] for c in range(n_colors)),
            captures=tuple(tuple(row) for row in state.captures),
            history=tuple(state.history),
            passes=state.passes,
            legal=state.legal_moves() if state.to_move == seat and not state.over else MoveSet(()),
        )

    @cached_property
    def played_tiles(self) -> tuple[tuple[int, ...], ...]:
        """Tiles each color has placed, in the order played (from the public history)."""
        played: list[list[int]] = [[] for _ in COLORS]
        for move, _ in self.history:
            if not move.is_pass:
                played[move.color].append(move.tile)
        return tuple(tuple(p) for p in played)

    @property
    def colors(self) -> tuple[int, ...]:
        """The seat's own colors."""
        return self.settings.seat_colors[self.seat]

    def color_at(self, cell: int) -> int:
        """The color of the tile on ``cell``, or -1 if it is empty."""
        for color, board in enumerate(self.boards):
            if board >> cell & 1:
                return color
        return -1

    def unplayed(self, color: int) -> frozenset[int]:
        """The tiles ``color`` has not played yet: its rack and pile together (public, S2)."""
        if not self.rack_sizes[color] and not self.pile_sizes[color]:
            return frozenset()
        return frozenset(range(N_TILES)) - set(self.played_tiles[color])

    def is_finished(self, color: int) -> bool:
        return len(self.played_tiles[color]) >= 24

    def board_cells(self) -> list[int]:
        """The color on each of the 81 cells (-1 for empty)."""
        return [self.color_at(cell) for cell in range(N_CELLS)]

    def sample(self, rng: random.Random) -> GameState:
        """A full state consistent with what this seat knows (determinization).

        Opponent racks and every pile's order are drawn at random, with ``rng``,
        from each color's unseen tiles; the board, captures and history are as seen.
        """
        deals: dict[int, tuple[int, ...]] = {}
        drawn: dict[int, int] = {}
        racks: dict[int, list[int]] = {}
        for color in self.settings.colors:
            played = self.played_tiles[color]
            if color in self.racks:
                rack = list(self.racks[color])
                pile = sorted(self.unplayed(color) - set(rack))
                rng.shuffle(pile)
            else:
                pool = sorted(self.unplayed(color))
                rng.shuffle(pool)
                size = self.rack_sizes[color]
                rack, pile = pool[:size], pool[size:]
            deals[color] = (*played, *rack, *pile)
            drawn[color] = len(played) + len(rack)
            racks[color] = rack
        return GameState.restore(
            self.settings, deals, drawn, racks, self.boards, self.captures, self.seat, self.passes, self.history
        )
