"""Game clocks on the command line: ``--clock`` and ``--overage`` of arena play, run and match, the
``clock`` and ``overage`` keys of a tournament file, what replay shows, and one-line errors for bad ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli import main
from tests.stored import record_lines

FIXTURES = Path(__file__).parents[1] / "fixtures"
PACED = f"{FIXTURES / 'clock_bots.py'}:PacedBot"

TOURNAMENT = """
name = "clocked"
players = 2
deals = 2
seed = 9
time_limit = 5
isolation = "none"
{clock}
[[entrants]]
bot = "random"
[[entrants]]
bot = "greedy"
"""


def records_of(folder: Path) -> list[dict]:
    return [json.loads(line) for line in record_lines(folder)]


def test_play_with_a_clock_records_and_shows_every_seats_time(cli, tmp_path):
    record = tmp_path / "game.json"
    result = cli.invoke(main, ["play", "greedy", "random", "--seed", "3", "--isolation", "none", "--clock", "30+0.5",
                               "--overage", "2", "--record", str(record)])
    assert result.exit_code == 0, result.output
    assert "time limit 10 s, clock 30+0.5, overage 2 s" in result.output
    assert "clocks (clock 30+0.5, overage 2 s):" in result.output
    assert "seat 0 (greedy): " in result.output and " move(s), " in result.output and "s left, bank 2.000 s" in result.output
    clock = json.loads(record.read_text())["clock"]
    assert clock["control"] == "30+0.5" and clock["overage"] == 2.0
    assert len(clock["used"]) == len(clock["left"]) == len(clock["bank"]) == 96
    # Replay shows each move's time, and the record verifies.
    shown = cli.invoke(main, ["replay", str(record), "--step", "--from", "95"])
    assert shown.exit_code == 0, shown.output
    [line] = [line for line in shown.output.splitlines() if line.startswith("move 95: ")]
    assert line.endswith(" s left; bank 2.000 s)")
    assert "clocks (clock 30+0.5, overage 2 s):" in shown.output
    verified = cli.invoke(main, ["replay", str(record), "--verify"])
    assert verified.exit_code == 0 and verified.output.startswith("valid: 96 moves")


def test_play_forfeits_a_slow_bot_on_time(cli, tmp_path):
    record = tmp_path / "game.json"
    result = cli.invoke(main, ["play", f"{PACED}:seconds=0.1", "random", "--seed", "3", "--isolation", "none",
                               "--clock", "0.35+0", "--record", str(record), "-q"])
    assert result.exit_code == 0, result.output
    # Its fourth turn sleeps past the clock (0.4 s of 0.35): it loses on time by then (sooner on a slow machine).
    fault = json.loads(record.read_text())["faults"][0]
    assert fault["seat"] == 0 and fault["kind"] == "timeout" and fault["move"] <= 6
    assert f"faults: seat 0 timeout at move {fault['move']}" in result.output
    assert "on its clock (0.35+0)" in fault["message"]


@pytest.mark.parametrize(("args", "message"), [
    (["--clock", "fast"], "Invalid value for '--clock': 'fast' is not a clock"),
    (["--clock", "0+1"], "Invalid value for '--clock': the base time must be above 0"),
    (["--clock", "-60+1"], "Invalid value for '--clock': the base time must be above 0"),
    (["--clock", "60+9999"], "Invalid value for '--clock': the increment must be from 0 to 3600 seconds, not 9999"),
    (["--clock", "0/60+1"], "Invalid value for '--clock': the moves per period must be from 1 to 1000"),
    (["--overage", "0"], "Invalid value for '--overage': must be a number of seconds above 0"),
    (["--overage", "-3"], "Invalid value for '--overage': must be a number of seconds above 0"),
    (["--overage", "lots"], "Invalid value for '--overage': 'lots' is not a number of seconds"),
])
@pytest.mark.parametrize("command", [
    ["play", "random", "random"],
    ["match", "random", "random", "--games", "2"],
    ["run", "{file}"],
])
def test_a_bad_clock_is_one_line_before_anything_starts(cli, tmp_path, write_tournament, monkeypatch, args, message,
                                                      command):
    monkeypatch.chdir(tmp_path)
    file = write_tournament(TOURNAMENT.format(clock=""))
    result = cli.invoke(main, [part.format(file=file) for part in command] + args)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert lines[-1].startswith("Error: ") and message in lines[-1], result.output
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize(("keys", "message"), [
    ('clock = "1:00+2"', "clock: '1:00+2' is not a clock"),
    ('clock = "0+2"', "clock: the base time must be above 0 and at most 86400 seconds, not 0"),
    ('clock = "-1+0"', "clock: the base time must be above 0"),
    ('clock = "60+4000"', "clock: the increment must be from 0 to 3600 seconds, not 4000"),
    ("clock = 60", 'clock: must be a text such as "60+0.5"'),
    ("overage = 0", "overage: must be a number of seconds above 0 and at most 86400, not 0"),
    ('overage = "10"', "overage: must be a number of seconds above 0"),
])
@pytest.mark.slow  # a real run: seconds
def test_a_bad_clock_in_a_file_is_one_line_and_loses_nothing_stored(cli, tmp_path, write_tournament, keys, message):
    out = tmp_path / "out"
    good = write_tournament(TOURNAMENT.format(clock='clock = "30+0.5"'), "good.toml")
    assert cli.invoke(main, ["run", str(good), "--out", str(out), "-q", "-j", "1"]).exit_code == 0
    stored = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    bad = write_tournament(TOURNAMENT.format(clock=keys), "bad.toml")
    result = cli.invoke(main, ["run", str(bad), "--out", str(out), "--resume", "-q"])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [f"Error: {bad}: {message}"] or (
        len(result.output.strip().splitlines()) == 1 and message in result.output), result.output
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == stored


def test_a_tournament_file_clock_reaches_every_record_and_a_resume_keeps_it(cli, tmp_path, write_tournament):
    out = tmp_path / "out"
    file = write_tournament(TOURNAMENT.format(clock='clock = "24/30+0.25"\noverage = 3'))
    result = cli.invoke(main, ["run", str(file), "--out", str(out), "-j", "1"])
    assert result.exit_code == 0, result.output
    assert "every bot seat has a clock 24/30+0.25, overage 3 s" in result.stderr
    games = records_of(out)
    assert len(games) == 4
    assert all(g["clock"]["control"] == "24/30+0.25" and g["clock"]["overage"] == 3.0 for g in games)
    resumed = cli.invoke(main, ["run", str(file), "--out", str(out), "--resume", "-q"])
    assert resumed.exit_code == 0, resumed.output
    # The same file with another clock is another tournament.
    other = write_tournament(TOURNAMENT.format(clock='clock = "24/30+0.5"\noverage = 3'), "other.toml")
    refused = cli.invoke(main, ["run", str(other), "--out", str(out), "--resume", "-q"])
    assert refused.exit_code == 1 and "differs in clock" in refused.output


@pytest.mark.slow  # a real run: seconds
def test_run_clock_options_replace_the_files_and_the_folder_keeps_them(cli, tmp_path, write_tournament):
    out = tmp_path / "out"
    file = write_tournament(TOURNAMENT.format(clock='clock = "30+0"'))
    result = cli.invoke(main, ["run", str(file), "--out", str(out), "-q", "-j", "1", "--clock", "40+0.5",
                               "--overage", "1.5"])
    assert result.exit_code == 0, result.output
    assert {g["clock"]["control"] for g in records_of(out)} == {"40+0.5"}
    kept = (out / "tournament.toml").read_text()
    assert 'clock = "40+0.5"\n' in kept and "overage = 1.5\n" in kept and "30+0" not in kept
    assert "# given on the command line: --clock 40+0.5 --overage 1.5\n" in kept
    # Resuming with the same options goes on; without them it is the file's clock, another tournament.
    again = cli.invoke(main, ["run", str(file), "--out", str(out), "-q", "--resume", "--clock", "40+0.5",
                              "--overage", "1.5"])
    assert again.exit_code == 0, again.output
    refused = cli.invoke(main, ["run", str(file), "--out", str(out), "-q", "--resume"])
    assert refused.exit_code == 1 and "differs in clock" in refused.output


def test_match_plays_under_the_clock_and_keeps_it(cli, tmp_path):
    out = tmp_path / "m"
    result = cli.invoke(main, ["match", "greedy", "random", "--games", "2", "--isolation", "none", "--seed", "4",
                               "--clock", "20+0.2", "-j", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "every bot seat has a clock 20+0.2" in result.stderr
    assert {g["clock"]["control"] for g in records_of(out)} == {"20+0.2"}
    assert 'clock = "20+0.2"' in (out / "tournament.toml").read_text()
