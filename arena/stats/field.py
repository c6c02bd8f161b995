"""The sequential test of "is A better than the field" at a table of 3-5 players, and its Elo estimate.

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
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice

from arena.stats.hypotheses import EloEstimate, SprtParameters, SprtStatus, estimate, game_score, logistic_score

#: The field test gives no verdict before this many deals (their variance is too rough).
FIELD_MIN_DEALS = 8
#: Siegmund's overshoot constant ``-zeta(1/2) / sqrt(2 pi)``: the mean overshoot of a normal random walk
#: over a far bound, in standard deviations of one step.
FIELD_RHO = 1.4603545088095868 / math.sqrt(2.0 * math.pi)

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
    return estimate(mean, var, float(n), confidence, per_game=0.0)


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
