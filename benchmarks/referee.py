"""What the referee costs per move, next to the bare engine, with random bots.

    python benchmarks/referee.py --players 4 --games 300 --rounds 5

Each round plays the same seeds as a bare engine loop (deal, legal moves, a
uniform choice, push, result), then with a seat view built every turn, then
with the bots' generators and the record made too, and finally through
:func:`arena.referee.play_game` with ``random`` bots; the differences split
the referee's overhead into its parts.  Rounds alternate so that all see the
same machine load; the best round of each is kept.  Times are the process's
CPU time, which other work on a busy machine disturbs less than the wall clock.  The last line printed is
``<float> us/move referee overhead``.
"""

from __future__ import annotations

import argparse
import math
import random
import time

from arena.bots import parse_bot_spec
from arena.records import build_record
from arena.referee import play_game
from arena.rules import GameSettings, GameState, deal, derived_random
from arena.rules.view import SeatView


def engine_games(players: int, seeds: range) -> tuple[float, int]:
    """Seconds and turns for bare random games, deals included."""
    settings = GameSettings.for_players(players)
    turns = 0
    start = time.process_time()
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
    return time.process_time() - start, turns


def view_games(players: int, seeds: range, record: bool) -> tuple[float, int]:
    """The bare games plus a seat view every turn (and, with ``record``, the bots' generators and the record)."""
    settings = GameSettings.for_players(players)
    names = ["random"] * players
    turns = 0
    start = time.process_time()
    for seed in seeds:
        state = GameState(settings, deal(seed, settings))
        rng = random.Random(seed)
        if record:
            [derived_random("uptown-bot/1", seed, seat) for seat in range(players)]
        while not state.over:
            moves = SeatView.of(state, state.to_move).legal
            if moves:
                state.push(moves.choice(rng))
            else:
                state.push_pass()
        state.result()
        if record:
            build_record(state, names, seed=seed, extra={"bots": [], "time_limit": 10.0, "faults": []})
        turns += len(state.history)
    return time.process_time() - start, turns


def referee_games(players: int, seeds: range, isolate: bool) -> tuple[float, int]:
    """Seconds and turns for the same games played by the referee with random bots."""
    specs = [parse_bot_spec("random")] * players
    turns = 0
    start = time.process_time()
    for seed in seeds:
        turns += len(play_game(specs, seed, isolate=isolate).state.history)
    return time.process_time() - start, turns


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
    best = {"engine": math.inf, "views": math.inf, "record": math.inf, "referee": math.inf}
    runs = {
        "engine": lambda: engine_games(args.players, seeds),
        "views": lambda: view_games(args.players, seeds, record=False),
        "record": lambda: view_games(args.players, seeds, record=True),
        "referee": lambda: referee_games(args.players, seeds, args.isolate),
    }
    for _ in range(args.rounds):
        for name, run in runs.items():
            seconds, turns = run()
            best[name] = min(best[name], seconds)
    per_move = {name: seconds / turns * 1e6 for name, seconds in best.items()}
    print(f"players {args.players}, games {args.games} x {args.rounds} rounds, turns {turns}")
    print(f"engine:  {args.games / best['engine']:8.1f} games/s  {per_move['engine']:6.2f} us/move")
    print(f"referee: {args.games / best['referee']:8.1f} games/s  {per_move['referee']:6.2f} us/move")
    print(f"  of which seat views:                  {per_move['views'] - per_move['engine']:5.2f} us/move")
    print(f"  bots' generators and the record:      {per_move['record'] - per_move['views']:5.2f} us/move")
    print(f"  guarded calls, move checks, the rest: {per_move['referee'] - per_move['record']:5.2f} us/move")
    print(f"referee reaches {best['engine'] / best['referee']:.0%} of the engine's games/s")
    print(f"{per_move['referee'] - per_move['engine']:.2f} us/move referee overhead")


if __name__ == "__main__":
    main()
