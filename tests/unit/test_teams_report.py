"""The report's Teams? section (arena.report.teams) on synthetic games."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

from arena.report.teams import TEAMS_FILE, pair_lines, teams_display, teams_lines, teams_table, write_teams

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_collusion import NAMES, synthetic_games  # noqa: E402


@pytest.fixture(scope="module")
def teamed() -> pd.DataFrame:
    return teams_table(synthetic_games(1200, NAMES, team=("a", "b")), "uptown")


def test_the_section_names_the_team_first_and_says_what_it_tests(teamed: pd.DataFrame) -> None:
    lines = teams_lines(teamed, width=80)
    assert lines[1] == "Teams?"
    assert {" ".join(lines[3].split()[:3]), " ".join(lines[4].split()[:3])} == {"a -> b", "b -> a"}
    assert lines[3].endswith("FLAGGED (spares)") and lines[4].endswith("FLAGGED (spares)")
    assert any("more pairs, none flagged" in line for line in lines)
    assert any(line.startswith("Does A help B? 30 ordered pairs tested: 2 pair(s) flagged") for line in lines)
    paragraph = lines[lines.index(next(line for line in lines if line.startswith("Does A help B?"))):-2]
    assert len(paragraph) > 1 and all(len(line) <= 80 for line in paragraph)
    assert sum(line.startswith(("a -> b: FLAGGED", "b -> a: FLAGGED")) for line in lines) == 2


def test_the_display_holds_every_tested_pair(teamed: pd.DataFrame) -> None:
    display = teams_display(teamed)
    assert len(display) == 30 and list(display["team?"]).count("FLAGGED (spares)") == 2


def test_one_pair_s_detail_both_ways(teamed: pd.DataFrame) -> None:
    lines = pair_lines(teamed, "c,a")
    assert lines[0].startswith("c -> a: not flagged")
    assert next(line for line in lines[1:] if not line.startswith(" ")).startswith("a -> c: not flagged")
    with pytest.raises(ValueError, match="two different entrants"):
        pair_lines(teamed, "a,zz")
    with pytest.raises(ValueError, match="two different entrants"):
        pair_lines(teamed, "a,a")


def test_teams_csv(teamed: pd.DataFrame, tmp_path: Path) -> None:
    path = write_teams(teamed, tmp_path)
    assert path.name == TEAMS_FILE
    back = pd.read_csv(path)
    assert list(back.columns) == list(teamed.columns) and back["flagged"].sum() == 2


def test_where_every_game_seats_every_entrant_the_section_says_the_results_test_could_not_run() -> None:
    table = teams_table(synthetic_games(200, ["a", "b", "c", "d"]), "uptown")  # four entrants, four seats
    text = " ".join(teams_lines(table, width=200))
    assert "Pairs each test ran on: captures 12, gifts 12, results 0." in text
    assert "rarely plays without" in " ".join(pair_lines(table, "a,b"))
