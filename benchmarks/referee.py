"""What the referee costs per move, next to the bare engine, with random bots.

    python benchmarks/referee.py --players 4 --games 300 --rounds 5

Each round plays the same seeds twice: once as a bare engine loop (deal,
legal moves, a uniform choice, push, result) and once through
:func:`arena.referee.play_game` with ``random`` bots (views, the guarded call,
the move check, the record).  Rounds alternate so that both see the same
machine load; the best round of each is kept.  The last line printed is
``<float> us/move referee overhead``.
"""

from __future__ import annotations

import argparse
import random
import time

from arena.bots import parse_bot_spec
from arena.referee import play_game
from arena.rules import GameSettings, GameState, deal


def engine_games(players: int, seeds: range) -> tuple[float, int]:
    """Seconds and turns for bare random games, deals included."""
    settings = GameSettings.for_players(players)
    turns = 0
    start = time.perf_counter()
    for seed in seeds:
        state = GameState(settings, deal(seed, settings))
        rng = random.Random(seed)
        while not state.over:
            moves = state.legal_moves()
            if moves:
                state.push(moves.choice(rng))
            else:
                state.push_pass()
        state.result()
        turns += len(state.history)
    return time.perf_counter() - start, turns


def referee_games(players: int, seeds: range, isolate: bool) -> tuple[float, int]:
    """Seconds and turns for the same games played by the referee with random bots."""
    specs = [parse_bot_spec("random")] * players
    turns = 0
    start = time.perf_counter()
    for seed in seeds:
        turns += len(play_game(specs, seed, isolate=isolate).state.history)
    return time.perf_counter() - start, turns


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4, choices=range(2, 6), metavar="N", help="2 to 5 (default 4)")
    parser.add_argument("--games", type=int, default=300, metavar="G", help="games per round (default 300)")
    parser.add_argument("--rounds", type=int, default=5, metavar="R", help="rounds, best kept (default 5)")
    parser.add_argument("--isolate", action="store_true", help="run every bot in its own process")
    args = parser.parse_args(argv)
    if args.games < 1 or args.rounds < 1:
        parser.error("--games and --rounds must be at least 1")

    seeds = range(1, args.games + 1)
    engine = referee = float("inf")
    for _ in range(args.rounds):
        seconds, engine_turns = engine_games(args.players, seeds)
        engine = min(engine, seconds)
        seconds, referee_turns = referee_games(args.players, seeds, args.isolate)
        referee = min(referee, seconds)
    print(f"players {args.players}, games {args.games} x {args.rounds} rounds, turns {engine_turns}")
    print(f"engine:  {args.games / engine:8.1f} games/s  {engine / engine_turns * 1e6:6.2f} us/move")
    print(f"referee: {args.games / referee:8.1f} games/s  {referee / referee_turns * 1e6:6.2f} us/move")
    print(f"referee reaches {engine / referee:.0%} of the engine's games/s")
    print(f"{(referee / referee_turns - engine / engine_turns) * 1e6:.2f} us/move referee overhead")


if __name__ == "__main__":
    main()
