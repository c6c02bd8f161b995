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
counting half (:func:`field_score`).  :func:`field_llr` runs the same GSPRT on
these per-deal scores: the empirical distribution of the observed values (plus
0.001 of a deal at 0 and at 1 when they were not seen, as the pentanomial is
regularised), the maximum-likelihood distributions on that support with mean
``s0 = L(elo0)`` and ``s1 = L(elo1)``, ``L(x) = 1 / (1 + 10^(-x/400))``, and
``N * sum p_hat log(p1 / p0)``; the bounds and verdicts are the same.

Its assumptions, written down:

* the deals are independent and identically distributed: the same table every
  deal, a deal counted only once all its games are in, each deal seeded
  independently of the others;
* the seating design is complete in every deal, so the seat and the order of
  turns average out inside the deal and need no model;
* what is tested is the expectation of the per-deal score, read as logistic
  Elo "against the field": A scores like a 2-player opponent ``elo`` points
  better than each rival would.  This is not A's 2-player Elo (a rival's
  finish depends on the other rivals too) and it depends on who the field is;
* nothing else about the score's distribution is assumed: the GSPRT is
  nonparametric on the observed support, and, like fishtest's, its error
  rates are alpha and beta only asymptotically (the calibration benchmark
  measures them);
* the LLR depends only on the multiset of counted deal scores; the order in
  which deals are counted must be the deals' own order (not the order workers
  finish them) so that the stopping point does not depend on the workers.

Only the logistic model is offered for the field test: normalised Elo needs a
per-game standard deviation, which a deal of correlated multi-player games
does not define.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from arena.stats.intervals import z_value

#: Normalised Elo per unit of t-value: 800 / ln(10).
NELO_PER_T = 800.0 / math.log(10.0)
#: What a count of 0 becomes before the LLR (fastchess and fishtest).
REGULARIZE = 1e-3
MODELS: tuple[str, ...] = ("normalized", "logistic")
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


def _field_empirical(scores: Sequence[float]) -> tuple[float, list[float], list[float]]:
    tally: defaultdict[float, float] = defaultdict(float)
    for score in scores:
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"a deal score lies between 0 and 1, not {score}")
        tally[round(float(score), 12)] += 1.0
    for end in (0.0, 1.0):
        if end not in tally:
            tally[end] = REGULARIZE
    values = sorted(tally)
    total = sum(tally.values())
    return total, values, [tally[v] / total for v in values]


def field_llr(scores: Sequence[float], elo0: float, elo1: float) -> float:
    """GSPRT log-likelihood ratio of A's logistic Elo against the field, ``elo1`` against ``elo0``, on deal scores."""
    total, values, probs = _field_empirical(scores)
    s0, s1 = logistic_score(elo0), logistic_score(elo1)
    return _llr(total, probs, mle_expected(values, probs, s0), mle_expected(values, probs, s1))


def field_sprt(scores: Sequence[float], params: SprtParameters) -> SprtStatus:
    """The 3-5 player SPRT of A against the field on per-deal scores (:func:`field_score`); logistic model only."""
    if params.model != "logistic":
        raise ValueError("the field test (3-5 players) takes the logistic model only")
    value = field_llr(scores, params.elo0, params.elo1)
    return SprtStatus(value, params.lower, params.upper, verdict(value, params))


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
    seen: list[float] = []
    status = SprtStatus(0.0, params.lower, params.upper, "continue")
    for score in scores:
        seen.append(float(score))
        status = field_sprt(seen, params)
        if status.verdict != "continue" or (max_deals is not None and len(seen) >= max_deals):
            break
    return status, len(seen)
