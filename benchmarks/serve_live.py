"""What ``arena serve`` costs: the referee publishing its moves, and a million-game folder's page.

    python benchmarks/serve_live.py                      # the live file's cost to the referee (<= 1%)
    python benchmarks/serve_live.py --bots greedy --games 40
    python benchmarks/serve_live.py --million            # a million-game folder: the page's load and the RSS

**Publishing.** A worker of a run writes the game it plays into ``live/worker-N.txt``
(:mod:`arena.results.live`).  This plays the same games (seeds 1..GAMES, in-process bots, one
referee) in rounds, each round once without publishing and once with (which goes first alternates),
and prints the median of the rounds' CPU time ratios (with / without) and their spread, and the time
spent inside the publisher's calls as a share of a round (on a busy machine the ratio's noise is
larger than the cost; the time inside the calls is not).  Random bots
are the worst case: the referee's own work is the whole of a game's cost.

**A million games.** ``--million`` makes a results folder of that many four-player games the way
``arena run`` leaves one (``games.csv`` sorted, its tables and their stamp written; the rows are
synthesised, not played: see :func:`big_folder`), starts ``arena serve`` on it as a real server
(uvicorn, in a process of its own), and times the folder's page, the games list's first page and one
sorted page (each from the request to the last byte), then prints the server's peak RSS.
A measurement, not a test.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def play_round(games: int, bots: list[str], publisher: object | None) -> float:
    """CPU seconds this process takes to play seeds 1..``games`` under one referee, publishing with
    ``publisher`` (None: not).  CPU time rather than wall time: on a machine others share, it is what the
    referee pays, without the waits for a core."""
    from arena.play.referee import Referee

    referee = Referee(60.0, isolation="none")
    prepared = [referee.prepare(b) for b in bots]
    names = [f"p{i}" for i in range(len(bots))]
    started = time.process_time()
    with referee:
        for seed in range(1, games + 1):
            if publisher is None:
                referee.play(prepared, seed, names=names)
                continue
            # As a worker does (arena.tournament.run.workers.play_one): on_move only for a published game.
            published = publisher.start(f"g{seed}", names, seed, len(bots), "uptown", "color")  # type: ignore[attr-defined]
            on_move = publisher.on_move if published else None  # type: ignore[attr-defined]
            outcome = referee.play(prepared, seed, names=names, on_move=on_move)
            publisher.end(outcome.state)  # type: ignore[attr-defined]
    seconds = time.process_time() - started
    referee.close()
    return seconds


class Timed:
    """A publisher whose calls are timed: the seconds spent inside them (``spent``), and the games published."""

    def __init__(self, publisher: object) -> None:
        self.publisher, self.spent, self.published = publisher, 0.0, 0

    def start(self, *args: object) -> bool:
        t = time.thread_time()
        published = self.publisher.start(*args)  # type: ignore[attr-defined]
        self.spent += time.thread_time() - t
        self.published += published
        return published

    def on_move(self, state: object, move: object) -> None:
        t = time.thread_time()
        self.publisher.on_move(state, move)  # type: ignore[attr-defined]
        self.spent += time.thread_time() - t

    def end(self, state: object) -> None:
        t = time.thread_time()
        self.publisher.end(state)  # type: ignore[attr-defined]
        self.spent += time.thread_time() - t


def publishing(games: int, rounds: int, bots: list[str]) -> None:
    from arena.results.live import LivePublisher, live_path

    folder = Path(tempfile.mkdtemp(prefix="arena-live-"))
    try:
        publisher = Timed(LivePublisher(live_path(folder, 0)))
        shares = []
        play_round(2, bots, None)  # warm: imports, the bots' first calls
        ratios = []
        for k in range(rounds):
            publisher.spent, publisher.published = 0.0, 0
            if k % 2:
                with_ = play_round(games, bots, publisher)
                without = play_round(games, bots, None)
            else:
                without = play_round(games, bots, None)
                with_ = play_round(games, bots, publisher)
            ratios.append(with_ / without)
            shares.append(publisher.spent / without)
            print(f"round {k + 1}: CPU without {without:.3f}s, with {with_:.3f}s, ratio {with_ / without:.4f}; "
                  f"{publisher.published} games published, {1000 * publisher.spent:.1f} ms inside the publisher "
                  f"({100 * publisher.spent / without:.2f}% of the round)", flush=True)
        publisher.publisher.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [ratios[0]] * 3
    print(f"\n{games} games of {', '.join(bots)} a round, {rounds} rounds: median ratio with/without publishing "
          f"{statistics.median(ratios):.4f} (quartiles {q[0]:.4f} to {q[2]:.4f}), cost "
          f"{100 * (statistics.median(ratios) - 1):+.2f}%; time inside the publisher: median "
          f"{100 * statistics.median(shares):.2f}% of a round (max {100 * max(shares):.2f}%)")


def big_folder(folder: Path, games: int) -> None:
    """A results folder of about ``games`` four-player games as a finished run leaves it: tournament.toml
    (public deals, every seating of a deal), games.csv with a row per seat of every game of its schedule
    (ids, tables, deals and seeds the schedule's; the results synthesised, not played) and its tables
    with their stamp, as ``arena run`` writes them at its end."""
    from arena.plan.config import parse_config
    from arena.plan.schedule import Schedule
    from arena.report.folder_tables import folder_tables
    from arena.results.rows import COLUMNS

    names = ["r1", "r2", "r3", "r4"]
    toml = (f"name = \"million\"\nplayers = 4\ndeals = {max(1, games // 24)}\nseed = 1\nseating = \"all\"\n"
            "isolation = \"none\"\npublic_deals = true\n"
            + "".join(f'[[entrants]]\nname = "{n}"\nbot = "random"\n' for n in names))
    folder.mkdir(parents=True)
    (folder / "tournament.toml").write_text(toml, encoding="utf-8")
    schedule = Schedule(parse_config(toml))
    at = {c: i for i, c in enumerate(COLUMNS)}
    with open(folder / "games.csv", "w", encoding="utf-8") as out:
        out.write(",".join(COLUMNS) + "\n")
        lines = []
        for n, (game_id, table, deal, rotation, seed, seats) in enumerate(schedule):
            for seat, entrant in enumerate(seats):
                rank = (n + seat * 3 + entrant) % 4 + 1
                row = ["0"] * len(COLUMNS)
                for column, value in (("game_id", game_id), ("table", table), ("deal", deal), ("rotation", rotation),
                                      ("seed", seed), ("seat", seat), ("entrant", names[entrant]), ("bot", "random"),
                                      ("groups", 5 - rank), ("blockers_score", 5 - rank), ("uptown_rank", rank),
                                      ("blockers_rank", rank), ("won", int(rank == 1)), ("moves", 24),
                                      ("seconds", 0.01)):
                    row[at[column]] = str(value)
                lines.append(",".join(row))
            if len(lines) >= 40000:
                out.write("\n".join(lines) + "\n")
                lines.clear()
        if lines:
            out.write("\n".join(lines) + "\n")
    folder_tables(folder, schedule, write=True)


def million(games: int) -> None:
    folder = Path(tempfile.mkdtemp(prefix="arena-million-")) / "run"
    started = time.perf_counter()
    big_folder(folder, games)
    size = (folder / "games.csv").stat().st_size
    print(f"built {games} games ({size / 1e6:.0f} MB games.csv) in {time.perf_counter() - started:.1f}s", flush=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    server = subprocess.Popen([sys.executable, "-m", "arena", "serve", str(folder), "--port", "0"], env=env,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        address = line.split()[-1].rstrip("/")
        print(line.strip())
        for what, path in (("folder page", "/run/0/"), ("games, first page", "/run/0/games?page=0"),
                           ("games, a page sorted by moves", "/run/0/games?page=3&sort=moves&desc=1"),
                           ("folder page again", "/run/0/")):
            t = time.perf_counter()
            with urllib.request.urlopen(address + path, timeout=120) as answer:
                body = answer.read()
            print(f"{what}: {time.perf_counter() - t:.3f}s ({len(body)} bytes)", flush=True)
        with open(f"/proc/{server.pid}/status", encoding="ascii") as status:
            peak = next(line for line in status if line.startswith("VmHWM"))
        print(f"server peak RSS: {peak.split(':')[1].strip()}")
    finally:
        server.terminate()
        server.wait(10)
        shutil.rmtree(folder.parent, ignore_errors=True)
    print(f"(this process's peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games a round (default 200)")
    parser.add_argument("--rounds", type=int, default=7, help="rounds, each with and without (default 7)")
    parser.add_argument("--bots", default="random", help="the bot of every seat (default random, the worst case)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--million", action="store_true", help="time the page of a million-game folder instead")
    parser.add_argument("--size", type=int, default=1_000_000, help="with --million: the games (default a million)")
    args = parser.parse_args()
    if args.million:
        million(args.size)
    else:
        publishing(args.games, args.rounds, [args.bots] * args.players)


if __name__ == "__main__":
    main()
