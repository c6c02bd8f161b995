"""``arena run``: the command a newcomer runs first, and its one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main

SMALL = """
name = "small"
players = 3
deals = 2
seed = 5
time_limit = 5
[[entrants]]
bot = "random"
[[entrants]]
bot = "greedy"
[[entrants]]
name = "random-2"
bot = "random"
"""


@pytest.fixture
def small(tmp_path: Path) -> Path:
    path = tmp_path / "small.toml"
    path.write_text(SMALL)
    return path


def invoke(*args: str):
    return CliRunner().invoke(main, ["run", *args])


def test_run_writes_every_file_and_prints_the_standings(small, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = invoke(str(small), "--workers", "2")
    assert result.exit_code == 0, result.output
    out = tmp_path / "results" / "small"
    for name in ("tournament.toml", "games.csv", "records.jsonl", "arena.log", "standings.csv",
                 "head_to_head.csv", "seats.csv"):
        assert (out / name).exists(), name
    assert "small - Standings" in result.stdout
    standings = result.stdout.split("Standings", 1)[1]
    # ordered by the deciding scoring: greedy first against two random bots
    assert standings.splitlines()[2].split()[1] == "greedy"
    assert "6 games" in result.stderr and "played 6 games" in result.stderr
    assert len((out / "records.jsonl").read_text().splitlines()) == 6


def test_quiet_prints_only_the_standings(small, tmp_path):
    result = invoke(str(small), "--out", str(tmp_path / "o"), "--quiet", "--workers", "1")
    assert result.exit_code == 0
    assert result.stderr == ""
    assert result.stdout.startswith("small - Standings\n")


def test_compress_and_start_method(small, tmp_path):
    result = invoke(str(small), "--out", str(tmp_path / "o"), "-q", "-j", "2", "--compress", "--start-method", "spawn")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "o" / "records.jsonl.gz").exists()
    assert not (tmp_path / "o" / "records.jsonl").exists()


def test_resume_and_refusals(small, tmp_path):
    out = str(tmp_path / "o")
    assert invoke(str(small), "--out", out, "-q", "-j", "1").exit_code == 0
    again = invoke(str(small), "--out", out, "-q", "-j", "1")
    assert again.exit_code == 1
    assert again.output.strip().splitlines() == [
        f"Error: {out} already holds 6 games of this tournament; add --resume to play only the missing ones, "
        + "or --overwrite to start again"
    ]
    resumed = invoke(str(small), "--out", out, "-j", "1", "--resume")
    assert resumed.exit_code == 0 and "played 0 games" in resumed.stderr and "6 were stored already" in resumed.stderr
    other = tmp_path / "other.toml"
    other.write_text(SMALL.replace("seed = 5", "seed = 6"))
    refused = invoke(str(other), "--out", out, "-q", "--resume")
    assert refused.exit_code == 1
    assert "already holds a different tournament" in refused.output and "differs in seed" in refused.output
    both = invoke(str(small), "--out", out, "--resume", "--overwrite")
    assert both.exit_code == 1 and "exclude each other" in both.output


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (None, "no such file"),
        ("players = = 2", "not valid TOML"),
        (SMALL + "\nrounds = 2\n", "rounds: unknown key"),
        (SMALL.replace("players = 3", "players = 1"), "players: Uptown is played by 2 to 5 players, not 1"),
        (SMALL.replace("players = 3", "players = 6"), "players: Uptown is played by 2 to 5 players, not 6"),
        (SMALL.replace("deals = 2", "deals = 0"), "deals: must be a whole number of at least 1, not 0"),
        (SMALL.replace('bot = "greedy"', 'bot = "nobody"'), "entrants[1].bot: bot 'nobody'"),
        (SMALL.replace('bot = "greedy"', 'bot = "greedy:depth=3"'), "entrants[1].bot: bot 'greedy'"),
    ],
)
def test_bad_files_are_one_line_errors_and_start_nothing(tmp_path, monkeypatch, text, message):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "t.toml"
    if text is not None:
        path.write_text(text)
    result = invoke(str(path))
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {path}: ") and message in lines[0], result.output
    assert not (tmp_path / "results").exists()


def test_unwritable_output_folder(small, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = invoke(str(small), "--out", str(blocker / "sub"))
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1].startswith(f"Error: {blocker / 'sub'}: cannot write there")


def test_bad_workers_option(small):
    result = invoke(str(small), "--workers", "0")
    assert result.exit_code == 2 and "--workers" in result.output


def test_records_carry_the_game_id_of_games_csv(small, tmp_path):
    out = tmp_path / "o"
    assert invoke(str(small), "--out", str(out), "-q", "-j", "1").exit_code == 0
    ids_csv = {line.split(",")[0] for line in (out / "games.csv").read_text().splitlines()[1:]}
    ids_records = {json.loads(line)["game_id"] for line in (out / "records.jsonl").read_text().splitlines()}
    assert ids_csv == ids_records and len(ids_csv) == 6
