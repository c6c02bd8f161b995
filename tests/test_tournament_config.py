"""Tournament files: reading, defaults, and one-line errors naming the file, the key and the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.tournament.config import (
    DEFAULT_TIME_LIMIT,
    ConfigError,
    Entrant,
    check_bots,
    load_config,
    parse_config,
    spec_text,
)

ROOT = Path(__file__).resolve().parent.parent

GOOD = """
name = "demo"
players = 3
deals = 4
seed = 99
scoring = "blockers"
penalty = "opponent"
time_limit = 2.5
rotate = false

[[entrants]]
name = "rnd"
bot = "random"

[[entrants]]
bot = "greedy"

[[entrants]]
name = "deep"
bot = "mcts"
options = { iterations = 50 }

[[entrants]]
name = "shallow"
bot = "mcts:iterations=10"
"""

MINIMAL = """
players = 2
deals = 1
seed = 0
entrants = [{ bot = "random" }, { bot = "greedy" }]
"""


def test_reads_every_key():
    config = parse_config(GOOD, "demo.toml")
    assert config.name == "demo"
    assert (config.players, config.deals, config.seed) == (3, 4, 99)
    assert (config.scoring, config.penalty, config.time_limit, config.rotate) == ("blockers", "opponent", 2.5, False)
    assert config.entrants == (
        Entrant("rnd", "random"),
        Entrant("greedy", "greedy"),
        Entrant("deep", "mcts:iterations=50"),
        Entrant("shallow", "mcts:iterations=10"),
    )


def test_defaults_and_name_from_file(tmp_path):
    path = tmp_path / "mini.toml"
    path.write_text(MINIMAL)
    config = load_config(path)
    assert config.name == "mini"
    assert (config.scoring, config.penalty, config.time_limit, config.rotate) == (
        "uptown", "color", DEFAULT_TIME_LIMIT, True)


def test_same_bot_twice_with_different_options():
    config = parse_config(GOOD, "demo.toml")
    assert [e.spec.split(":")[0] for e in config.entrants].count("mcts") == 2


def test_options_table_becomes_a_spec_string():
    assert spec_text("mcts", {"iterations": 200, "explore": 1.5, "greedy": True, "mode": "fast"}) == (
        "mcts:iterations=200,explore=1.5,greedy=true,mode=fast")
    assert spec_text("random", {}) == "random"


def test_unnamed_entrants_are_named_after_their_spec():
    config = parse_config(MINIMAL.replace('{ bot = "greedy" }', '{ bot = "mcts:iterations=5" }'), "m.toml")
    assert config.names == ("random", "mcts-iterations-5")


def test_equal_configs_ignore_layout_and_comments():
    reformatted = "# a comment\n" + GOOD.replace("deals = 4", "deals   =   4  # four")
    assert parse_config(reformatted, "a") == parse_config(GOOD, "b")
    assert parse_config(GOOD.replace("seed = 99", "seed = 98"), "a") != parse_config(GOOD, "b")


@pytest.mark.parametrize(
    ("change", "key", "reason"),
    [
        (("players = 3", "players = 1"), "players", "2 to 5"),
        (("players = 3", "players = 6"), "players", "2 to 5"),
        (("players = 3", 'players = "3"'), "players", "2 to 5"),
        (("players = 3", "players = true"), "players", "2 to 5"),
        (("deals = 4", "deals = 0"), "deals", "at least 1"),
        (("deals = 4", "deals = 2.5"), "deals", "at least 1"),
        (("seed = 99", "seed = -1"), "seed", "at least 0"),
        (('scoring = "blockers"', 'scoring = "chess"'), "scoring", "uptown, blockers"),
        (('penalty = "opponent"', 'penalty = "seat"'), "penalty", "color, opponent"),
        (("time_limit = 2.5", "time_limit = 0"), "time_limit", "above 0"),
        (("time_limit = 2.5", "time_limit = nan"), "time_limit", "above 0"),
        (("rotate = false", 'rotate = "no"'), "rotate", "true or false"),
        (('name = "demo"', 'name = "../etc"'), "name", "not a usable name"),
        (("rotate = false", "rotate = false\nrounds = 3"), "rounds", "unknown key"),
        (('name = "rnd"', 'name = "rnd"\ncolour = "red"'), "entrants[0].colour", "unknown key"),
        (('name = "rnd"\nbot = "random"', 'name = "rnd"'), "entrants[0].bot", "missing"),
        (('bot = "greedy"', 'bot = "greedy"\nname = "rnd"'), "entrants[1].name", "already the name"),
        (("options = { iterations = 50 }", "options = 5"), "entrants[2].options", "table"),
        (('bot = "mcts"\noptions', 'bot = "mcts:iterations=3"\noptions'), "entrants[2]", "not both"),
        (("options = { iterations = 50 }", "options = { mode = [1] }"), "entrants[2].options.mode", "number"),
    ],
)
def test_bad_values_name_file_key_and_reason(change, key, reason):
    old, new = change
    assert old in GOOD
    with pytest.raises(ConfigError) as info:
        parse_config(GOOD.replace(old, new, 1), "t/demo.toml")
    message = str(info.value)
    assert message.startswith(f"t/demo.toml: {key}: "), message
    assert reason in message
    assert "\n" not in message


@pytest.mark.parametrize("missing", ["players", "deals", "seed", "entrants"])
def test_required_keys(missing):
    text = "\n".join(line for line in MINIMAL.splitlines() if not line.startswith(missing))
    with pytest.raises(ConfigError, match=rf"^m.toml: {missing}: missing$"):
        parse_config(text, "m.toml")


def test_needs_two_entrants():
    with pytest.raises(ConfigError, match="at least 2 entrants"):
        parse_config(MINIMAL.replace(', { bot = "greedy" }', ""), "m.toml")


def test_malformed_toml():
    with pytest.raises(ConfigError, match=r"^m.toml: not valid TOML: "):
        parse_config("players = = 3", "m.toml")


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "nope.toml")
    with pytest.raises(ConfigError, match="is a folder"):
        load_config(tmp_path)


def test_unknown_bot_and_bad_option_are_caught_before_anything_runs():
    config = parse_config(MINIMAL.replace('"greedy"', '"no-such-bot"'), "m.toml")
    with pytest.raises(ConfigError) as info:
        check_bots(config, "m.toml")
    assert str(info.value).startswith("m.toml: entrants[1].bot: bot 'no-such-bot': ")
    config = parse_config(MINIMAL.replace('"greedy"', '"random:no_such_option=1"'), "m.toml")
    with pytest.raises(ConfigError, match=r"^m.toml: entrants\[1\].bot: .*no_such_option"):
        check_bots(config, "m.toml")


@pytest.mark.parametrize("name", ["quickstart", "baselines"])
def test_shipped_tournaments_are_valid(name):
    path = ROOT / "tournaments" / f"{name}.toml"
    config = load_config(path)
    assert config.name == name
    check_bots(config, str(path))
