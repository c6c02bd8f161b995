"""The standings' order rule, ratings with intervals, and win-share intervals that do not collapse."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from test_results import make_games

from arena.report.tables import build_tables, rated_games, standings, write_tables
from arena.report.text import STANDINGS_DROP_ORDER, format_tables, head_to_head_matrix
from arena.stats.intervals import win_share_interval
from arena.stats.ratings import ranked_games

#: Entrant ranks of one game by outcome: X: a b c, Y: b c a, Z: c b a (uptown: fewest groups ranks first).
OUTCOMES = {"X": {"a": 1, "b": 2, "c": 3}, "Y": {"b": 1, "c": 2, "a": 3}, "Z": {"c": 1, "b": 2, "a": 3}}


def disputed(deals: int = 30) -> pd.DataFrame:
    """a wins 40% of the games but finishes last in the other 60%; b wins 30% and is never last.

    Win shares a 40%, b 30%, c 30%; b finishes ahead of a in 60% of the games and of c in 70%.
    Ordered by win share (the old rule) a came first with a lower rating than b.
    """
    cycle = "XXXXYYYZZZ"
    seatings = (["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"])
    spec = []
    for d in range(deals):
        for r, seated in enumerate(seatings):
            outcome = OUTCOMES[cycle[(3 * d + r) % len(cycle)]]
            spec.append((d, seated, [outcome[e] for e in seated], [0, 0, 0], set()))
    return make_games(spec)


def printed_standings(text: str) -> list[tuple[str, int]]:
    """(entrant, rating) of each line of a printed standings table (whole width)."""
    lines = text.split("\n\n")[0].splitlines()
    heading = lines[1].split()
    assert heading[:4] == ["#", "entrant", "games", "rating"], lines[1]
    rows = []
    for line in lines[2:]:
        cells = line.split()
        if not cells or not cells[0].isdigit():
            break
        rows.append((cells[1], int(cells[3])))
    return rows


@pytest.mark.slow
def test_the_order_follows_the_rating_where_the_win_share_disagrees():
    games = disputed()
    table = standings(games, "uptown", ["a", "b", "c"])
    by_name = table.set_index("entrant")
    assert by_name.loc["a", "win_share_uptown"] > by_name.loc["b", "win_share_uptown"]
    assert by_name.loc["b", "rating"] > by_name.loc["a", "rating"]
    assert list(table["entrant"]) == ["b", "c", "a"]
    assert list(table["place"]) == [1, 2, 3]
    assert table["rating"].is_monotonic_decreasing
    printed = printed_standings(format_tables(build_tables(games, "uptown", ["a", "b", "c"]), "text"))
    assert [name for name, _ in printed] == ["b", "c", "a"]
    assert [r for _, r in printed] == sorted((r for _, r in printed), reverse=True)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.slow
def test_no_printed_rating_is_above_one_placed_higher(seed):
    """Random tournaments, both scorings: places follow the rating, ties by the deciding win share."""
    rng = np.random.default_rng(seed)
    names = ["p", "q", "r", "s"]
    spec = []
    for d in range(12):
        seated = list(rng.permutation(names)[:3])
        for r in range(3):
            rotated = seated[r:] + seated[:r]
            spec.append((d, rotated, list(rng.integers(1, 6, size=3)), list(rng.integers(0, 3, size=3)),
                         {0} if rng.random() < 0.1 else set()))
    games = make_games(spec)
    for scoring in ("uptown", "blockers"):
        tables = build_tables(games, scoring, names)
        st = tables.standings
        assert st["rating"].is_monotonic_decreasing
        for upper, lower in zip(st.itertuples(), st.iloc[1:].itertuples()):
            if upper.rating == lower.rating:
                assert getattr(upper, f"win_share_{scoring}") >= getattr(lower, f"win_share_{scoring}")
        printed = printed_standings(format_tables(tables, "text"))
        assert [name for name, _ in printed] == list(st["entrant"])
        assert [r for _, r in printed] == sorted((r for _, r in printed), reverse=True)


@pytest.mark.slow
def test_ratings_have_intervals_and_need_no_seed():
    games = disputed(20)
    one = standings(games, "uptown", ["a", "b", "c"])
    assert one.equals(standings(games, "uptown", ["a", "b", "c"]))
    assert (one["rating_low"] <= one["rating"]).all() and (one["rating"] <= one["rating_high"]).all()
    assert (one["rating_high"] > one["rating_low"]).all()
    assert one["rating"].mean() == pytest.approx(0.0, abs=1e-6)  # the Elo figures are centred on the field
    assert (one["sigma"] > 0).all() and one["mu"].notna().all()


def test_the_rating_is_fitted_on_tournament_ranks():
    """A seat that faults ranks last: the entrant who finished first but faulted every time is rated last."""
    spec = [(d, seated, [1, 2, 3], [0, 0, 0], set()) for d in range(10)
            for seated in (["f", "g", "h"], ["f", "h", "g"])]
    clean = standings(make_games(spec), "uptown", ["f", "g", "h"])
    assert clean["entrant"].iloc[0] == "f"
    faulty = standings(make_games([(d, s, g, c, {0}) for d, s, g, c, _ in spec]), "uptown", ["f", "g", "h"])
    assert faulty["entrant"].iloc[-1] == "f" and faulty["wins_uptown"].iloc[-1] == 0


def test_win_share_intervals_do_not_collapse_at_none_or_all():
    spec = [(d, ["w", "l"] if r == 0 else ["l", "w"], [1, 2] if r == 0 else [2, 1], [0, 0], set())
            for d in range(10) for r in range(2)]
    table = standings(make_games(spec), "uptown", ["w", "l"]).set_index("entrant")
    assert table.loc["l", "win_share_uptown"] == 0.0
    assert table.loc["l", "ci_low_uptown"] == 0.0 and 0.0 < table.loc["l", "ci_high_uptown"] < 0.5
    assert table.loc["w", "ci_high_uptown"] == 1.0 and 0.5 < table.loc["w", "ci_low_uptown"] < 1.0
    # The deal is the cluster: the interval is win_share_interval's on per-deal counts.
    share, low, high = win_share_interval([0] * 10, [2] * 10)
    assert (table.loc["l", "ci_low_uptown"], table.loc["l", "ci_high_uptown"]) == pytest.approx((low, high))


def test_win_share_interval_uses_the_deals_as_clusters():
    spec = [(d, ["a", "b"] if r == 0 else ["b", "a"], [1, 2] if (d % 3 == 0) == (r == 0) else [2, 1], [0, 0], set())
            for d in range(12) for r in range(2)]
    games = make_games(spec)
    row = standings(games, "uptown", ["a", "b"]).set_index("entrant").loc["a"]
    per_deal = games[games["entrant"] == "a"].groupby(["table", "deal"])["t_uptown_won"].agg(["sum", "size"])
    _, low, high = win_share_interval(per_deal["sum"], per_deal["size"])
    assert (row["ci_low_uptown"], row["ci_high_uptown"]) == pytest.approx((low, high))
    assert row["ci_low_uptown"] < row["win_share_uptown"] < row["ci_high_uptown"]


def test_rated_games_are_the_stats_module_s_ranked_games():
    games = disputed(4).sample(frac=1.0, random_state=2).reset_index(drop=True)
    for scoring in ("uptown", "blockers"):
        expected = sorted(ranked_games(games, f"t_{scoring}_rank"), key=lambda g: g.game_id)
        assert rated_games(games, scoring) == expected


def test_an_entrant_without_games_has_no_rating_and_comes_last():
    table = standings(disputed(6), "uptown", ["a", "b", "c", "idle"])
    last = table.iloc[-1]
    assert last["entrant"] == "idle" and last["games"] == 0
    assert all(math.isnan(last[c]) for c in ("rating", "rating_low", "rating_high"))
    assert "-" in format_tables(build_tables(disputed(6), "uptown", ["a", "b", "c", "idle"]), "text")


def test_standings_csv_carries_the_rating_and_its_interval(tmp_path):
    tables = build_tables(disputed(6), "uptown", ["a", "b", "c"])
    write_tables(tmp_path, tables)
    written = pd.read_csv(tmp_path / "standings.csv")
    for column in ("rating", "rating_low", "rating_high", "mu", "sigma", "ci_low_uptown", "ci_high_uptown"):
        assert column in written.columns
        assert written[column].notna().all()
    assert list(written.columns[:7]) == ["place", "entrant", "bot", "games", "rating", "rating_low", "rating_high"]


def test_a_narrow_table_leaves_out_the_rating_interval_before_the_rating():
    assert STANDINGS_DROP_ORDER.index("95% CI") < STANDINGS_DROP_ORDER.index("rating 95% CI")
    assert "rating" not in STANDINGS_DROP_ORDER
    tables = build_tables(disputed(6), "uptown", ["a", "b", "c"])
    whole = format_tables(tables, "text", only_standings=True)
    assert "rating 95% CI" in whole
    for width in (60, 40):
        narrow = format_tables(tables, "text", only_standings=True, width=width)
        assert max(len(line) for line in narrow.splitlines()) <= width, narrow
        assert narrow.splitlines()[1].split()[:3] == ["#", "entrant", "rating"], narrow
    assert "rating 95% CI" in narrow.split("left out to fit", 1)[1]  # at 40 columns


def test_the_head_to_head_matrix_shows_the_games_where_pairs_differ():
    even = build_tables(disputed(2), "uptown", ["a", "b", "c"])
    assert all("(" not in cell for cell in head_to_head_matrix(even).to_numpy().ravel())
    assert "each pair shared 6 games" in format_tables(even, "text")
    spec = [(0, ["a", "b"], [1, 2], [0, 0], set()), (0, ["b", "a"], [1, 2], [0, 0], set()),
            (1, ["a", "c"], [1, 2], [0, 0], set())]
    uneven = build_tables(make_games(spec), "uptown", ["a", "b", "c"])
    matrix = head_to_head_matrix(uneven)
    assert matrix.loc["a", "b"] == "50.0% (2)" and matrix.loc["a", "c"] == "100.0% (1)"
    assert "in brackets: the games the pair shared" in format_tables(uneven, "text")


def test_a_sweep_gets_an_interval_that_holds_its_rating():
    """Won every game: every resample of the deals is the same, yet six games cannot pin a rating down."""
    spec = [(d, ["w", "l"] if r == 0 else ["l", "w"], [1, 2] if r == 0 else [2, 1], [0, 0], set())
            for d in range(3) for r in range(2)]
    table = standings(make_games(spec), "uptown", ["w", "l"]).set_index("entrant")
    for name in ("w", "l"):
        low, rating, high = table.loc[name, ["rating_low", "rating", "rating_high"]]
        assert low < rating < high and high - low > 200
    assert table.loc["l", "rating_low"] < 0 < table.loc["w", "rating_high"]
    # an entrant that met every opponent in every way keeps the bootstrap's interval, the rating inside it
    mixed = standings(disputed(10), "uptown", ["a", "b", "c"])
    assert ((mixed["rating_low"] <= mixed["rating"]) & (mixed["rating"] <= mixed["rating_high"])).all()
