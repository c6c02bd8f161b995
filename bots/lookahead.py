"""The ``lookahead`` bot."""

from __future__ import annotations

from typing import ClassVar

from arena.api import Bot, Move, Option, SeatView
from arena.rules import TILES_PLAYED

from ._eval import bridges, components, spread
from .greedy import FIT, move_costs

#: Credit for each pair of groups that an unplayed tile can still join through a free cell.
MERGE = 0.35
#: A pile tile counts this much of a rack tile when judging what can still join groups.
PILE = 0.5
#: Credit per unplayed tile and free cell next to its color's groups that it fits (up to two cells).
ROBUST = 0.05
#: Credit per unplayed rival tile that loses its last free cell next to its groups.
BLOCK = 0.1


class LookaheadBot(Bot):
    """Greedy's cost plus a look at the tiles still to come: room to grow, merges to come, rivals hemmed in.

    The ``width`` cheapest moves by the greedy bot's cost are looked at again
    in the position they leave, through every color's unplayed tiles (known
    from the public history: a seat's own rack, its pile, and each rival's
    rack and pile together):

    * room to grow: for each unplayed tile of the seat's colors, how many free
      cells next to a group of its color it fits, counting up to two, so that
      a frontier with a spare cell in each row, column and region is worth
      more than one a single rival tile can close;
    * merges still to come: each free cell that touches two groups of one
      color and that an unplayed tile of that color fits is worth a share of
      a group (no more than the groups there are to join);
    * rivals hemmed in: each unplayed rival tile whose last free cell next to
      its color's groups the move takes.

    The move with the lowest total cost is played; exact ties are broken with
    the bot's own generator.
    """

    options: ClassVar[dict[str, Option]] = {
        "width": Option(16, min=0, doc="how many of greedy's cheapest moves are looked at again, 0 for all"),
    }

    def choose(self, view: SeatView) -> Move:
        scored = ranked_moves(view, self.config["width"])
        low = scored[0][0]
        best = [move for cost, move in scored if cost < low + 1e-9]
        return best[0] if len(best) == 1 else best[self.rng.randrange(len(best))]


def ranked_moves(view: SeatView, width: int) -> list[tuple[float, Move]]:
    """The ``width`` cheapest legal moves by greedy cost (all when ``width`` is 0), cheapest first by full cost.

    The full cost is the greedy cost plus :func:`future_cost`; ties keep the
    order of ``view.legal``.
    """
    costs = sorted(move_costs(view), key=lambda cm: cm[0])
    if width > 0:
        costs = costs[:width]
    return sorted(((cost + future_cost(view, move), move) for cost, move in costs), key=lambda cm: cm[0])


def future_cost(view: SeatView, move: Move) -> float:
    """The look-ahead part of the cost of ``move`` (lower is better)."""
    boards = view.board_masks
    occupied = view.occupied_mask
    bit = 1 << move.cell
    empty = view.empty_mask & ~bit
    merges = 0.0
    room = 0
    own = view.colors
    for c in own:
        played = len(view.played_tiles[c]) + (c == move.color)
        if played >= TILES_PLAYED:
            continue
        board = boards[c] | bit if c == move.color else boards[c]
        unplayed = view.unplayed(c)
        if c == move.color:
            unplayed = unplayed - {move.tile}
        front = spread(board) & empty if board else empty
        for t in unplayed:
            room += min(2, (FIT[t] & front).bit_count())
        groups = components(board)
        if len(groups) > 1:
            links = bridges(groups, empty)
            if links:
                rack = view.racks[c]
                hope = sum(1.0 if t in rack else PILE for t in unplayed if FIT[t] & links)
                merges += min(len(groups) - 1, hope)
    blocked = 0
    for c in view.settings.colors:
        if c in own or not boards[c] or view.is_finished(c):
            continue
        before = spread(boards[c]) & ~occupied
        if before & bit:
            after = before ^ bit
            for t in view.unplayed(c):
                if FIT[t] & before and not FIT[t] & after:
                    blocked += 1
    return -MERGE * merges - ROBUST * room - BLOCK * blocked
