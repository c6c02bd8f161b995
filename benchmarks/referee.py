"""What the referee and a tournament worker cost per move, next to the bare engine, with random bots.

    python benchmarks/referee.py --players 4 --games 400 --rounds 5

Plays the same seeds, each ``--rotations`` times in a row as a tournament
plays a deal once per seat rotation, four ways in every round:

* ``engine``: the bare engine loop of ``benchmarks/engine.py`` (deals made
  before the clock, legal moves, a uniform choice, push, result);
* ``referee``: :meth:`arena.play.referee.Referee.play` with ``random`` bots, one
  Referee for all the games as in a tournament worker (the deal, the bots and
  their generators, a seat view and a guarded call per move, the move check,
  the result);
* ``record``: the same, plus the game's ``records.jsonl`` line;
* ``worker``: the same, plus its ``games.csv`` rows: what a tournament worker
  does per game (:func:`arena.tournament.run.workers.play_one`).

The deal and the bots' generators are also timed alone, so the referee's
overhead splits into what it pays once per game and what it pays per move
(views, guarded calls, move checks).  Rounds alternate so that all see the
same machine load; the median round of each is kept.  Times are the
process's CPU time, which other work on a busy machine disturbs less than the
wall clock.  The last line printed is ``<float> us/move worker overhead``.
"""

from __future__ import annotations

import argparse
import statistics
import time

from engine import play

from arena.plan.schedule import Game
from arena.play.referee import BOT_STREAM, Referee, prepare_bot
from arena.results.rows import game_rows_text
from arena.rules import GameSettings, deal, derived_random

Result = tuple[float, int]


def engine_games(players: int, seeds: list[int]) -> Result:
    """Seconds and turns for bare random games, deals made before the clock (as benchmarks/engine.py)."""
    settings = GameSettings.for_players(players)
    deals = {seed: deal(seed, settings) for seed in set(seeds)}
    turns = 0
    start = time.process_time()
    for seed in seeds:
        turns += play(settings, deals[seed], derived_random("bench", seed))
    return time.process_time() - start, turns


def referee_games(players: int, seeds: list[int], record: bool, rows: bool) -> Result:
    """Seconds and turns for the same seeds played by the referee, with the record line and rows if asked."""
    bots = [prepare_bot("random")] * players
    names = [f"random-{seat}" for seat in range(players)]
    extra = {"game_id": "t000-d0000-r0", "tournament": {"name": "bench", "table": 0, "deal": 0, "rotation": 0}}
    turns = 0
    start = time.process_time()
    # In process: what the referee itself costs (bot programs: benchmarks/protocol.py).
    with Referee(isolation="none") as referee:
        for seed in seeds:
            outcome = referee.play(bots, seed, names=names, extra=extra)
            if record:
                (outcome.record_line() + "\n").encode("ascii")
            if rows:
                game_rows_text(
                    Game("t000-d0000-r0", 0, 0, 0, seed, ()), names, ["random"] * players, outcome.result, outcome.turns,
                    outcome.faulted, outcome.seconds, "uptown",
                )
            turns += len(outcome.state.history)
    return time.process_time() - start, turns


def per_game_parts(players: int, seeds: list[int], rotations: int) -> float:
    """Seconds for what the referee makes once per game before any move: deals (once per seed) and bot generators."""
    settings = GameSettings.for_players(players)
    start = time.process_time()
    for index, seed in enumerate(seeds):
        if index % rotations == 0:
            deal(seed, settings)
        for seat in range(players):
            derived_random(BOT_STREAM, seed, seat)
    return time.process_time() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4, choices=range(2, 6), metavar="N", help="2 to 5 (default 4)")
    parser.add_argument("--games", type=int, default=400, metavar="G", help="games per round (default 400)")
    parser.add_argument("--rotations", type=int, default=4, metavar="R",
                        help="games per seed in a row, as seat rotations play them (default 4)")
    parser.add_argument("--rounds", type=int, default=5, metavar="K", help="rounds, median kept (default 5)")
    args = parser.parse_args(argv)
    if args.games < 1 or args.rounds < 1 or args.rotations < 1:
        parser.error("--games, --rotations and --rounds must be at least 1")

    seeds = [1 + index // args.rotations for index in range(args.games)]
    runs = {
        "engine": lambda: engine_games(args.players, seeds),
        "referee": lambda: referee_games(args.players, seeds, False, False),
        "record": lambda: referee_games(args.players, seeds, True, False),
        "worker": lambda: referee_games(args.players, seeds, True, True),
        "parts": lambda: (per_game_parts(args.players, seeds, args.rotations), 0),
    }
    times: dict[str, list[float]] = {name: [] for name in runs}
    turns = 0
    for _ in range(args.rounds):
        for name, run in runs.items():
            seconds, counted = run()
            times[name].append(seconds)
            turns = counted or turns
    us = {name: statistics.median(values) / turns * 1e6 for name, values in times.items()}
    games = len(seeds)
    print(f"players {args.players}, games {games} ({args.rotations} per seed) x {args.rounds} rounds, turns {turns}")
    print(f"engine:  {games / statistics.median(times['engine']):8.1f} games/s  {us['engine']:6.2f} us/move")
    print(f"referee: {games / statistics.median(times['referee']):8.1f} games/s  {us['referee']:6.2f} us/move")
    print(f"worker:  {games / statistics.median(times['worker']):8.1f} games/s  {us['worker']:6.2f} us/move")
    print(f"  deals and bots' generators (per game, spread over its moves): {us['parts']:5.2f} us/move")
    print(f"  the rest of the referee (views, guarded calls, checks, ...):  "
          f"{us['referee'] - us['engine'] - us['parts']:5.2f} us/move")
    print(f"  the record line:                                              {us['record'] - us['referee']:5.2f} us/move")
    print(f"  the games.csv rows:                                           {us['worker'] - us['record']:5.2f} us/move")
    print(f"referee reaches {us['engine'] / us['referee']:.0%} of the engine's games/s, "
          f"a worker {us['engine'] / us['worker']:.0%}")
    print(f"{us['worker'] - us['engine']:.2f} us/move worker overhead")


if __name__ == "__main__":
    main()
