"""How well the arena's statistics keep their promises, measured on sampled outcomes of known strength.

    python benchmarks/stats_calibration.py --seed 1
    python benchmarks/stats_calibration.py --quick      # a CI-size run (tests/project runs it)

Not a timed test: it prints figures.  The outcomes come from
:mod:`arena.stats.simulate` (Plackett-Luce races with a per-deal seat luck and
ties), not from played games, so the truth is known.  Each case finds the
sampled strength of A at which the test's own figure (normalized Elo for two
players, the mean deal score for the field) is **exactly** ``elo0`` and exactly
``elo1`` (by symmetry where A equals its rivals, else by secant steps on a
long sample with common random numbers), then prints:

* **SPRTs** (``elo0=0, elo1=20``, alpha = beta = 0.05): the false-positive
  rate (H1 accepted at exactly elo0), the power (H1 accepted at exactly elo1),
  and the mean games at each against Wald's ideal, the expected games of an
  SPRT of a normal mean with the per-unit variance known, without overshoot:
  ``((1 - alpha) lower + alpha upper) / (-d^2 / 2v)`` at elo0,
  ``(beta lower + (1 - beta) upper) / (d^2 / 2v)`` at elo1, ``d`` the
  distance of the hypotheses in the unit's score, ``v`` its variance there.
  Cases: two players (fastchess's normalized model), and the field test for
  3, 4 and 5 players with tight deal scores (the balanced design, 6-20 games a
  deal) and loose ones (the rotate design, 3-5 games a deal, a larger seat
  luck), and a 4-player field with one very weak rival (-600).
* **the stopping-aware interval** after a two-player SPRT
  (:func:`arena.stats.sprt.pentanomial_sequential`) at true normalized Elo 0,
  10 and 20: the share of runs whose 95% interval holds the truth, beside the
  plain interval's (:func:`arena.stats.sprt.pentanomial_elo`).
* **ratings** (:func:`arena.stats.ratings.ratings`): sampled 4-player
  tournaments of 4 entrants at -100, -30, +30, +100 Elo with 120, 300 and 1,200
  games: the bias of the gaps (the regression slope of the estimates on the
  long-run value of the same fit, minus 1), the share of 95% intervals that hold
  the long-run value, and the mean standard error against the spread (sd) of
  the estimates across tournaments; and the CPU time of the standings of a
  synthetic frame of 1,000,000 four-player games.

Each run is seeded from ``--seed``; the figures are the same on every machine
(except the CPU time).
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable

import numpy as np
import pandas as pd

from arena.plan.seating import design
from arena.stats.field import run_field_sprt
from arena.stats.hypotheses import NELO_PER_T, SprtParameters, logistic_score
from arena.stats.ratings import ELO_PER_THETA, ratings_of
from arena.stats.simulate import field_scores, pair_scores, sample_table
from arena.stats.sprt import Pentanomial, pentanomial_elo, pentanomial_sequential, sprt

SEAT_LUCK = 0.5
TIE_WIDTH = 0.5
PARAMS_PAIR = SprtParameters(0.0, 20.0, 0.05, 0.05, "normalized")
PARAMS_FIELD = SprtParameters(0.0, 20.0, 0.05, 0.05, "logistic")


def _rate(hits: int, runs: int) -> str:
    p = hits / runs
    return f"{p:.3f} (se {math.sqrt(p * (1 - p) / runs):.3f})"


def _solve(figure: Callable[[float], float], target: float, start: float = 0.0) -> float:
    """The sampled strength at which ``figure`` (rising, smooth: common random numbers) reaches ``target``.

    Secant steps from ``start`` and ``start + 20``; the figure is nearly linear in the strength here.
    """
    x0, x1 = start, start + 20.0
    f0, f1 = figure(x0) - target, figure(x1) - target
    for _ in range(8):
        if f1 == f0:
            break
        x0, x1 = x1, x1 - f1 * (x1 - x0) / (f1 - f0)
        f0, f1 = f1, figure(x1) - target
        if abs(x1 - x0) < 1e-3:
            break
    return x1


def _wald(d: float, var: float, alpha: float = 0.05, beta: float = 0.05) -> tuple[float, float]:
    lower, upper = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
    drift = d * d / (2 * var)
    return ((1 - alpha) * lower + alpha * upper) / -drift, (beta * lower + (1 - beta) * upper) / drift


# -- two players ----------------------------------------------------------------


def _pair_units(x: np.ndarray) -> np.ndarray:
    return x.mean(axis=1)  # a pair's score halved: 0, 1/4, ..., 1


def _nelo(units: np.ndarray) -> float:
    return float((units.mean() - 0.5) / math.sqrt(2 * units.var()) * NELO_PER_T)


def _run_pairs(x: np.ndarray, params: SprtParameters) -> tuple[str, Pentanomial]:
    """The two-player SPRT on pairs ``x``: the exact LLR wherever the linear one is within 0.6 of a bound."""
    idx = (2 * x.sum(axis=1)).round().astype(int)
    counts = np.zeros((len(idx), 5))
    counts[np.arange(len(idx)), idx] = 1
    counts = counts.cumsum(axis=0)
    values = np.array([0, 0.25, 0.5, 0.75, 1.0])
    n = counts.sum(axis=1)
    mean = counts @ values / n
    var = np.maximum(counts @ values**2 / n - mean**2, 1e-9)
    sd = np.sqrt(2 * var)
    s0, s1 = 0.5 + params.elo0 / NELO_PER_T * sd, 0.5 + params.elo1 / NELO_PER_T * sd
    approx = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)
    near = np.flatnonzero((approx > params.upper - 0.6) | (approx < params.lower + 0.6))
    for i in near:
        c = Pentanomial(*(int(v) for v in counts[i]))
        status = sprt(c, params)
        if status.verdict != "continue":
            return status.verdict, c
    return "continue", Pentanomial(*(int(v) for v in counts[-1]))


def two_player(runs: int, seed: int, max_pairs: int, long: int) -> None:
    def sample(strength: float, pairs: int, rng_seed: object) -> np.ndarray:
        return pair_scores(strength, pairs, np.random.default_rng(rng_seed), SEAT_LUCK, TIE_WIDTH)

    truth = {}
    for nelo in (0.0, 10.0, 20.0):
        # equal bots are normalized 0 by symmetry; the others by solving on a long sample
        strength = 0.0 if nelo == 0 else _solve(lambda e: _nelo(_pair_units(sample(e, long, [seed, 99]))), nelo)
        truth[nelo] = strength
    print(f"two players, normalized SPRT elo0=0 elo1=20; A sampled at {truth[0.0]:.2f} / {truth[10.0]:.2f} / "
          f"{truth[20.0]:.2f} Elo is normalized 0 / 10 / 20 in the long run ({long} pairs)")
    var = {e: float(_pair_units(sample(truth[e], long, [seed, 98])).var()) for e in (0.0, 20.0)}
    sd = {e: math.sqrt(2 * var[e]) for e in var}
    ideal = _wald(20.0 / NELO_PER_T * sd[0.0], var[0.0])[0], _wald(20.0 / NELO_PER_T * sd[20.0], var[20.0])[1]
    results = {}
    for nelo, strength in truth.items():
        h1 = seq_in = plain_in = 0
        games = []
        for run in range(runs):
            verdict, counts = _run_pairs(sample(strength, max_pairs, [seed, run, int(nelo)]), PARAMS_PAIR)
            h1 += verdict == "H1"
            games.append(2 * counts.pairs)
            est = pentanomial_sequential(counts, PARAMS_PAIR)
            seq_in += est.low <= nelo <= est.high
            plain = pentanomial_elo(counts)
            plain_in += plain.nelo_low <= nelo <= plain.nelo_high
        results[nelo] = (h1, float(np.mean(games)), seq_in, plain_in)
    h1, g0, _, _ = results[0.0]
    print(f"  false positives {_rate(h1, runs)}; mean games {g0:.0f} against Wald's {2 * ideal[0]:.0f}"
          f" ({g0 / (2 * ideal[0]):.2f}x)")
    h1, g1, _, _ = results[20.0]
    print(f"  power at exactly elo1 {_rate(h1, runs)}; mean games {g1:.0f} against Wald's {2 * ideal[1]:.0f}"
          f" ({g1 / (2 * ideal[1]):.2f}x)")
    for nelo, (_, _, seq_in, plain_in) in results.items():
        print(f"  at normalized {nelo:g}: stopping-aware 95% interval holds it {_rate(seq_in, runs)}, "
              f"the plain interval {_rate(plain_in, runs)}")


# -- the field --------------------------------------------------------------------

FIELD_CASES: tuple[tuple[str, int, str, float, tuple[float, ...]], ...] = (
    ("3 players, tight", 3, "balanced", SEAT_LUCK, ()),
    ("4 players, tight", 4, "balanced", SEAT_LUCK, ()),
    ("5 players, tight", 5, "balanced", SEAT_LUCK, ()),
    ("3 players, loose", 3, "rotate", 1.0, ()),
    ("4 players, loose", 4, "rotate", 1.0, ()),
    ("5 players, loose", 5, "rotate", 1.0, ()),
    ("4 players, one rival at -600", 4, "balanced", SEAT_LUCK, (-600.0,)),
)


def _run_field(scores: np.ndarray, params: SprtParameters) -> tuple[str, int]:
    status, deals = run_field_sprt(scores.tolist(), params)
    return status.verdict, deals


def field(runs: int, seed: int, max_deals: int, long: int) -> None:
    s0, s1 = logistic_score(PARAMS_FIELD.elo0), logistic_score(PARAMS_FIELD.elo1)
    print("A against the field, GSPRT on deal scores, logistic elo0=0 elo1=20 (games = deals x games a deal)")
    for label, players, seating, luck, weak in FIELD_CASES:
        per_deal = len(design(seating, players))
        rivals = [0.0] * (players - 1 - len(weak)) + list(weak)

        def scores(a: float, deals: int, rng_seed: object) -> np.ndarray:
            return field_scores([a, *rivals], deals, np.random.default_rng(rng_seed), seating, luck, TIE_WIDTH)

        # A equal to equal rivals scores exactly 1/2 by symmetry; the other points by solving on a long sample
        strength = {s: 0.0 if s == 0.5 and not weak else
                    _solve(lambda e: float(scores(e, long, [seed, 97, players]).mean()), s) for s in (s0, s1)}
        var = {s: float(scores(strength[s], long, [seed, 96, players]).var()) for s in (s0, s1)}
        ideal = _wald(s1 - s0, var[s0])[0], _wald(s1 - s0, var[s1])[1]
        figures = []
        for s, which in ((s0, 0), (s1, 1)):
            h1 = 0
            games = []
            for run in range(runs):
                verdict, deals = _run_field(scores(strength[s], max_deals, [seed, run, players, which]), PARAMS_FIELD)
                h1 += verdict == "H1"
                games.append(deals * per_deal)
            figures.append((h1, float(np.mean(games)), ideal[which] * per_deal))
        (fp, g0, w0), (power, g1, w1) = figures
        print(f"  {label:30s} deal sd {math.sqrt(var[s0]):.3f}: false positives {_rate(fp, runs)}, "
              f"power at elo1 {_rate(power, runs)}; games {g0:.0f} / {g1:.0f} against Wald's {w0:.0f} / {w1:.0f} "
              f"({g0 / w0:.2f}x / {g1 / w1:.2f}x)")


# -- ratings ------------------------------------------------------------------------

RATED = (-100.0, -30.0, 30.0, 100.0)


def _tournament(deals: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ranks = sample_table(RATED, deals, rng, "balanced", SEAT_LUCK, TIE_WIDTH)  # (deals, games, entrants)
    games = ranks.reshape(-1, len(RATED))
    seats = np.broadcast_to(np.arange(len(RATED)), games.shape)
    return seats, games, np.repeat(np.arange(deals), ranks.shape[1])


def coverage(tournaments: int, seed: int, long: int, sizes: tuple[int, ...]) -> None:
    names = [f"e{i}" for i in range(len(RATED))]
    per_deal = len(design("balanced", len(RATED)))
    seats, ranks, deal = _tournament(long // per_deal, np.random.default_rng([seed, 0]))
    target = ratings_of(seats, ranks, names, deals=deal)["elo"].to_numpy()
    print(f"ratings: 4 entrants sampled at {list(RATED)} Elo, 4 seats, balanced seating; long run "
          f"({long} games): " + ", ".join(f"{t:.1f}" for t in target))
    for games in sizes:
        deals = max(1, games // per_deal)
        estimates, inside, se = [], 0, []
        for t in range(tournaments):
            seats, ranks, deal = _tournament(deals, np.random.default_rng([seed, 1, games, t]))
            fitted = ratings_of(seats, ranks, names, deals=deal)
            elo = fitted["elo"].to_numpy()
            estimates.append(elo)
            inside += int(((fitted["elo_low"] <= target) & (target <= fitted["elo_high"])).sum())
            se.append(fitted["sigma"].to_numpy() * ELO_PER_THETA)
        est = np.array(estimates)
        bias = float((est @ target).mean() / (target @ target)) - 1.0
        spread = est.std(axis=0, ddof=1).mean()
        print(f"  {deals * per_deal:5d} games: gap bias {100 * bias:+.1f}%, 95% coverage "
              f"{_rate(inside, tournaments * len(RATED))}, mean se {np.mean(se):.1f} Elo against the estimates' "
              f"sd {spread:.1f}")


def million(games: int, seed: int) -> None:
    """CPU time of the standings of ``games`` synthetic 4-player games (tables.standings on a frame)."""
    from arena.report.tables import standings, with_tournament_ranks
    from arena.results.rows import COLUMNS

    players = len(RATED)
    per_deal = len(design("balanced", players))
    deals = games // per_deal
    rng = np.random.default_rng([seed, 5])
    ranks = sample_table(RATED, deals, rng, "balanced", SEAT_LUCK, TIE_WIDTH).reshape(-1)
    n = deals * per_deal
    rows = n * players
    frame = pd.DataFrame({c: np.zeros(rows, dtype=np.int64) for c in COLUMNS})
    frame["game_id"] = np.repeat(np.arange(n), players).astype(str)
    frame["deal"] = np.repeat(np.arange(deals), per_deal * players)
    frame["seat"] = np.tile(np.arange(players), n)
    frame["entrant"] = np.array([f"e{i}" for i in range(players)])[np.tile(np.arange(players), n)]
    frame["bot"] = frame["entrant"]
    frame["uptown_rank"] = ranks
    frame["blockers_rank"] = ranks
    frame["won"] = (ranks == 1).astype(int)
    frame = with_tournament_ranks(frame)
    started = time.process_time()
    table = standings(frame, "uptown")
    seconds = time.process_time() - started
    print(f"standings of {n:,} four-player games ({rows:,} rows): {seconds:.1f} s CPU; ratings "
          + ", ".join(f"{r:.1f}" for r in table["rating"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a CI-size run: few runs, small samples")
    parser.add_argument("--runs", type=int, default=1000, help="simulated SPRTs per case")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tournaments", type=int, default=1000, help="sampled tournaments per size")
    parser.add_argument("--long", type=int, default=200_000, help="units (pairs, deals, games) of a long run")
    parser.add_argument("--million", type=int, default=1_000_000, help="games of the standings' timing")
    parser.add_argument("--only", choices=("sprt", "field", "ratings", "million"), help="run one part")
    args = parser.parse_args()
    if args.quick:
        args.runs, args.tournaments, args.long, args.million = 20, 20, 5_000, 12_000
    started = time.process_time()
    if args.only in (None, "sprt"):
        two_player(args.runs, args.seed, 20_000, args.long)
    if args.only in (None, "field"):
        field(args.runs, args.seed, 3_000, args.long // 2)
    if args.only in (None, "ratings"):
        coverage(args.tournaments, args.seed, args.long * 5, (120, 300, 1200))
    if args.only in (None, "million"):
        million(args.million, args.seed)
    print(f"{time.process_time() - started:.0f} s CPU")


if __name__ == "__main__":
    main()
