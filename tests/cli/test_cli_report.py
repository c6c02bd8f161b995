"""``arena report``: the tables of a results folder, rebuilt from games.csv without replaying."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.results.files import TABLES

SMALL = """
name = "rep"
players = 2
deals = 3
seed = 8
scoring = "blockers"
isolation = "none"
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
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(out), "-q", "-j", "1"])  # module-wide: not `cli`
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture
def report(cli):
    """``arena report`` with these arguments."""
    return lambda *args: cli.invoke(main, ["report", *args])


@pytest.mark.slow
def test_text_report_has_all_three_tables(folder, report):
    result = report(str(folder))
    assert result.exit_code == 0, result.output
    assert result.output.startswith("rep - Standings\n")
    assert "Head to head" in result.output and "By seat" in result.output
    assert "wins (blockers)" in result.output  # the tournament's own scoring decides by default


@pytest.mark.slow
def test_csv_is_one_table_that_pandas_reads_as_the_run_wrote_it(folder, report):
    result = report(str(folder), "--format", "csv")
    assert result.exit_code == 0, result.output
    standings = pd.read_csv(io.StringIO(result.stdout))
    assert {"rating", "rating_low", "rating_high", "ci_low_blockers", "ci_high_blockers"} <= set(standings.columns)
    assert sorted(standings["entrant"]) == ["greedy", "random"] and list(standings["place"]) == [1, 2]
    assert result.stdout == (folder / "standings.csv").read_text()
    for name in ("standings", "head-to-head", "seats"):
        one = report(str(folder), "--format", "csv", "--table", name)
        assert one.exit_code == 0, one.output
        frame = pd.read_csv(io.StringIO(one.stdout))
        assert len(frame) == 2 and "#" not in one.stdout
        assert one.stdout == (folder / f"{TABLES[name]}.csv").read_text()


def test_every_table_the_tables_hold_is_a_choice(folder, report):
    from arena.report.tables import Tables

    fields = {f.name for f in dataclasses.fields(Tables)} - {"scoring"}
    assert fields <= set(TABLES.values())
    help_text = report("--help").output
    assert "standings|head-to-head|seats|order" in help_text.replace("\n", "").replace(" ", "")


@pytest.mark.slow
def test_a_table_the_results_do_not_hold_is_one_line(folder, monkeypatch, report):
    import arena.report.folder_tables as results

    built = results.build_tables

    def without_order(*args, **kwargs):
        tables = built(*args, **kwargs)
        return dataclasses.replace(tables, order=None) if hasattr(tables, "order") else tables

    monkeypatch.setattr(results, "build_tables", without_order)
    monkeypatch.setattr(results, "cached_tables", lambda folder, scoring: None)  # built, not read back
    for fmt in ("csv", "json", "text"):
        result = report(str(folder), "--format", fmt, "--table", "order")
        assert result.exit_code == 1 and result.stdout == ""
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and "no order table" in lines[0] and str(folder) in lines[0], result.output


@pytest.mark.slow
def test_json_is_one_object_with_every_table_and_what_it_is(folder, report):
    result = report(str(folder), "--format", "json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["title"] == "rep" and data["scoring"] == "blockers"
    assert (data["games"], data["scheduled_games"], data["partial"]) == (6, 6, False)
    for attribute in ("standings", "head_to_head", "seats"):
        written = pd.read_csv(folder / f"{attribute}.csv", keep_default_na=False)
        records = pd.DataFrame(data[attribute])
        assert list(records.columns) == list(written.columns) and len(records) == len(written)
        numeric = written.select_dtypes("number").columns
        pd.testing.assert_frame_equal(records[numeric].astype(float), written[numeric].astype(float), rtol=1e-5)
    assert [row["entrant"] for row in data["standings"]] == list(pd.read_csv(folder / "standings.csv")["entrant"])
    ratings = [row["rating"] for row in data["standings"]]
    assert ratings == sorted(ratings, reverse=True)
    assert all(row["rating_low"] <= row["rating"] <= row["rating_high"] for row in data["standings"])
    only = json.loads(report(str(folder), "--format", "json", "--table", "seats").stdout)
    assert set(only) == {"title", "scoring", "games", "scheduled_games", "partial", "seats"}


@pytest.mark.slow
def test_text_and_markdown_give_every_table_or_the_one_asked_for(folder, report):
    text = report(str(folder)).stdout
    assert "Standings" in text and "Head to head" in text and "By seat" in text
    assert "each pair shared 6 games" in text
    seats = report(str(folder), "--table", "seats").stdout
    assert seats.startswith("By seat\n") and "Standings" not in seats
    markdown = report(str(folder), "--format", "markdown", "--table", "head-to-head").stdout
    assert markdown.startswith("## Head to head") and "## By seat" not in markdown


@pytest.mark.slow
def test_json_and_scoring_choice(folder, report):
    uptown = json.loads(report(str(folder), "--format", "json", "--scoring", "uptown").output)
    blockers = json.loads(report(str(folder), "--format", "json").output)
    assert uptown["scoring"] == "uptown" and blockers["scoring"] == "blockers"
    assert {r["entrant"] for r in uptown["standings"]} == {"random", "greedy"}
    assert sum(r["games"] for r in uptown["standings"]) == 2 * 6
    assert len(uptown["head_to_head"]) == 2 and [s["seat"] for s in uptown["seats"]] == [0, 1]


def test_markdown(folder, report):
    result = report(str(folder), "--format", "markdown")
    assert result.exit_code == 0
    assert result.output.startswith("## rep - Standings\n\n| # | entrant |")


@pytest.mark.slow
def test_partial_results_are_reported_as_such(folder, tmp_path, report):
    partial = tmp_path / "partial"
    partial.mkdir()
    (partial / "tournament.toml").write_text((folder / "tournament.toml").read_text())
    (partial / "deal.key").write_text((folder / "deal.key").read_text())  # the folder's key: its deals
    lines = (folder / "games.csv").read_text().splitlines(keepends=True)
    (partial / "games.csv").write_text("".join(lines[:6]) + lines[6][:10])  # 2.5 games and a half line
    result = report(str(partial))
    assert result.exit_code == 0, result.output
    assert result.output.startswith("rep (partial: 2 of 6 games) - Standings")
    data = json.loads(report(str(partial), "--format", "json").stdout)
    assert (data["title"], data["games"], data["scheduled_games"], data["partial"]) == ("rep", 2, 6, True)


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("missing", "no such results folder"),
        ("empty", "not a results folder (no tournament.toml)"),
        ("no-games", "no games.csv yet"),
        ("header-only", "no complete game yet"),
    ],
)
def test_errors_are_one_line(tmp_path, setup, message, report):
    folder = tmp_path / "f"
    if setup != "missing":
        folder.mkdir()
    if setup in ("no-games", "header-only"):
        (folder / "tournament.toml").write_text(SMALL)
    if setup == "header-only":
        from arena.results.rows import header_text

        (folder / "games.csv").write_text(header_text())
    result = report(str(folder))
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.output


@pytest.mark.slow
def test_damaged_and_foreign_rows_are_left_out_and_counted(tmp_path: Path, cli, write_tournament) -> None:
    """An edited games.csv (an entrant the schedule does not seat there, a garbage line, a word
    where a number belongs) never crashes the report: those games are left out, and it says how many."""
    tournament = write_tournament(
        'name = "edited"\nplayers = 3\ndeals = 2\nseed = 5\nseating = "rotate"\nisolation = "none"\n'
        '[[entrants]]\nbot = "random"\n[[entrants]]\nbot = "greedy"\n[[entrants]]\nname = "r2"\nbot = "random"\n'
    )
    out = tmp_path / "out"
    assert cli.invoke(main, ["run", str(tournament), "--out", str(out), "--quiet"]).exit_code == 0
    clean = cli.invoke(main, ["report", str(out), "--format", "csv"])
    lines = (out / "games.csv").read_text().splitlines(keepends=True)
    first, second = lines[1].split(",")[0], lines[4].split(",")[0]
    assert first != second
    lines[1] = lines[1].replace(",random,random,", ",mallory,random,", 1)
    lines[4] = lines[4].split(",", 9)
    lines[4][8] = "x1"
    lines[4] = ",".join(lines[4])
    lines.insert(3, "garbage,,,\n")
    (out / "games.csv").write_text("".join(lines))
    result = cli.invoke(main, ["report", str(out), "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert "3 game(s) left out" in result.stderr
    assert ",4," in result.stdout.splitlines()[2]  # each entrant's games: 6 played, 4 counted
    assert result.stdout != clean.stdout
