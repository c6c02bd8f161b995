"""``arena report``'s Teams? section, ``--collusion A,B`` and teams.csv (arena.report.teams)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from arena.cli import main

THREE = """
name = "trio"
players = 3
deals = 2
seed = 5
isolation = "none"
[[entrants]]
bot = "random"
[[entrants]]
bot = "greedy"
[[entrants]]
name = "greedy-2"
bot = "greedy"
"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("teams")
    path = base / "trio.toml"
    path.write_text(THREE)
    out = base / "out"
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(out), "-q", "-j", "1"])
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.slow
def test_the_text_report_ends_with_the_teams_section(folder: Path, cli) -> None:
    result = cli.invoke(main, ["report", str(folder)])
    assert result.exit_code == 0, result.output
    section = result.output[result.output.index("\nTeams?\n"):]
    assert "helper -> helped" in section and "6 ordered pairs tested: no pair flagged" in section


@pytest.mark.slow
def test_one_pair_s_detail_both_ways(folder: Path, cli) -> None:
    result = cli.invoke(main, ["report", str(folder), "--collusion", "greedy,random"])
    assert result.exit_code == 0, result.output
    detail = result.output.splitlines()  # the pair's lines alone, not the report's tables
    assert len(detail) == 4 and "Standings" not in result.output, result.output
    assert detail[0].startswith("greedy -> random: not flagged (Holm p")
    assert detail[1].endswith("results: random rarely plays without greedy)")  # three entrants, three seats
    assert detail[2].startswith("random -> greedy: not flagged (Holm p")
    wrong = cli.invoke(main, ["report", str(folder), "--collusion", "greedy,nobody"])
    assert wrong.exit_code == 1 and "two different entrants" in wrong.output
    three = cli.invoke(main, ["report", str(folder), "--collusion", "greedy"])
    assert three.exit_code == 1 and "two entrants" in three.output
    csv = cli.invoke(main, ["report", str(folder), "--collusion", "greedy,random", "--format", "csv"])
    assert csv.exit_code == 2 and "takes no --format" in csv.output


@pytest.mark.slow
def test_html_holds_the_table_and_writes_teams_csv_into_the_folder(folder: Path, cli, tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    result = cli.invoke(main, ["report", str(folder), "--html", "--out", str(page)])
    assert result.exit_code == 0, result.output
    text = page.read_text(encoding="utf-8")
    assert "Teams?" in text and "Teams?: no pair of entrants plays as a team (6 ordered pairs tested)" in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.html"]  # a page elsewhere is written alone
    result = cli.invoke(main, ["report", str(folder), "--html"])
    assert result.exit_code == 0, result.output
    teams = pd.read_csv(folder / "teams.csv")
    assert len(teams) == 6 and not teams["flagged"].any()


@pytest.mark.slow
def test_two_players_have_no_teams_section(cli, tmp_path: Path, write_tournament) -> None:
    path = tmp_path / "duo.toml"
    path.write_text(THREE.replace("players = 3", "players = 2").replace('name = "trio"', 'name = "duo"'))
    out = tmp_path / "out"
    assert cli.invoke(main, ["run", str(path), "--out", str(out), "-q", "-j", "1"]).exit_code == 0
    result = cli.invoke(main, ["report", str(out)])
    assert result.exit_code == 0 and "Teams?" not in result.output
    pair = cli.invoke(main, ["report", str(out), "--collusion", "greedy,random"])
    assert pair.exit_code == 1 and "no third party" in pair.output


@pytest.mark.slow
def test_a_report_that_builds_its_tables_tests_the_games_it_read_for_them(folder: Path, cli, monkeypatch) -> None:
    import arena.report.games as games

    reads: list[str] = []
    load = games.load_games

    def counted(path, *args, **kwargs):
        reads.append(str(path))
        return load(path, *args, **kwargs)

    monkeypatch.setattr("arena.report.folder_tables.load_games", counted)  # the one reader of games.csv's frame
    # another scoring: the tables are built from games.csv, and Teams? tests the same frame
    result = cli.invoke(main, ["report", str(folder), "--scoring", "blockers"])
    assert result.exit_code == 0, result.output
    assert "6 ordered pairs tested" in result.output and len(reads) == 1, reads
    reads.clear()
    # the run's own tables, and its Teams? table stamped with them: games.csv is not read at all
    result = cli.invoke(main, ["report", str(folder)])
    assert result.exit_code == 0, result.output
    assert "6 ordered pairs tested" in result.output and reads == [], reads
