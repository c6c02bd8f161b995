"""Plackett-Luce ratings by maximum likelihood: the fit, its patterns, the prior where it is needed, the interval."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from arena.stats.ratings import (
    ELO_PER_THETA,
    RankedGame,
    connected,
    patterns,
    ranked_games,
    ratings,
    ratings_of,
    t_value,
)
from arena.stats.simulate import sample_tournament


def _games(deals: int = 15, seed: int = 1) -> list[RankedGame]:
    return sample_tournament(["a", "b", "c", "d"], [-100.0, 0.0, 0.0, 100.0], 3, deals,
                             np.random.default_rng(seed), seat_luck=0.5, tie_width=0.5)


def test_two_players_is_the_logistic_mle():
    """Two entrants, 30 wins of a against 10 of b: the maximum is log(30/10), in Elo 400 log10(3)."""
    games = [RankedGame(f"g{i}", i, ("a", "b"), (1.0, 2.0) if i < 30 else (2.0, 1.0)) for i in range(40)]
    table = ratings(games).set_index("entrant")
    assert table.loc["a", "elo"] - table.loc["b", "elo"] == pytest.approx(400 * math.log10(3.0), abs=1e-6)
    assert table["elo"].sum() == pytest.approx(0.0, abs=1e-9)
    # a binomial's: var(theta_a - theta_b) = 1 / (n p (1 - p)), each half of it, whether from the games'
    # scores (40 deals of one game, times 40/39) or the model's
    assert table.loc["a", "sigma"] == pytest.approx(0.5 / math.sqrt(40 * 0.75 * 0.25), rel=2e-2)


def test_three_player_rankings_match_a_direct_likelihood():
    """Newton's maximum is where the Plackett-Luce log-likelihood (with a Breslow tie) has no slope."""
    games = _games(deals=6)
    table = ratings(games).set_index("entrant")
    theta = table["mu"]

    def loglik(th: dict[str, float]) -> float:
        total = 0.0
        for g in games:
            for i, (e, r) in enumerate(zip(g.entrants, g.ranks)):
                left = [f for f, q in zip(g.entrants, g.ranks) if q >= r]
                total += th[e] - math.log(sum(math.exp(th[f]) for f in left))
        return total

    base = loglik(theta.to_dict())
    for name in theta.index:
        for step in (1e-3, -1e-3):
            moved = theta.to_dict()
            moved[name] += step
            assert loglik(moved) <= base + 1e-9


def test_patterns_count_games_whatever_the_seat_order():
    seats = np.array([[0, 1, 2], [2, 0, 1], [1, 2, 0], [0, 1, 2]])
    ranks = np.array([[1, 2, 3], [3, 1, 2], [2, 3, 1], [1, 1, 3]], dtype=float)
    pats = patterns(seats, ranks)
    assert sorted(pats.count.tolist()) == [1.0, 3.0]  # the first three are one ranking: 0, 1, 2
    tied = int(np.flatnonzero(pats.count == 1)[0])
    assert pats.order[tied].tolist() == [0, 1, 2] and pats.start[tied].tolist() == [0, 0, 2]
    assert pats.pattern.tolist().count(tied) == 1


def test_ratings_depend_only_on_the_set_of_games():
    games = _games()
    one = ratings(games)
    pd.testing.assert_frame_equal(one, ratings(list(reversed(games))), check_exact=False, rtol=1e-9)
    assert list(one.columns) == ["entrant", "games", "mu", "sigma", "elo", "elo_low", "elo_high"]
    assert (one["elo_low"] < one["elo"]).all() and (one["elo"] < one["elo_high"]).all()
    assert one["elo"].sum() == pytest.approx(0.0, abs=1e-9)
    assert one.loc[one["elo"].idxmax(), "entrant"] == "d" and one.loc[one["elo"].idxmin(), "entrant"] == "a"
    assert (one["elo"] == one["mu"] * ELO_PER_THETA).all()


def test_an_entrant_ahead_every_time_gets_the_prior_and_a_finite_rating():
    games = [RankedGame(f"g{i}", i, ("a", "b", "c"), (1.0, 2.0 + i % 2, 3.0 - i % 2)) for i in range(20)]
    names = ["a", "b", "c"]
    seats = np.array([[0, 1, 2]] * 20)
    ranks = np.array([g.ranks for g in games])
    assert not connected(patterns(seats, ranks), 3)
    table = ratings(games).set_index("entrant")
    assert np.isfinite(table["elo"]).all() and table.loc["a", "elo"] > 300
    assert table.loc["a", "elo_high"] - table.loc["a", "elo_low"] > 200  # wide: the data do not say how far ahead
    assert table.loc["b", "elo"] == pytest.approx(table.loc["c", "elo"], abs=1e-6)
    assert ratings_of(seats, ranks, names)["elo"].tolist() == table["elo"].tolist()


def test_the_interval_sums_scores_by_deal_with_a_t_quantile():
    """Every deal the same two games (A wins one, B the other): the deals agree exactly, so the
    deal-clustered interval keeps only the model's share (1 / 31 of it); the game-level one (no deals)
    is that of 60 coin flips."""
    games = []
    for d in range(30):
        games.append(RankedGame(f"d{d:02d}-r0", d, ("a", "b"), (1.0, 2.0)))
        games.append(RankedGame(f"d{d:02d}-r1", d, ("b", "a"), (1.0, 2.0)))
    by_deal = ratings(games)
    assert by_deal["elo"].abs().max() < 1e-9
    model = 0.5 / math.sqrt(60 * 0.25)
    assert by_deal["sigma"].iloc[0] == pytest.approx(model * math.sqrt(1 / 31), rel=1e-6)
    seats = np.array([[0, 1] if g.entrants[0] == "a" else [1, 0] for g in games])
    ranks = np.array([g.ranks for g in games])
    by_game = ratings_of(seats, ranks, ["a", "b"])
    assert by_game["sigma"].iloc[0] == pytest.approx(0.5 / math.sqrt(60 * 0.25), rel=1e-6)
    assert t_value(0.95, 9) == pytest.approx(2.262, abs=2e-3) and t_value(0.95, math.inf) == pytest.approx(1.95996, abs=1e-5)


def test_ranked_games_from_games_csv_rows():
    frame = pd.DataFrame({
        "game_id": ["t000-d0000-r0"] * 3 + ["t000-d0000-r1"] * 3,
        "table": [0] * 6, "deal": [0] * 6, "seat": [0, 1, 2, 0, 1, 2],
        "entrant": ["x", "y", "z", "z", "x", "y"], "uptown_rank": [1, 2, 2, 3, 1, 2],
    })
    games = ranked_games(frame)
    assert games == [
        RankedGame("t000-d0000-r0", (0, 0), ("x", "y", "z"), (1.0, 2.0, 2.0)),
        RankedGame("t000-d0000-r1", (0, 0), ("z", "x", "y"), (3.0, 1.0, 2.0)),
    ]
    with pytest.raises(ValueError, match="columns blockers_rank"):
        ranked_games(frame, rank="blockers_rank")


def test_bad_inputs():
    with pytest.raises(ValueError, match="no games"):
        ratings([])
    with pytest.raises(ValueError, match="same number of seats"):
        ratings([RankedGame("a", 0, ("a", "b"), (1, 2)), RankedGame("b", 1, ("a", "b", "c"), (1, 2, 3))])
    with pytest.raises(ValueError, match="not rated: c"):
        ratings([RankedGame("a", 0, ("a", "c"), (1, 2))], entrants=["a"])
    with pytest.raises(ValueError, match="one rank per seat"):
        RankedGame("a", 0, ("a", "b"), (1,))
