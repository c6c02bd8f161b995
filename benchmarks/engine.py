"""Speed of the rules engine: random games with full legal-move generation on every turn.

    python benchmarks/engine.py --players 4 --games 2000 --seed 1

Every turn builds the whole :class:`~arena.rules.MoveSet` and draws one move
from it uniformly (what the ``random`` bot does); every game ends with
:meth:`~arena.rules.GameState.result`.  Deals are made before the clock
starts.  Prints the figures by wall clock and by the process's CPU time (the
fairer one on a shared machine); the last line is ``<float> games/s`` by the
wall clock.
"""

from __future__ import annotations

import argparse
import random
import time

from arena.rules import GameSettings, GameState, deal


def play(settings: GameSettings, deals: dict[int, tuple[int, ...]], rng: random.Random) -> int:
    """Play one random game to its end; the number of turns it took."""
    state = GameState(settings, deals)
    while not state.over:
        moves = state.legal_moves()
        if moves:
            state.push(moves.choice(rng))
        else:
            state.push_pass()
    state.result()
    return len(state.history)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4, choices=range(2, 6), metavar="N", help="2 to 5 (default 4)")
    parser.add_argument("--games", type=int, default=1000, metavar="G", help="games to play (default 1000)")
    parser.add_argument("--seed", type=int, default=1, help="first deal seed; game i uses seed + i (default 1)")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")

    settings = GameSettings.for_players(args.players)
    deals = [deal(args.seed + i, settings) for i in range(args.games)]
    rng = random.Random(args.seed)
    start, cpu_start = time.perf_counter(), time.process_time()
    turns = sum(play(settings, d, rng) for d in deals)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    print(f"players {args.players}, games {args.games}, turns {turns}, seconds {seconds:.3f} (cpu {cpu:.3f})")
    print(f"cpu: {turns / cpu:.0f} moves/s, {args.games / cpu:.1f} games/s")
    print(f"{turns / seconds:.0f} moves/s")
    print(f"{args.games / seconds:.1f} games/s")


if __name__ == "__main__":
    main()
