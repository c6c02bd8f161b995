"""The sequential test of "is A better than B" (two players, pentanomial), and Elo with an interval.

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

The test of one player against the field of a 3-5 player table is :mod:`.field`'s, the stopping-aware
estimate after either test :mod:`.sequential`'s; the hypotheses and verdicts both share :mod:`.hypotheses`'.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from arena.stats import hypotheses as hyp
from arena.stats.hypotheses import NELO_PER_T, EloEstimate, SprtParameters, SprtStatus
from arena.stats.sequential import SequentialEstimate, sequential_elo

__all__ = [
    # the two-player test (here)
    "REGULARIZE", "Pentanomial", "llr_logistic", "llr_normalized", "mle_expected", "mle_t_value", "pair_index",
    "pentanomial", "pentanomial_elo", "pentanomial_sequential", "run_sprt", "sprt",
]

#: What a count of 0 becomes before the LLR (fastchess and fishtest).
REGULARIZE = 1e-3


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


def sprt(counts: Pentanomial | Sequence[float], params: SprtParameters) -> SprtStatus:
    """The two-player SPRT on pentanomial ``counts`` (see the module docstring)."""
    if params.model == "normalized":
        value = llr_normalized(counts, params.elo0, params.elo1)
    else:
        value = llr_logistic(counts, params.elo0, params.elo1)
    return SprtStatus(value, params.lower, params.upper, hyp.verdict(value, params))


# -- the maximum-likelihood distributions -----------------------------------


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
    s0, s1 = hyp.logistic_score(elo0), hyp.logistic_score(elo1)
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
    return hyp.estimate(score, var, n, confidence, per_game=2.0)


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
