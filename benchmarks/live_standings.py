"""What the standings above the progress bar cost a run: the same tournament with and without them, side by side.

    python benchmarks/live_standings.py --deals 200 --repeat 3

Each round runs one tournament (four in-process entrants, ``random`` and ``greedy``, three seats,
``balanced`` seating, 2 workers) twice, in turn: with the progress bar alone, and with the bar and the
live standings above it, standard error a pseudo-terminal both times (what a terminal gets; a
thread reads it away).  Each run is timed by the wall clock and by the parent's CPU time (the fits
of the rating run in the parent); the medians and ranges are printed, then the ratio of the wall
clocks.  ``--sleep`` makes the rating refit every ``RATE_EVERY`` seconds regardless of cost (the duty
limit off), the worst case.  This is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import os
import pty
import resource
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import arena.report.live as live
import arena.tournament.run.runner as runner
from arena.plan.config import parse_config
from arena.tournament.run.showing import Showing

TOURNAMENT = """
name = "live"
players = 3
deals = {deals}
seed = 5
isolation = "none"
{entrants}
"""
ENTRANTS = "".join(f'\n[[entrants]]\nname = "{n}"\nbot = "{b}"\n'
                   for n, b in (("r1", "random"), ("g1", "greedy"), ("r2", "random"), ("g2", "greedy")))


class BarOnly(Showing):
    def __init__(self, *args: object, **kwargs: object) -> None:
        args_list = list(args)
        args_list[5] = False  # live
        super().__init__(*args_list, **kwargs)  # type: ignore[arg-type]


def one_run(deals: int, standings: bool, workers: int) -> tuple[float, float, int, float]:
    """Wall seconds, parent CPU seconds, the bytes written to the terminal, and the children's CPU seconds
    (the workers, and the process that fits the ratings)."""
    text = TOURNAMENT.format(deals=deals, entrants=ENTRANTS)
    config = parse_config(text, "live.toml")
    master, slave = pty.openpty()
    written = [0]

    def drain() -> None:
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:
                return
            if not data:
                return
            written[0] += len(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    terminal = os.fdopen(slave, "w", buffering=1)
    saved_stderr, saved_showing = sys.stderr, runner.Showing
    sys.stderr = terminal
    runner.Showing = Showing if standings else BarOnly  # type: ignore[misc]
    try:
        with tempfile.TemporaryDirectory() as folder:
            cpu = resource.getrusage(resource.RUSAGE_SELF)
            children = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            runner.run_tournament(config, text, Path(folder) / "out", workers=workers, progress=True)
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_SELF)
            time.sleep(0.5)  # the fitting process ends
            done = resource.getrusage(resource.RUSAGE_CHILDREN)
    finally:
        sys.stderr, runner.Showing = saved_stderr, saved_showing  # type: ignore[misc]
        terminal.close()
        os.close(master)
    return (wall, (after.ru_utime + after.ru_stime) - (cpu.ru_utime + cpu.ru_stime), written[0],
            (done.ru_utime + done.ru_stime) - (children.ru_utime + children.ru_stime))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--sleep", action="store_true", help="no duty limit: refit every RATE_EVERY seconds")
    args = parser.parse_args()
    if args.sleep:
        live.DUTY = 0.0
    results: dict[bool, list[tuple[float, float, int, float]]] = {False: [], True: []}
    for _ in range(args.repeat):
        for standings in (False, True):
            results[standings].append(one_run(args.deals, standings, args.workers))
    games = 4 * 6 * args.deals
    for standings in (False, True):
        walls = [r[0] for r in results[standings]]
        cpus = [r[1] for r in results[standings]]
        print(f"{'bar + standings' if standings else 'bar alone':16s} {games} games: wall median "
              f"{statistics.median(walls):.2f} s ({min(walls):.2f}-{max(walls):.2f}), parent CPU median "
              f"{statistics.median(cpus):.2f} s ({min(cpus):.2f}-{max(cpus):.2f}), "
              f"children CPU median {statistics.median(r[3] for r in results[standings]):.2f} s, "
              f"{statistics.median(r[2] for r in results[standings]) / 1024:.0f} KiB to the terminal")
    ratios = [a[0] / b[0] for a, b in zip(results[True], results[False])]
    print(f"wall ratio with / without standings, pair by pair: median {statistics.median(ratios):.3f} "
          f"({min(ratios):.3f}-{max(ratios):.3f})")


if __name__ == "__main__":
    main()
