"""Playouts per second of the ``mcts`` bot in a mid-game position, the search in C and in Python side by side.

    python benchmarks/mcts_speed.py --iterations 5000 --repeat 5 --seed 1

For 4 and 2 players, greedy bots play the first half of a seeded game (48 of
its 96 turns); then the ``mcts`` bot of the seat to move searches that
position with the given iteration budget (one iteration = one determinization,
one walk down the tree, one playout to the end of the game), once with
``engine=native`` (:class:`arena.rules.engine.NativeSearch`) and once with
``engine=pure`` (``PySearch``), ``--repeat`` times, the engines alternating
which goes first.  Repeat ``r`` builds both bots from the same seeded
generator, so both searches draw the same numbers and must choose the same
move: the script stops with an error if they do not.

A search's rate is its iterations over the time of the whole ``choose`` call
(ranking the root moves included), by the process's CPU time (the fairer
figure on a shared machine) and by the wall clock.  Printed per engine: the
median of the repeats by CPU time [the best], the median by the wall clock,
and the ratio native/pure of the medians.  The last line printed is
``<float> playouts/s``: the lower of the two player counts' median CPU-time
rates of the native search (of the pure one when the native engine is not
built, or with ``--engine pure``).
"""

from __future__ import annotations

import argparse
import statistics
import time

from arena_bots.greedy import GreedyBot
from arena_bots.mcts import MctsBot

from arena.rules import GameSettings, GameState, deal, derived_random
from arena.rules import engine as native_engine
from arena.rules.view import SeatView


def mid_game(players: int, seed: int, turns: int = 48) -> GameState:
    """The position after ``turns`` turns of greedy play on deal ``seed``."""
    settings = GameSettings.for_players(players)
    state = GameState(settings, deal(seed, settings))
    bots = [GreedyBot(s, settings, {}, derived_random("uptown-bot/1", seed, s)) for s in range(players)]
    while len(state.history) < turns and not state.over:
        state.push(bots[state.to_move].choose(SeatView.of(state, state.to_move)))
    return state


def search(state: GameState, engine: str, seed: int, r: int, options: dict) -> tuple[object, int, float, float]:
    """One search of repeat ``r`` with ``engine``: the move chosen, iterations, CPU and wall seconds."""
    view = SeatView.of(state, state.to_move)
    bot = MctsBot(state.to_move, state.settings, {**options, "engine": engine}, derived_random("mcts-speed", seed, r))
    start, cpu_start = time.perf_counter(), time.process_time()
    move = bot.choose(view)
    cpu, wall = time.process_time() - cpu_start, time.perf_counter() - start
    return move, bot.last_iterations, cpu, wall


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=5000, help="iterations per search (default 5000)")
    parser.add_argument("--seed", type=int, default=1, help="deal seed (default 1)")
    parser.add_argument("--repeat", type=int, default=5, help="searches per position and engine (default 5)")
    parser.add_argument("--playout", choices=("greedy", "random"), default="greedy", help="playout policy")
    parser.add_argument("--engine", choices=("native", "pure", "both"), default=None,
                        help="which search(es) to time (default both; pure only when native is not built)")
    args = parser.parse_args(argv)
    if args.iterations < 1 or args.repeat < 1:
        parser.error("--iterations and --repeat must be at least 1")
    if args.engine is None:
        args.engine = "both" if native_engine.ENGINE == "native" else "pure"
        if args.engine == "pure":
            print(f"the pure search only: {native_engine.WHY}")
    if args.engine != "pure" and native_engine.ENGINE != "native":
        raise SystemExit(f"mcts_speed.py: the native engine is not available: {native_engine.WHY}")
    names = ["native", "pure"] if args.engine == "both" else [args.engine]
    options = {"iterations": args.iterations, "seconds": 0, "playout": args.playout}

    print(f"{args.iterations} iterations a search, {args.repeat} repeats, playout {args.playout}; "
          f"median of the repeats by CPU time [best], median by the wall clock")
    lows = []
    for players in (4, 2):
        state = mid_game(players, args.seed)
        runs: dict[str, list] = {name: [] for name in names}
        for r in range(args.repeat):
            for name in names if r % 2 == 0 else names[::-1]:
                runs[name].append(search(state, name, args.seed, r, options))
            moves = {runs[name][-1][0] for name in names}
            # The same generator and iterations: the C search and the Python one are the same search.
            assert len(moves) == 1, f"{players} players, repeat {r}: the engines chose different moves {moves}"
        medians = {}
        for name in names:
            cpu = [it / c for _, it, c, _ in runs[name]]
            wall = [it / w for _, it, _, w in runs[name]]
            medians[name] = (statistics.median(cpu), statistics.median(wall))
            print(f"{players} players, mid-game (turn 48 of 96), {name:6s}: {medians[name][0]:9.0f} playouts/s "
                  f"[{max(cpu):.0f}] by CPU time, {medians[name][1]:9.0f} by the wall clock")
        if len(names) == 2:
            n, p = medians["native"], medians["pure"]
            print(f"{players} players, native/pure: {n[0] / p[0]:.1f}x by CPU time, {n[1] / p[1]:.1f}x by the wall "
                  f"clock; the same move in every repeat")
        lows.append(medians[names[0]][0])
    print(f"{min(lows):.0f} playouts/s")


if __name__ == "__main__":
    main()
