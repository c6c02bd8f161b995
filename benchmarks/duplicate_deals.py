"""What the duplicate format is worth: the same bots played with a deal for every game, and with one deal
for every round's seatings (``duplicate = true``), compared by the spread of what the ratings count.

The ratings and their intervals treat a round (a table's games in every seating of the design, the
``deal`` column) as one independent unit.  For every round and every pair of entrants (A, B) the
quantity is A's pairwise score over the round: the share of the round's games A finished ahead of B
minus the share B finished ahead of A (the deciding scoring's ranks).  Its variance across rounds,
summed over the pairs, is what an interval's width follows: a format whose variance is X times
smaller needs X times fewer games for the same precision.  The script prints, for each format, the
rounds and games played and that variance, and the ratio ``independent / duplicate``, with a 95%
interval from resampling the rounds.

    python benchmarks/duplicate_deals.py                       # the quickstart's bots, 4 seeds x 30 rounds
    python benchmarks/duplicate_deals.py --deals 10 --seeds 1  # a quick look

Every run uses public deals (``public_deals = true``: trusted built-in bots, so the figures reproduce
from the command alone) and isolation ``none``.
"""

from __future__ import annotations

import argparse
import itertools
import shlex
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's arena, whatever is installed

from arena.plan.config import parse_config  # noqa: E402
from arena.tournament.run.runner import run_tournament  # noqa: E402

#: The quickstart's entrants (tournaments/quickstart.toml).
ENTRANTS = (("random", "random"), ("greedy", "greedy"), ("lookahead", "lookahead"),
            ("mcts-50", "mcts:iterations=50"))


def tournament(seed: int, deals: int, duplicate: bool, players: int) -> str:
    """The file of one run: the quickstart's bots, round-robin at tables of ``players`` (one table at 4),
    balanced seating."""
    lines = [f'name = "dup-{seed}-{int(duplicate)}"', f"players = {players}", f"deals = {deals}", f"seed = {seed}",
             "time_limit = 30.0", 'seating = "balanced"', 'isolation = "none"', "public_deals = true",
             f"duplicate = {'true' if duplicate else 'false'}"]
    for name, bot in ENTRANTS:
        lines += ["", "[[entrants]]", f'name = "{name}"', f'bot = "{bot}"']
    return "\n".join(lines) + "\n"


def play(seed: int, deals: int, duplicate: bool, players: int, workers: int) -> pd.DataFrame:
    """The games.csv rows of one run."""
    text = tournament(seed, deals, duplicate, players)
    config = parse_config(text, "duplicate_deals.toml")
    with tempfile.TemporaryDirectory(prefix="arena-dup-") as tmp:
        out = Path(tmp) / "out"
        run_tournament(config, text, out, workers=workers)
        return pd.read_csv(out / "games.csv")


def pair_scores(games: pd.DataFrame, run: int) -> pd.DataFrame:
    """One row per (run, table, round, pair A < B): A's pairwise score over the round's games."""
    rank = games.pivot_table(index=["table", "deal", "game_id"], columns="entrant", values="uptown_rank",
                             aggfunc="first")
    rows = []
    for (table, deal), block in rank.groupby(level=["table", "deal"]):
        for a, b in itertools.combinations(sorted(block.columns), 2):
            both = block[[a, b]].dropna()
            if both.empty:
                continue
            score = float(np.sign(both[b] - both[a]).mean())  # ahead +1, level 0, behind -1, by game
            rows.append((run, table, deal, f"{a}|{b}", score))
    return pd.DataFrame(rows, columns=["run", "table", "deal", "pair", "score"])


def spread(scores: pd.DataFrame) -> float:
    """The variance across rounds of every pair's round score, summed over the pairs."""
    return float(scores.groupby("pair")["score"].var(ddof=1).sum())


def _matrix(frame: pd.DataFrame) -> np.ndarray:
    """The round scores as an array: a row per round (in the order of ``(run, table, deal)``), a column per pair,
    NaN where the round has no such pair."""
    return frame.pivot_table(index=["run", "table", "deal"], columns="pair", values="score").to_numpy()


def _spread_of(rows: np.ndarray) -> float:
    """:func:`spread` of the rounds ``rows`` of a :func:`_matrix`."""
    counts = (~np.isnan(rows)).sum(axis=0)
    means = np.nanmean(np.where(counts > 0, rows, 0.0), axis=0)
    squares = np.nansum((rows - means) ** 2, axis=0)
    usable = counts > 1
    return float((squares[usable] / (counts[usable] - 1)).sum())


def ratio_interval(independent: pd.DataFrame, duplicate: pd.DataFrame, draws: int, rng: np.random.Generator
                   ) -> tuple[float, float]:
    """A 95% percentile interval of the variance ratio, resampling each format's rounds."""
    a, b = _matrix(independent), _matrix(duplicate)
    ratios = []
    for _ in range(draws):
        pick_a = a[rng.integers(0, len(a), len(a))]
        pick_b = b[rng.integers(0, len(b), len(b))]
        below = _spread_of(pick_b)
        if below > 0:
            ratios.append(_spread_of(pick_a) / below)
    if not ratios:
        return float("nan"), float("nan")
    low, high = np.percentile(ratios, [2.5, 97.5])
    return float(low), float(high)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=30, help="rounds a run plays (default 30)")
    parser.add_argument("--seeds", type=int, default=4, help="master seeds, 1..N (default 4)")
    parser.add_argument("--players", type=int, default=4,
                        help="players a table, 2-4 (default 4: the quickstart's one table; 2: its six pairs)")
    parser.add_argument("--workers", "-j", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--draws", type=int, default=2000, help="resamples for the ratio's interval")
    args = parser.parse_args(argv)
    command = "python benchmarks/duplicate_deals.py " + shlex.join(
        [f"--deals={args.deals}", f"--seeds={args.seeds}", f"--players={args.players}"])
    print(command)
    found: dict[bool, list[pd.DataFrame]] = {False: [], True: []}
    games: dict[bool, int] = {False: 0, True: 0}
    started = time.perf_counter()
    for seed in range(1, args.seeds + 1):
        for duplicate in (False, True):
            rows = play(seed, args.deals, duplicate, args.players, args.workers)
            games[duplicate] += rows["game_id"].nunique()
            found[duplicate].append(pair_scores(rows, seed))
    independent, duplicate = pd.concat(found[False]), pd.concat(found[True])
    for name, frame, key in (("every game its own deal", independent, False),
                             ("duplicate (one deal a round)", duplicate, True)):
        rounds = frame.groupby(["run", "table", "deal"]).ngroups
        print(f"{name:30} {rounds:4d} rounds, {games[key]:5d} games: variance of the round scores, "
              f"summed over {frame['pair'].nunique()} pairs: {spread(frame):.4f}")
    ratio = spread(independent) / spread(duplicate)
    low, high = ratio_interval(independent, duplicate, args.draws, np.random.default_rng(0))
    print(f"duplicate deals need {ratio:.2f}x fewer games for the same precision "
          f"(95% interval {low:.2f}-{high:.2f}; {time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
