"""Numbers from the command line and from tournament files: one rule each, one-line errors, never a traceback.

A time limit is finite, above 0 and at most :data:`arena.ranges.MAX_TIME_LIMIT`; a value past what
the clocks and timers can hold (``1e300``) or not a number (``nan``) used to reach the referee
and end in ``OverflowError`` / ``ValueError`` tracebacks, or kill every tournament worker.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arena import ranges as limits
from arena.cli import main
from arena.plan.config import ConfigError, parse_config

TOURNAMENT = """
players = 2
deals = 1
seed = 1
isolation = "none"
[[entrants]]
bot = "random"
[[entrants]]
bot = "greedy"
"""

BAD_TIME_LIMITS = ["nan", "-nan", "inf", "-inf", "1e300", "1e9", "3600.5", "0", "-1", "1e-400"]


def one_line_error(result) -> str:
    assert result.exit_code != 0, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, result.output
    return errors[0]


def with_key(line: str) -> str:
    """The tournament with ``line`` in place of its key's line (or added)."""
    key = line.split("=")[0].strip()
    kept = [row for row in TOURNAMENT.splitlines() if not row.startswith(key + " ")]
    return line + "\n" + "\n".join(kept) + "\n"


@pytest.mark.parametrize("value", BAD_TIME_LIMITS)
def test_bad_time_limit_on_the_command_line_is_one_line(value, cli):
    result = cli.invoke(main, ["play", "random", "random", "--isolation", "none", "--time-limit", value])
    line = one_line_error(result)
    assert "--time-limit" in line
    assert f"at most {limits.MAX_TIME_LIMIT:g}" in line


@pytest.mark.parametrize("value", BAD_TIME_LIMITS)
def test_bad_time_limit_in_a_tournament_file_is_refused_when_read(value):
    with pytest.raises(ConfigError) as info:
        parse_config(with_key(f"time_limit = {value}"), "t.toml")
    message = str(info.value)
    assert message.startswith("t.toml: time_limit: ") and "\n" not in message
    assert f"at most {limits.MAX_TIME_LIMIT:g}" in message


def test_the_command_line_and_the_file_share_one_rule(cli):
    """Both say the same reason, word for word: the one :func:`arena.ranges.time_limit` gives."""
    with pytest.raises(limits.LimitError) as info:
        limits.time_limit(1e300)
    reason = str(info.value)
    command_line = one_line_error(cli.invoke(main, ["play", "random", "random", "--time-limit", "1e300"]))
    with pytest.raises(ConfigError) as file_error:
        parse_config(with_key("time_limit = 1e300"), "t.toml")
    assert command_line.endswith(reason) and str(file_error.value).endswith(reason)


@pytest.mark.parametrize("value", [limits.MAX_TIME_LIMIT, 0.25, 1e-9, 3])
def test_time_limits_in_range_are_kept(value):
    assert limits.time_limit(value) == value
    assert parse_config(with_key(f"time_limit = {value!r}"), "t.toml").time.limit == value


def test_the_largest_time_limit_plays(tmp_path, cli):
    result = cli.invoke(main, ["play", "random", "random", "--seed", "3", "--isolation", "none", "-q",
                               "--time-limit", f"{limits.MAX_TIME_LIMIT:g}"])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("value", ["true", '"5"', "[5]"])
def test_a_time_limit_that_is_not_a_number(value):
    with pytest.raises(ConfigError, match=r"^t.toml: time_limit: .*above 0"):
        parse_config(with_key(f"time_limit = {value}"), "t.toml")


def test_a_huge_time_limit_in_a_file_stops_the_run_before_any_worker(tmp_path, cli, write_tournament):
    """It used to pass validation and then kill every worker ("worker processes end before they play a game")."""
    path = write_tournament(with_key("time_limit = 1e300"))
    result = cli.invoke(main, ["run", str(path), "--out", str(tmp_path / "out"), "-q"])
    line = one_line_error(result)
    assert line.startswith(f"Error: {path}: time_limit: ")
    assert "worker" not in line
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("line", "key", "reason"),
    [
        ("seed = " + "9" * 4400, None, "not valid TOML"),  # past Python's int-from-text limit
        ("deals = " + "9" * 4400, None, "not valid TOML"),
        (f"deals = {limits.MAX_DEALS + 1}", "deals", f"at most {limits.MAX_DEALS}"),
        ("deals = 99999999999999999999999999", "deals", f"at most {limits.MAX_DEALS}"),
        ("deals = inf", "deals", "whole number"),
        ("deals = nan", "deals", "whole number"),
        ("seed = inf", "seed", "whole number"),
        ("seed = 1e300", "seed", "whole number"),
        ("seed = nan", "seed", "whole number"),
        ("players = nan", "players", "2 to 5"),
        ("players = 1e300", "players", "2 to 5"),
    ],
)
def test_other_numbers_of_a_tournament_file(line, key, reason):
    with pytest.raises(ConfigError) as info:
        parse_config(with_key(line), "t.toml")
    message = str(info.value)
    assert "\n" not in message and len(message) < 300
    assert message.startswith(f"t.toml: {key}: " if key else "t.toml: ")
    assert reason in message


@pytest.mark.parametrize("value", ["inf", "nan", "1e300", "2048.0", f"{limits.MAX_MEMORY_MB + 1}", "15", "-1",
                                   "99999999999999999999999"])
def test_memory_mb_is_a_whole_number_in_its_range(value):
    text = TOURNAMENT.replace('bot = "greedy"', f'bot = "greedy"\nmemory_mb = {value}')
    with pytest.raises(ConfigError) as info:
        parse_config(text, "t.toml")
    message = str(info.value)
    assert message.startswith("t.toml: entrants[1].memory_mb: ")
    assert f"from {limits.MIN_MEMORY_MB} to {limits.MAX_MEMORY_MB}" in message


def test_memory_mb_at_its_bounds_is_kept():
    for value in (limits.MIN_MEMORY_MB, limits.MAX_MEMORY_MB):
        text = TOURNAMENT.replace('bot = "greedy"', f'bot = "greedy"\nmemory_mb = {value}')
        assert parse_config(text, "t.toml").entrants[1].memory_mb == value


def test_the_largest_deals_is_accepted():
    assert parse_config(with_key(f"deals = {limits.MAX_DEALS}"), "t.toml").deals == limits.MAX_DEALS


@pytest.mark.parametrize("value", ["9" * 4400, "1e300", "nan"])
def test_seed_on_the_command_line(value, cli):
    line = one_line_error(cli.invoke(main, ["play", "random", "random", "--seed", value]))
    assert "--seed" in line and len(line) < 300


@pytest.mark.parametrize("value", ["0", "-3", "nan", "1e300"])
def test_workers_on_the_command_line(tmp_path, value, cli, write_tournament):
    path = write_tournament(TOURNAMENT)
    line = one_line_error(cli.invoke(main, ["run", str(path), "--workers", value, "--out", str(tmp_path / "o")]))
    assert "--workers" in line


def test_the_documented_maximums_are_the_code_s():
    root = Path(__file__).resolve().parents[2]
    play = (root / "docs" / "tutorials" / "first-game.md").read_text(encoding="utf-8")
    tournaments = (root / "docs" / "reference" / "tournament-file.md").read_text(encoding="utf-8")
    for text in (play, tournaments):
        assert f"at most {limits.MAX_TIME_LIMIT:g}" in text
    assert f"at most {limits.MAX_DEALS:,}" in tournaments
    assert f"{limits.MIN_MEMORY_MB} to {limits.MAX_MEMORY_MB:,}" in tournaments
