"""Confidence intervals for shares and for whole-deal bootstraps.

Win share
---------

A share of games won is a mean of 0/1 outcomes, but the games of one deal are
not independent: they are dealt the same tiles (duplicate format), so what a
deal favours shows in all of its games.  :func:`win_share_interval` uses the
**Wilson score interval on the effective number of games**:

* the variance of the share ``p = sum(w_d) / sum(n_d)`` is estimated with the
  deals as clusters (the ratio estimator's linearised variance,
  ``D / (D - 1) * sum((w_d - p n_d)^2) / N^2``, ``D`` deals, ``N`` games);
* the effective count is the number of independent games that would give that
  variance, ``n_eff = p (1 - p) / var``, kept between ``D`` (each deal counts
  as one observation: every game of a deal said the same) and ``N`` (never
  narrower than independent games would be);
* the interval is Wilson's for ``p`` out of ``n_eff``.

Why Wilson and not a plain percentile bootstrap: at 0 (or all) wins every
resample has 0 wins and the percentile interval collapses to 0-0, and near the
ends it undercovers badly for small samples.  Wilson's interval never collapses
(0 of ``n`` gives ``[0, z^2 / (n + z^2)]``) and keeps close to its nominal
coverage for small ``n`` and extreme ``p`` (Brown, Cai and DasGupta, 2001).
When the share is 0 or 1 the variance cannot be estimated from the data (it is
0), so ``n_eff = D``, the cautious end.  The interval is deterministic: no
resampling, no seed.

Bootstrap over deals
--------------------

:func:`deal_resamples` draws, with a seeded generator, which deals make up each
resample; a resample keeps whole deals (all their games), and with strata (the
table a deal was played at) it resamples the deals of each table among
themselves, so every resample has the tournament's own number of deals per
table.  :func:`percentile_interval` reads an interval off the resampled
figures.  :mod:`arena.stats.ratings` uses both.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from statistics import NormalDist

import numpy as np

#: z of a two-sided 95% interval.
Z95 = NormalDist().inv_cdf(0.975)


def z_value(confidence: float) -> float:
    """The two-sided normal quantile of ``confidence`` (1.959964 for 0.95)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def wilson(successes: float, n: float, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a share of ``successes`` out of ``n`` (``successes`` may be fractional).

    ``(nan, nan)`` for ``n == 0``.
    """
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"a share needs 0 <= successes <= n, not {successes} of {n}")
    if n == 0:
        return (math.nan, math.nan)
    z = z_value(confidence)
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return (low, high)


def effective_count(successes: Sequence[float], games: Sequence[float]) -> float:
    """The number of independent games worth the deals' ``successes`` out of ``games`` (one entry per deal).

    Between the number of deals and the number of games; see the module docstring.
    """
    w = np.asarray(successes, dtype=float)
    n = np.asarray(games, dtype=float)
    if w.shape != n.shape:
        raise ValueError("successes and games need one entry per deal each")
    deals = int(np.count_nonzero(n))
    total = float(n.sum())
    if total == 0:
        return 0.0
    p = float(w.sum()) / total
    if deals < 2 or p <= 0.0 or p >= 1.0:
        return float(deals)
    var = deals / (deals - 1) * float(((w - p * n) ** 2).sum()) / (total * total)
    if var <= 0.0:
        return total
    return float(min(total, max(deals, p * (1 - p) / var)))


def win_share_interval(
    successes: Sequence[float], games: Sequence[float], confidence: float = 0.95,
) -> tuple[float, float, float]:
    """``(share, low, high)``: the share of games won and its Wilson interval on the effective count.

    ``successes[d]`` and ``games[d]`` are the wins and games of deal ``d``.
    """
    total = float(np.sum(np.asarray(games, dtype=float)))
    if total == 0:
        return (math.nan, math.nan, math.nan)
    share = float(np.sum(np.asarray(successes, dtype=float))) / total
    n_eff = effective_count(successes, games)
    low, high = wilson(share * n_eff, n_eff, confidence)
    return (share, low, high)


def deal_resamples(
    deals: Sequence[Hashable], resamples: int, seed: int, strata: Sequence[Hashable] | None = None,
) -> np.ndarray:
    """``(resamples, len(deals))`` indices into ``deals``: each row a bootstrap resample of whole deals.

    With ``strata`` (one key per deal, e.g. its table) slot ``i`` of every row
    holds a deal drawn from the stratum of deal ``i``, so each stratum keeps its
    number of deals and its places in the order.
    Deterministic given ``seed``.
    """
    n = len(deals)
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, not {resamples}")
    rng = np.random.default_rng(seed)
    if strata is None:
        return rng.integers(0, n, size=(resamples, n))
    if len(strata) != n:
        raise ValueError("strata need one key per deal")
    groups: dict[Hashable, list[int]] = {}
    for i, key in enumerate(strata):
        groups.setdefault(key, []).append(i)
    out = np.empty((resamples, n), dtype=np.int64)
    for key in groups:  # first-seen order: deterministic for a given input
        members = np.asarray(groups[key], dtype=np.int64)
        # slot i keeps a deal of deal i's stratum, so a resample keeps the order of the strata too
        out[:, members] = members[rng.integers(0, len(members), size=(resamples, len(members)))]
    return out


def percentile_interval(samples: Sequence[float] | np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """The equal-tailed percentile interval of bootstrap ``samples``."""
    values = np.asarray(samples, dtype=float)
    if values.size == 0:
        return (math.nan, math.nan)
    tail = (1.0 - confidence) / 2.0 * 100.0
    low, high = np.percentile(values, [tail, 100.0 - tail])
    return (float(low), float(high))
