"""The tables built from games.csv: tournament ranks, wins, intervals, head to head, seats, ratings."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest
from oracles import game_rows

from arena.report import columns as column_module
from arena.report.columns import (
    HEAD_TO_HEAD_COLUMNS,
    ORDER_COLUMNS,
    SEATS_COLUMNS,
    STANDINGS_COLUMNS,
    TIME_USE_COLUMNS,
)
from arena.report.tables import (
    build_tables,
    head_to_head,
    load_games,
    ratings,
    seats,
    standings,
    with_tournament_ranks,
)
from arena.report.text import format_tables
from arena.results.rows import COLUMNS, SeatTime, header_text, rows_text, tournament_ranks


def fake_record(groups: list[int], captured: list[int]) -> dict:
    """A record with just what game_rows reads: result rows ranked as C1/C2 rank them."""
    n = len(groups)
    result = []
    for seat in range(n):
        penalty = captured[seat]
        result.append({
            "seat": seat, "groups": groups[seat], "captures": {"red": captured[seat]} if captured[seat] else {},
            "captured_total": captured[seat], "blockers_penalty": penalty, "blockers_score": groups[seat] + penalty,
        })
    for row in result:
        up = (row["groups"], row["captured_total"])
        bl = (row["blockers_score"], row["captured_total"])
        row["uptown_rank"] = 1 + sum((r["groups"], r["captured_total"]) < up for r in result)
        row["blockers_rank"] = 1 + sum((r["blockers_score"], r["captured_total"]) < bl for r in result)
    moves = [{"seat": i % n} for i in range(10 * n)]
    return {"result": result, "moves": moves}


def make_games(games: list[tuple[int, list[str], list[int], list[int], set[int]]], scoring: str = "uptown") -> pd.DataFrame:
    """games: (deal, entrants by seat, groups, captured, faulted seats) -> the frame load_games gives."""
    rows = []
    for index, (deal, entrants, groups, captured, faulted) in enumerate(games):
        record = fake_record(groups, captured)
        rows += game_rows(
            f"t000-d{deal:04d}-r{index}", 0, deal, index, 1234 + deal, entrants, ["random"] * len(entrants),
            record, faulted, [SeatTime(0.001)] * len(entrants), scoring,
        )
    text = header_text() + rows_text(rows)
    return load_games_text(text)


def load_games_text(text: str, tmp=None) -> pd.DataFrame:
    frame = pd.read_csv(io.StringIO(text), dtype={"game_id": str, "entrant": str, "bot": str}, keep_default_na=False)
    return with_tournament_ranks(frame)


def test_faulted_seats_rank_behind_every_other():
    assert tournament_ranks([1, 2, 3, 4], [True, False, False, False]) == [4, 1, 2, 3]
    assert tournament_ranks([1, 1, 3], [False, False, True]) == [1, 1, 3]
    assert tournament_ranks([2, 1, 3], [True, True, False]) == [3, 2, 1]


def test_game_rows_follow_the_columns():
    record = fake_record([3, 5, 4], [1, 0, 2])
    rows = game_rows("t000-d0000-r0", 0, 0, 0, 9, ["a", "b", "c"], ["random", "greedy", "random"],
                     record, {0}, [SeatTime(0.5), SeatTime(0.25), SeatTime(0.125)], "uptown")
    assert len(rows) == 3 and all(len(row) == len(COLUMNS) for row in rows)
    by_name = [dict(zip(COLUMNS, row)) for row in rows]
    assert [r["won"] for r in by_name] == [0, 0, 1]  # seat 0 had fewest groups but faulted
    assert [r["faulted"] for r in by_name] == [1, 0, 0]
    assert by_name[0]["captures_red"] == 1 and by_name[0]["captures_blue"] == 0
    assert [r["moves"] for r in by_name] == [10, 10, 10]
    assert by_name[1]["bot"] == "greedy" and by_name[2]["seconds"] == "0.125000"


def test_standings_count_wins_ranks_and_shared_first_places():
    games = make_games([
        (0, ["a", "b"], [3, 5], [0, 0], set()),   # a wins
        (0, ["b", "a"], [4, 4], [1, 1], set()),   # shared first place: a win for each
        (1, ["a", "b"], [6, 2], [0, 0], set()),   # b wins
        (1, ["b", "a"], [2, 6], [0, 0], {0}),     # b faulted: a wins under the tournament rule
    ])
    table = standings(games, "uptown", ["a", "b"]).set_index("entrant")
    assert table.loc["a", "games"] == 4 and table.loc["b", "games"] == 4
    assert table.loc["a", "wins_uptown"] == 3 and table.loc["b", "wins_uptown"] == 2
    assert table.loc["a", "win_share_uptown"] == pytest.approx(0.75)
    assert table.loc["a", "mean_rank_uptown"] == pytest.approx((1 + 1 + 2 + 1) / 4)
    assert table.loc["b", "faults"] == 1 and table.loc["a", "faults"] == 0
    assert table.loc["a", "mean_groups"] == pytest.approx((3 + 4 + 6 + 6) / 4)
    assert table.loc["a", "mean_captures"] == pytest.approx(0.25)
    assert table.loc["a", "mean_blockers_score"] == pytest.approx((3 + 5 + 6 + 6) / 4)
    assert list(standings(games, "uptown")["entrant"]) == ["a", "b"]
    assert list(standings(games, "uptown")["place"]) == [1, 2]


def test_standings_order_follows_the_deciding_scoring():
    # b has fewer groups (uptown) but captures a lot (blockers)
    games = make_games([
        (d, ["a", "b"] if d % 2 else ["b", "a"], [5, 4] if d % 2 else [4, 5], [0, 3] if d % 2 else [3, 0], set())
        for d in range(6)
    ])
    assert list(standings(games, "uptown")["entrant"]) == ["b", "a"]
    assert list(standings(games, "blockers")["entrant"]) == ["a", "b"]


@pytest.mark.slow
def test_intervals_need_no_seed():
    spec = [(d, ["a", "b"], [3, 5] if d % 3 else [5, 3], [0, 0], set()) for d in range(30)]
    games = make_games(spec)
    one = standings(games, "uptown")
    two = standings(games, "uptown")
    # maximum likelihood and Wilson: the same games give the same intervals, with nothing drawn at random
    assert one[["rating_low", "rating_high", "ci_low_uptown", "ci_high_uptown"]].equals(
        two[["rating_low", "rating_high", "ci_low_uptown", "ci_high_uptown"]])
    row = one.set_index("entrant").loc["b"]
    assert row["rating_low"] < row["rating"] < row["rating_high"]
    row = one.set_index("entrant").loc["a"]
    assert row["ci_low_uptown"] <= row["win_share_uptown"] <= row["ci_high_uptown"]


def test_head_to_head_shares():
    games = make_games([
        (0, ["a", "b", "c"], [1, 2, 3], [0, 0, 0], set()),
        (1, ["a", "b", "c"], [2, 1, 2], [0, 0, 0], set()),
        (2, ["a", "b", "c"], [3, 3, 1], [0, 0, 0], set()),
    ])
    h2h = head_to_head(games, "uptown").set_index(["entrant", "opponent"])
    assert len(h2h) == 6
    ab = h2h.loc[("a", "b")]
    assert (ab["games"], ab["ahead"], ab["tied"], ab["behind"]) == (3, 1, 1, 1)
    assert ab["ahead_share"] == pytest.approx(1 / 3)
    ac = h2h.loc[("a", "c")]
    assert (ac["ahead"], ac["tied"], ac["behind"]) == (1, 1, 1)
    for (x, y), row in h2h.iterrows():
        back = h2h.loc[(y, x)]
        assert row["ahead"] == back["behind"] and row["tied"] == back["tied"]


def test_head_to_head_counts_a_filled_table_once_per_game():
    # Four seats, two entrants: a sits twice.
    games = make_games([(0, ["a", "b", "a", "b"], [1, 2, 3, 4], [0] * 4, set())])
    row = head_to_head(games, "uptown").set_index(["entrant", "opponent"]).loc[("a", "b")]
    assert row["games"] == 1


@pytest.mark.slow
def test_ratings_order_and_independence_of_row_order():
    spec = [(d, ["a", "b", "c"], [1, 2, 3] if d % 4 else [2, 1, 3], [0, 0, 0], set()) for d in range(20)]
    games = make_games(spec)
    r = ratings(games, "uptown", ["a", "b", "c"])
    assert r.loc["a", "rating"] > r.loc["b", "rating"] > r.loc["c", "rating"]
    shuffled = games.sample(frac=1.0, random_state=3).reset_index(drop=True)
    pd.testing.assert_frame_equal(ratings(shuffled, "uptown", ["a", "b", "c"]), r, check_exact=False, rtol=1e-9)
    even = make_games([(d, ["a", "b"] if r else ["b", "a"], [1, 2], [0, 0], set()) for d in range(10) for r in (0, 1)])
    fair = ratings(even, "uptown", ["a", "b"])
    # equal records: level, and level within the interval
    assert abs(fair.loc["a", "rating"]) < 1e-9 and fair.loc["a", "rating"] == pytest.approx(-fair.loc["b", "rating"])
    assert ((fair["rating_low"] < 0) & (fair["rating_high"] > 0)).all()
    # an entrant that never lost still gets a finite rating and interval
    sweep = make_games([(d, ["a", "b"], [1, 2], [0, 0], set()) for d in range(10)])
    assert np.isfinite(ratings(sweep, "uptown", ["a", "b"]).to_numpy()).all()


def test_seats_table():
    games = make_games([(d, ["a", "b"] if d % 2 else ["b", "a"], [1, 2], [0, 1], set()) for d in range(4)])
    table = seats(games).set_index("seat")
    assert table.loc[0, "win_share_uptown"] == 1.0 and table.loc[1, "win_share_uptown"] == 0.0
    assert table.loc[0, "mean_groups"] == 1.0 and table.loc[1, "mean_captures"] == 1.0
    assert list(table["games"]) == [4, 4]


def test_load_games_skips_a_partial_tail_and_incomplete_games(tmp_path):
    rows = []
    for d in range(3):
        rows += game_rows(f"t000-d{d:04d}-r0", 0, d, 0, d, ["a", "b"], ["random"] * 2,
                          fake_record([1, 2], [0, 0]), set(), [SeatTime(0.0)] * 2, "uptown")
    text = header_text() + rows_text(rows[:5])  # the third game has one row only
    path = tmp_path / "games.csv"
    path.write_text(text + "t000-d0003-r0,0,3")  # and a half-written line
    games = load_games(path, players=2)
    assert sorted(games["game_id"].unique()) == ["t000-d0000-r0", "t000-d0001-r0"]


def test_the_tables_have_exactly_the_columns_their_constants_name():
    """The contract the plots and the text read: each frame's columns are its *_COLUMNS, in that order."""
    spec = [(d, [["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"]][d % 3], [1, 2, 3], [0, 1, 0], set())
            for d in range(6)]
    tables = build_tables(make_games(spec), "uptown", ["a", "b", "c"])
    assert tuple(tables.standings.columns) == STANDINGS_COLUMNS
    assert tuple(tables.head_to_head.columns) == HEAD_TO_HEAD_COLUMNS
    assert tuple(tables.seats.columns) == SEATS_COLUMNS
    assert tuple(tables.order.columns) == ORDER_COLUMNS
    assert tuple(tables.time_use.columns) == TIME_USE_COLUMNS
    # Every column name the module exports is a column of one of the tables.
    named = set()
    for name, value in vars(column_module).items():
        if name.isupper() and not name.startswith("_"):
            named |= set(value.values()) if isinstance(value, dict) else {value} if isinstance(value, str) else set()
    every = {*STANDINGS_COLUMNS, *HEAD_TO_HEAD_COLUMNS, *SEATS_COLUMNS, *ORDER_COLUMNS, *TIME_USE_COLUMNS}
    assert named <= every, named - every


@pytest.mark.parametrize("fmt", ["text", "csv", "markdown", "json"])
def test_formats(fmt):
    games = make_games([(d, ["a", "b"] if d % 2 else ["b", "a"], [1, 2], [0, 1], set()) for d in range(4)])
    tables = build_tables(games, "blockers", ["a", "b"])
    out = format_tables(tables, fmt, title="demo")
    if fmt == "json":
        data = json.loads(out)
        assert data["scoring"] == "blockers"
        assert {row["entrant"] for row in data["standings"]} == {"a", "b"}
        assert len(data["head_to_head"]) == 2 and len(data["seats"]) == 2
    elif fmt == "csv":
        assert out.startswith("place,entrant,bot,games,rating,rating_low,rating_high,")
        assert "#" not in out and len(pd.read_csv(io.StringIO(out))) == 2  # one table, nothing else
    elif fmt == "markdown":
        assert "## demo - Standings" in out and "| # | entrant |" in out
    else:
        assert out.startswith("demo - Standings\n") and "wins (blockers)" in out and "Head to head" in out
