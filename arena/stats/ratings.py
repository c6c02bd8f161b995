"""Plackett-Luce ratings of multi-player rankings by maximum likelihood, on an Elo scale, with their intervals.

The model
---------

Entrant ``e`` has a strength ``theta_e``.  A game's ranking is read from the
top: the first place goes to a seat with probability proportional to
``exp(theta)`` among all seats, the next among the seats left, and so on
(Plackett-Luce).  A faulted seat has already been ranked behind every seat
that did not fault (the tournament rank), so it is just a low place.  Seats
that tie share their place: each of the ``m`` tied seats is chosen against
the whole set of seats still unplaced, the tied ones included (Breslow's
handling of ties, as in a Cox model): a tie says the seats were close and
pulls their strengths together; no tie parameter is needed.  An entrant in two
seats of one game (a filled table) is two seats of one strength.

The fit is the maximum of the likelihood of all the games' rankings, by
Newton's method on the concave log-likelihood, with the entrants' mean
strength at 0.  The likelihood depends on the games only through how many
times each **pattern** occurs, a pattern being the entrants at the table in
order of finish with the ties marked, so the games are counted by pattern
first (:func:`patterns`): a million games of four entrants at one table have
at most 75 patterns, and the fit costs the same as for a hundred games.

Plackett-Luce's pairwise marginal is logistic: ``i`` finishes ahead of ``j``
with probability ``1 / (1 + exp(-(theta_i - theta_j)))`` in any game of the
tournament's size, which is Elo's ``1 / (1 + 10^(-(R_i - R_j) / 400))`` for
``R = theta * 400 / ln 10``: a 100-point gap means finishing ahead 64% of the
time.

No prior, except where the maximum does not exist
--------------------------------------------------

The maximum is finite exactly when the graph "``i`` finished ahead of or level
with ``j`` in some game" is strongly connected (Hunter, 2004): otherwise some
set of entrants finished ahead of all the others every time they met and the
likelihood keeps rising as the gap grows.  Then, and only then, every entrant
gets a prior of one virtual win and one virtual loss against a virtual entrant
of strength 0 (a weak prior, worth two pairwise results), which keeps every
rating finite; an entrant that won every game gets a high rating with a wide
interval, not an infinite one.

The interval
------------

Games of one deal share the tiles, so the interval does not trust the model's
information alone: the standard error is the sandwich's (Huber-White), the
inverse observed information (the negative Hessian at the maximum, its
generalised inverse for the centred strengths) around the spread of the
games' scores **summed by deal**, and the 95% interval is
``elo +- t * se``, ``t`` Student's on the deals minus one.  A few deals say
little of their own spread, so the middle term mixes in the model's
information as :data:`PRIOR_DEALS` deals' worth (its weight
``1 / (deals + 1)``): a tournament whose every deal came out the same still
gets an interval.  With fewer than :data:`MIN_DEALS` deals the scores are
summed by game and ``t`` is the normal quantile.  When the prior was needed
the interval is the posterior's (the inverse of the negative Hessian with the
prior): the one-sided games say nothing of their own spread.  Deterministic,
no resampling, as cheap as the fit.  The calibration benchmark measures the
coverage on sampled tournaments with a per-deal seat luck and ties
(``docs/explanation/statistics.md``).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from arena.stats.intervals import z_value

#: Elo points per unit of Plackett-Luce strength.
ELO_PER_THETA = 400.0 / math.log(10.0)
#: Newton iterations at most, and the step (in strength units) below which the fit has converged.
MAX_ITERATIONS = 100
TOLERANCE = 1e-10
#: Deals at least for the interval to sum the scores by deal (fewer: by game).
MIN_DEALS = 10
#: The model's information counts as this many deals in the interval's middle term.
PRIOR_DEALS = 1


@dataclass(frozen=True)
class RankedGame:
    """One game's ranking: ``entrants[s]`` finished ``ranks[s]`` (1 best, equal ranks tie).

    ``deal`` is the key of the deal the game was dealt.
    """

    game_id: str
    deal: Hashable
    entrants: tuple[str, ...]
    ranks: tuple[float, ...]

    def __post_init__(self) -> None:
        if len(self.entrants) != len(self.ranks) or len(self.entrants) < 2:
            raise ValueError(f"game {self.game_id}: needs one rank per seat and at least 2 seats")


def ranked_games(frame: pd.DataFrame, rank: str = "uptown_rank") -> list[RankedGame]:
    """The games of ``games.csv`` rows (one row per seat: game_id, table, deal, seat, entrant, ``rank``), in row order.

    A game's deal is its ``(table, deal)``.
    """
    missing = [c for c in ("game_id", "table", "deal", "seat", "entrant", rank) if c not in frame.columns]
    if missing:
        raise ValueError(f"games need the columns {', '.join(missing)}")
    games = []
    for game_id, rows in frame.groupby("game_id", sort=False):
        rows = rows.sort_values("seat")
        games.append(RankedGame(
            game_id=str(game_id), deal=(int(rows["table"].iloc[0]), int(rows["deal"].iloc[0])),
            entrants=tuple(str(e) for e in rows["entrant"]), ranks=tuple(float(r) for r in rows[rank]),
        ))
    return games


# -- patterns -------------------------------------------------------------------


@dataclass(frozen=True)
class Patterns:
    """Distinct rankings and how often each occurred.

    ``order[p]``: the entrant indices of pattern ``p`` by finish (ties in index order);
    ``start[p, j]``: the first position of the tie group of position ``j``; ``count[p]``: its games.
    """

    order: np.ndarray
    start: np.ndarray
    count: np.ndarray
    #: ``pattern[g]``: the pattern of game ``g``.
    pattern: np.ndarray


def patterns(seats: np.ndarray, ranks: np.ndarray) -> Patterns:
    """Count the games ``seats`` (``(games, k)`` entrant indices) with ``ranks`` (``(games, k)``) by pattern."""
    seats = np.asarray(seats, dtype=np.int64)
    ranks = np.asarray(ranks, dtype=float)
    if seats.ndim != 2 or seats.shape != ranks.shape or seats.shape[1] < 2:
        raise ValueError("games need one rank per seat and at least 2 seats")
    games, k = seats.shape
    # canonical order: by rank, then by entrant index (so the seat order does not matter)
    by = np.lexsort((seats, ranks), axis=1) if games else np.zeros((0, k), dtype=np.int64)
    order = np.take_along_axis(seats, by, axis=1)
    r = np.take_along_axis(ranks, by, axis=1)
    new_group = np.ones((games, k), dtype=bool)
    new_group[:, 1:] = r[:, 1:] != r[:, :-1]
    position = np.broadcast_to(np.arange(k), (games, k))
    start = np.maximum.accumulate(np.where(new_group, position, 0), axis=1)
    key = np.concatenate([order, start], axis=1)
    width = int(order.max(initial=0)) + 1
    if games and (width ** k) * (k ** k) < 2 ** 62:  # one integer a game: np.unique on it is fast
        code = np.zeros(games, dtype=np.int64)
        for column in range(k):
            code = code * width + order[:, column]
        for column in range(k):
            code = code * k + start[:, column]
        _, first, inverse, count = np.unique(code, return_index=True, return_inverse=True, return_counts=True)
        rows = key[first]
    else:
        rows, inverse, count = np.unique(key, axis=0, return_inverse=True, return_counts=True)
    return Patterns(order=rows[:, :k].copy(), start=rows[:, k:].copy(), count=count.astype(float),
                    pattern=inverse.reshape(-1))


def game_arrays(games: Sequence[RankedGame], names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """``(seats, ranks)`` arrays of :class:`RankedGame` s, seats as indices into ``names``."""
    index = {name: i for i, name in enumerate(names)}
    seats = np.array([[index[e] for e in g.entrants] for g in games], dtype=np.int64)
    ranks = np.array([g.ranks for g in games], dtype=float)
    return seats, ranks


# -- the fit ----------------------------------------------------------------------


def _choices(theta: np.ndarray, pats: Patterns) -> tuple[np.ndarray, np.ndarray]:
    """``(pi, denom)``: ``pi[p, j, l]`` the chance of position ``l`` at the choice of position ``j``'s place."""
    k = pats.order.shape[1]
    t = theta[pats.order]  # (P, k)
    w = np.exp(t - t.max(axis=1, keepdims=True))
    # risk[p, j, l]: position l is still unplaced when position j's tie group is chosen
    risk = np.arange(k)[None, None, :] >= pats.start[:, :, None]
    denom = (w[:, None, :] * risk).sum(axis=2)  # (P, k)
    return w[:, None, :] * risk / denom[:, :, None], denom


def pattern_scores(theta: np.ndarray, pats: Patterns, entrants: int) -> np.ndarray:
    """``(P, entrants)``: the gradient of one game's log-likelihood, for each pattern."""
    pi, _ = _choices(theta, pats)
    seat = 1.0 - pi.sum(axis=1)  # (P, l)
    out = np.zeros((len(pats.order), entrants))
    rows = np.arange(len(pats.order))
    for column in range(pats.order.shape[1]):
        np.add.at(out, (rows, pats.order[:, column]), seat[:, column])
    return out


def _derivatives(theta: np.ndarray, pats: Patterns, entrants: int) -> tuple[float, np.ndarray, np.ndarray]:
    """Log-likelihood, gradient and Hessian of the Breslow Plackett-Luce model at ``theta``."""
    order, count = pats.order, pats.count
    k = order.shape[1]
    t = theta[order]
    pi, denom = _choices(theta, pats)
    loglik = float((count[:, None] * (t - t.max(axis=1, keepdims=True) - np.log(denom))).sum())
    grad_seat = count[:, None] * (1.0 - pi.sum(axis=1))  # (P, l): once chosen, minus its chances
    grad = np.bincount(order.ravel(), weights=grad_seat.ravel(), minlength=entrants)
    # Hessian per pattern: -sum_j (diag(pi_j) - pi_j pi_j^T), scattered onto the entrants
    block = np.einsum("pjl,pjm->plm", pi, pi) - np.einsum("pjl,lm->plm", pi, np.eye(k))
    block *= count[:, None, None]
    rows = np.broadcast_to(order[:, :, None], block.shape).ravel()
    cols = np.broadcast_to(order[:, None, :], block.shape).ravel()
    hess = np.bincount(rows * entrants + cols, weights=block.ravel(), minlength=entrants * entrants)
    return loglik, grad, hess.reshape(entrants, entrants)


def connected(pats: Patterns, entrants: int) -> bool:
    """Whether "finished ahead of or level with" is strongly connected: the maximum likelihood is finite."""
    if entrants <= 1:
        return True
    reach = np.eye(entrants, dtype=bool)
    k = pats.order.shape[1]
    for j in range(k):
        for m in range(k):
            ahead = pats.start[:, j] <= pats.start[:, m]  # j's group chosen no later than m's: j reached m
            reach[pats.order[ahead, j], pats.order[ahead, m]] = True
    while True:
        grown = (reach.astype(np.int64) @ reach.astype(np.int64)) > 0
        if (grown == reach).all():
            return bool(reach.all())
        reach = grown


def fit(pats: Patterns, entrants: int,
        deals: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, bool, int]:
    """Maximum-likelihood strengths (mean 0), their covariance, whether the prior was needed, and the
    deals the covariance summed over (0: games, or the prior's curvature).

    See the module docstring for the model and the prior.
    """
    prior = not connected(pats, entrants)
    theta = np.zeros(entrants)
    centre = np.eye(entrants) - 1.0 / entrants

    def objective(x: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        loglik, grad, hess = _derivatives(x, pats, entrants)
        if prior:  # one win and one loss against a virtual entrant of strength 0, for each entrant
            p = 1.0 / (1.0 + np.exp(-x))
            loglik += float((x - 2.0 * np.logaddexp(0.0, x)).sum())
            grad = grad + 1.0 - 2.0 * p
            hess = hess - np.diag(2.0 * p * (1.0 - p))
        return loglik, grad, hess

    loglik, grad, hess = objective(theta)
    for _ in range(MAX_ITERATIONS):
        info = -hess if prior else -hess + 1.0 / entrants  # the free shift (no prior) pinned by the mean
        step = np.linalg.solve(info, grad)
        size = 1.0
        while True:  # halve a step that would lower the likelihood (far from the maximum)
            trial = theta + size * step
            new = objective(trial)
            if new[0] >= loglik - 1e-12 or size < 1e-6:
                break
            size /= 2.0
        theta = trial
        loglik, grad, hess = new
        if np.abs(size * step).max() < TOLERANCE:
            break
    theta = theta - theta.mean()
    if prior:  # a one-sided entrant's games say nothing of their spread: the posterior's curvature
        return theta, centre @ np.linalg.inv(-hess) @ centre, prior, 0
    inverse = np.linalg.pinv(-hess)
    # the sandwich: the spread of the games' (or deals') scores, not the model's, between two inverse informations
    scores = pattern_scores(theta, pats, entrants)
    clusters = 0 if deals is None else len(np.unique(deals))
    if clusters < MIN_DEALS:
        meat = (scores.T * pats.count) @ scores
        clusters = 0
    else:
        _, index = np.unique(np.asarray(deals), return_inverse=True)
        per_deal = np.stack([np.bincount(index.reshape(-1), weights=scores[pats.pattern, e], minlength=clusters)
                             for e in range(entrants)], axis=1)
        # a few deals say little of their own spread: mix in the model's, as PRIOR_DEALS deals' worth
        weight = PRIOR_DEALS / (clusters + PRIOR_DEALS)
        meat = (1 - weight) * per_deal.T @ per_deal * (clusters / (clusters - 1)) + weight * -hess
    return theta, centre @ inverse @ meat @ inverse @ centre, prior, clusters


def t_value(confidence: float, freedom: float) -> float:
    """The two-sided Student-t quantile (Cornish-Fisher expansion in ``1 / freedom``; ``z`` when infinite)."""
    z = z_value(confidence)
    if not math.isfinite(freedom):
        return z
    v = float(freedom)
    return (z + (z**3 + z) / (4 * v) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3))


def ratings_of(seats: np.ndarray, ranks: np.ndarray, names: Sequence[str], deals: np.ndarray | None = None,
               confidence: float = 0.95) -> pd.DataFrame:
    """Per entrant of ``names``: games, ``mu`` (strength, mean 0), ``sigma`` (its standard error), ``elo``,
    ``elo_low``, ``elo_high``; ``seats`` index ``names``, ``deals`` (one key a game) groups the games
    whose scores the interval sums (each game its own without).  See the module docstring.
    """
    seats = np.asarray(seats, dtype=np.int64)
    if seats.size == 0:
        raise ValueError("no games to rate")
    pats = patterns(seats, ranks)
    theta, cov, _, clusters = fit(pats, len(names), deals)
    se = np.sqrt(np.maximum(np.diag(cov), 0.0))
    half = t_value(confidence, clusters - 1 if clusters else math.inf) * se * ELO_PER_THETA
    played = np.zeros(len(names), dtype=np.int64)
    for column in range(seats.shape[1]):  # an entrant in two seats of a game played it once
        seen = (seats[:, :column] == seats[:, column:column + 1]).any(axis=1)
        played += np.bincount(seats[~seen, column], minlength=len(names))
    elo = theta * ELO_PER_THETA
    return pd.DataFrame({
        "entrant": list(names),
        "games": played,
        "mu": theta,
        "sigma": se,
        "elo": elo,
        "elo_low": elo - half,
        "elo_high": elo + half,
    })


def ratings(games: Sequence[RankedGame], entrants: Sequence[str] | None = None,
            confidence: float = 0.95) -> pd.DataFrame:
    """Per entrant: games, ``mu``, ``sigma``, ``elo`` and its interval ``elo_low``-``elo_high``.

    The maximum-likelihood Plackett-Luce fit of the module docstring; it depends only on the set
    of games (in fact on their patterns' counts).  All games need the same number of seats.
    """
    games = list(games)
    if not games:
        raise ValueError("no games to rate")
    players = len(games[0].entrants)
    if any(len(g.entrants) != players for g in games):
        raise ValueError("all games to rate need the same number of seats")
    names = list(entrants) if entrants is not None else sorted({e for g in games for e in g.entrants})
    unknown = sorted({e for g in games for e in g.entrants} - set(names))
    if unknown:
        raise ValueError(f"games name entrants that are not rated: {', '.join(unknown)}")
    seats, ranks = game_arrays(games, names)
    deals = pd.factorize(pd.Series([repr(g.deal) for g in games]))[0]
    return ratings_of(seats, ranks, names, deals, confidence)
