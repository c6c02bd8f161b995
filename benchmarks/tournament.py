"""Speed and memory of the whole tournament pipeline, against the bare engine.

    python benchmarks/tournament.py --games 4000

With four ``random`` entrants in four-player games it measures, each in a
fresh process:

* the bare engine (``benchmarks/engine.py``, the same number of games);
* ``arena run`` end to end (schedule, referee, bots built in the worker,
  records and rows appended, games.csv sorted) with 1 worker and with 2;
* the parent's peak memory for two tournament sizes (``--games`` and ten
  times as many): while the games are played (it should not grow with the
  number of games), then after games.csv is sorted and the tables are built
  (those read the whole games.csv, one row per seat).

It prints the figures and the ratios the tournament aims at: the pipeline on
one worker at least 70% of the engine's games/s, two workers at least 1.8x one.
This is a measurement, not a test: on a shared machine the figures are noisy,
so each one is the best of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

TOURNAMENT = """
name = "bench"
players = 4
deals = {deals}
seed = 1
time_limit = 10
rotate = true
[[entrants]]
name = "r1"
bot = "random"
[[entrants]]
name = "r2"
bot = "random"
[[entrants]]
name = "r3"
bot = "random"
[[entrants]]
name = "r4"
bot = "random"
"""

# Runs in a fresh process: plays the tournament, then reports time and the parent's peak memory.
CHILD = """
import json, resource, sys, time
from pathlib import Path
from arena.tournament.config import load_config
from arena.tournament.runner import run_tournament
from arena.tournament.results import build_tables, load_games, write_tables

from arena.tournament import runner

path, out, workers = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
config = load_config(path)
peak = {}
sort = runner.sort_games_file


def measured_sort(games_path):
    # The peak while the games were played, before games.csv is read back to be sorted.
    peak["play"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    sort(games_path)


runner.sort_games_file = measured_sort
start = time.perf_counter()
summary = run_tournament(config, path.read_text(), out, workers=workers)
seconds = time.perf_counter() - start
rss_play = peak["play"]
rss_sorted = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
games = load_games(out / "games.csv", config.players)
write_tables(out, build_tables(games, config.scoring, config.seed, config.names))
tables = time.perf_counter() - start
rss_tables = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"games": summary.played, "seconds": seconds, "tables": tables,
                  "rss_play_kib": rss_play, "rss_sorted_kib": rss_sorted, "rss_tables_kib": rss_tables}))
"""


def engine(games: int) -> float:
    """Games/s of benchmarks/engine.py (its last line)."""
    out = subprocess.run(
        [sys.executable, str(HERE / "engine.py"), "--players", "4", "--games", str(games)],
        check=True, capture_output=True, text=True,
    ).stdout
    match = re.fullmatch(r"([0-9.]+) games/s", out.strip().splitlines()[-1])
    if not match:
        raise SystemExit(f"engine.py printed no games/s line: {out!r}")
    return float(match.group(1))


def pipeline(folder: Path, games: int, workers: int) -> dict:
    """One run of the tournament in a fresh process."""
    deals = max(1, games // 4)
    path = folder / f"bench-{games}.toml"
    path.write_text(TOURNAMENT.format(deals=deals))
    out = folder / f"out-{games}-{workers}-{len(list(folder.iterdir()))}"
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), str(out), str(workers)],
        check=True, capture_output=True, text=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4000, help="games per speed run (default 4000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each; the best counts (default 3)")
    parser.add_argument("--memory", type=int, nargs=2, default=None, metavar=("SMALL", "LARGE"),
                        help="the two sizes for peak memory (default: --games and 10x --games)")
    args = parser.parse_args(argv)
    games = args.games - args.games % 4
    sizes = args.memory or [games, 10 * games]

    best_engine = max(engine(games) for _ in range(args.repeat))
    print(f"engine (benchmarks/engine.py --players 4 --games {games}): {best_engine:.1f} games/s")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        rates = {}
        for workers in (1, 2):
            runs = [pipeline(folder, games, workers) for _ in range(args.repeat)]
            best = min(runs, key=lambda r: r["seconds"])
            rates[workers] = best["games"] / best["seconds"]
            print(f"arena run, {workers} worker(s), {best['games']} games: {rates[workers]:.1f} games/s "
                  f"(best of {args.repeat}; tables built in {best['tables']:.2f} s)")
        print(f"pipeline on 1 worker / engine: {100 * rates[1] / best_engine:.0f}% (target >= 70%)")
        print(f"2 workers / 1 worker: {rates[2] / rates[1]:.2f}x (target >= 1.8x, {os.cpu_count()} CPUs)")
        for size in sizes:
            r = pipeline(folder, size, 2)
            print(f"parent peak memory, {r['games']} games, 2 workers: {r['rss_play_kib'] / 1024:.1f} MiB while playing, "
                  f"{r['rss_sorted_kib'] / 1024:.1f} MiB with games.csv sorted, "
                  f"{r['rss_tables_kib'] / 1024:.1f} MiB with the tables built")
    print(f"{rates[1]:.1f} games/s")


if __name__ == "__main__":
    main()
