"""How often the collusion test (arena.stats.collusion) flags honest bots, and how often it finds a team.

    nice -n 10 python benchmarks/collusion_calibration.py --keep /tmp/pools   # the pools: minutes to 11 each
    nice -n 10 python benchmarks/collusion_calibration.py --keep /tmp/pools --runs 40 --cases "honest,thrower,\
blockers,gifter,team of 3,team of 5,thrower of 6,blockers of 6,gifter of 6,team of 6"  # the statistics page
    nice -n 10 python benchmarks/collusion_calibration.py --quick         # a smoke test (tests/integration runs it)

Played games, not sampled outcomes: the built-in bots and the team of
``examples/collusion/team_bot.py`` play four-player games in process (the C
engine, ``isolation = "none"``), in at most ``--workers`` (2) processes.  Each
case first plays a **pool** of games, every game four of the case's entrants
drawn at random in a random seat order, dealt by its own seed; then each
replicate tournament of 120, 600 or 2,400 games is a sample of the pool without
replacement, and :func:`arena.stats.collusion.collusion_table` tests it.

Cases:

* ``honest``: greedy, greedy-2, lookahead, lookahead-2, random: the built-in
  bots against each other.  Printed: the family-wise false-positive rate, the
  share of replicates that flag any pair (target: at most 5%).
* ``thrower``: crow-1 throws its games at crow-2's tables (random moves), crow-2 only signs; ``blockers``:
  both fill the cells next to the leader's groups; ``gifter``: crow-1 takes crow-2's lone tiles; ``team
  of 3``: crow-1, crow-2, crow-3 spare each other, with greedy and lookahead.  Printed as the teams below,
  and the flags on a pair of one team member and one honest entrant.  ``thrower of 6``, ``blockers of
  6`` and ``gifter of 6``: the same among four honest bots (greedy-2 too), where every pair also meets
  at tables without each other entrant (the check a gifts or results finding needs).
* ``team of 5`` and ``team of 6``: the team crow-1, crow-2 with three honest
  bots (greedy, lookahead, random), and with four (greedy-2 too), where the
  pair shares fewer tables; ``half team``: the team of 5 playing as a team on
  half of its turns only (``spare=0.5``), greedy on the others.  Printed: the power, the share of replicates that
  flag the team (at least one direction; both directions in brackets; target:
  0.9 by 600 games), and the false positives among the honest pairs only.

A replicate larger than half its pool shares most of its games with the
others: the rates at 2,400 games are estimates of the same mean with a larger
spread than their count suggests (``--pool`` sets the pool's size; ``--runs``
replicates at 120 games, half as many at 600, an eighth at 2,400).  Seeded:
the same figures on every machine.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import time
from pathlib import Path

import numpy as np
import pandas as pd

from arena.rules import COLORS
from arena.stats.collusion import FLAGGED, HELPED, HELPER, collusion_table

HERE = Path(__file__).resolve().parent
TEAM = str(HERE.parent / "examples" / "collusion" / "team_bot.py") + ":TeamBot"
PLAYERS = 4

HONEST3 = {"greedy": "greedy", "lookahead": "lookahead", "random": "random"}
HONEST4 = {**HONEST3, "greedy-2": "greedy"}
CASES: dict[str, dict[str, str]] = {
    "honest": {"greedy": "greedy", "greedy-2": "greedy", "lookahead": "lookahead", "lookahead-2": "lookahead",
               "random": "random"},
    "team of 5": {"crow-1": TEAM, "crow-2": TEAM, **HONEST3},
    # crow-1 throws its games at crow-2's tables; crow-2 only signs (spare=0: greedy once it has signed)
    "thrower": {"crow-1": TEAM + ":play=throw", "crow-2": TEAM + ":spare=0", **HONEST3},
    "blockers": {"crow-1": TEAM + ":play=block", "crow-2": TEAM + ":play=block", **HONEST3},
    # crow-1 takes crow-2's lone tiles whenever it can; crow-2 only signs
    "gifter": {"crow-1": TEAM + ":play=gift", "crow-2": TEAM + ":spare=0", **HONEST3},
    "team of 3": {"crow-1": TEAM, "crow-2": TEAM, "crow-3": TEAM, "greedy": "greedy", "lookahead": "lookahead"},
    # the same among four honest bots: six entrants, so every pair also meets without each other entrant
    "thrower of 6": {"crow-1": TEAM + ":play=throw", "crow-2": TEAM + ":spare=0", **HONEST4},
    "blockers of 6": {"crow-1": TEAM + ":play=block", "crow-2": TEAM + ":play=block", **HONEST4},
    "gifter of 6": {"crow-1": TEAM + ":play=gift", "crow-2": TEAM + ":spare=0", **HONEST4},
    "team of 6": {"crow-1": TEAM, "crow-2": TEAM, "greedy": "greedy", "greedy-2": "greedy",
                  "lookahead": "lookahead", "random": "random"},
    "half team": {"crow-1": TEAM + ":spare=0.5", "crow-2": TEAM + ":spare=0.5", "greedy": "greedy",
                  "lookahead": "lookahead", "random": "random"},
}
PAIR = ("crow-1", "crow-2")
TEAM_NAMES = {"crow-1", "crow-2", "crow-3"}


def play_pool(args: tuple[str, int, int]) -> list[dict[str, object]]:
    """``games.csv`` rows of ``count`` games of the case ``name``, dealt from ``seed`` on."""
    from arena.play.referee import Referee  # in the worker: the parent only does statistics

    name, seed, count = args
    bots = CASES[name]
    names = list(bots)
    rng = np.random.default_rng(seed)
    rows: list[dict[str, object]] = []
    with Referee(isolation="none") as referee:
        for game in range(count):
            seated = [names[i] for i in rng.permutation(len(names))[:PLAYERS]]
            deal = seed * 1_000_003 + game
            outcome = referee.play([bots[e] for e in seated], deal, names=seated)
            for seat, result in enumerate(outcome.result):
                rows.append({
                    "game_id": f"{name}-{deal}", "table": 0, "deal": deal, "seed": deal, "seat": seat,
                    "entrant": seated[seat], "uptown_rank": result.uptown_rank, "groups": result.groups,
                    "faulted": int(seat in outcome.faulted),
                    **{f"captures_{c}": result.captures.get(c, 0) for c in COLORS},
                })
    return rows


def pools(cases: list[str], size: int, workers: int, seed: int, keep: Path | None) -> dict[str, pd.DataFrame]:
    """A pool of ``size`` games per case, played in ``workers`` processes; with ``keep``, read from (and
    written to) ``keep/CASE-SIZE-SEED.csv``."""
    found: dict[str, pd.DataFrame] = {}
    for name in cases:
        path = keep / f"{name.replace(' ', '-')}-{size}-{seed}.csv" if keep else None
        if path is not None and path.is_file():
            found[name] = pd.read_csv(path)
    todo = [name for name in cases if name not in found]
    played = _play(todo, size, workers, seed) if todo else {}
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        for name, frame in played.items():
            frame.to_csv(keep / f"{name.replace(' ', '-')}-{size}-{seed}.csv", index=False)
    return {name: found[name] if name in found else played[name] for name in cases}


def _play(cases: list[str], size: int, workers: int, seed: int) -> dict[str, pd.DataFrame]:
    chunk = max(1, math.ceil(size / (4 * workers)))
    jobs = [(name, seed * 1000 + part, min(chunk, size - part * chunk))
            for name in cases for part in range(math.ceil(size / chunk))]
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        parts = pool.map(play_pool, jobs, chunksize=1)
    out: dict[str, list[dict[str, object]]] = {name: [] for name in cases}
    for (name, _, _), rows in zip(jobs, parts):
        out[name].extend(rows)
    return {name: pd.DataFrame(rows) for name, rows in out.items()}


def replicate(frame: pd.DataFrame, games: int, rng: np.random.Generator) -> pd.DataFrame:
    """``games`` games of ``frame`` drawn without replacement."""
    ids = frame["game_id"].unique()
    chosen = set(rng.choice(ids, size=games, replace=False))
    return frame[frame["game_id"].isin(chosen)]


def _rate(hits: int, runs: int) -> str:
    p = hits / runs
    return f"{p:.3f} (se {math.sqrt(p * (1 - p) / runs):.3f}, {runs} runs)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smoke test: small pools, few replicates")
    parser.add_argument("--pool", type=int, default=3000, help="games played per case")
    parser.add_argument("--runs", type=int, default=200, help="replicates per size (fewer at 2,400 games)")
    parser.add_argument("--workers", type=int, default=2, help="processes playing games (at most 2 on a shared box)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sizes", default="120,600,2400", help="tournament sizes, in four-player games")
    parser.add_argument("--cases", default=",".join(CASES), help=f"which cases, of: {', '.join(CASES)}")
    parser.add_argument("--keep", type=Path, default=None, help="keep the pools in this folder, and reuse them")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    cases = [name.strip() for name in args.cases.split(",")]
    unknown = [name for name in cases if name not in CASES]
    if unknown:
        parser.error(f"unknown cases {unknown}: choose among {', '.join(CASES)}")
    if args.quick:
        args.pool, args.runs, sizes = 24, 2, [24]
    started, cpu = time.perf_counter(), time.process_time()
    played = pools(cases, args.pool, min(args.workers, 2), args.seed, args.keep)
    print(f"pools: {args.pool} four-player games per case, played in {time.perf_counter() - started:.0f} s")
    rng = np.random.default_rng(args.seed)
    for games in sizes:
        runs = args.runs if games <= args.pool // 4 else max(4, args.runs // (2 if games <= args.pool // 2 else 8))
        print(f"\n{games} four-player games:")
        for name, frame in played.items():
            flagged_any = team = both = honest_fp = mixed = 0
            for _ in range(runs):
                table = collusion_table(replicate(frame, games, rng))
                flags = {(r[HELPER], r[HELPED]) for _, r in table[table[FLAGGED]].iterrows()}
                on_team = {p for p in flags if set(p) <= TEAM_NAMES}
                flagged_any += bool(flags)
                team += bool(on_team)
                both += ("crow-1", "crow-2") in on_team and ("crow-2", "crow-1") in on_team
                honest_fp += any(not set(p) & TEAM_NAMES for p in flags)  # both entrants honest
                mixed += bool(flags - on_team - {p for p in flags if not set(p) & TEAM_NAMES})
            if name == "honest":
                print(f"  {name:10} family-wise false positives {_rate(flagged_any, runs)}", flush=True)
            else:
                print(f"  {name:10} power {_rate(team, runs)} [both ways {both / runs:.3f}]; "
                      f"false positives among the honest pairs {_rate(honest_fp, runs)}; "
                      f"flags on a team member and an honest entrant {mixed / runs:.3f}", flush=True)
    print(f"\n{time.perf_counter() - started:.0f} s in all ({time.process_time() - cpu:.0f} s CPU in this process)")


if __name__ == "__main__":
    main()
