"""The ``greedy`` bot."""

from __future__ import annotations

from arena.api import BOARD, TILE_NAMES, WILD, Bot, Cells, Move, SeatView, fits, neighbours

from ._eval import components, penalty_raisers, spread

# The masks of the public helpers, looked up once: the cost loops below run for every legal move.
#: The cells each tile fits (M1), by tile.
FIT = tuple(fits(tile).mask for tile in range(len(TILE_NAMES)))
#: The cells touching each cell (B3), by cell.
AROUND = tuple(neighbours(cell).mask for cell in BOARD)


class GreedyBot(Bot):
    """One move ahead: fewest own groups, captures weighed by their scoring cost, future fits kept open.

    Every legal move is given a cost from what it does at once, and the
    cheapest is played (exact ties broken with the bot's own generator):

    * the change in the seat's own groups: a tile that touches ``k`` groups of
      its color changes their count by ``1 - k`` (with two players each color
      is counted apart, as in the scoring).  A color's first tile costs
      nothing extra, since it starts a group whenever it is played;
    * a capture adds one to ``captured_total`` (the tie-breaker of both
      scorings) and, under Blockers! scoring, one to the penalty when it raises
      the largest count of one captured color; capturing a lone tile also
      takes a group away from its owner, which helps that rival;
    * tie-breaks that keep future placements open: how many of the color's
      unplayed tiles (the rack counts more than the pile) gain or lose a free
      cell next to its groups, a cost for spending the wild ``$`` unless it
      joins groups, a preference for the tile with the fewest good cells now
      (flexible tiles are kept), and, with two colors, a cost for playing the
      color that is ahead: a color left behind ends up playing its last tiles
      onto a full board, where little fits next to its groups.
    """

    def choose(self, view: SeatView) -> Move:
        costs = move_costs(view)
        low = min(cost for cost, _ in costs)
        best = [move for cost, move in costs if cost < low + 1e-9]
        return best[0] if len(best) == 1 else best[self.rng.randrange(len(best))]


#: Weight of one unplayed tile that can (or can no longer) reach a free cell next to its color's groups.
REACH = 0.12
#: A pile tile counts this much of a rack tile in the reach.
PILE = 0.5
#: Cost of spending the wild tile without joining groups.
WILD_COST = 0.6
#: Cost of a capture that changes no score but the tie-breaker.
CAPTURE = 0.05
#: Cost of playing a color that is ahead of the seat's other color, per 24 tiles ahead.
BALANCE = 3.0
#: Cost per good cell of the tile played (flexible tiles are kept for later).
FLEXIBLE = 0.01


def move_costs(view: SeatView) -> list[tuple[float, Move]]:
    """Every legal move with its greedy cost (lower is better), in the order of ``view.legal``."""
    boards = view.board_masks
    occupied = view.occupied_mask
    empty = view.empty_mask
    colors = view.colors
    players = view.settings.players
    raises = penalty_raisers(view) if view.settings.scoring == "blockers" else 0
    # Helping one rival matters most when there is only one.
    rival = 1.0 if players == 2 else 1.0 / (players - 1)

    groups = {}
    front = {}
    # Per own color: each unplayed tile's weight and the cells it fits, for the reach below.
    weights: dict[int, list[tuple[int, float, int]]] = {}
    for c in colors:
        groups[c] = components(boards[c])
        front[c] = spread(boards[c]) & empty
        w = dict.fromkeys(view.unplayed(c), PILE)
        for t in view.racks[c]:
            w[t] = 1.0
        weights[c] = [(t, wt, FIT[t]) for t, wt in w.items()]

    played = {c: len(view.played_tiles[c]) for c in colors}
    lag = {c: (played[c] - min(played.values())) / 24 for c in colors}

    out: list[tuple[float, Move]] = []
    for color, tile, cells in view.legal.options:
        g = groups[color]
        base = FLEXIBLE * (FIT[tile] & front[color]).bit_count() + BALANCE * lag[color]
        for cell in Cells(cells):
            bit = 1 << cell
            around = AROUND[cell]
            k = 0
            for grp in g:
                if grp & around:
                    k += 1
            # A color's first tile starts a group whenever it is played: only later ones count.
            cost = (1 - k if g else 0) + base
            if tile == WILD and k < 2:
                cost += WILD_COST
            if occupied & bit:
                victim = view.color_at(cell)
                cost += CAPTURE
                if raises >> victim & 1:
                    cost += 1.0
                if not around & boards[victim]:
                    cost += rival
            # How many unplayed tiles of each own color gain (or lose) a free cell next to their groups.
            new_empty = empty & ~bit
            gain = 0.0
            for c in colors:
                before = front[c]
                after = (before | around & new_empty) & ~bit if c == color else before & ~bit
                if after == before:
                    continue
                for t, wt, f in weights[c]:
                    if c == color and t == tile:
                        continue
                    if f & after:
                        if not f & before:
                            gain += wt
                    elif f & before:
                        gain -= wt
            out.append((cost - REACH * gain, Move(color, tile, cell)))
    return out
