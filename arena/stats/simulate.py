"""Sampled game outcomes of known strength, to calibrate the tests and intervals without playing games.

The model (a Plackett-Luce / Thurstone-style race):

* entrant ``e`` has a strength ``elo[e]`` in logistic Elo;
* each deal gives each **seat** a luck ``N(0, seat_luck^2)`` (in natural log
  units) shared by every game of that deal, the stand-in for the tiles a seat
  is dealt: the duplicate format exists to cancel it;
* in each game the entrant of seat ``s`` performs
  ``elo[e] * ln(10) / 400 + luck[s] + G``, ``G`` a standard Gumbel draw; best
  performance ranks 1.  Without luck and ties, entrant ``a`` finishes ahead of
  ``b`` with probability ``1 / (1 + 10^(-(elo[a] - elo[b]) / 400))`` (the
  Gumbel difference is logistic), and the whole ranking is Plackett-Luce;
* with ``tie_width > 0`` performances are floored to a grid of that width and
  equal cells share a rank (the ties of the deciding scoring).

Equal strengths are symmetric under every option, so their expected shares and
scores are exactly even: the SPRT's false-positive rate can be measured
against a known truth.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from arena.plan.seating import seatings
from arena.stats.ratings import RankedGame

LN10_400 = math.log(10.0) / 400.0


def sample_table(
    elo: Sequence[float], deals: int, rng: np.random.Generator, design: str = "balanced",
    seat_luck: float = 0.0, tie_width: float = 0.0,
) -> np.ndarray:
    """Ranks of one table's entrants, ``(deals, games per deal, entrants)``; game ``g`` uses seating ``g`` of ``design``.

    ``ranks[d, g, e]`` is entrant ``e``'s rank (1 best, ties share) in game ``g`` of deal ``d``.
    """
    k = len(elo)
    order = np.array([s for _, s in seatings(tuple(range(k)), design)])  # (games, seats) -> entrant
    games = len(order)
    strength = np.asarray(elo, dtype=float) * LN10_400
    luck = rng.normal(0.0, seat_luck, size=(deals, 1, k)) if seat_luck > 0 else np.zeros((deals, 1, k))
    gumbel = rng.gumbel(size=(deals, games, k))
    perf_by_seat = strength[order][None, :, :] + luck + gumbel
    if tie_width > 0:
        perf_by_seat = np.floor(perf_by_seat / tie_width)
    perf = np.empty_like(perf_by_seat)
    rows = np.arange(games)[:, None]
    perf[:, rows, order] = perf_by_seat  # back to entrant order
    better = (perf[:, :, None, :] > perf[:, :, :, None]).sum(axis=3)
    return 1 + better


def pair_scores(elo_diff: float, pairs: int, rng: np.random.Generator, seat_luck: float = 0.0,
                tie_width: float = 0.0) -> np.ndarray:
    """``(pairs, 2)`` game scores of A (1 win, 0.5 tie, 0 loss) in two-player deal pairs, A ``elo_diff`` better."""
    ranks = sample_table([elo_diff, 0.0], pairs, rng, "rotate", seat_luck, tie_width)
    a, b = ranks[:, :, 0], ranks[:, :, 1]
    return np.where(a < b, 1.0, np.where(a == b, 0.5, 0.0))


def field_scores(elo: Sequence[float], deals: int, rng: np.random.Generator, design: str = "balanced",
                 seat_luck: float = 0.0, tie_width: float = 0.0) -> np.ndarray:
    """Per-deal scores of entrant 0 against the others (:func:`arena.stats.field.field_score`), ``(deals,)``."""
    ranks = sample_table(elo, deals, rng, design, seat_luck, tie_width)
    a = ranks[:, :, :1]
    rivals = ranks[:, :, 1:]
    points = np.where(a < rivals, 1.0, np.where(a == rivals, 0.5, 0.0))
    return points.mean(axis=(1, 2))


def sample_tournament(
    names: Sequence[str], elo: Sequence[float], players: int, deals: int, rng: np.random.Generator,
    design: str = "balanced", seat_luck: float = 0.0, tie_width: float = 0.0,
) -> list[RankedGame]:
    """Every k-subset of ``names`` a table, ``deals`` deals each, as :class:`RankedGame` s (deal-major order)."""
    import itertools

    tables = list(itertools.combinations(range(len(names)), players))
    per_table = [sample_table([elo[i] for i in t], deals, rng, design, seat_luck, tie_width) for t in tables]
    games = []
    for d in range(deals):
        for ti, t in enumerate(tables):
            ranks = per_table[ti][d]
            for g in range(ranks.shape[0]):
                games.append(RankedGame(
                    game_id=f"t{ti:03d}-d{d:04d}-r{g}", deal=(ti, d),
                    entrants=tuple(names[i] for i in t), ranks=tuple(float(r) for r in ranks[g]),
                ))
    return games
