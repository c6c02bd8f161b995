"""Pentanomial counts, fastchess's SPRT (bounds, LLR, verdicts), Elo estimates and the field test of 3-5 players."""

from __future__ import annotations

import math

import numpy as np
import pytest

from arena.stats.field import (
    FIELD_MIN_DEALS,
    FIELD_RHO,
    field_bounds,
    field_elo,
    field_llr,
    field_llr_path,
    field_score,
    field_sprt,
    run_field_sprt,
)
from arena.stats.hypotheses import NELO_PER_T, SprtParameters, game_score, logistic_score, verdict
from arena.stats.simulate import field_scores, pair_scores
from arena.stats.sprt import (
    Pentanomial,
    llr_logistic,
    llr_normalized,
    mle_expected,
    mle_t_value,
    pentanomial,
    pentanomial_elo,
    pentanomial_sequential,
    run_sprt,
    sprt,
)

VALUES = [0.0, 0.25, 0.5, 0.75, 1.0]


def test_pentanomial_counts_hand_made_pairs():
    pairs = [(1, 1), (1, 0), (0.5, 0.5), (0, 0.5), (0.5, 1), (0, 0), (0, 1)]
    counts = pentanomial(pairs)
    assert counts == Pentanomial(ll=1, ld=1, dd_wl=3, wd=1, ww=1)
    assert counts.pairs == 7 and counts.points == 0 + 0.5 + 3 + 1.5 + 2
    assert Pentanomial().add(1, 0.5) == Pentanomial(wd=1)
    with pytest.raises(ValueError, match="0, 0.5 or 1"):
        pentanomial([(2, 0)])


def test_game_score_from_ranks_ties_are_half():
    assert [game_score(1, 2), game_score(1, 1), game_score(2, 1)] == [1.0, 0.5, 0.0]


def test_bounds_by_hand():
    # lower = log(beta / (1 - alpha)), upper = log((1 - beta) / alpha)
    # alpha = beta = 0.05: log(0.05 / 0.95) = -log(19) = -2.944439, log(0.95 / 0.05) = log(19) = 2.944439
    p = SprtParameters(0, 5, 0.05, 0.05)
    assert p.lower == pytest.approx(-2.944439, abs=1e-6) and p.upper == pytest.approx(2.944439, abs=1e-6)
    # alpha = 0.05, beta = 0.10: log(0.10 / 0.95) = -2.251292, log(0.90 / 0.05) = log(18) = 2.890372
    p = SprtParameters(0, 5, 0.05, 0.10)
    assert p.lower == pytest.approx(-2.251292, abs=1e-6) and p.upper == pytest.approx(2.890372, abs=1e-6)


def test_verdicts_at_the_bounds():
    p = SprtParameters(0, 5)
    assert verdict(p.upper, p) == "H1" and verdict(p.lower, p) == "H0" and verdict(0.0, p) == "continue"


COUNTS = [20, 130, 400, 150, 30]  # LL, LD, DD+WL, WD, WW: 730 pairs, no zero count, so no regularisation


def test_llr_logistic_against_the_hand_computation():
    # p_hat = counts / 730 on 0, 1/4, 1/2, 3/4, 1.
    # mean = (130/4 + 400/2 + 150*3/4 + 30) / 730 = 375 / 730 = 0.5136986
    # E[a^2] = (130/16 + 400/4 + 150*9/16 + 30) / 730 = 222.5 / 730 = 0.3047945, var = 0.3047945 - 0.5136986^2 = 0.0409082
    # s0 = L(0) = 0.5, s1 = L(5) = 1 / (1 + 10^(-5/400)) = 1 / 1.971628 = 0.5071950
    # fishtest's GSPRT approximation (LLR_alt2): N (s1 - s0) (2 mean - s0 - s1) / (2 var)
    #   = 730 * 0.0071950 * (1.0273973 - 1.0071950) / 0.0818164 = 1.2969
    # The exact MLE (Proposition 1.1) differs from it by far less than 0.5% at this sample size.
    assert llr_logistic(COUNTS, 0, 5) == pytest.approx(1.2969, rel=5e-3)
    s1 = logistic_score(5)
    assert s1 == pytest.approx(0.5071950, abs=1e-7)


def test_llr_normalized_against_the_hand_computation():
    # sigma per game = sqrt(2 var) = sqrt(0.0818164) = 0.2860357; t = (mean - 1/2) / sigma = 0.0136986 / 0.2860357 = 0.0478912
    # t0 = 0, t1 = 5 / (800 / ln 10) = 5 / 347.4356 = 0.0143912
    # fishtest's LLR_normalized_alt: (games / 2) log((1 + (t - t0)^2) / (1 + (t - t1)^2)), games = 2 * 730
    #   = 730 * log(1.0022936 / 1.0011224) = 730 * 0.0011693 = 0.8536
    assert NELO_PER_T == pytest.approx(347.4356, abs=1e-4)
    assert llr_normalized(COUNTS, 0, 5) == pytest.approx(0.8536, rel=5e-3)
    status = sprt(Pentanomial(*COUNTS), SprtParameters(0, 5))
    assert status.llr == llr_normalized(COUNTS, 0, 5) and status.verdict == "continue"


def test_mle_distributions_meet_their_constraints():
    probs = [c / sum(COUNTS) for c in COUNTS]
    p0 = mle_expected(VALUES, probs, 0.6)
    assert sum(p0) == pytest.approx(1.0) and sum(a * p for a, p in zip(VALUES, p0)) == pytest.approx(0.6)
    pt = mle_t_value(VALUES, probs, 0.5, 0.1)
    mu = sum(a * p for a, p in zip(VALUES, pt))
    sd = math.sqrt(sum(p * (a - mu) ** 2 for a, p in zip(VALUES, pt)))
    assert sum(pt) == pytest.approx(1.0) and (mu - 0.5) / sd == pytest.approx(0.1)
    # at the empirical mean the MLE is the empirical distribution itself
    assert mle_expected(VALUES, probs, 375 / 730) == pytest.approx(probs)


def test_llr_mirrors_when_a_and_b_swap():
    # A's pair scores mirrored (a -> 1 - a) and the hypotheses negated give the same likelihoods
    assert llr_logistic(COUNTS[::-1], -0, -5) == pytest.approx(llr_logistic(COUNTS, 0, 5))
    assert llr_normalized(COUNTS[::-1], -0, -5) == pytest.approx(llr_normalized(COUNTS, 0, 5))


def test_zero_counts_are_regularised():
    # nothing seen: every count 0.001, symmetric, the LLR is (almost) 0 and the test goes on
    assert abs(llr_normalized([0, 0, 0, 0, 0], 0, 5)) < 1e-4
    assert llr_logistic([0, 0, 0, 0, 40], 0, 5) > 0 > llr_logistic([40, 0, 0, 0, 0], 0, 5)


@pytest.mark.parametrize("kwargs,message", [
    ({"elo0": 5, "elo1": 5}, "elo0 must be less than elo1"),
    ({"elo0": 10, "elo1": 0}, "elo0 must be less than elo1"),
    ({"alpha": 0.0}, "alpha must be between 0 and 1"),
    ({"alpha": 1.0}, "alpha must be between 0 and 1"),
    ({"beta": -0.1}, "beta must be between 0 and 1"),
    ({"alpha": 0.6, "beta": 0.5}, "alpha \\+ beta must be less than 1"),
    ({"model": "bayesian"}, "model must be one of normalized, logistic"),
    ({"elo1": math.inf}, "elo1 must be a finite number"),
    ({"elo1": 400}, "normalized Elo bounds must lie within"),
])
def test_bad_parameters_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SprtParameters(**kwargs)


def test_extreme_bounds_that_are_allowed_compute():
    assert llr_normalized([0, 0, 0, 0, 50], -200, 200) > 0
    assert llr_logistic([50, 0, 0, 0, 0], 0, 1000) < 0
    assert SprtParameters(0, 1000, model="logistic").upper > 0


def test_pentanomial_elo_by_hand():
    # counts 10, 20, 40, 20, 10: mean 0.5, var = (10*0.25 + 20*0.0625 + 20*0.0625 + 10*0.25) / 100 = 0.075
    # half width = 1.959964 * sqrt(0.075 / 100) = 0.0536757; Elo(0.5536757) = -400 log10(1/0.5536757 - 1) = 37.442
    # nelo(0.5536757) = 0.0536757 / sqrt(2 * 0.075) * 347.4356 = 48.151
    est = pentanomial_elo([10, 20, 40, 20, 10])
    assert est.score == 0.5 and est.elo == pytest.approx(0.0) and est.los == pytest.approx(0.5)
    assert est.high == pytest.approx(37.442, abs=1e-3) and est.low == pytest.approx(-37.442, abs=1e-3)
    assert est.nelo_high == pytest.approx(48.151, abs=1e-3)
    assert pentanomial_elo([0, 0, 0, 0, 3]).elo == math.inf
    assert all(math.isnan(x) for x in pentanomial_elo([0] * 5))


def test_field_score_counts_rivals_finished_behind():
    # game 1: A first of 3, game 2: A tied for second with one rival, behind the other
    assert field_score([(1, [2, 3]), (2, [2, 1])]) == pytest.approx((1 + 1 + 0.5 + 0) / 4)
    with pytest.raises(ValueError, match="at least one game"):
        field_score([])


def test_field_llr_is_the_normal_glr_with_the_variance_estimated_under_each_hypothesis():
    # 60 deals at 1 and 40 at 0: mean 0.6, variance 0.24 * 100 / 99 = 0.2424242; s1 = L(50) = 0.5714631
    # r0 = 0.2424242 + 0.1^2 = 0.2524242, r1 = 0.2424242 + 0.0285369^2 = 0.2432386
    # LLR = 100 / 2 * log(r0 / r1) = 50 * 0.0370673 = 1.853417
    assert field_llr([1.0] * 60 + [0.0] * 40, 0, 50) == pytest.approx(1.853417, abs=1e-5)
    assert field_llr([0.7], 0, 50) == 0.0  # one deal has no variance
    with pytest.raises(ValueError, match="logistic model only"):
        field_sprt([0.5], SprtParameters(0, 20))
    with pytest.raises(ValueError, match="between 0 and 1"):
        field_llr([0.5, 1.5], 0, 20)
    est = field_elo([1.0] * 60 + [0.0] * 40)
    assert est.score == 0.6 and est.elo == pytest.approx(-400 * math.log10(1 / 0.6 - 1))


def test_field_llr_path_is_field_llr_deal_by_deal():
    scores = list(np.random.default_rng(3).uniform(0.3, 0.8, 40))
    path = field_llr_path(scores, 0, 20)
    assert path == pytest.approx([field_llr(scores[: i + 1], 0, 20) for i in range(40)], abs=1e-9)


def test_a_lopsided_field_decides_in_few_deals_without_a_cap():
    """Deal scores near 0.75 with a spread of 0.1 (greedy against lookahead and random): the old test's
    0.001 of a deal at 0 and 1 capped a deal at +0.056 of LLR, 53 deals at least; now a handful do."""
    params = SprtParameters(0, 20, model="logistic")
    scores = list(np.random.default_rng(5).normal(0.75, 0.1, 60).clip(0, 1))
    status, deals = run_field_sprt(scores, params)
    assert status.verdict == "H1" and FIELD_MIN_DEALS <= deals < 40


def test_the_field_test_gives_no_verdict_before_eight_deals_however_clear():
    params = SprtParameters(0, 20, model="logistic")
    assert FIELD_MIN_DEALS == 8
    s1 = logistic_score(20)
    # deals right at s1, or right at s0, with almost no spread
    for scores, expected in (([s1 + 1e-4, s1 - 1e-4] * 5, "H1"), ([0.5 + 1e-4, 0.5 - 1e-4] * 5, "H0")):
        early = field_sprt(scores[:7], params)
        assert abs(early.llr) > params.upper and early.verdict == "continue"
        assert run_field_sprt(scores[:7], params)[0].verdict == "continue"
        assert field_sprt(scores[:8], params).verdict == expected
        assert run_field_sprt(scores, params)[1] == 8


def test_field_bounds_lie_inside_walds_and_widen_toward_them_as_the_variance_grows():
    params = SprtParameters(0, 20, model="logistic")
    # var 0.01: one deal's LLR step has sd (L(20) - 1/2) / 0.1 = 0.0287506 / 0.1 = 0.287506, and each
    # bound moves in by 0.5825972 of it, 0.167500: upper 2.944439 - 0.167500 = 2.776939
    assert FIELD_RHO == pytest.approx(0.5825972, abs=1e-7)
    assert field_bounds(params, 0.01) == pytest.approx((-2.776939, 2.776939), abs=1e-6)
    widths = []
    for var in (1e-4, 1e-3, 0.01, 0.03, 0.1, 0.25):
        lower, upper = field_bounds(params, var)
        assert params.lower < lower < upper < params.upper
        widths.append(upper - lower)
    assert widths == sorted(widths) and len(set(widths)) == len(widths)
    assert params.upper - widths[-1] / 2 == pytest.approx(FIELD_RHO * (logistic_score(20) - 0.5) / 0.5)
    # no spread: a deal's step is unbounded, and the bounds meet half-way instead of passing each other
    assert field_bounds(params, 0.0) == (0.0, 0.0)
    skew = SprtParameters(0, 20, alpha=0.01, beta=0.2, model="logistic")
    assert field_bounds(skew, 0.0) == pytest.approx(((skew.lower + skew.upper) / 2,) * 2)


def test_a_deal_by_deal_field_status_is_the_one_shot_field_sprt():
    params = SprtParameters(0, 20, model="logistic")
    scores = list(np.random.default_rng(11).normal(0.53, 0.08, 200).clip(0, 1))
    stop = None
    for deals in range(1, 201):
        one_shot = field_sprt(scores[:deals], params)
        running, counted = run_field_sprt(scores, params, max_deals=deals)
        if stop is None:
            assert counted == deals
            assert running.llr == pytest.approx(one_shot.llr, abs=1e-9)
            assert (running.lower, running.upper) == pytest.approx((one_shot.lower, one_shot.upper), abs=1e-9)
            assert running.verdict == one_shot.verdict
            if deals >= 2:  # the status carries the corrected bounds its verdict used
                var = float(np.var(scores[:deals], ddof=1))
                assert (one_shot.lower, one_shot.upper) == pytest.approx(field_bounds(params, var), abs=1e-9)
            if one_shot.verdict != "continue":
                stop = deals
        else:
            assert counted == stop  # the run stopped at the first verdict
    assert stop is not None and stop >= FIELD_MIN_DEALS
    assert field_sprt(scores[:1], params)[1:3] == (params.lower, params.upper)  # one deal: Wald's bounds


def test_stopping_aware_estimate_after_a_pentanomial_sprt():
    params = SprtParameters(0, 5, model="normalized")
    counts = Pentanomial(10, 200, 500, 220, 12)
    seq = pentanomial_sequential(counts, params)
    plain = pentanomial_elo(counts)
    assert seq.model == "normalized" and seq.low < seq.elo < seq.high
    # not stopped (LLR inside the bounds): close to the plain figures
    assert seq.elo == pytest.approx(plain.nelo, abs=0.5) and seq.low == pytest.approx(plain.nelo_low, abs=1.0)
    # stopped early on a lucky run: the estimate is pulled back towards the hypotheses
    lucky = Pentanomial(0, 5, 20, 40, 15)
    assert sprt(lucky, SprtParameters(0, 20, model="normalized")).verdict == "H1"
    after = pentanomial_sequential(lucky, SprtParameters(0, 20, model="normalized"))
    assert after.elo < pentanomial_elo(lucky).nelo
    assert math.isnan(pentanomial_sequential(Pentanomial(), params).elo)
    assert math.isnan(pentanomial_sequential(Pentanomial(ww=30), params).elo)  # no spread: no normalized scale


def test_run_sprt_stops_at_the_first_verdict():
    p = SprtParameters(0, 20, model="logistic")
    status, counts = run_sprt([(1.0, 1.0)] * 1000, p)
    assert status.verdict == "H1" and counts.pairs < 1000
    assert sprt(counts, p).verdict == "H1" and sprt(Pentanomial(ww=counts.ww - 1), p).verdict == "continue"
    status, counts = run_sprt([(0.5, 0.5)] * 10, p)
    assert status.verdict == "continue" and counts.pairs == 10


@pytest.mark.slow
def test_sprt_error_rates_by_simulation():
    """Few hundred seeded SPRTs on sampled pairs: equal bots rarely pass, a clearly better one usually does."""
    params = SprtParameters(0, 40, 0.05, 0.05, "normalized")
    runs = 200
    passed = 0
    for run in range(runs):
        pairs = pair_scores(0.0, 4000, np.random.default_rng([7, run]), seat_luck=0.5, tie_width=0.5)
        status, _ = run_sprt(map(tuple, pairs), params)
        passed += status.verdict == "H1"
    rate = passed / runs
    assert rate <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / runs)
    strong = 0
    for run in range(50):
        pairs = pair_scores(60.0, 4000, np.random.default_rng([8, run]), seat_luck=0.5, tie_width=0.5)
        strong += run_sprt(map(tuple, pairs), params)[0].verdict == "H1"
    assert strong >= 45


@pytest.mark.slow
def test_field_sprt_error_rates_by_simulation():
    params = SprtParameters(0, 40, 0.05, 0.05, "logistic")
    runs = 200
    passed = 0
    for run in range(runs):
        scores = field_scores([0.0, 0.0, 0.0], 1000, np.random.default_rng([9, run]), seat_luck=0.5, tie_width=0.5)
        passed += run_field_sprt(scores, params)[0].verdict == "H1"
    assert passed / runs <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / runs)
    strong = 0
    for run in range(50):
        scores = field_scores([60.0, 0.0, 0.0, 0.0], 1000, np.random.default_rng([10, run]), seat_luck=0.5, tie_width=0.5)
        strong += run_field_sprt(scores, params)[0].verdict == "H1"
    assert strong >= 45
