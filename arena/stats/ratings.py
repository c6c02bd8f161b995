"""Plackett-Luce (Weng-Lin) ratings of multi-player rankings, on an Elo scale, with deal-bootstrap intervals.

The fit
-------

Each game's whole ranking (ties allowed) updates the entrants' ``(mu, sigma)``
with ``openskill``'s Plackett-Luce model (Weng and Lin, 2011): openskill's
defaults (``mu = 25``, ``sigma = 25/3``, ``beta = 25/6``) except ``tau = 0``,
since a bot does not change strength between games (openskill's default ``tau``
keeps forgetting old games).

Weng-Lin is an online updater: its result depends on the order of the games,
and with ``tau = 0`` early games weigh more than late ones.  Measured on
sampled tournaments (5 entrants of known strength, 3 seats, balanced seating),
the Elo figure of one pass moves with the order of the deals by a standard
deviation of about 10 points at 40 deals a table (2,400 games), about as much
as the sampling error itself, and still by about 3 at 2,000 deals, where the
sampling error is nearer 2: a single fixed order would leave a noise that more
games hardly remove.  So the fit is **the mean of ``ORDERS = 16`` one-pass
fits over seeded shuffles of the deals** (a deal's games stay together, in a
shuffled order too: with a fixed order inside the deal, the last game, whose
seating always favours the same entrant when seats matter, would weigh a
little more in every deal), which divides that noise by 4; it makes the result a function
of the set of games and the seed only, not of the order ``games.csv`` lists
them in.  Without ties or seat luck the mean over orders converges to the
true strengths (150 Elo sampled, 149.7 fitted at 2,000 deals); ties carry less
information and pull the figures in a little (133 for 150 with the
calibration's tie rate).  More passes over the same games were not used:
openskill's sigmas would count every game again.

An entrant in two seats of one game (a filled table) is rated as two players of
one rating; both changes are applied.

The Elo scale
-------------

In openskill's Plackett-Luce a game of ``k`` players with ratings ``mu_i``
ranks them like ``exp(mu_i / c)``, ``c^2 = sum_i (sigma_i^2 + beta^2)``; as
the sigmas shrink with games, ``c -> beta sqrt(k)``.  Plackett-Luce's
pairwise marginal is logistic, so entrant ``i`` finishes ahead of ``j`` with
probability ``1 / (1 + exp(-(mu_i - mu_j) / c))``, which is Elo's
``1 / (1 + 10^(-(R_i - R_j) / 400))`` for
``R = mu * 400 / (ln(10) * beta * sqrt(k))``.  The Elo figure is that, with
the entrants' mean set to 0 (ratings are only defined up to a shift): a
100-point gap means the better entrant finishes ahead of the other 64% of the
time, in any game of the tournament's size.

The interval
------------

The games of a deal share the tiles, so they are not independent: the
bootstrap resamples whole deals, each deal drawn from the deals of its own
table (the set of entrants at it), so the design is kept
(:func:`arena.stats.intervals.deal_resamples`), and refits every resample in
one shuffled order of its deals and games, so that the interval also holds the order's
noise (a little more than the 16-order mean keeps: the interval errs wide).
The 95% interval is the percentile interval of the resampled Elo figures.  Refitting 1000 resamples one game at a time through openskill takes
minutes for a few thousand games, so the resamples run through
:func:`pl_update`, the same update written for numpy arrays (every resample
advanced one game at a time, together); a test checks it against openskill,
game by game.  Deterministic given the seed.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from openskill.models import PlackettLuce

from arena.stats.intervals import deal_resamples, percentile_interval

MU = 25.0
SIGMA = 25.0 / 3.0
BETA = 25.0 / 6.0
KAPPA = 1e-4  # openskill's floor on the factor a sigma^2 can shrink by in one game
RESAMPLES = 1000
ORDERS = 16


@dataclass(frozen=True)
class RankedGame:
    """One game's ranking: ``entrants[s]`` finished ``ranks[s]`` (1 best, equal ranks tie).

    ``deal`` is the key of the deal the game was dealt (games of a deal are resampled together).
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


def model() -> PlackettLuce:
    """openskill's Plackett-Luce model with the arena's settings (``tau = 0``)."""
    return PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, kappa=KAPPA, tau=0.0)


def fit_openskill(games: Iterable[RankedGame], entrants: Sequence[str] | None = None) -> dict[str, tuple[float, float]]:
    """``{entrant: (mu, sigma)}`` after one pass of openskill over ``games`` in the order given."""
    games = list(games)
    names = list(entrants) if entrants is not None else sorted({e for g in games for e in g.entrants})
    pl = model()
    state = {name: (MU, SIGMA) for name in names}
    for game in games:
        teams = [[pl.rating(mu=state[e][0], sigma=state[e][1])] for e in game.entrants]
        new = pl.rate(teams, ranks=list(game.ranks))
        change: dict[str, float] = {}
        shrink: dict[str, float] = {}
        for e, (before,), (after,) in zip(game.entrants, teams, new):
            change[e] = change.get(e, 0.0) + after.mu - state[e][0]
            shrink[e] = shrink.get(e, 1.0) * (after.sigma / state[e][1]) ** 2
        for e in change:
            mu, sigma = state[e]
            state[e] = (mu + change[e], sigma * math.sqrt(shrink[e]))
    return state


def pl_update(mu: np.ndarray, s2: np.ndarray, seats: np.ndarray, ranks: np.ndarray,
              active: np.ndarray | None = None) -> None:
    """One game for each of ``B`` rating sets at once, in place: openskill's Plackett-Luce update (``tau = 0``).

    ``mu``, ``s2``: ``(B, E)`` means and variances; ``seats``: ``(B, k)`` entrant
    indices of the game's seats; ``ranks``: ``(B, k)``; ``active``: ``(B,)``,
    False for a set that skips this step.
    """
    b = np.arange(mu.shape[0])[:, None]
    m = mu[b, seats]
    v = s2[b, seats]
    c = np.sqrt((v + BETA * BETA).sum(axis=1))[:, None]  # (B, 1)
    e = np.exp(m / c)
    at_or_behind = ranks[:, None, :] >= ranks[:, :, None]  # [b, q, s]: seat s ranked at or behind q
    sum_q = (e[:, None, :] * at_or_behind).sum(axis=2)  # (B, k)
    same = ranks[:, None, :] == ranks[:, :, None]
    a = same.sum(axis=2)  # (B, k): seats sharing q's rank
    p = e[:, :, None] / sum_q[:, None, :]  # [b, i, q]
    weight = (ranks[:, None, :] <= ranks[:, :, None]) / a[:, None, :]  # [b, i, q]: q ranked at or ahead of i
    k = seats.shape[1]
    eye = np.eye(k, dtype=bool)[None, :, :]
    omega = (weight * (eye - p)).sum(axis=2) * v / c
    delta = (weight * p * (1.0 - p)).sum(axis=2) * v / (c * c) * np.sqrt(v) / c
    # openskill 6.2 means to give tied seats the mean of their changes, but its averaging step reads
    # ratings it has already updated, so each tied seat keeps its own change; the twin does what openskill does
    dmu = omega
    factor = np.maximum(1.0 - delta, KAPPA)
    if active is not None:
        dmu = np.where(active[:, None], dmu, 0.0)
        factor = np.where(active[:, None], factor, 1.0)
    rows = np.broadcast_to(b, seats.shape)
    np.add.at(mu, (rows, seats), dmu)
    np.multiply.at(s2, (rows, seats), factor)


def elo_figures(mu: np.ndarray, players: int) -> np.ndarray:
    """The Elo scale of ratings ``mu`` (last axis: entrants): ``mu * 400 / (ln 10 * beta * sqrt(k))``, mean 0."""
    scale = 400.0 / (math.log(10.0) * BETA * math.sqrt(players))
    return (mu - mu.mean(axis=-1, keepdims=True)) * scale


def _arrays(games: Sequence[RankedGame], names: Sequence[str]) -> tuple[list[Hashable], np.ndarray, np.ndarray, np.ndarray]:
    """Deals in first-seen order, and per deal slot ``j``: seats, ranks, and which slots hold a game."""
    index = {name: i for i, name in enumerate(names)}
    by_deal: dict[Hashable, list[RankedGame]] = {}
    for g in games:
        by_deal.setdefault(g.deal, []).append(g)
    deals = list(by_deal)
    width = max(len(v) for v in by_deal.values())
    k = len(games[0].entrants)
    seats = np.zeros((len(deals), width, k), dtype=np.int64)
    ranks = np.zeros((len(deals), width, k))
    present = np.zeros((len(deals), width), dtype=bool)
    for d, key in enumerate(deals):
        for j, g in enumerate(by_deal[key]):
            seats[d, j] = [index[e] for e in g.entrants]
            ranks[d, j] = g.ranks
            present[d, j] = True
    return deals, seats, ranks, present


def fit_arrays(seats: np.ndarray, ranks: np.ndarray, present: np.ndarray, entrants: int,
               order: np.ndarray, within: np.ndarray | None = None) -> np.ndarray:
    """Final ``mu`` ``(B, entrants)`` of ``B`` passes at once; pass ``b`` plays deals ``order[b]``, in that order.

    ``within[b, slot]`` orders the games inside the deal of that slot (default: as stored).
    """
    sets = order.shape[0]
    mu = np.full((sets, entrants), MU)
    s2 = np.full((sets, entrants), SIGMA * SIGMA)
    for slot in range(order.shape[1]):
        d = order[:, slot]
        for j in range(seats.shape[1]):
            g = within[:, slot, j] if within is not None else np.full(sets, j)
            pl_update(mu, s2, seats[d, g], ranks[d, g], present[d, g])
    return mu


def _deals(games: Iterable[RankedGame]) -> list[list[RankedGame]]:
    """The games grouped by deal: deals sorted by key, a deal's games by id (whatever order they came in)."""
    by_deal: dict[Hashable, list[RankedGame]] = {}
    for g in games:
        by_deal.setdefault(g.deal, []).append(g)
    try:
        keys = sorted(by_deal)  # type: ignore[type-var]  # comparable keys; the except below takes the rest
    except TypeError:  # keys of mixed types: their text orders them
        keys = sorted(by_deal, key=repr)
    return [sorted(by_deal[k], key=lambda g: g.game_id) for k in keys]


def ratings(
    games: Sequence[RankedGame], entrants: Sequence[str] | None = None, resamples: int = RESAMPLES,
    seed: int = 0, confidence: float = 0.95, orders: int = ORDERS,
) -> pd.DataFrame:
    """Per entrant: games, ``mu``, ``sigma``, ``elo`` and its interval ``elo_low``-``elo_high``.

    ``mu``/``sigma`` are openskill's, averaged over ``orders`` seeded shuffles of
    the deals (see the module docstring); the interval is the deal bootstrap's.
    All games need the same number of seats.  The result depends only on the
    set of games and ``seed``, not on the order the games are given in.  With
    ``resamples = 0`` the interval is left out (``nan``).
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
    deals = _deals(games)
    fit_seed, boot_seed = np.random.SeedSequence(seed).spawn(2)
    rng = np.random.default_rng(fit_seed)
    mus = np.empty((orders, len(names)))
    sigmas = np.empty((orders, len(names)))
    for r in range(orders):
        shuffled = [deals[d][j] for d in rng.permutation(len(deals)) for j in rng.permutation(len(deals[d]))]
        state = fit_openskill(shuffled, names)
        mus[r] = [state[n][0] for n in names]
        sigmas[r] = [state[n][1] for n in names]
    mu = mus.mean(axis=0)
    elo = elo_figures(mu, players)
    low = np.full(len(names), math.nan)
    high = np.full(len(names), math.nan)
    if resamples > 0:
        samples = bootstrap_elo([g for d in deals for g in d], names, resamples, boot_seed)
        for i in range(len(names)):
            low[i], high[i] = percentile_interval(samples[:, i], confidence)
    counts = {n: 0 for n in names}
    for g in games:
        for e in set(g.entrants):
            counts[e] += 1
    return pd.DataFrame({
        "entrant": names,
        "games": [counts[n] for n in names],
        "mu": mu,
        "sigma": np.sqrt((sigmas**2).mean(axis=0)),
        "elo": elo,
        "elo_low": low,
        "elo_high": high,
    })


def bootstrap_elo(games: Sequence[RankedGame], names: Sequence[str], resamples: int,
                  seed: int | np.random.SeedSequence, block: int = 250) -> np.ndarray:
    """``(resamples, entrants)`` Elo figures, each refitted on a resample of whole deals in a shuffled order.

    Deals are drawn within their table (stratum: the entrants at it); deterministic given ``seed``.
    """
    deals, seats, ranks, present = _arrays(list(games), names)
    strata = [tuple(sorted(set(names[i] for i in seats[d][present[d]].ravel()))) for d in range(len(deals))]
    draw_seed, order_seed = np.random.SeedSequence(seed).spawn(2) if isinstance(seed, int) else seed.spawn(2)
    order = deal_resamples(deals, resamples, int(draw_seed.generate_state(1)[0]), strata)
    shuffle = np.random.default_rng(order_seed)
    order = shuffle.permuted(order, axis=1)
    within = shuffle.permuted(np.broadcast_to(np.arange(seats.shape[1]), (*order.shape, seats.shape[1])), axis=2)
    players = seats.shape[2]
    out = np.empty((resamples, len(names)))
    for start in range(0, resamples, block):  # blocks keep the (B, k, k) temporaries small
        part = slice(start, start + block)
        mu = fit_arrays(seats, ranks, present, len(names), order[part], within[part])
        out[part] = elo_figures(mu, players)
    return out
