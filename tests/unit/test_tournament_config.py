"""Tournament files: reading, defaults, and one-line errors naming the file, the key and the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.plan.config import (
    DEFAULT_TIME_LIMIT,
    ConfigError,
    Entrant,
    load_config,
    parse_config,
    spec_text,
)
from arena.results.identity import check_bots

ROOT = Path(__file__).resolve().parents[2]

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
    assert (config.scoring, config.penalty, config.time.limit, config.seating) == ("blockers", "opponent", 2.5, "fixed")
    assert config.entrants == (
        Entrant("rnd", "random"),
        Entrant("greedy", "greedy"),
        Entrant("deep", "mcts:iterations=50"),
        Entrant("shallow", "mcts:iterations=10"),
    )


def test_defaults_and_name_from_file(write_tournament):
    path = write_tournament(MINIMAL, "mini.toml")
    config = load_config(path)
    assert config.name == "mini"
    assert (config.scoring, config.penalty, config.time.limit, config.seating) == (
        "uptown", "color", DEFAULT_TIME_LIMIT, "rotate")
    assert (config.format, config.challengers, config.pool, config.max_tables) == ("round-robin", (), (), None)


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
        (("rotate = false", 'seating = "random"'), "seating", "fixed, rotate, all, balanced"),
        (("rotate = false", "seating = true"), "seating", "fixed, rotate, all, balanced"),
        (("rotate = false", 'rotate = false\nseating = "balanced"'), "rotate",
         'rotate = false means seating = "fixed", but seating = "balanced"'),
        (("rotate = false", 'rotate = true\nseating = "all"'), "rotate", "give only seating"),
        (("rotate = false", 'format = "swiss"'), "format", "round-robin, gauntlet"),
        (("rotate = false", "max_tables = 0"), "max_tables", "at least 1"),
        (("rotate = false", "max_tables = 2.5"), "max_tables", "at least 1"),
        (("rotate = false", "max_tables = true"), "max_tables", "at least 1"),
        (("rotate = false", 'challengers = ["rnd"]'), "challengers", "only a gauntlet"),
        (("rotate = false", 'pool = ["rnd"]'), "pool", "only a gauntlet"),
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


@pytest.mark.slow
def test_unknown_bot_and_bad_option_are_caught_before_anything_runs():
    config = parse_config(MINIMAL.replace('"greedy"', '"no-such-bot"'), "m.toml")
    with pytest.raises(ConfigError) as info:
        check_bots(config, "m.toml")
    assert str(info.value).startswith("m.toml: entrants[1].bot: bot 'no-such-bot': ")
    config = parse_config(MINIMAL.replace('"greedy"', '"random:no_such_option=1"'), "m.toml")
    with pytest.raises(ConfigError, match=r"^m.toml: entrants\[1\].bot: .*no_such_option"):
        check_bots(config, "m.toml")


@pytest.mark.parametrize("name", ["quickstart", "baselines"])
@pytest.mark.slow
def test_shipped_tournaments_are_valid(name):
    path = ROOT / "tournaments" / f"{name}.toml"
    config = load_config(path)
    assert config.name == name
    check_bots(config, str(path))


def test_seating_key_and_its_defaults():
    assert parse_config(GOOD.replace("rotate = false\n", ""), "d").seating == "balanced"
    for players in (4, 5):
        text = GOOD.replace("rotate = false\n", "").replace("players = 3", f"players = {players}")
        assert parse_config(text, "d").seating == "balanced"
    assert parse_config(MINIMAL, "m").seating == "rotate"  # 2 players: the same games as balanced
    for seating in ("fixed", "rotate", "all", "balanced"):
        assert parse_config(GOOD.replace("rotate = false", f'seating = "{seating}"'), "d").seating == seating
        assert parse_config(MINIMAL + f'seating = "{seating}"\n', "m").seating == seating


def test_the_old_rotate_key_is_a_synonym():
    assert parse_config(GOOD.replace("rotate = false", "rotate = true"), "d").seating == "rotate"
    assert parse_config(GOOD, "d").seating == "fixed"
    # both keys, meaning the same, are accepted, and the same tournament as either alone
    same = parse_config(GOOD.replace("rotate = false", 'rotate = false\nseating = "fixed"'), "d")
    assert same == parse_config(GOOD, "d") == parse_config(GOOD.replace("rotate = false", 'seating = "fixed"'), "d")
    assert parse_config(GOOD.replace("rotate = false", 'seating = "rotate"\nrotate = true'), "d").seating == "rotate"


def test_new_keys_take_part_in_equality():
    base = parse_config(GOOD, "d")
    for old, new in [("rotate = false", 'seating = "all"'), ("rotate = false", "rotate = false\nmax_tables = 3"),
                     ("rotate = false", GAUNTLET_KEYS)]:
        assert parse_config(GOOD.replace(old, new), "d") != base
    three = parse_config(GOOD.replace("rotate = false", "max_tables = 3"), "d")
    assert three != parse_config(GOOD.replace("rotate = false", "max_tables = 2"), "d")


GAUNTLET_KEYS = 'format = "gauntlet"\nchallengers = ["deep"]\npool = ["rnd", "greedy", "shallow"]'


def test_gauntlet_keys():
    config = parse_config(GOOD.replace("rotate = false", GAUNTLET_KEYS), "d")
    assert (config.format, config.challengers, config.pool) == ("gauntlet", ("deep",), ("rnd", "greedy", "shallow"))
    # the lists are kept in file order, so the order they are written in does not matter
    shuffled = GAUNTLET_KEYS.replace('["rnd", "greedy", "shallow"]', '["shallow", "rnd", "greedy"]')
    assert parse_config(GOOD.replace("rotate = false", shuffled), "d") == config


@pytest.mark.parametrize(
    ("keys", "key", "reason"),
    [
        ('format = "gauntlet"\npool = ["rnd"]', "challengers", "missing: a gauntlet names its challengers"),
        ('format = "gauntlet"\nchallengers = ["rnd"]', "pool", "missing: a gauntlet names its pool"),
        ('format = "gauntlet"\nchallengers = []\npool = ["rnd"]', "challengers", "non-empty array"),
        ('format = "gauntlet"\nchallengers = "deep"\npool = ["rnd"]', "challengers", "non-empty array"),
        ('format = "gauntlet"\nchallengers = ["nobody"]\npool = ["rnd"]', "challengers", "not the name of an entrant"),
        ('format = "gauntlet"\nchallengers = ["deep", "deep"]\npool = ["rnd"]', "challengers", "twice"),
        ('format = "gauntlet"\nchallengers = ["deep"]\npool = ["rnd", "greedy", "deep", "shallow"]', "pool",
         "'deep' is a challenger too"),
        ('format = "gauntlet"\nchallengers = ["deep"]\npool = ["rnd", "greedy"]', "pool",
         "'shallow' is in neither challengers nor pool"),
    ],
)
def test_bad_gauntlets_name_file_key_and_reason(keys, key, reason):
    with pytest.raises(ConfigError) as info:
        parse_config(GOOD.replace("rotate = false", keys), "t/demo.toml")
    message = str(info.value)
    assert message.startswith(f"t/demo.toml: {key}: "), message
    assert reason in message and "\n" not in message


def test_a_gauntlet_pool_must_fill_the_other_seats():
    text = GOOD.replace("rotate = false", 'format = "gauntlet"\nchallengers = ["deep", "shallow"]\npool = ["rnd", "greedy"]')
    assert parse_config(text, "d").pool == ("rnd", "greedy")
    with pytest.raises(ConfigError, match=r"^d: pool: a gauntlet of 4 players seats 3 entrants of the pool at every "
                                          r"table; the pool has 2$"):
        parse_config(text.replace("players = 3", "players = 4"), "d")


@pytest.mark.parametrize(("change", "key", "meant"), [
    (("seed = 99", "seed = 99\nscorring = \"uptown\""), "scorring", "did you mean scoring?"),
    (("seed = 99", "seed = 99\ntimelimit = 2"), "timelimit", "did you mean time_limit?"),
    (('name = "rnd"', 'name = "rnd"\noption = {}'), "entrants[0].option", "did you mean options?"),
])
def test_an_unknown_key_names_the_known_key_it_most_looks_like(change, key, meant):
    old, new = change
    with pytest.raises(ConfigError) as info:
        parse_config(GOOD.replace(old, new, 1), "t/demo.toml")
    assert str(info.value).startswith(f"t/demo.toml: {key}: unknown key ({meant} ")


def test_a_far_unknown_key_gets_the_list_without_a_guess():
    with pytest.raises(ConfigError) as info:
        parse_config(GOOD.replace("seed = 99", "seed = 99\nzzz = 1", 1), "t/demo.toml")
    assert "did you mean" not in str(info.value) and "a tournament takes name, players" in str(info.value)


@pytest.mark.parametrize(("key", "given", "value"), [
    ("scoring", "Uptown", "uptown"), ("scoring", "BLOCKERS", "blockers"), ("penalty", "Opponent", "opponent"),
    ("seating", "Balanced", "balanced"), ("format", "Round-Robin", "round-robin")])
def test_a_choice_is_read_in_any_case(key, given, value):
    text = GOOD.replace('scoring = "blockers"', "").replace('penalty = "opponent"', "").replace("rotate = false", "")
    config = parse_config(text.replace("seed = 99", f'seed = 99\n{key} = "{given}"', 1), "t/demo.toml")
    assert getattr(config, key) == value
