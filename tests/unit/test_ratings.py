"""Plackett-Luce ratings with openskill, their Elo scale and the deal bootstrap's intervals."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from arena.stats.ratings import (
    BETA,
    SIGMA,
    RankedGame,
    bootstrap_elo,
    elo_figures,
    fit_openskill,
    model,
    pl_update,
    ranked_games,
    ratings,
)
from arena.stats.simulate import sample_tournament


def test_numpy_update_is_openskills_game_by_game():
    """The vectorised twin used by the bootstrap gives openskill's ratings, ties and all."""
    rng = np.random.default_rng(3)
    names = ["a", "b", "c", "d"]
    pl = model()
    state = {n: (25.0, SIGMA) for n in names}
    mu = np.full((1, 4), 25.0)
    s2 = np.full((1, 4), SIGMA**2)
    for _ in range(60):
        seats = rng.permutation(4)[:3]
        ranks = [float(r) for r in rng.integers(1, 4, size=3)]  # ties included
        teams = [[pl.rating(mu=state[names[i]][0], sigma=state[names[i]][1])] for i in seats]
        for i, (team,) in zip(seats, pl.rate(teams, ranks=ranks)):
            state[names[i]] = (team.mu, team.sigma)
        pl_update(mu, s2, seats[None, :], np.array([ranks]))
        assert mu[0] == pytest.approx([state[n][0] for n in names], abs=1e-9)
        assert np.sqrt(s2[0]) == pytest.approx([state[n][1] for n in names], abs=1e-9)


def test_inactive_sets_do_not_move():
    mu = np.full((2, 3), 25.0)
    s2 = np.full((2, 3), SIGMA**2)
    pl_update(mu, s2, np.array([[0, 1, 2], [0, 1, 2]]), np.array([[1.0, 2.0, 3.0]] * 2), np.array([True, False]))
    assert mu[0, 0] > 25.0 and (mu[1] == 25.0).all() and (s2[1] == SIGMA**2).all()


def test_elo_scale():
    # R = mu * 400 / (ln 10 * beta * sqrt(k)), mean 0: a gap of beta * sqrt(2) * ln(10) / 4 mu is 100 Elo for 2 seats
    gap = BETA * math.sqrt(2) * math.log(10) / 4
    assert elo_figures(np.array([25.0, 25.0 + gap]), 2) == pytest.approx([-50.0, 50.0])


def test_an_entrant_in_two_seats_gets_both_changes():
    game = RankedGame("g", 0, ("a", "b", "a", "b"), (1.0, 2.0, 1.0, 2.0))
    state = fit_openskill([game], ["a", "b"])
    pl = model()
    new = pl.rate([[pl.rating()] for _ in range(4)], ranks=[1.0, 2.0, 1.0, 2.0])
    assert state["a"][0] == pytest.approx(25.0 + 2 * (new[0][0].mu - 25.0))


def _games(deals: int = 15, seed: int = 1) -> list[RankedGame]:
    return sample_tournament(["a", "b", "c", "d"], [-100.0, 0.0, 0.0, 100.0], 3, deals,
                             np.random.default_rng(seed), seat_luck=0.5, tie_width=0.5)


@pytest.mark.slow
def test_ratings_are_deterministic_given_a_seed_and_ignore_the_input_order():
    games = _games()
    one = ratings(games, resamples=100, seed=5)
    assert one.equals(ratings(list(reversed(games)), resamples=100, seed=5))
    other = ratings(games, resamples=100, seed=6)
    assert not one[["elo_low", "elo_high"]].equals(other[["elo_low", "elo_high"]])
    assert list(one.columns) == ["entrant", "games", "mu", "sigma", "elo", "elo_low", "elo_high"]
    assert (one["elo_low"] <= one["elo"]).all() and (one["elo"] <= one["elo_high"]).all()
    assert one["elo"].sum() == pytest.approx(0.0, abs=1e-9)
    # the strongest and the weakest sampled entrants come out so
    assert one.loc[one["elo"].idxmax(), "entrant"] == "d" and one.loc[one["elo"].idxmin(), "entrant"] == "a"


def test_bootstrap_resamples_whole_deals():
    """Every deal the same two games (A wins one, B the other): resampling deals can only give the same data.

    Resampling single games would mix the two outcomes unevenly (A's wins out of 60 games would vary like a
    binomial's, about +-4, some 45 Elo); with whole deals only the shuffled order of the games moves the figures.
    """
    games = []
    for d in range(30):
        games.append(RankedGame(f"d{d:02d}-r0", d, ("a", "b"), (1.0, 2.0)))
        games.append(RankedGame(f"d{d:02d}-r1", d, ("b", "a"), (1.0, 2.0)))
    samples = bootstrap_elo(games, ["a", "b"], 50, seed=1)
    assert (samples.std(axis=0) < 10).all()
    table = ratings(games, resamples=50, seed=1)
    assert table["elo"].abs().max() < 5.0  # the mean over 16 orders


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
