"""The fastest a tournament pipeline could be, next to the bare engine, with random bots.

    python benchmarks/pipeline_floor.py --games 800 --rounds 9

Plays the same seeds (four players, each deal four times in a row as seat
rotations do) in one process, four ways, taking turns so that all see the
same machine load:

* ``engine``: the bare engine loop of ``benchmarks/engine.py``;
* ``floor``: only what a tournament cannot leave out per move — the seat's
  :class:`~arena.rules.view.SeatView`, the bot's call between two clock reads
  and the check that its move is legal — and per game, a fresh ``random`` bot
  per seat with its seeded generator.  No guard (no time limit, no stdout
  sink, no faults), no files, no processes, no schedule;
* ``+ record``: the same, plus the game's ``records.jsonl`` line;
* ``+ rows``: the same, plus its ``games.csv`` rows.

The last is a lower bound for ``arena run`` on one worker (see
``benchmarks/tournament.py``).  Times are the process's CPU time, the least
of ``--rounds``.  The last line printed is ``<float>% of the engine`` for
``+ rows``.  This is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import random
import time
from time import perf_counter

from arena_bots.random_bot import RandomBot
from engine import play

from arena import records
from arena.plan.schedule import Game
from arena.play.referee import BOT_STREAM
from arena.results.rows import game_rows_text
from arena.rules import PASS, GameSettings, GameState, Move, deal, derived_random
from arena.rules.tiles import FITS
from arena.rules.view import seat_view

PLAYERS = 4
NAMES = [f"random-{seat}" for seat in range(PLAYERS)]


def floor_games(settings: GameSettings, deals: dict[int, dict[int, tuple[int, ...]]], seeds: list[int],
                record: bool, rows: bool) -> None:
    """The games with only the per-move and per-game work no pipeline can drop."""
    for seed in seeds:
        state = GameState(settings, deals[seed])
        chooses = [RandomBot(seat, settings, {}, derived_random(BOT_STREAM, seed, seat)).choose
                   for seat in range(PLAYERS)]
        history, boards, racks, drawn = state.history, state.boards, state.racks, state.drawn
        played_tiles, captures = state.played_tiles, state.captures
        seconds = [0.0] * PLAYERS
        captures_seen = tuple(map(tuple, captures))
        while not state.over:
            seat = state.to_move
            moves = state.legal_moves()
            if not moves.options:
                state.push(PASS)
                continue
            open_cells = moves.open_mask
            view = seat_view(settings, seat, seat, False, tuple(boards), {seat: tuple(racks[seat])}, tuple(drawn),
                             tuple(played_tiles), captures_seen, tuple(history), state.passes, moves, None)
            start = perf_counter()
            value = chooses[seat](view)
            seconds[seat] += perf_counter() - start
            color, tile, cell = value
            if not (type(value) is Move and type(color) is int and type(tile) is int and type(cell) is int
                    and cell >= 0 and color == seat and tile in racks[seat] and (FITS[tile] & open_cells) >> cell & 1):
                raise AssertionError("the random bot played an illegal move")
            if state.push(value) >= 0:
                captures_seen = tuple(map(tuple, captures))
        result = state.result()
        if record:
            members = '"bots":[],"time_limit":10.0,"faults":[]'
            (records.record_line(state, NAMES, seed, result=result, members=members) + "\n").encode("ascii")
        if rows:
            game_rows_text(Game("t000-d0000-r0", 0, 0, 0, seed, ()), NAMES, ["random"] * PLAYERS, result,
                           [24] * PLAYERS, set(), seconds, "uptown")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=800, metavar="G", help="games per round (default 800)")
    parser.add_argument("--rounds", type=int, default=9, metavar="K", help="rounds, least kept (default 9)")
    args = parser.parse_args(argv)
    if args.games < 1 or args.rounds < 1:
        parser.error("--games and --rounds must be at least 1")

    settings = GameSettings.for_players(PLAYERS)
    seeds = [1 + index // PLAYERS for index in range(args.games)]
    deals = {seed: deal(seed, settings) for seed in set(seeds)}
    rng = random.Random(1)
    runs = {
        "engine": lambda: [play(settings, deals[seed], rng) for seed in seeds],
        "floor": lambda: floor_games(settings, deals, seeds, False, False),
        "+ record": lambda: floor_games(settings, deals, seeds, True, False),
        "+ rows": lambda: floor_games(settings, deals, seeds, True, True),
    }
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(args.rounds):
        for name, run in runs.items():
            start = time.process_time()
            run()
            times[name].append(time.process_time() - start)
    engine = min(times["engine"])
    for name, values in times.items():
        print(f"{name:9s} {min(values) / args.games * 1e6:6.0f} us/game  {engine / min(values):6.1%} of the engine")
    print(f"{engine / min(times['+ rows']) * 100:.1f}% of the engine")


if __name__ == "__main__":
    main()
