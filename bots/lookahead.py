"""The ``lookahead`` bot."""

from __future__ import annotations

from arena.bots import Bot
from arena.rules import PASS, Move
from arena.rules.geometry import FULL
from arena.rules.state import TILES_PLAYED
from arena.rules.tiles import FITS
from arena.rules.view import SeatView

from ._eval import bridges, components, spread
from .greedy import move_costs

#: Cost of a next turn on which no own tile can join a group (a forced new group, most likely).
FORCED = 0.6
#: Credit for each pair of groups that an unplayed tile can still join through a free cell.
MERGE = 0.35
#: A pile tile counts this much of a rack tile when judging what can still join groups.
PILE = 0.5


class LookaheadBot(Bot):
    """Greedy's cost plus a look at the tiles still to come: can the next turns join up?

    The ``width`` cheapest moves by the greedy bot's cost are looked at again
    in the position they leave, through the seat's unplayed tiles (its racks,
    and its piles as far as the public tile counts tell):

    * the chance that the next turn has no tile that touches a group of its
      color, so that it would have to start a new one: zero when a rack tile
      still fits a free cell next to a group, else the chance that the tile
      drawn after this move does (only for the color played, whose pile is
      drawn from); with two colors, both must fail;
    * merges still to come: each free cell that touches two groups of one
      color and that an unplayed tile of that color fits is worth a share of
      a group (no more than the groups there are to join).

    The move with the lowest total cost is played; exact ties are broken with
    the bot's own generator.
    """

    options = {"width": 16}

    def choose(self, view: SeatView) -> Move:
        if not view.legal:
            return PASS
        costs = sorted(move_costs(view), key=lambda cm: cm[0])
        width = self.config["width"]
        if width > 0:
            costs = costs[:width]
        scored = [(cost + future_cost(view, move), move) for cost, move in costs]
        low = min(cost for cost, _ in scored)
        best = [move for cost, move in scored if cost < low + 1e-9]
        return best[0] if len(best) == 1 else best[self.rng.randrange(len(best))]


def future_cost(view: SeatView, move: Move) -> float:
    """The look-ahead part of the cost of ``move``: forced new groups to fear, merges to hope for."""
    boards = view.boards
    occupied = 0
    for board in boards:
        occupied |= board
    bit = 1 << move.cell
    empty = FULL & ~(occupied | bit)
    no_join = 1.0
    merges = 0.0
    for c in view.colors:
        played = len(view.played_tiles[c]) + (c == move.color)
        if played >= TILES_PLAYED:
            continue
        board = boards[c] | bit if c == move.color else boards[c]
        rack = list(view.racks[c])
        if c == move.color:
            rack.remove(move.tile)
        pile = view.unplayed(c).difference(view.racks[c])
        groups = components(board)
        front = spread(board) & empty if board else empty
        if any(FITS[t] & front for t in rack):
            no_join = 0.0
        elif c == move.color and pile:
            no_join *= 1.0 - sum(1 for t in pile if FITS[t] & front) / len(pile)
        if len(groups) > 1:
            links = bridges(groups, empty)
            if links:
                hope = sum(1.0 for t in rack if FITS[t] & links) + PILE * sum(1 for t in pile if FITS[t] & links)
                merges += min(len(groups) - 1, hope)
    return FORCED * no_join - MERGE * merges
