"""How far apart the ``mcts`` bot's best root moves are by its own reckoning, after a long search.

    python benchmarks/mcts_gaps.py --deals 6 --iterations 64000 [--players 4]

For two players (or ``--players``), greedy bots play deals ``1 .. --deals`` to turns 10, 40 and
70; in each position the native search of the seat to move runs
``--iterations`` iterations over the 16 root moves ``mcts`` ranks first (a
fixed root: every one of them searched from the start), and the root's mean
rewards are read.  Printed per position: the best move's mean reward and
visits, the gap to the second best, to the sixth and to the sixteenth; then
the median gaps, and how many visits a move would need for that gap to stand
two standard errors above the noise of one playout's reward (its standard
deviation, measured over the same positions).  Last, the noise that common
random numbers would leave: the standard deviation of the difference between
the rewards of the search's best two moves, each played out in the same
determinization with the same generator, against that of two independent
playouts (the correlation of the pairs).

What it shows: when the best two moves are a hundredth of a reward apart,
telling them apart takes thousands of playouts each, and playing the second
costs the bot a hundredth of a reward: doubling the search's time then
changes few moves, and the moves it changes matter little.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from arena_bots.mcts import PySearch, reward, root_moves, seat_state

from arena.rules import GameState, Move, SplitMix64
from arena.rules.engine import ENGINE, WHY, NativeSearch
from arena.rules.playout import play_out
from arena.rules.state import GameState as PureGameState
from arena.rules.view import SeatView

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mcts_speed import mid_game  # noqa: E402 - benchmarks/ is not a package

#: Root moves searched in every position.
WIDTH = 16
#: Turns of the positions searched.
TURNS = (10, 40, 70)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=6, help="deals 1..N, three positions each")
    parser.add_argument("--iterations", type=int, default=64000, help="iterations of each search")
    parser.add_argument("--players", type=int, default=2, choices=range(2, 6), help="2 to 5 (default 2)")
    parser.add_argument("--samples", type=int, default=400, help="determinizations of each position's playouts")
    args = parser.parse_args(argv)
    if ENGINE != "native" or NativeSearch is None:
        sys.exit(f"the native engine is needed: {WHY}")

    gaps: list[tuple[float, float, float]] = []
    spreads: list[float] = []
    pairs: list[tuple[float, float]] = []
    for seed in range(1, args.deals + 1):
        for turns in TURNS:
            state = mid_game(args.players, seed, turns)
            view = SeatView.of(state, state.to_move)
            allowed = root_moves(view, WIDTH, WIDTH)
            tree = NativeSearch(seat_state(view, GameState), view.seat, allowed, 0.7, 1.0, "greedy", seed,
                                len(allowed), 0)
            tree.run(args.iterations)
            stats = [(total / visits, visits, move) for move, (visits, total) in zip(allowed, tree.stats()) if visits]
            means = sorted(stats, key=lambda m: m[:2])[::-1]
            gap = (means[0][0] - means[1][0], means[0][0] - means[min(5, len(means) - 1)][0],
                   means[0][0] - means[-1][0])
            gaps.append(gap)
            spread, paired, rho = playout_spread(view, seed, means[0][2], means[1][2], args.samples)
            spreads.append(spread)
            pairs.append((paired, rho))
            print(f"deal {seed} turn {turns}: best {means[0][0]:.3f} ({means[0][1]} visits); gap to the 2nd "
                  f"{gap[0]:.4f}, to the 6th {gap[1]:.4f}, to the {len(means)}th {gap[2]:.3f}", flush=True)
    second = statistics.median(g[0] for g in gaps)
    sixth = statistics.median(g[1] for g in gaps)
    sd = statistics.median(spreads)
    close = sum(g[0] < 0.01 for g in gaps)
    print(f"median gap to the 2nd {second:.4f}, to the 6th {sixth:.4f}; {close} of {len(gaps)} positions under 0.01; "
          f"a playout's reward has standard deviation {sd:.3f}: two standard errors under the median gap to the 2nd "
          f"take {(2 * sd / second) ** 2:,.0f} visits a move")
    paired = statistics.median(p[0] for p in pairs)
    print(f"the best two moves played out in the same determinization with the same generator: their rewards' "
          f"difference has standard deviation {paired:.3f} (median), against {sd * 2 ** 0.5:.3f} for independent "
          f"playouts (correlation {statistics.median(p[1] for p in pairs):.2f}): common random numbers would save "
          f"{1 - (paired / (sd * 2 ** 0.5)) ** 2:.0%} of the playouts")


def playout_spread(view: SeatView, seed: int, best: Move, second: Move, n: int = 400) -> tuple[float, float, float]:
    """Over ``n`` determinizations of ``view``: the standard deviation of a greedy playout's reward for the seat
    after ``best``; that of the difference of the rewards after ``best`` and after ``second`` played out in the
    same determinization with the same generator; and the correlation of those two rewards."""
    search = PySearch(seat_state(view, PureGameState), view.seat, list(view.legal)[:1], 0.7, 1.0, "greedy", seed)
    pairs = []
    for k in range(n):
        world = search.sample()
        pair = []
        for move in (best, second):
            game = world.copy()
            game.push(move)
            play_out(game, SplitMix64(seed * n + k), "greedy")
            pair.append(reward(game)[view.seat])
        pairs.append(pair)
    firsts, seconds = [p[0] for p in pairs], [p[1] for p in pairs]
    return (statistics.pstdev(firsts), statistics.pstdev([a - b for a, b in pairs]),
            statistics.correlation(firsts, seconds))


if __name__ == "__main__":
    main()
