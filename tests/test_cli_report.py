"""``arena report``: the tables of a results folder, rebuilt from games.csv without replaying."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main

SMALL = """
name = "rep"
players = 2
deals = 3
seed = 8
scoring = "blockers"
[[entrants]]
bot = "random"
[[entrants]]
bot = "greedy"
"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("report")
    path = base / "rep.toml"
    path.write_text(SMALL)
    out = base / "out"
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(out), "-q", "-j", "1"])
    assert result.exit_code == 0, result.output
    return out


def report(*args: str):
    return CliRunner().invoke(main, ["report", *args])


def test_text_report_has_all_three_tables(folder):
    result = report(str(folder))
    assert result.exit_code == 0, result.output
    assert result.output.startswith("rep - Standings\n")
    assert "Head to head" in result.output and "By seat" in result.output
    assert "wins (blockers)" in result.output  # the tournament's own scoring decides by default


def test_report_matches_the_tables_the_run_wrote(folder):
    result = report(str(folder), "--format", "csv")
    assert result.exit_code == 0
    sections = {}
    for block in result.output.split("# ")[1:]:
        name, body = block.split("\n", 1)
        sections[name] = body.rstrip("\n") + "\n"
    for name in ("standings", "head_to_head", "seats"):
        assert sections[name] == (folder / f"{name}.csv").read_text()


def test_json_and_scoring_choice(folder):
    uptown = json.loads(report(str(folder), "--format", "json", "--scoring", "uptown").output)
    blockers = json.loads(report(str(folder), "--format", "json").output)
    assert uptown["scoring"] == "uptown" and blockers["scoring"] == "blockers"
    assert {r["entrant"] for r in uptown["standings"]} == {"random", "greedy"}
    assert sum(r["games"] for r in uptown["standings"]) == 2 * 6
    assert len(uptown["head_to_head"]) == 2 and [s["seat"] for s in uptown["seats"]] == [0, 1]


def test_markdown(folder):
    result = report(str(folder), "--format", "markdown")
    assert result.exit_code == 0
    assert result.output.startswith("## rep - Standings\n\n| # | entrant |")


def test_partial_results_are_reported_as_such(folder, tmp_path):
    partial = tmp_path / "partial"
    partial.mkdir()
    (partial / "tournament.toml").write_text((folder / "tournament.toml").read_text())
    lines = (folder / "games.csv").read_text().splitlines(keepends=True)
    (partial / "games.csv").write_text("".join(lines[:6]) + lines[6][:10])  # 2.5 games and a half line
    result = report(str(partial))
    assert result.exit_code == 0, result.output
    assert result.output.startswith("rep (partial: 2 of 6 games) - Standings")


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("missing", "no such results folder"),
        ("empty", "not a results folder (no tournament.toml)"),
        ("no-games", "no games.csv yet"),
        ("header-only", "no complete game yet"),
    ],
)
def test_errors_are_one_line(tmp_path, setup, message):
    folder = tmp_path / "f"
    if setup != "missing":
        folder.mkdir()
    if setup in ("no-games", "header-only"):
        (folder / "tournament.toml").write_text(SMALL)
    if setup == "header-only":
        from arena.tournament.rows import header_text

        (folder / "games.csv").write_text(header_text())
    result = report(str(folder))
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.output


def test_damaged_and_foreign_rows_are_left_out_and_counted(tmp_path: Path) -> None:
    """An edited games.csv (an entrant the schedule does not seat there, a garbage line, a word
    where a number belongs) never crashes the report: those games are left out, and it says how many."""
    tournament = tmp_path / "t.toml"
    tournament.write_text(
        'name = "edited"\nplayers = 3\ndeals = 2\nseed = 5\nseating = "rotate"\nisolation = "none"\n'
        '[[entrants]]\nbot = "random"\n[[entrants]]\nbot = "greedy"\n[[entrants]]\nname = "r2"\nbot = "random"\n'
    )
    out = tmp_path / "out"
    assert CliRunner().invoke(main, ["run", str(tournament), "--out", str(out), "--quiet"]).exit_code == 0
    clean = CliRunner().invoke(main, ["report", str(out), "--format", "csv"])
    lines = (out / "games.csv").read_text().splitlines(keepends=True)
    first, second = lines[1].split(",")[0], lines[4].split(",")[0]
    assert first != second
    lines[1] = lines[1].replace(",random,random,", ",mallory,random,", 1)
    lines[4] = lines[4].split(",", 9)
    lines[4][8] = "x1"
    lines[4] = ",".join(lines[4])
    lines.insert(3, "garbage,,,\n")
    (out / "games.csv").write_text("".join(lines))
    result = CliRunner().invoke(main, ["report", str(out), "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert "3 game(s) left out" in result.stderr
    assert ",4," in result.stdout.splitlines()[2]  # each entrant's games: 6 played, 4 counted
    assert result.stdout != clean.stdout
