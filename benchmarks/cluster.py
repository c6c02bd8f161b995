"""Games/s of ``arena run --cluster local:2`` against ``--workers 2``, and what a Dask task costs.

    python benchmarks/cluster.py --repeat 3

For each tournament — four ``random`` entrants (isolation ``process``, the
default, and ``none``) and the quickstart's bots (``tournaments/quickstart.toml``
with fewer deals) — it runs ``arena run`` in a fresh process with
``--workers 2`` and with ``--cluster local:2``, alternately ``--repeat``
times, and reads the games/s the run prints (the play only: the time to
start the local cluster is not in it).  Then it times empty Dask tasks on a
``LocalCluster`` of two worker processes (the round trip the parent pays per
task) and prints the scheduler's overhead per game: that cost divided by the
games a task holds (``arena.tournament.run.chunks.DASK_CHUNKS``).
This is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
_PLAYED = re.compile(r"played (\d+) games in ([\d.]+) s")


def random_file(folder: Path, deals: int, isolation: str) -> Path:
    path = folder / f"random-{isolation}.toml"
    path.write_text(f'name = "bench-random-{isolation}"\nplayers = 4\ndeals = {deals}\nseed = 5\n'
                    f'isolation = "{isolation}"\n'
                    + "".join(f'[[entrants]]\nname = "r{i}"\nbot = "random"\n' for i in range(4)), encoding="utf-8")
    return path


def quickstart_file(folder: Path, deals: int) -> Path:
    text = (ROOT / "tournaments" / "quickstart.toml").read_text(encoding="utf-8")
    path = folder / "quickstart.toml"
    path.write_text(re.sub(r"(?m)^deals = \d+", f"deals = {deals}", text), encoding="utf-8")
    return path


def games_per_second(file: Path, out: Path, how: list[str]) -> tuple[int, float]:
    """One ``arena run`` in a fresh process: ``(games, seconds of play)``."""
    result = subprocess.run([sys.executable, "-m", "arena", "run", str(file), "--out", str(out), "--overwrite", *how],
                            capture_output=True, text=True, check=True)
    match = _PLAYED.search(result.stderr)
    if match is None:
        raise SystemExit(f"no 'played' line in:\n{result.stderr}")
    return int(match.group(1)), float(match.group(2))


def task_round_trip(tasks: int) -> float:
    """Seconds one empty task costs on a two-process LocalCluster, submitted as a run submits them."""
    import distributed

    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        client.submit(len, b"", pure=False).result()  # the workers are up
        started = time.perf_counter()
        queue = distributed.as_completed([client.submit(len, b"x" * 1000, pure=False) for _ in range(4)])
        submitted = 4
        for _ in queue:
            if submitted < tasks:
                queue.add(client.submit(len, b"x" * 1000, pure=False))
                submitted += 1
        return (time.perf_counter() - started) / tasks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--random-deals", type=int, default=100, help="deals of the random tournament (x12 games)")
    parser.add_argument("--quickstart-deals", type=int, default=4, help="deals of the quickstart (x12 games)")
    args = parser.parse_args()
    from arena.tournament.run.chunks import DASK_CHUNKS

    task_size = DASK_CHUNKS.size

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        files = {
            "random, isolation process": random_file(folder, args.random_deals, "process"),
            "random, isolation none": random_file(folder, args.random_deals, "none"),
            "quickstart bots": quickstart_file(folder, args.quickstart_deals),
        }
        for label, file in files.items():
            rates: dict[str, list[float]] = {"--workers 2": [], "--cluster local:2": []}
            per_game: list[float] = []
            for _ in range(args.repeat):
                for how in rates:
                    games, seconds = games_per_second(file, folder / "out", how.split())
                    rates[how].append(games / seconds)
                    if how == "--workers 2":
                        per_game.append(2 * seconds / games)  # two workers: CPU-seconds of play per game
            local, dask = (statistics.median(rates[h]) for h in rates)
            print(f"{label} ({games} games): --workers 2 {local:.1f} games/s "
                  f"[{min(rates['--workers 2']):.1f}-{max(rates['--workers 2']):.1f}], "
                  f"--cluster local:2 {dask:.1f} games/s "
                  f"[{min(rates['--cluster local:2']):.1f}-{max(rates['--cluster local:2']):.1f}]: "
                  f"{dask / local:.0%} of local; a task holds {task_size(games, 2, statistics.median(per_game))} "
                  f"game(s)")
    trip = task_round_trip(2000)
    print(f"one Dask task round trip on local:2: {trip * 1e3:.2f} ms")
    for seconds in (0.002, 0.02, 0.5):
        size = task_size(100_000, 2, seconds)
        print(f"  games of {seconds * 1e3:g} ms: {size} per task, scheduler overhead {trip / size * 1e3:.3f} ms/game "
              f"({trip / size / seconds:.1%} of a game)")


if __name__ == "__main__":
    main()
