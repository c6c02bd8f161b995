"""Playouts per second of the ``mcts`` bot in a mid-game position.

    python benchmarks/mcts_speed.py --iterations 2000 --seed 1

For 4 and 2 players, greedy bots play the first half of a seeded game (48 of
its 96 turns); then the ``mcts`` bot of the seat to move searches that
position with the given iteration budget (one iteration = one determinization,
one walk down the tree, one playout to the end of the game).  Each search runs
``--repeat`` times on fresh bots and the fastest run counts, since the machine
may be shared.  The last line printed is ``<float> playouts/s`` (the lower of
the two player counts).
"""

from __future__ import annotations

import argparse
import time

from arena_bots.greedy import GreedyBot
from arena_bots.mcts import MctsBot

from arena.rules import GameSettings, GameState, deal, derived_random
from arena.rules.view import SeatView


def mid_game(players: int, seed: int, turns: int = 48) -> GameState:
    """The position after ``turns`` turns of greedy play on deal ``seed``."""
    settings = GameSettings.for_players(players)
    state = GameState(settings, deal(seed, settings))
    bots = [GreedyBot(s, settings, {}, derived_random("uptown-bot/1", seed, s)) for s in range(players)]
    while len(state.history) < turns and not state.over:
        state.push(bots[state.to_move].choose(SeatView.of(state, state.to_move)))
    return state


def playouts_per_second(players: int, seed: int, iterations: int, repeat: int, options: dict) -> float:
    state = mid_game(players, seed)
    view = SeatView.of(state, state.to_move)
    best = 0.0
    for r in range(repeat):
        bot = MctsBot(state.to_move, state.settings, {**options, "iterations": iterations},
                      derived_random("mcts-speed", seed, r))
        start = time.perf_counter()
        bot.choose(view)
        seconds = time.perf_counter() - start
        best = max(best, bot.last_iterations / seconds)
    return best


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=2000, help="iterations per search (default 2000)")
    parser.add_argument("--seed", type=int, default=1, help="deal seed (default 1)")
    parser.add_argument("--repeat", type=int, default=3, help="searches per position; the fastest counts (default 3)")
    parser.add_argument("--playout", choices=("greedy", "random"), default="greedy", help="playout policy")
    args = parser.parse_args(argv)
    rates = []
    for players in (4, 2):
        rate = playouts_per_second(players, args.seed, args.iterations, args.repeat, {"playout": args.playout})
        rates.append(rate)
        print(f"{players} players, mid-game (turn 48 of 96), {args.iterations} iterations: {rate:.0f} playouts/s")
    print(f"{min(rates):.0f} playouts/s")


if __name__ == "__main__":
    main()
