"""Speed and memory of the whole tournament pipeline, against the bare engine.

    python benchmarks/tournament.py --games 4000 --repeat 5

With four ``random`` entrants in four-player games it measures, each in a
fresh process, in turn ``--repeat`` times (engine, 1 worker, 2 workers, …, so
that all see the same machine load):

* the bare engine (``benchmarks/engine.py``, the same number of games);
* ``arena run`` end to end (schedule, referee, bots built in the worker,
  records and rows appended, games.csv sorted) with 1 worker and with 2;
* the parent's peak memory for two tournament sizes (``--games`` and ten
  times as many): while the games are played (it should not grow with the
  number of games), then after games.csv is sorted and the tables are built
  (those read the whole games.csv, one row per seat).

Each run is timed by the wall clock and by CPU time (the main process's own
plus its workers'); the medians are printed with the range.  It
prints the ratios the tournament aims at: the pipeline on one worker at least
70% of the engine's games/s (by CPU time, which other work on a shared
machine disturbs least; by the wall clock too), and two workers at least 1.8x
one by the wall clock.  Two workers can only show that on two otherwise idle
cores, so the CPU time per game of both set-ups is printed as well: on a
busy machine, their ratio says what two free cores would give.
This is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from arena.rules import ENGINE

HERE = Path(__file__).resolve().parent

TOURNAMENT = """
name = "bench"
players = 4
deals = {deals}
seed = 1
time_limit = 10
rotate = true
isolation = "none"  # the pipeline itself; bot programs add what benchmarks/protocol.py measures
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
import json, os, resource, sys, time
from pathlib import Path
from arena.plan.config import load_config
from arena.tournament.run.runner import run_tournament
from arena.report.tables import build_tables, load_games, write_tables

from arena.tournament.run import runner

path, out, workers = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
config = load_config(path)
peak = {}
sort = runner.sort_games_file


def measured_sort(games_path):
    # The peak while the games were played, before games.csv is read back to be sorted.
    peak["play"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    sort(games_path)


def cpu():
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


runner.sort_games_file = measured_sort
start, cpu_start = time.perf_counter(), cpu()
summary = run_tournament(config, path.read_text(), out, workers=workers)
seconds, cpu_seconds = time.perf_counter() - start, cpu() - cpu_start
rss_play = peak["play"]
rss_sorted = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
games = load_games(out / "games.csv", config.players)
write_tables(out, build_tables(games, config.scoring, config.names))
tables = time.perf_counter() - start
rss_tables = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"games": summary.played, "seconds": seconds, "cpu": cpu_seconds, "tables": tables,
                  "rss_play_kib": rss_play, "rss_sorted_kib": rss_sorted, "rss_tables_kib": rss_tables}))
"""


def engine(games: int) -> tuple[float, float]:
    """Games/s of benchmarks/engine.py: by the wall clock (its last line) and by CPU time."""
    out = subprocess.run(
        # One round of the engine in use (the one arena run plays with).
        [sys.executable, str(HERE / "engine.py"), "--players", "4", "--games", str(games), "--rounds", "1",
         "--engine", ENGINE],
        check=True, capture_output=True, text=True,
    ).stdout
    lines = out.strip().splitlines()
    wall = re.fullmatch(r"([0-9.]+) games/s", lines[-1])
    cpu = next((re.search(r"([0-9.]+) games/s", line) for line in lines if line.startswith("cpu:")), None)
    if not wall or not cpu:
        raise SystemExit(f"engine.py printed no games/s lines: {out!r}")
    return float(wall.group(1)), float(cpu.group(1))


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


def _median(values: list[float]) -> str:
    return f"{statistics.median(values):.1f} ({min(values):.1f}-{max(values):.1f})"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4000, help="games per speed run (default 4000)")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each, taken in turn; medians count (default 5)")
    parser.add_argument("--memory", type=int, nargs=2, default=None, metavar=("SMALL", "LARGE"),
                        help="the two sizes for peak memory (default: --games and 10x --games)")
    args = parser.parse_args(argv)
    games = args.games - args.games % 4
    sizes = args.memory or [games, 10 * games]

    wall: dict[str, list[float]] = {"engine": [], "1": [], "2": []}
    cpu: dict[str, list[float]] = {"engine": [], "1": [], "2": []}
    cpu_per_game: dict[str, list[float]] = {"1": [], "2": []}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for _ in range(args.repeat):
            by_wall, by_cpu = engine(games)
            wall["engine"].append(by_wall)
            cpu["engine"].append(by_cpu)
            for workers in (1, 2):
                r = pipeline(folder, games, workers)
                wall[str(workers)].append(r["games"] / r["seconds"])
                cpu[str(workers)].append(r["games"] / r["cpu"])
                cpu_per_game[str(workers)].append(r["cpu"] / r["games"] * 1e6)
        print(f"engine (benchmarks/engine.py --players 4 --games {games}), games/s: "
              f"cpu {_median(cpu['engine'])}, wall {_median(wall['engine'])}")
        for workers in ("1", "2"):
            print(f"arena run, {workers} worker(s), {games} games, games/s: cpu {_median(cpu[workers])}, "
                  f"wall {_median(wall[workers])}; cpu per game {_median(cpu_per_game[workers])} us")
        one, two = statistics.median(wall["1"]), statistics.median(wall["2"])
        print(f"pipeline on 1 worker / engine: {statistics.median(cpu['1']) / statistics.median(cpu['engine']):.0%} "
              f"by cpu, {one / statistics.median(wall['engine']):.0%} by wall (target >= 70%)")
        print(f"2 workers / 1 worker: {two / one:.2f}x by wall (target >= 1.8x, {os.cpu_count()} CPUs; "
              f"cpu per game {statistics.median(cpu_per_game['2']) / statistics.median(cpu_per_game['1']):.2f}x one worker's)")
        for size in sizes:
            r = pipeline(folder, size, 2)
            print(f"parent peak memory, {r['games']} games, 2 workers: {r['rss_play_kib'] / 1024:.1f} MiB while playing, "
                  f"{r['rss_sorted_kib'] / 1024:.1f} MiB with games.csv sorted, "
                  f"{r['rss_tables_kib'] / 1024:.1f} MiB with the tables built")
    print(f"{one:.1f} games/s")


if __name__ == "__main__":
    main()
