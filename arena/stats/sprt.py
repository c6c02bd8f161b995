"""Sequential tests of "is A better than B" and "is A better than the field", and Elo with an interval.

Two players: pentanomial statistics
-----------------------------------

With 2 players a deal is played from both seats (the duplicate format), so the
unit of evidence is the **pair** of games on one deal.  A game scores 1 for a
win, 0.5 for a draw (the same rank under the deciding scoring) and 0 for a
loss; a pair scores 0, 0.5, 1, 1.5 or 2.  :class:`Pentanomial` counts the pairs
by score: ``LL``, ``LD`` (a loss and a draw, either order), ``DD`` + ``WL``
(counted together: both score 1), ``WD``, ``WW``.  Pairing cancels most of the
deal's luck, which the five counts keep and the three win/draw/loss counts of
single games lose.

The SPRT is fastchess's (itself fishtest's ``LLRcalc.py``):

* bounds ``lower = log(beta / (1 - alpha))``, ``upper = log((1 - beta) / alpha)``;
  LLR at or above ``upper``: H1 (A is at least ``elo1`` better), at or below
  ``lower``: H0 (at most ``elo0``), else continue;
* the counts are regularised (a count of 0 becomes 0.001) and read as the
  empirical distribution ``p_hat`` of the pair score halved (0, 1/4, ..., 1);
* the LLR is a generalised (GSPRT) log-likelihood ratio,
  ``N * sum_i p_hat_i * log(p1_i / p0_i)``, where ``p0``/``p1`` are the
  maximum-likelihood distributions on the same five points under each
  hypothesis (Van den Bergh, "Comments on normalized Elo");
* model ``normalized`` (fastchess's default): the hypotheses fix the t-value
  ``(mu - 1/2) / sigma`` of the pair score to ``sqrt(2) * nelo / (800 / ln 10)``
  (``mle_t_value``: a fixed-point iteration, each step solving a secular
  equation); model ``logistic``: they fix the mean to ``1 / (1 + 10^(-elo/400))``
  (``mle_expected``: one secular equation).

:func:`pentanomial_elo` is fastchess's Elo estimate: the pair score's mean and
variance, ``mean +- z * sqrt(var / pairs)`` turned into logistic Elo
(``-400 log10(1/s - 1)``) and normalised Elo (``(s - 1/2) / sqrt(2 var) * 800 / ln 10``),
and the likelihood of superiority.

3-5 players: A against the field
--------------------------------

A fixed table (A and 2-4 others, the same every deal) is played deal by deal,
each deal in a whole seating design.  A deal's score for A is the share of
(game, opponent) pairs in which A finished ahead of that opponent, ties
counting half (:func:`field_score`).  The hypotheses fix the **mean** deal
score: ``s0 = L(elo0)`` against ``s1 = L(elo1)``, ``L(x) = 1 / (1 + 10^(-x/400))``.

The model: the deal scores ``x_1 .. x_N`` are independent draws of one
distribution with mean ``s`` and a variance ``v`` that nothing fixes; the test
is the generalised likelihood ratio of the normal model with that variance
estimated from the data under each hypothesis (fishtest's ``LLR_alt``, the
"support MLE" approximation of its GSPRT)::

    LLR = N / 2 * log(r0 / r1),   r_h = v_hat + (mean - s_h)^2

``mean`` the deals' mean and ``v_hat`` their variance (divided by ``N - 1``:
the plain ``N`` one understates the spread of few deals and let false
positives through).  Every deal moves the LLR by what it says: nothing caps a
deal's evidence, and the per-deal spread, tight (many games a deal, sd about
0.08 at 4 players) or loose, is read from the deals themselves.  No verdict
before :data:`FIELD_MIN_DEALS` (8) deals: a variance of fewer is too rough.

The bounds are Wald's moved in for the overshoot (:func:`field_bounds`).  A
test that decides in 30-50 deals, each moving the LLR by a few tenths, ends
past its bound by a fair part of a step, so with Wald's bounds its error rates
fall below alpha and beta and it plays more deals than it needs (1.2x Wald's
ideal at 5 players).  Siegmund's corrected diffusion approximation (D.
Siegmund, *Sequential Analysis: Tests and Confidence Intervals*, Springer
1985, the corrected diffusion approximations) treats the LLR as a normal random walk: its overshoot over a
far bound is on average ``rho`` standard deviations of one step, ``rho =
-zeta(1/2) / sqrt(2 pi) = 0.5826`` (:data:`FIELD_RHO`), so a walk that stops
at the bound moved in by that much has close to the error rates Wald's bound
promises a continuous one.  The test accepts H1 at the first, H0 at the second::

    LLR >= upper - rho * sd_step    or    LLR <= lower + rho * sd_step

``sd_step = (s1 - s0) / sqrt(v_hat)``, the standard deviation of one deal's
LLR increment under the normal model with the running variance ``v_hat``
(divided by ``N - 1``).  The correction is largest where the deals are tight
and few are needed, and fades as the spread grows.  The bounds never pass each
other: with no spread at all they meet half-way.  :func:`field_sprt` and
:func:`run_field_sprt` return the corrected bounds of the deal they stopped at.

Its assumptions, written down:

* the deals are independent and identically distributed: the same table every
  deal, a deal counted only once all its games are in, each deal seeded
  independently of the others;
* the seating design is complete in every deal, so the seat and the order of
  turns average out inside the deal and need no model;
* what is tested is the expectation of the per-deal score, read as logistic
  Elo "against the field": A scores like a 2-player opponent ``elo`` points
  better than each rival would.  This is not A's 2-player Elo (a rival's
  finish depends on the other rivals too) and it depends on who the field is:
  against a very weak rival A scores above 1/2 even when it equals the others;
* a deal's score is a mean of 6-20 games' comparisons, so the normal model of
  its mean is close (the likelihood ratio is asymptotically that of any
  distribution with this mean and variance); like fishtest's, the test's error
  rates are alpha and beta only asymptotically, and the calibration benchmark
  measures them (``docs/explanation/statistics.md``);
* the overshoot correction assumes the LLR moves by steps of a normal walk
  whose spread the running variance gives, and a bound far compared with a
  step; it is an approximation of the error rates, not a guarantee, measured
  by the same benchmark (false positives 0.040-0.063 at alpha = 0.05);
* the LLR depends only on the multiset of counted deal scores; the order in
  which deals are counted must be the deals' own order (not the order workers
  finish them) so that the stopping point does not depend on the workers.

Only the logistic model is offered for the field test: normalised Elo needs a
per-game standard deviation, which a deal of correlated multi-player games
does not define.

After the stop: a stopping-aware estimate
-----------------------------------------

A test that stops when its LLR crosses a bound stops more often on a lucky
run, so the plain interval of the last counts (:func:`pentanomial_elo`,
:func:`field_elo`) is too optimistic and off centre.  :func:`sequential_elo`
is fishtest's ``sprt.analytics``: the LLR is read as a Brownian motion with
drift ``mu(s) = (s - (s0 + s1) / 2) (s1 - s0) / v(s)`` and variance
``(s1 - s0)^2 / v(s)`` per unit (pair or deal), ``v(s)`` the observed
variance with the mean moved to ``s``; the observed outcome (the LLR clamped
to the bound it crossed, at the time it would have reached it) is ordered
among all outcomes (a faster fail, a slower pass, a pass turned into a fail
are worse), and the estimate is the ``s`` at which the observed outcome is the
median, the interval's ends where it is the 2.5% and 97.5% quantile.  The
probability that the motion passes to the right of ``(T, y)`` is the
eigenfunction series of a motion between two absorbing bounds, or
Siegmund's approximation where the series converges slowly.  Measured by the
calibration benchmark: it covers the truth 95% of the time where the plain
interval covers 90-92%.  It is given for the two-player test only: the field
test's LLR is not the linear one this motion describes, and far from the
hypotheses (a lopsided field, where the test stops in a few deals) the two
part ways; the field keeps its plain interval.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from statistics import NormalDist
from typing import NamedTuple

from arena.stats.intervals import z_value

#: Normalised Elo per unit of t-value: 800 / ln(10).
NELO_PER_T = 800.0 / math.log(10.0)
#: What a count of 0 becomes before the LLR (fastchess and fishtest).
REGULARIZE = 1e-3
MODELS: tuple[str, ...] = ("normalized", "logistic")
#: The field test gives no verdict before this many deals (their variance is too rough).
FIELD_MIN_DEALS = 8
#: Siegmund's overshoot constant ``-zeta(1/2) / sqrt(2 pi)``: the mean overshoot of a normal random walk
#: over a far bound, in standard deviations of one step.
FIELD_RHO = 1.4603545088095868 / math.sqrt(2.0 * math.pi)
#: The largest normalised Elo an SPRT bound may take (far beyond what a comparison of bots needs).
MAX_NELO = 200.0
VERDICTS: tuple[str, ...] = ("H0", "H1", "continue")


class Pentanomial(NamedTuple):
    """Counts of two-player deal pairs by A's pair score: 0, 0.5, 1 (both DD and WL), 1.5, 2."""

    ll: int = 0
    ld: int = 0
    dd_wl: int = 0
    wd: int = 0
    ww: int = 0

    @property
    def pairs(self) -> int:
        return self.ll + self.ld + self.dd_wl + self.wd + self.ww

    @property
    def points(self) -> float:
        """A's points over all the pairs' games (2 a pair at most)."""
        return 0.5 * self.ld + 1.0 * self.dd_wl + 1.5 * self.wd + 2.0 * self.ww

    def add(self, first: float, second: float) -> Pentanomial:
        """These counts with one more pair, A's scores ``first`` and ``second`` (1, 0.5 or 0 each)."""
        counts = list(self)
        counts[pair_index(first, second)] += 1
        return Pentanomial(*counts)


def game_score(rank: float, rival_rank: float) -> float:
    """A's score in one game: 1 if A's rank is better (lower), 0.5 if equal, 0 if worse."""
    return 1.0 if rank < rival_rank else 0.5 if rank == rival_rank else 0.0


def pair_index(first: float, second: float) -> int:
    """Which of the five pentanomial counts a pair with A's game scores ``first`` and ``second`` adds to."""
    for score in (first, second):
        if score not in (0.0, 0.5, 1.0):
            raise ValueError(f"a game scores 0, 0.5 or 1, not {score}")
    return int(round(2 * (first + second)))


def pentanomial(pairs: Iterable[tuple[float, float]]) -> Pentanomial:
    """The pentanomial counts of pairs of A's game scores (1 win, 0.5 draw, 0 loss)."""
    counts = [0] * 5
    for first, second in pairs:
        counts[pair_index(first, second)] += 1
    return Pentanomial(*counts)


# -- parameters and verdicts ------------------------------------------------


@dataclass(frozen=True)
class SprtParameters:
    """An SPRT's hypotheses (Elo ``elo0`` against ``elo1``) and error rates, as fastchess takes them."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "normalized"

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1", "alpha", "beta"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValueError(f"SPRT {name} must be a finite number, not {value!r}")
        if self.elo0 >= self.elo1:
            raise ValueError(f"SPRT elo0 must be less than elo1 (got elo0={self.elo0}, elo1={self.elo1})")
        if not 0.0 < self.alpha < 1.0:
            raise ValueError(f"SPRT alpha must be between 0 and 1, not {self.alpha}")
        if not 0.0 < self.beta < 1.0:
            raise ValueError(f"SPRT beta must be between 0 and 1, not {self.beta}")
        if self.alpha + self.beta >= 1.0:
            raise ValueError(f"SPRT alpha + beta must be less than 1 (got {self.alpha} + {self.beta})")
        if self.model not in MODELS:
            raise ValueError(f"SPRT model must be one of {', '.join(MODELS)}, not {self.model!r}")
        if self.model == "normalized" and max(abs(self.elo0), abs(self.elo1)) > MAX_NELO:
            # beyond about 231 the t-value iteration has no start (its uniform start puts every point below)
            raise ValueError(f"SPRT normalized Elo bounds must lie within +-{MAX_NELO:g}; use model=logistic")

    @property
    def lower(self) -> float:
        """``log(beta / (1 - alpha))``: at or below it the test accepts H0."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """``log((1 - beta) / alpha)``: at or above it the test accepts H1."""
        return math.log((1.0 - self.beta) / self.alpha)


class SprtStatus(NamedTuple):
    """Where a test stands: its LLR, its bounds and the verdict they give."""

    llr: float
    lower: float
    upper: float
    verdict: str


def verdict(llr: float, params: SprtParameters) -> str:
    """``"H1"`` at or above the upper bound, ``"H0"`` at or below the lower one, else ``"continue"``."""
    if llr >= params.upper:
        return "H1"
    if llr <= params.lower:
        return "H0"
    return "continue"


def sprt(counts: Pentanomial | Sequence[float], params: SprtParameters) -> SprtStatus:
    """The two-player SPRT on pentanomial ``counts`` (see the module docstring)."""
    if params.model == "normalized":
        value = llr_normalized(counts, params.elo0, params.elo1)
    else:
        value = llr_logistic(counts, params.elo0, params.elo1)
    return SprtStatus(value, params.lower, params.upper, verdict(value, params))


# -- the maximum-likelihood distributions -----------------------------------


def logistic_score(elo: float) -> float:
    """The expected score of a player ``elo`` logistic Elo points better: ``1 / (1 + 10^(-elo/400))``."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_elo(score: float) -> float:
    """The logistic Elo difference of an expected score (``-inf`` at 0, ``inf`` at 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def _stats(values: Sequence[float], probs: Sequence[float]) -> tuple[float, float]:
    mu = sum(p * a for a, p in zip(values, probs))
    return mu, sum(p * (a - mu) ** 2 for a, p in zip(values, probs))


def _secular(shifts: Sequence[float], probs: Sequence[float]) -> float:
    """The root ``x`` of ``sum_i p_i a_i / (1 + x a_i) = 0`` between ``-1/max a`` and ``-1/min a``.

    The left side falls strictly on that interval, so a Newton step kept inside
    a shrinking bracket (bisection when Newton would leave it) finds the root.
    """
    low_a, high_a = min(shifts), max(shifts)
    if not low_a < 0.0 < high_a:
        raise ValueError("the hypothesis lies outside the observed scores")
    lo, hi = -1.0 / high_a, -1.0 / low_a
    x = 0.0
    for _ in range(200):
        f = fp = 0.0
        for a, p in zip(shifts, probs):
            d = 1.0 + x * a
            f += p * a / d
            fp -= p * a * a / (d * d)
        if f > 0.0:
            lo = x
        elif f < 0.0:
            hi = x
        else:
            return x
        step = x - f / fp
        x_new = step if lo < step < hi else (lo + hi) / 2.0
        if abs(x_new - x) <= 1e-15 * max(1.0, abs(x)):
            return x_new
        x = x_new
    return x


def mle_expected(values: Sequence[float], probs: Sequence[float], s: float) -> list[float]:
    """The distribution on ``values`` with mean ``s`` most likely to give the empirical ``probs``.

    Van den Bergh's Proposition 1.1: ``p_i = phat_i / (1 + x (a_i - s))``, ``x`` the secular root.
    """
    shifts = [a - s for a in values]
    x = _secular(shifts, probs)
    return [p / (1.0 + x * a) for a, p in zip(shifts, probs)]


def mle_t_value(values: Sequence[float], probs: Sequence[float], ref: float, t: float) -> list[float]:
    """The distribution on ``values`` with t-value ``(mu - ref) / sigma = t`` most likely to give ``probs``.

    The fixed-point iteration of Van den Bergh's section 4.1 (fishtest's
    ``MLE_t_value``), started from the uniform distribution.
    """
    n = len(values)
    pdf = [1.0 / n] * n
    for _ in range(100):
        mu, var = _stats(values, pdf)
        sigma = math.sqrt(var)
        shifts = [a - ref - t * sigma * (1.0 + ((mu - a) / sigma) ** 2) / 2.0 for a in values]
        x = _secular(shifts, probs)
        new = [p / (1.0 + x * a) for a, p in zip(shifts, probs)]
        done = max(abs(u - v) for u, v in zip(new, pdf)) < 1e-12
        pdf = new
        if done:
            break
    return pdf


def _empirical(counts: Sequence[float]) -> tuple[float, list[float], list[float]]:
    if len(counts) not in (3, 5):
        raise ValueError(f"expected 3 (trinomial) or 5 (pentanomial) counts, not {len(counts)}")
    if any(c < 0 for c in counts):
        raise ValueError("counts cannot be negative")
    regular = [float(c) if c > 0 else REGULARIZE for c in counts]
    total = sum(regular)
    values = [i / (len(counts) - 1) for i in range(len(counts))]
    return total, values, [c / total for c in regular]


def _llr(total: float, probs: Sequence[float], p0: Sequence[float], p1: Sequence[float]) -> float:
    return total * sum(p * (math.log(b) - math.log(a)) for p, a, b in zip(probs, p0, p1))


def llr_logistic(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """GSPRT log-likelihood ratio of logistic Elo ``elo1`` against ``elo0`` (fastchess ``getLLR_logistic``)."""
    total, values, probs = _empirical(counts)
    s0, s1 = logistic_score(elo0), logistic_score(elo1)
    return _llr(total, probs, mle_expected(values, probs, s0), mle_expected(values, probs, s1))


def llr_normalized(counts: Sequence[float], nelo0: float, nelo1: float) -> float:
    """GSPRT log-likelihood ratio of normalised Elo ``nelo1`` against ``nelo0`` (fastchess ``getLLR_normalized``).

    The hypotheses are t-values ``nelo / (800 / ln 10)``, times ``sqrt(2)`` for pairs.
    """
    total, values, probs = _empirical(counts)
    factor = math.sqrt(2.0) if len(counts) == 5 else 1.0
    t0, t1 = (factor * e / NELO_PER_T for e in (nelo0, nelo1))
    return _llr(total, probs, mle_t_value(values, probs, 0.5, t0), mle_t_value(values, probs, 0.5, t1))


# -- Elo estimates -----------------------------------------------------------


class EloEstimate(NamedTuple):
    """An Elo difference with its interval, logistic and normalised, the mean score and the likelihood of superiority.

    The logistic bounds are ``-inf``/``inf`` when the score's bound reaches 0 or 1.
    """

    elo: float
    low: float
    high: float
    nelo: float
    nelo_low: float
    nelo_high: float
    score: float
    los: float


def _estimate(score: float, var: float, units: float, confidence: float, per_game: float) -> EloEstimate:
    z = z_value(confidence)
    half = z * math.sqrt(var / units)
    low, high = score - half, score + half
    sd_game = math.sqrt(per_game * var)
    nelo = (lambda s: (s - 0.5) / sd_game * NELO_PER_T) if sd_game > 0 else (lambda s: math.nan)
    if var > 0:
        los = 0.5 * (1.0 - math.erf(-(score - 0.5) / math.sqrt(2.0 * var / units)))
    else:
        los = 1.0 if score > 0.5 else 0.0 if score < 0.5 else 0.5
    return EloEstimate(score_elo(score), score_elo(low), score_elo(high), nelo(score), nelo(low), nelo(high), score, los)


def pentanomial_elo(counts: Pentanomial | Sequence[float], confidence: float = 0.95) -> EloEstimate:
    """A's Elo over B from pentanomial counts (fastchess ``EloPentanomial``): mean pair score with its interval.

    ``nan`` throughout when there are no pairs.
    """
    n = float(sum(counts))
    if len(counts) != 5:
        raise ValueError(f"expected 5 pentanomial counts, not {len(counts)}")
    if n == 0:
        return EloEstimate(*([math.nan] * 8))
    values = (0.0, 0.25, 0.5, 0.75, 1.0)
    score, var = _stats(values, [c / n for c in counts])
    return _estimate(score, var, n, confidence, per_game=2.0)


# -- 3-5 players: A against the field ----------------------------------------


def field_score(games: Iterable[tuple[float, Sequence[float]]]) -> float:
    """A's score in one deal: the share of (game, rival) pairs where A finished ahead, ties half.

    ``games`` holds, for every game of the deal, A's rank and the ranks of A's rivals.
    """
    points = 0.0
    count = 0
    for rank, rivals in games:
        for rival in rivals:
            points += game_score(rank, rival)
            count += 1
    if count == 0:
        raise ValueError("a deal needs at least one game with a rival")
    return points / count


def _field_running(scores: Iterable[float], elo0: float, elo1: float) -> Iterator[tuple[float, float]]:
    """``(LLR, variance)`` after each of the deal ``scores`` in turn, in one pass (both 0 before the second)."""
    n = total = total2 = 0.0
    s0, s1 = logistic_score(elo0), logistic_score(elo1)
    shift = 0.5  # sums of (x - 1/2) keep the variance's cancellation small
    for score in scores:
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"a deal score lies between 0 and 1, not {score}")
        n += 1
        total += score - shift
        total2 += (score - shift) ** 2
        if n < 2:
            yield 0.0, 0.0
            continue
        mean = total / n
        var = max(0.0, (total2 - n * mean * mean) / (n - 1))
        yield _glr(n, var, mean + shift - s0, mean + shift - s1), var


def _glr(n: float, var: float, off0: float, off1: float) -> float:
    """``n / 2 * log(r0 / r1)``, ``r_h = var + off_h^2``, infinite where one of them is 0."""
    r0, r1 = var + off0 * off0, var + off1 * off1
    if r0 == r1:
        return 0.0
    if r1 == 0.0:
        return math.inf
    if r0 == 0.0:
        return -math.inf
    return n / 2.0 * math.log(r0 / r1)


def field_llr_path(scores: Sequence[float], elo0: float, elo1: float) -> list[float]:
    """:func:`field_llr` after each of the deal ``scores`` in turn (0 before the second), in one pass."""
    return [llr for llr, _ in _field_running(scores, elo0, elo1)]


def field_llr(scores: Sequence[float], elo0: float, elo1: float) -> float:
    """GSPRT log-likelihood ratio of A's logistic Elo against the field, ``elo1`` against ``elo0``, on deal scores.

    ``N / 2 * log(r0 / r1)`` (the module docstring); 0 for fewer than 2 deals.
    """
    n = len(scores)
    for score in scores:
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"a deal score lies between 0 and 1, not {score}")
    if n < 2:
        return 0.0
    mean, var = _mean_var(scores)
    return _glr(n, var, mean - logistic_score(elo0), mean - logistic_score(elo1))


def _mean_var(scores: Sequence[float]) -> tuple[float, float]:
    """The deal scores' mean and variance (divided by ``N - 1``; at least 2 scores)."""
    mean = math.fsum(scores) / len(scores)
    return mean, math.fsum((x - mean) ** 2 for x in scores) / (len(scores) - 1)


def field_bounds(params: SprtParameters, var: float) -> tuple[float, float]:
    """Wald's bounds each moved in by ``FIELD_RHO`` standard deviations of one deal's LLR step.

    The step's sd under the normal model is ``(s1 - s0) / sqrt(var)``, ``var`` the deal scores'
    variance (Siegmund's corrected diffusion approximation: the module docstring).  The bounds never
    pass each other: where a single deal's step is as wide as they are apart (no spread) they meet
    half-way and the next deal decides by which side of that point the LLR lies.
    """
    half = (params.upper - params.lower) / 2.0
    s0, s1 = logistic_score(params.elo0), logistic_score(params.elo1)
    shift = half if var <= 0.0 else min(half, FIELD_RHO * (s1 - s0) / math.sqrt(var))
    return params.lower + shift, params.upper - shift


def _field_status(llr: float, var: float, deals: int, params: SprtParameters) -> SprtStatus:
    # one deal has no variance, so nothing to correct by: Wald's bounds until a second
    lower, upper = field_bounds(params, var) if deals >= 2 else (params.lower, params.upper)
    if deals < FIELD_MIN_DEALS:
        return SprtStatus(llr, lower, upper, "continue")
    decided = "H1" if llr >= upper else "H0" if llr <= lower else "continue"
    return SprtStatus(llr, lower, upper, decided)


def _field_params(params: SprtParameters) -> None:
    if params.model != "logistic":
        raise ValueError("the field test (3-5 players) takes the logistic model only")


def field_sprt(scores: Sequence[float], params: SprtParameters) -> SprtStatus:
    """The 3-5 player SPRT of A against the field on per-deal scores (:func:`field_score`); logistic model only.

    The status's bounds are :func:`field_bounds` at the deals' variance: the ones its verdict used.
    """
    _field_params(params)
    value = field_llr(scores, params.elo0, params.elo1)
    var = _mean_var(scores)[1] if len(scores) >= 2 else 0.0
    return _field_status(value, var, len(scores), params)


def field_elo(scores: Sequence[float], confidence: float = 0.95) -> EloEstimate:
    """A's logistic Elo against the field from per-deal scores: mean, ``+- z * sd / sqrt(deals)``.

    The normalised figures are ``nan`` (see the module docstring).
    """
    n = len(scores)
    if n == 0:
        return EloEstimate(*([math.nan] * 8))
    mean = sum(scores) / n
    var = sum((s - mean) ** 2 for s in scores) / n
    return _estimate(mean, var, float(n), confidence, per_game=0.0)


# -- after the stop: the stopping-aware estimate ------------------------------------


def _phi(x: float) -> float:
    return NormalDist().cdf(x)


def _passes_right(a: float, b: float, mu: float, sigma2: float, t: float, y: float) -> float:
    """P(a Brownian motion from 0 with drift ``mu``, variance ``sigma2``, absorbed at ``a < 0 < b``, passes right of ``(t, y)``).

    "Right of" orders the outcomes: absorbed at ``b`` after ``t`` or at ``a`` at any time, or
    still between the bounds at ``t`` below ``y`` (fishtest's ``Brownian.outcome_cdf``).
    """
    width = b - a
    gamma = mu / sigma2
    if sigma2 * t / width**2 < 1e-2 or abs(gamma * width) > 15:
        # Siegmund's approximation, where the series converges slowly; the asymptotic tail keeps it finite
        root = math.sqrt(t * sigma2)
        z = (y - mu * t) / root
        za = (-y + mu * t + 2 * a) / root
        zb = (y - mu * t - 2 * b) / root

        def reflected(edge: float, zz: float) -> float:
            if gamma * edge >= 5:
                return -math.exp(-zz * zz / 2 + 2 * gamma * edge) / math.sqrt(2 * math.pi) * (1 / zz - 1 / zz**3)
            return math.exp(2 * gamma * edge) * _phi(zz)

        return _phi(z) + reflected(a, za) - reflected(b, zb)
    x, yy = -a, y - a
    first = (math.pi / width) ** 2 * sigma2 / 2 + mu * mu / sigma2 / 2
    scale = math.exp(-first * t - x * gamma + yy * gamma)
    total = 0.0
    n = 1
    while n < 10_000:
        lam = (n * math.pi / width) ** 2 * sigma2 / 2 + mu * mu / sigma2 / 2
        decay = math.exp(-(lam - first) * t)
        k = n * math.pi / width
        u = (2 * width * gamma * math.sin(k * yy) - 2 * math.pi * n * math.cos(k * yy)) / (
            width**2 * gamma**2 + math.pi**2 * n**2)
        total += decay * u * math.sin(k * x)
        if abs(scale * decay * u) <= 1e-9:
            break
        n += 1
    if gamma * width > 30:
        start = math.exp(-2 * gamma * x)
    elif abs(gamma * width) < 1e-8:
        start = (width - x) / width
    else:
        start = (1 - math.exp(2 * gamma * (width - x))) / (1 - math.exp(2 * gamma * width))
    return start + scale * total


class SequentialEstimate(NamedTuple):
    """The stopping-aware Elo after a sequential test: median-unbiased point and interval, in the test's model."""

    elo: float
    low: float
    high: float
    model: str
    clamped: bool


def _quantile_elo(worse: Callable[[float], float], p: float, lo: float, hi: float) -> float:
    """The logistic Elo in ``[lo, hi]`` at which the observed outcome is beaten with probability ``1 - p`` (bisection)."""
    f_lo, f_hi = worse(lo) - (1 - p), worse(hi) - (1 - p)
    if f_lo * f_hi > 0:
        return hi if f_lo > 0 else lo
    while hi - lo > 1e-6:
        mid = (lo + hi) / 2
        f_mid = worse(mid) - (1 - p)
        if (f_mid > 0) == (f_lo > 0):
            lo, f_lo = mid, f_mid
        else:
            hi = mid
    return (lo + hi) / 2


def sequential_elo(mean: float, var: float, units: float, params: SprtParameters, per_game: float = 2.0,
                   confidence: float = 0.95) -> SequentialEstimate:
    """fishtest's ``sprt.analytics`` for a test stopped (or still running) after ``units`` pairs or deals.

    ``mean``/``var``: the mean and variance of the unit's score (a pair's score halved, or a deal
    score); ``per_game``: games whose mean a unit is, for the normalised scale (2 for pairs).
    The LLR is fishtest's linear approximation, clamped to the bound it passed at the time it
    would have reached it.  Elo figures are in ``params.model``'s scale; ``nan`` without data or spread.
    """
    if units <= 0 or not var > 0.0 or not math.isfinite(mean):
        return SequentialEstimate(math.nan, math.nan, math.nan, params.model, False)
    sigma_game = math.sqrt(per_game * var)

    def to_score(elo: float) -> float:
        if params.model == "normalized":
            return 0.5 + elo / NELO_PER_T * sigma_game
        return logistic_score(elo)

    def to_model(score: float) -> float:
        if params.model == "normalized":
            return (score - 0.5) / sigma_game * NELO_PER_T
        return score_elo(score)

    s0, s1 = to_score(params.elo0), to_score(params.elo1)
    a, b = params.lower, params.upper
    t = float(units)

    def moments(s: float) -> tuple[float, float]:
        """Drift and variance a unit of the LLR when the mean score is ``s`` (the spread as observed)."""
        v = var + (s - mean) ** 2
        return (s - (s0 + s1) / 2) * (s1 - s0) / v, (s1 - s0) ** 2 / v

    llr = units * moments(mean)[0]
    clamped = llr > 1.03 * b or llr < 1.03 * a
    if llr < a:
        t, llr = a / (llr / units), a
    elif llr > b:
        t, llr = b / (llr / units), b

    def worse(lelo: float) -> float:
        mu, sigma2 = moments(logistic_score(lelo))
        return _passes_right(a, b, mu, sigma2, t, llr)

    # the drift rises with the mean only within about one unit's deviation of the observed mean (the
    # variance grows with the distance), and the quantiles lie well inside that: search there
    sd = math.sqrt(var)
    edge = 1e-9
    lo, hi = (max(-1000.0, min(1000.0, score_elo(min(1 - edge, max(edge, mean + k * sd))))) for k in (-1, 1))
    tail = (1 - confidence) / 2
    elo, low, high = (to_model(logistic_score(_quantile_elo(worse, p, lo, hi))) for p in (0.5, tail, 1 - tail))
    return SequentialEstimate(elo, low, high, params.model, clamped)


def pentanomial_sequential(counts: Pentanomial | Sequence[float], params: SprtParameters,
                           confidence: float = 0.95) -> SequentialEstimate:
    """:func:`sequential_elo` of a two-player test on pentanomial ``counts`` (regularised as the LLR's)."""
    total, values, probs = _empirical(counts)
    n = sum(counts)
    if n == 0 or _stats(values, [c / n for c in counts])[1] == 0.0:  # no spread: no scale (as pentanomial_elo)
        return sequential_elo(math.nan, 0.0, 0, params)
    mean, var = _stats(values, probs)
    return sequential_elo(mean, var, total, params, per_game=2.0, confidence=confidence)


# -- running a test to its end ---------------------------------------------------


def run_sprt(pairs: Iterable[tuple[float, float]], params: SprtParameters,
             max_pairs: int | None = None) -> tuple[SprtStatus, Pentanomial]:
    """Count ``pairs`` (A's two game scores each) in the order given until the SPRT decides or ``max_pairs``.

    Returns the last status (verdict ``continue`` when the pairs ran out first) and the counts used.
    """
    counts = Pentanomial()
    status = SprtStatus(0.0, params.lower, params.upper, "continue")
    for first, second in pairs:
        counts = counts.add(first, second)
        status = sprt(counts, params)
        if status.verdict != "continue" or (max_pairs is not None and counts.pairs >= max_pairs):
            break
    return status, counts


def run_field_sprt(scores: Iterable[float], params: SprtParameters,
                   max_deals: int | None = None) -> tuple[SprtStatus, int]:
    """Count per-deal ``scores`` in the order given until the field SPRT decides or ``max_deals``; status and deals used."""
    _field_params(params)
    status = SprtStatus(0.0, params.lower, params.upper, "continue")
    deals = 0
    # lazily: the test stops reading at its verdict
    for deals, (value, var) in enumerate(_field_running(islice(scores, max_deals), params.elo0, params.elo1), 1):
        status = _field_status(value, var, deals, params)
        if status.verdict != "continue":
            break
    return status, deals
