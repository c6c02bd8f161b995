"""What makes two tournaments play the same games is read from the marks on TournamentConfig's fields."""

from __future__ import annotations

from dataclasses import fields, replace

from arena.plan.config import TournamentConfig, parse_config
from arena.plan.marks import DEFINING, MEANING_FIELDS, differences, keyed
from arena.timecontrol import time_control

TEXT = """
name = "marks"
players = 2
deals = 2
seed = 3

[[entrants]]
name = "a"
bot = "random"

[[entrants]]
name = "b"
bot = "greedy"
"""


def test_every_field_but_those_marked_not_to_compare_defines_the_games():
    assert set(DEFINING) == {f.name for f in fields(TournamentConfig)} - {"isolation", "deals_file", "deal_key"}
    config = parse_config(TEXT, "marks.toml")
    assert differences(config, replace(config, isolation="none", deal_key="0" * 64)) == []
    assert differences(config, replace(config, seed=4, deals=3)) == ["deals", "seed"]
    assert (config == replace(config, seed=4)) is False


def test_a_time_control_differs_by_the_files_keys():
    config = parse_config(TEXT, "marks.toml")
    clocked = replace(config, time=time_control("60+1", limit=config.time.limit))
    assert differences(config, clocked) == ["clock"]
    assert differences(config, replace(config, time=config.time.with_limit(2.0))) == ["time_limit"]
    assert differences(config, replace(clocked, time=time_control(overage=3, limit=2.0))) == ["time_limit", "overage"]
    assert {"time_limit", "clock", "overage"} <= set(keyed(config, MEANING_FIELDS))


def test_a_league_keeps_the_fields_marked_as_what_a_stored_game_is():
    assert set(MEANING_FIELDS) == {"name", "players", "seed", "scoring", "penalty", "time", "seating",
                                   "duplicate", "public_deals"}
    assert set(MEANING_FIELDS) <= set(DEFINING)
