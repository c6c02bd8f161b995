"""Wilson intervals, the effective count of a share over deals, and the deal bootstrap's resamples."""

from __future__ import annotations

import math

import numpy as np
import pytest

from arena.stats.intervals import (
    Z95,
    deal_resamples,
    effective_count,
    percentile_interval,
    wilson,
    win_share_interval,
)


def test_wilson_known_values():
    # 0 of 10: [0, z^2 / (n + z^2)] = [0, 3.841459 / 13.841459] = [0, 0.277533]
    assert wilson(0, 10) == (0.0, pytest.approx(Z95**2 / (10 + Z95**2)))
    assert wilson(0, 10)[1] == pytest.approx(0.277533, abs=1e-6)
    # 1 of 10 and 5 of 10: the values printed in Brown, Cai & DasGupta's and Newcombe's tables
    assert wilson(1, 10) == (pytest.approx(0.017876, abs=1e-6), pytest.approx(0.404150, abs=1e-6))
    assert wilson(5, 10) == (pytest.approx(0.236593, abs=1e-6), pytest.approx(0.763407, abs=1e-6))
    # symmetric: 10 of 10 mirrors 0 of 10
    assert wilson(10, 10) == (pytest.approx(1 - 0.277533, abs=1e-6), 1.0)
    assert all(math.isnan(x) for x in wilson(0, 0))


def test_wilson_rejects_impossible_shares():
    with pytest.raises(ValueError, match="0 <= successes <= n"):
        wilson(11, 10)
    with pytest.raises(ValueError, match="confidence"):
        wilson(1, 10, confidence=1.5)


def test_win_share_never_collapses_at_0_or_100_percent():
    share, low, high = win_share_interval([0, 0, 0, 0], [3, 3, 3, 3])
    assert share == 0.0 and low == 0.0 and high > 0.2  # 4 deals count as 4 observations: high = 0.49
    assert high == pytest.approx(wilson(0, 4)[1])
    share, low, high = win_share_interval([3, 3, 3], [3, 3, 3])
    assert share == 1.0 and high == 1.0 and low < 0.6


def test_effective_count_lies_between_deals_and_games():
    # every game of a deal says the same: the deals are the observations
    assert effective_count([3, 0, 3, 0, 3, 0], [3] * 6) == 6
    # deals that vary less than independent games would: never counted as more than the 18 games
    assert effective_count([1, 2, 1, 2, 1, 2], [3] * 6) == 18
    # independent-looking deals: close to the number of games
    rng = np.random.default_rng(4)
    wins = rng.binomial(3, 0.4, size=400)
    assert effective_count(wins, [3] * 400) > 900


def test_win_share_interval_widens_with_correlated_deals():
    together = win_share_interval([3, 0] * 10, [3, 3] * 10)
    apart = win_share_interval([2, 1] * 10, [3, 3] * 10)
    assert together[0] == apart[0] == 0.5
    assert together[2] - together[1] > apart[2] - apart[1]


def test_deal_resamples_are_seeded_and_keep_strata():
    deals = list(range(10))
    strata = ["a"] * 4 + ["b"] * 6
    one = deal_resamples(deals, 50, seed=7, strata=strata)
    assert np.array_equal(one, deal_resamples(deals, 50, seed=7, strata=strata))
    assert not np.array_equal(one, deal_resamples(deals, 50, seed=8, strata=strata))
    assert one.shape == (50, 10)
    assert np.isin(one[:, :4], range(4)).all() and np.isin(one[:, 4:], range(4, 10)).all()
    plain = deal_resamples(deals, 50, seed=7)
    assert plain.min() >= 0 and plain.max() <= 9


def test_percentile_interval():
    assert percentile_interval(np.arange(101.0)) == (pytest.approx(2.5), pytest.approx(97.5))
    assert all(math.isnan(x) for x in percentile_interval([]))
