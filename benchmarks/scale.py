"""What a tournament costs as it grows: play, the end phase, the report, resume, memory and disk, per added game.

    python benchmarks/scale.py                          # 10,000 and 100,000 games in process, 1,000 and 10,000 sandboxed
    python benchmarks/scale.py --sizes 1000000 --no-sandboxed --no-kill   # the million-game run
    python benchmarks/scale.py --scaling 2400      # sandboxed play on one worker against two, side by side
    python benchmarks/scale.py --teams 1000000     # what Teams? adds to arena report, on a million games

Four ``random`` entrants in four-player games, every seating of a deal (24 games a deal), two workers,
the default compressed records.  For each size and isolation it runs, each
in a fresh process:

* ``run``: the tournament from an empty folder, with its phases timed inside
  the process: play (until every game is stored), the end phase (sorting
  ``games.csv`` and its checkpoint, the tables — the ratings apart — the
  plots and ``report.html``), and the parent's peak memory (``ru_maxrss``);
* ``report``: ``arena report DIR`` (the run's tables reused) and ``arena
  report DIR --scoring OTHER`` (built again from ``games.csv``), wall clock
  and peak memory;
* ``resume (complete)``: ``arena run --resume`` on the finished folder;
* ``resume (kill at half)``: a fresh run killed (SIGKILL) once half the
  games are stored, then ``--resume``: how long until the play of the
  missing games starts (the folder checked and made whole), and in all;
* the bytes a game takes on disk (records, ``games.csv``, checkpoints).

It prints one table per isolation, then the slope per added game between
the two largest sizes and the extrapolation to a million.  With ``--teams
GAMES`` it only times the Teams? section of ``arena report`` on a folder of
that many games as a finished run leaves it (the schedule's games, their
results synthesised: captures and groups drawn at random): ``arena report
DIR`` and ``arena report DIR --scoring blockers`` (the tables built again,
Teams? testing the frame they read), each against the same with ``--table
standings``, which leaves the section out.  Figures and the
million-game run are in benchmarks/README.md.  A measurement, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOURNAMENT = """
name = "scale"
players = 4
deals = {deals}
seed = 1
time_limit = 10
seating = "all"
isolation = "{isolation}"
""" + "".join(f'[[entrants]]\nname = "r{i}"\nbot = "random"\n' for i in range(1, 5))

# Runs in a fresh process: one `arena run` (or --resume) with its phases timed; prints a JSON line.
CHILD = r"""
import json, resource, sys, time
from pathlib import Path
import arena.report.publish as publish
import arena.report.folder_tables as folder_tables
import arena.report.tables as tables
import arena.results.folder as folder
import arena.tournament.run.runner as runner
from arena.plan.config import load_config

path, out, workers, resume = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
times = {"ratings": 0.0, "sort": 0.0, "tables": 0.0, "prepare": 0.0}
started = time.perf_counter()

def timed(name, function):
    def call(*args, **kwargs):
        t = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            times[name] += time.perf_counter() - t
    return call

tables.ratings = timed("ratings", tables.ratings)
folder_tables.folder_tables = timed("tables", folder_tables.folder_tables)
folder.sort_games_file = timed("sort", folder.sort_games_file)
prepare = folder.ResultsFolder.open

def prepared(*args, **kwargs):
    result = timed("prepare", prepare)(*args, **kwargs)
    times["play_starts"] = time.perf_counter() - started
    return result

folder.ResultsFolder.open = prepared
config = load_config(path)
summary = runner.run_tournament(config, path.read_text(), out, workers=workers, resume=resume, compress=True,
                                hide=(str(path),))
t = time.perf_counter()
publish.publish(out, summary.found, config.name, plots=out, log_file=summary.log)
times["plots"] = time.perf_counter() - t
t = time.perf_counter()
publish.publish(out, summary.found, config.name, page=out / "report.html", strict=True)
times["report_html"] = time.perf_counter() - t
times["total"] = time.perf_counter() - started
times["play"] = summary.seconds - times["sort"]
times["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
times["played"] = summary.played
print(json.dumps(times))
"""

# `arena report` in a fresh process: wall clock and peak memory.
REPORT = r"""
import json, resource, sys, time, io, contextlib
from arena.cli import main
t = time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main(sys.argv[1:], standalone_mode=False)
    except SystemExit:
        pass
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"seconds": time.perf_counter() - t, "cpu": usage.ru_utime + usage.ru_stime,
                  "peak_mb": usage.ru_maxrss / 1024}))
"""


def child(code: str, *args: str) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"failed: {' '.join(args)}\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def stored_rows(out: Path) -> int:
    try:
        with open(out / "games.csv", "rb") as f:
            return sum(block.count(b"\n") for block in iter(lambda: f.read(1 << 22), b"")) - 1
    except OSError:
        return 0


def killed_at_half(path: Path, out: Path, games: int, workers: int) -> dict[str, float]:
    """A run killed once half its games are stored, then resumed: its times."""
    process = subprocess.Popen([sys.executable, "-c", CHILD, str(path), str(out), str(workers), "0"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    while stored_rows(out) < games * 4 // 2 and process.poll() is None:
        time.sleep(0.2)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    return child(CHILD, str(path), str(out), str(workers), "1")


def disk_bytes(out: Path) -> dict[str, int]:
    names = {"records": ("records.jsonl.gz", "records.jsonl"), "games.csv": ("games.csv",),
             "checkpoints": ("checkpoints.jsonl",)}
    return {key: sum((out / n).stat().st_size for n in files if (out / n).exists()) for key, files in names.items()}


def measure(size: int, isolation: str, workers: int, root: Path, kill: bool, rebuilt: bool = True,
            keep: bool = False) -> dict[str, float]:
    deals = max(1, round(size / 24))
    games = deals * 24
    path = root / f"scale-{isolation}-{games}.toml"
    path.write_text(TOURNAMENT.format(deals=deals, isolation=isolation))
    out = root / f"out-{isolation}-{games}"
    row: dict[str, float] = {"games": games}
    run = child(CHILD, str(path), str(out), str(workers), "0")
    row["play_s"] = run["play"]
    row["games_per_s"] = games / run["play"]
    row["sort_s"] = run["sort"]
    row["tables_s"] = run["tables"] - run["ratings"]
    row["ratings_s"] = run["ratings"]
    row["plots_s"] = run["plots"]
    row["report_html_s"] = run["report_html"]
    row["end_s"] = run["sort"] + run["tables"] + run["plots"] + run["report_html"]
    row["end_without_ratings_s"] = row["end_s"] - run["ratings"]
    row["run_peak_mb"] = run["peak_mb"]
    report = child(REPORT, "report", str(out))
    row["report_s"], row["report_peak_mb"] = report["seconds"], report["peak_mb"]
    if rebuilt:
        again = child(REPORT, "report", str(out), "--scoring", "blockers")
        row["report_rebuilt_s"], row["report_rebuilt_peak_mb"] = again["seconds"], again["peak_mb"]
    disk = disk_bytes(out)
    row.update({f"bytes_{k}": v / games for k, v in disk.items()})
    complete = child(CHILD, str(path), str(out), str(workers), "1")
    row["resume_complete_s"], row["resume_complete_peak_mb"] = complete["total"], complete["peak_mb"]
    if kill or not keep:
        shutil.rmtree(out)
    if kill:
        half = killed_at_half(path, out, games, workers)
        row["resume_half_starts_s"] = half["play_starts"]
        row["resume_half_total_s"] = half["total"]
        row["resume_half_played"] = half["played"]
        row["resume_half_peak_mb"] = half["peak_mb"]
        shutil.rmtree(out)
    return row


def teams_folder(folder: Path, games: int) -> None:
    """A results folder of about ``games`` four-player games of four entrants as a finished run leaves it:
    tournament.toml, games.csv (the schedule's ids, deals and seeds; ranks, groups and captures drawn at
    random) and its tables with their stamp."""
    import numpy as np
    import pandas as pd

    from arena.plan.config import parse_config
    from arena.plan.schedule import Schedule
    from arena.report.folder_tables import folder_tables
    from arena.results.rows import COLUMNS
    from arena.rules import COLORS

    # public deals: the schedule's seeds need no key
    toml = TOURNAMENT.format(deals=max(1, round(games / 24)), isolation="none").replace(
        'isolation = "none"\n', 'isolation = "none"\npublic_deals = true\n', 1)
    folder.mkdir(parents=True)
    config = parse_config(toml)
    (folder / "tournament.toml").write_text(toml, encoding="utf-8")
    schedule = Schedule(config)
    plan = list(schedule)
    n, k = len(plan), 4
    rng = np.random.default_rng(1)
    rank = np.argsort(rng.random((n, k)), axis=1).argsort(axis=1) + 1
    captures = rng.poisson(1.5, (n, k, k)) * (1 - np.eye(k, dtype=int))
    frame = pd.DataFrame(0, index=np.arange(n * k), columns=list(COLUMNS))
    frame["game_id"] = np.repeat([g.game_id for g in plan], k)
    for column in ("table", "deal", "rotation", "seed"):
        frame[column] = np.repeat([getattr(g, column) for g in plan], k)
    frame["seat"] = np.tile(np.arange(k), n)
    frame["entrant"] = np.array(config.names)[np.array([g.seats for g in plan]).ravel()]
    frame["bot"] = "random"
    frame["groups"] = (9 - rank + rng.integers(0, 3, (n, k))).ravel()
    for t, color in enumerate(COLORS[:k]):
        frame[f"captures_{color}"] = captures[:, :, t].ravel()
    frame["captured_total"] = captures.sum(axis=2).ravel()
    frame["uptown_rank"] = frame["blockers_rank"] = rank.ravel()
    frame["won"] = (rank == 1).ravel().astype(int)
    frame["moves"], frame["seconds"] = 24, 0.01
    frame.to_csv(folder / "games.csv", index=False)
    folder_tables(folder, schedule, write=True, teams=True)


def teams(games: int, root: Path) -> None:
    """What the Teams? section adds to ``arena report`` on a folder of ``games`` games (see the docstring)."""
    out = root / f"teams-{games}"
    started = time.perf_counter()
    # in a process of its own: the reports' peak memory is not this one's (a child's ru_maxrss starts at it)
    subprocess.run([sys.executable, "-c", "import sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]); "
                    "import scale; scale.teams_folder(Path(sys.argv[2]), int(sys.argv[3]))",
                    str(Path(__file__).resolve().parent), str(out), str(games)], check=True)
    print(f"a folder of {games:,} games made in {time.perf_counter() - started:.0f} s: {out}", flush=True)
    print("| arena report | with Teams? | without (--table standings) | Teams? (CPU) |")
    print("| --- | --- | --- | --- |")
    for label, extra in (("DIR (its tables read back)", []), ("DIR --scoring blockers (built again)",
                                                                 ["--scoring", "blockers"])):
        with_it = child(REPORT, "report", str(out), *extra)
        without = child(REPORT, "report", str(out), *extra, "--table", "standings")
        print(f"| {label} | {with_it['seconds']:.2f} s, peak {with_it['peak_mb']:.0f} MB | "
              f"{without['seconds']:.2f} s, peak {without['peak_mb']:.0f} MB | "
              f"{with_it['seconds'] - without['seconds']:.2f} s ({with_it['cpu'] - without['cpu']:.2f} s) |",
              flush=True)
    shutil.rmtree(out)


def scaling(size: int, workers: int, rounds: int, root: Path) -> None:
    """Sandboxed play on one worker and on ``workers``, alternately, ``rounds`` times: games a second and the ratio."""
    deals = max(1, round(size / 24))
    games = deals * 24
    path = root / f"scaling-{games}.toml"
    path.write_text(TOURNAMENT.format(deals=deals, isolation="process"))
    print(f"\n## sandboxed play of {games:,} games on 1 and {workers} workers, {rounds} round(s)")
    print(f"| round | 1 worker (games/s) | {workers} workers (games/s) | ratio |")
    print("| --- | --- | --- | --- |")
    for index in range(rounds):
        rate = {}
        for count in (1, workers):
            out = root / f"scaling-{count}"
            rate[count] = games / child(CHILD, str(path), str(out), str(count), "0")["play"]
            shutil.rmtree(out)
        print(f"| {index + 1} | {rate[1]:.1f} | {rate[workers]:.1f} | {rate[workers] / rate[1]:.2f}x |", flush=True)


def show(rows: list[dict[str, float]], isolation: str) -> None:
    keys = [k for k in rows[0] if k != "games"]
    print(f"\n## isolation {isolation}")
    print("| figure | " + " | ".join(f"{int(r['games']):,} games" for r in rows) + " | per added game | at 1,000,000 |")
    print("| --- " * (len(rows) + 3) + "|")
    for key in keys:
        values = [r.get(key, float("nan")) for r in rows]
        line = f"| {key} | " + " | ".join(_fmt(v) for v in values)
        if len(rows) >= 2:
            a, b = rows[-2], rows[-1]
            slope = (b.get(key, 0.0) - a.get(key, 0.0)) / (b["games"] - a["games"])
            million = b.get(key, 0.0) + slope * (1_000_000 - b["games"])
            unit = f"{slope * 1e6:.2f} µ" if not key.startswith("bytes") else f"{slope:.4f} "
            line += f" | {unit} | {_fmt(million)}"
        else:
            line += " | | "
        print(line + " |")


def _fmt(value: float) -> str:
    if value != value:
        return "-"
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000], help="games in process")
    parser.add_argument("--sandboxed-sizes", type=int, nargs="*", default=[1_000, 10_000],
                        help="games with isolation process (bots as programs in the sandbox)")
    parser.add_argument("--no-sandboxed", action="store_true", help="skip the sandboxed sizes")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-kill", action="store_true", help="skip the kill at half and its resume")
    parser.add_argument("--no-rebuilt", action="store_true",
                        help="skip arena report --scoring blockers (the tables built again from games.csv)")
    parser.add_argument("--keep", action="store_true", help="keep the results folders")
    parser.add_argument("--dir", default=None, help="where the folders go (default: a temporary folder)")
    parser.add_argument("--scaling", type=int, default=0, metavar="GAMES",
                        help="only compare sandboxed play of GAMES games on one worker and on --workers")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of --scaling")
    parser.add_argument("--teams", type=int, default=0, metavar="GAMES",
                        help="only time the Teams? section of arena report on a folder of GAMES games")
    args = parser.parse_args()
    root = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="arena-scale-"))
    root.mkdir(parents=True, exist_ok=True)
    print(f"{os.cpu_count()} CPUs, {args.workers} workers, folders in {root}")
    if args.scaling:
        scaling(args.scaling, args.workers, args.rounds, root)
        return
    if args.teams:
        teams(args.teams, root)
        return
    plans = [("none", args.sizes)] + ([] if args.no_sandboxed else [("process", args.sandboxed_sizes)])
    for isolation, sizes in plans:
        rows = []
        for size in sizes:
            rows.append(measure(size, isolation, args.workers, root, not args.no_kill, not args.no_rebuilt,
                                args.keep))
            print(json.dumps(rows[-1]), flush=True)
        if rows:
            show(rows, isolation)


if __name__ == "__main__":
    main()
