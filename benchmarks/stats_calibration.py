"""How well the arena's statistics keep their promises, measured on sampled outcomes of known strength.

    python benchmarks/stats_calibration.py --runs 400 --seed 1

Not a timed test: it prints figures.  The outcomes come from
:mod:`arena.stats.simulate` (Plackett-Luce races with a per-deal seat luck and
ties), not from played games, so the truth is known:

* **two-player SPRT** (pentanomial, ``elo0=0, elo1=20``, alpha = beta = 0.05,
  fastchess's normalized model and the logistic one): the share of runs that
  accept H1 when the bots are equal (the false-positive rate, to be at most
  alpha within its standard error), when A is ``--elo`` better (the power),
  and the mean number of games a run needed;
* **field SPRT** for 3, 4 and 5 players (A against equal rivals or ``--elo``
  better, logistic ``elo0=0, elo1=20``): the same figures, games counted as
  deals times the seating design's games per deal;
* **rating intervals**: for sampled round-robin tournaments (5 entrants,
  3 seats, balanced seating), the share of 95% intervals of
  :func:`arena.stats.ratings.ratings` that hold the value a long run of the
  same procedure converges to (``--long`` deals per table), and the same for
  the win-share intervals of :func:`arena.stats.intervals.win_share_interval`.

Each run is seeded from ``--seed``; the figures are the same on every machine.

``--real N`` adds SPRTs on **played games** (``arena match``'s own
:func:`~arena.tournament.match.feed.run_match`, isolation ``none``, ``--workers``
workers): ``N`` matches of two equally strong bots — ``MixedBot`` of
``benchmarks/match_bots.py`` with ``p=0`` (random moves) and two salts, so
they do not replay each other's games — and ``--real-diff`` matches of
``p=0.01`` (a greedy move one time in a hundred) against ``p=0``, with the
Elo a ``--real-long``-game fixed match of the two measures; each at
``elo0=0, elo1=20``, alpha = beta = 0.05, fastchess's normalized model, match
``i`` seeded ``SEED * 1000 + i`` (``+ 500`` for the difference).  Played
games are the same on every machine too (seeded deals, seeded bots), so so
are these figures; only the time they take is not.
"""

from __future__ import annotations

import argparse
import math
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from arena.stats.intervals import win_share_interval
from arena.stats.ratings import _arrays, elo_figures, fit_arrays, ratings
from arena.stats.simulate import field_scores, pair_scores, sample_tournament
from arena.stats.sprt import SprtParameters, pentanomial_elo, run_field_sprt, run_sprt
from arena.tournament.plan.seating import design

SEAT_LUCK = 0.5
TIE_WIDTH = 0.5


def _rate(hits: int, runs: int) -> str:
    p = hits / runs
    return f"{p:.3f} (se {math.sqrt(p * (1 - p) / runs):.3f})"


def two_player(runs: int, seed: int, elo: float, max_pairs: int) -> None:
    # the true pentanomial of the sampling model, from a long sample
    truth = pair_scores(elo, 200_000, np.random.default_rng(seed + 999), SEAT_LUCK, TIE_WIDTH)
    counts = np.bincount((2 * truth.sum(axis=1)).round().astype(int), minlength=5)
    est = pentanomial_elo(list(counts))
    print(f"two players, A sampled {elo:g} Elo better: long-run logistic Elo {est.elo:.1f}, normalized {est.nelo:.1f}")
    for model in ("normalized", "logistic"):
        params = SprtParameters(0.0, 20.0, 0.05, 0.05, model)
        for diff, label in ((0.0, "equal"), (elo, f"+{elo:g}")):
            h1 = 0
            games = []
            undecided = 0
            for run in range(runs):
                rng = np.random.default_rng([seed, run, int(diff * 10), len(model)])
                pairs = map(tuple, pair_scores(diff, max_pairs, rng, SEAT_LUCK, TIE_WIDTH))
                status, used = run_sprt(pairs, params, max_pairs)
                h1 += status.verdict == "H1"
                undecided += status.verdict == "continue"
                games.append(2 * used.pairs)
            print(f"  {model:10s} {label:6s} H1 share {_rate(h1, runs)}  mean games {np.mean(games):7.0f}"
                  f"  undecided {undecided}")


def field(runs: int, seed: int, elo: float, max_deals: int) -> None:
    params = SprtParameters(0.0, 20.0, 0.05, 0.05, "logistic")
    for players in (3, 4, 5):
        per_deal = len(design("balanced", players))
        for diff, label in ((0.0, "equal"), (elo, f"+{elo:g}")):
            h1 = 0
            games = []
            undecided = 0
            for run in range(runs):
                rng = np.random.default_rng([seed, run, int(diff * 10), players])
                strengths = [diff] + [0.0] * (players - 1)
                scores = field_scores(strengths, max_deals, rng, "balanced", SEAT_LUCK, TIE_WIDTH)
                status, used = run_field_sprt(scores, params, max_deals)
                h1 += status.verdict == "H1"
                undecided += status.verdict == "continue"
                games.append(per_deal * used)
            print(f"  field, {players} players, {label:6s} H1 share {_rate(h1, runs)}  mean games {np.mean(games):7.0f}"
                  f"  undecided {undecided}")


def coverage(tournaments: int, seed: int, deals: int, long: int, resamples: int) -> None:
    names = ["a", "b", "c", "d", "e"]
    strengths = [-150.0, -50.0, 0.0, 50.0, 150.0]
    players = 3
    # the long run: the same procedure (mean over shuffled orders) on `long` deals a table
    big = sample_tournament(names, strengths, players, long, np.random.default_rng([seed, 0]), "balanced",
                            SEAT_LUCK, TIE_WIDTH)
    d, s, r, p = _arrays(big, names)
    shuffle = np.random.default_rng([seed, 1])
    orders = np.array([shuffle.permutation(len(d)) for _ in range(16)])
    within = shuffle.permuted(np.broadcast_to(np.arange(s.shape[1]), (*orders.shape, s.shape[1])), axis=2)
    target = elo_figures(fit_arrays(s, r, p, len(names), orders, within).mean(axis=0), players)
    won = {n: 0 for n in names}
    played = {n: 0 for n in names}
    for g in big:
        for e, rank in zip(g.entrants, g.ranks):
            won[e] += rank == 1
            played[e] += 1
    share_target = {n: won[n] / played[n] for n in names}
    print(f"rating coverage: 5 entrants {strengths}, 3 seats, {deals} deals a table, {resamples} resamples;"
          f" long run ({long} deals a table): " + ", ".join(f"{n} {t:.1f}" for n, t in zip(names, target)))
    inside = shares_inside = total = 0
    width = []
    started = time.process_time()
    for t in range(tournaments):
        games = sample_tournament(names, strengths, players, deals, np.random.default_rng([seed, 2, t]), "balanced",
                                  SEAT_LUCK, TIE_WIDTH)
        table = ratings(games, names, resamples=resamples, seed=t)
        for i, row in table.iterrows():
            inside += row["elo_low"] <= target[i] <= row["elo_high"]
            width.append(row["elo_high"] - row["elo_low"])
        by_deal: dict[tuple[str, object], list[int]] = {}
        for g in games:
            for e, rank in zip(g.entrants, g.ranks):
                by_deal.setdefault((e, g.deal), [0, 0])
                by_deal[(e, g.deal)][0] += rank == 1
                by_deal[(e, g.deal)][1] += 1
        for n in names:
            cells = [v for (e, _), v in by_deal.items() if e == n]
            _, low, high = win_share_interval([c[0] for c in cells], [c[1] for c in cells])
            shares_inside += low <= share_target[n] <= high
        total += len(names)
    seconds = (time.process_time() - started) / tournaments
    print(f"  rating intervals holding the long-run Elo: {_rate(inside, total)}; mean width {np.mean(width):.1f} Elo;"
          f" {seconds:.2f} s CPU a tournament of {len(games)} games")
    print(f"  win-share intervals holding the long-run share: {_rate(shares_inside, total)}")


def real(runs: int, diff_runs: int, seed: int, workers: int, long_games: int, max_games: int) -> None:
    from arena.tournament.match.feed import run_match
    from arena.tournament.match.plan import MatchPlan

    bot = f"{Path(__file__).resolve().with_name('match_bots.py')}:MixedBot"
    equal = (f"{bot}:p=0,salt=1", f"{bot}:p=0,salt=2")
    better = (f"{bot}:p=0.01,salt=1", f"{bot}:p=0,salt=2")
    params = SprtParameters(0.0, 20.0, 0.05, 0.05, "normalized")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "match"
        if long_games:
            long = run_match(MatchPlan(better, seed, games=long_games, isolation="none"), folder, workers=workers,
                             plot=False).match
            e = long["elo"]
            shutil.rmtree(folder)
            print(f"real games: p=0.01 against p=0 over {long['games']} games: logistic Elo {e['elo']:.1f} "
                  f"({e['low']:.1f} to {e['high']:.1f}), normalized {e['nelo']:.1f} "
                  f"({e['nelo_low']:.1f} to {e['nelo_high']:.1f})")
        for label, specs, n, offset in (("equal", equal, runs, 0), ("p=0.01", better, diff_runs, 500)):
            verdicts = {"H0": 0, "H1": 0, "inconclusive": 0}
            games = []
            for run in range(n):
                plan = MatchPlan(specs, seed * 1000 + offset + run, sprt=params, max_games=max_games,
                                 isolation="none")
                match = run_match(plan, folder, workers=workers, plot=False).match
                shutil.rmtree(folder)
                verdicts[match["verdict"]] += 1
                games.append(match["games"])
            if n:
                print(f"  real SPRTs, {label:6s} {n} runs: H1 {_rate(verdicts['H1'], n)}, H0 {verdicts['H0']}, "
                      f"inconclusive {verdicts['inconclusive']}; games mean {np.mean(games):.0f}, "
                      f"median {np.median(games):.0f}, max {max(games)}")
    print(f"  real games: {time.perf_counter() - started:.0f} s by the clock with {workers} worker(s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=400, help="simulated SPRTs per case")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--elo", type=float, default=20.0, help="A's sampled strength for the power")
    parser.add_argument("--max-pairs", type=int, default=20_000)
    parser.add_argument("--tournaments", type=int, default=100, help="sampled tournaments for the coverage")
    parser.add_argument("--deals", type=int, default=20, help="deals a table in a coverage tournament")
    parser.add_argument("--long", type=int, default=1000, help="deals a table in the long run")
    parser.add_argument("--resamples", type=int, default=200)
    parser.add_argument("--real", type=int, default=0, metavar="N", help="SPRTs on played games of equal bots")
    parser.add_argument("--real-diff", type=int, default=10, help="with --real: SPRTs on played games, p=0.01 vs p=0")
    parser.add_argument("--real-long", type=int, default=20_000, help="with --real: games of the match measuring "
                                                                      "p=0.01 against p=0")
    parser.add_argument("--workers", type=int, default=2, help="with --real: workers of each match")
    parser.add_argument("--only", choices=("sprt", "field", "coverage", "real"), help="run one part")
    args = parser.parse_args()
    started = time.process_time()
    if args.only in (None, "sprt"):
        two_player(args.runs, args.seed, args.elo, args.max_pairs)
    if args.only in (None, "field"):
        field(args.runs, args.seed, args.elo, args.max_pairs // 4)
    if args.only in (None, "coverage"):
        coverage(args.tournaments, args.seed, args.deals, args.long, args.resamples)
    if args.real and args.only in (None, "real"):
        real(args.real, args.real_diff, args.seed, args.workers, args.real_long, args.max_pairs)
    print(f"{time.process_time() - started:.0f} s CPU")


if __name__ == "__main__":
    main()
