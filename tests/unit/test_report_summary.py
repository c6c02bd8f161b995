"""What report.html's summary says (arena.report.summary): the leader and whether the games tell it from the
second, the games, a match's verdict and the Teams? finding."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from test_results import make_games

from arena.report.summary import COLUMN_NOTES, leader_line, summary_lines, teams_line
from arena.report.tables import build_tables
from arena.report.teams import teams_table
from arena.results.files import TABLES

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_collusion import NAMES, synthetic_games  # noqa: E402


def games(deals: int, beaten: str) -> list:
    """``a`` first at every game, ``beaten`` last."""
    order = {"a": 1, "b": 2, "c": 3} if beaten == "c" else {"a": 1, "c": 2, "b": 3}
    seatings = (["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"])
    return [(d, seated, [order[e] for e in seated], [0, 0, 0], set()) for d in range(deals) for seated in seatings]


def test_the_leader_is_named_with_its_interval_and_the_second_s_overlap_said():
    few = build_tables(make_games(games(2, "c")), "uptown", ["a", "b", "c"])
    line = leader_line(few)
    assert line.startswith("a leads with a rating of +") and "(95% interval [" in line
    assert "winning 100.0% of its games under Uptown scoring." in line
    # Two deals: a's interval reaches down into b's.
    assert "Second, b (" in line and line.endswith("the intervals overlap, so these games do not yet tell the two apart.")


def test_a_clear_lead_is_said_to_be_beyond_both_intervals():
    clear = make_games([(d, seated, [{"a": 1, "b": 2, "c": 3}[e] for e in seated], [0, 0, 0], set())
                        for d in range(40) for seated in (["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"])])
    line = leader_line(build_tables(clear, "uptown", ["a", "b", "c"]))
    assert "Second, b (" in line and line.endswith("is behind it beyond both intervals.")


def test_the_summary_gives_the_games_a_match_s_verdict_and_the_teams_finding():
    tables = build_tables(make_games(games(2, "c")), "uptown", ["a", "b", "c"])
    match = {"bots": [{"name": "a"}, {"name": "b"}], "players": 2, "deals": 2, "games": 4, "verdict": "H1",
             "state": "done", "parameters": {"sprt": {"elo0": 0, "elo1": 50}, "max_games": 100}}
    lines = summary_lines(tables, 6, match)
    assert lines[1] == "6 games of 3 players played."
    assert lines[2:] == ["a vs b: 4 games (2 game pairs), verdict H1", "H1 accepted: a is at least 50 Elo better"]
    assert len(summary_lines(tables, 6)) == 2  # no match, no teams: nothing more


@pytest.mark.parametrize("team", [None, ("a", "b")])
def test_the_teams_line_names_the_flagged_pairs(team):
    table = teams_table(synthetic_games(400, NAMES, team=team), "uptown")
    line = teams_line(table)
    if team is None:
        assert line.startswith("Teams?: no pair of entrants plays as a team (")
    else:
        # The team spares each other both ways: the line names whichever direction the test flagged.
        assert line.startswith("Teams?: ") and "FLAGGED" in line and ("a -> b" in line or "b -> a" in line)


def test_every_table_of_the_page_has_its_columns_said():
    assert set(COLUMN_NOTES) == {*TABLES, "teams"}
