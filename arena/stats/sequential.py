"""After the stop: a stopping-aware Elo estimate of a sequential test.

A test that stops when its LLR crosses a bound stops more often on a lucky
run, so the plain interval of the last counts (:func:`~arena.stats.sprt.pentanomial_elo`,
:func:`~arena.stats.field.field_elo`) is too optimistic and off centre.  :func:`sequential_elo`
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
from collections.abc import Callable
from statistics import NormalDist
from typing import NamedTuple

from arena.stats.hypotheses import NELO_PER_T, SprtParameters, logistic_score, score_elo


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
