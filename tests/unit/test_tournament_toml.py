"""A tournament config written with ``to_toml`` reads back as the same config, and every shipped file does."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.plan.config import (
    ENTRANT_PATTERN,
    NAME_PATTERN,
    TOURNAMENT_FORMATS,
    load_config,
    parse_config,
    spec_text,
    to_toml,
)
from arena.plan.deals import MAX_SEED
from arena.plan.seating import DESIGNS
from arena.plan.tournament import Entrant, TournamentConfig
from arena.plugins.specs import exec_ref
from arena.ranges import ISOLATIONS, MAX_DEALS, MAX_MEMORY_MB, MAX_TIME_LIMIT, MIN_MEMORY_MB
from arena.rules.state import PENALTIES, SCORINGS
from arena.timecontrol import MAX_CLOCK, MAX_PERIOD_MOVES, TimeControl

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted([*ROOT.glob("tournaments/*.toml"), *ROOT.glob("examples/**/*.toml")])

words = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"), min_size=1, max_size=12)
seconds = st.floats(min_value=0, max_value=MAX_TIME_LIMIT, allow_nan=False, exclude_min=True)
option_values = st.one_of(
    st.integers(-10**6, 10**6), st.booleans(), st.floats(allow_nan=False, allow_infinity=False),
    words.filter(lambda text: "," not in text and "=" not in text),
)


@st.composite
def entrants(draw: st.DrawFn, name: str) -> Entrant:
    """A bot given by its spec (any text), or a program with its command, folder, environment and options."""
    memory = draw(st.none() | st.integers(MIN_MEMORY_MB, MAX_MEMORY_MB))
    if draw(st.booleans()):
        spec = draw(words.filter(lambda text: text.strip() == text) | st.sampled_from(["random", "mcts:iterations=5"]))
        return Entrant(name, spec, memory_mb=memory)
    command = tuple(draw(st.lists(words, min_size=1, max_size=3)))
    options = draw(st.dictionaries(st.from_regex(r"[a-z_]{1,8}", fullmatch=True), option_values, max_size=3))
    env = draw(st.dictionaries(st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True), words, max_size=2))
    return Entrant(name, spec_text(exec_ref(command), options), command=command, cwd=draw(st.none() | words),
                   env=tuple(sorted(env.items())), memory_mb=memory, options=tuple(options.items()))


@st.composite
def time_controls(draw: st.DrawFn) -> TimeControl:
    overage = draw(st.just(0.0) | st.floats(min_value=0, max_value=MAX_CLOCK, exclude_min=True))
    limit = draw(seconds)
    if draw(st.booleans()):
        return TimeControl(overage=overage, limit=limit)
    base = draw(st.floats(min_value=0, max_value=MAX_CLOCK, exclude_min=True))
    increment = draw(st.just(0.0) | seconds)
    return TimeControl(base, increment, draw(st.none() | st.integers(1, MAX_PERIOD_MOVES)), overage, limit)


@st.composite
def configs(draw: st.DrawFn) -> TournamentConfig:
    """Any config a tournament file can give."""
    players = draw(st.integers(2, 5))
    names = draw(st.lists(st.from_regex(ENTRANT_PATTERN, fullmatch=True), min_size=players, max_size=6, unique=True))
    seeds = tuple(draw(st.lists(st.integers(0, MAX_SEED), max_size=9, unique=True)))
    tournament_format = draw(st.sampled_from(TOURNAMENT_FORMATS))
    challengers: tuple[str, ...] = ()
    pool: tuple[str, ...] = ()
    if tournament_format == "gauntlet":
        split = draw(st.integers(1, len(names) - players + 1))
        challengers, pool = tuple(names[:split]), tuple(names[split:])
    public = draw(st.booleans())
    return TournamentConfig(
        name=draw(st.from_regex(NAME_PATTERN, fullmatch=True)), players=players,
        deals=len(seeds) if seeds else draw(st.integers(1, MAX_DEALS)), seed=draw(st.integers(0, MAX_SEED)),
        entrants=tuple(draw(entrants(name)) for name in names), scoring=draw(st.sampled_from(SCORINGS)),
        penalty=draw(st.sampled_from(PENALTIES)), time=draw(time_controls()),
        seating=draw(st.sampled_from(DESIGNS)), format=tournament_format, challengers=challengers, pool=pool,
        max_tables=draw(st.none() | st.integers(1, 10**6)), isolation=draw(st.sampled_from(ISOLATIONS)),
        duplicate=draw(st.booleans()), deal_seeds=seeds,
        deals_file=draw(st.none() | words) if seeds else None, public_deals=public,
        deal_key=None if public else draw(st.none() | st.from_regex(r"[0-9a-f]{64}", fullmatch=True)),
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs())
def test_a_config_written_as_toml_reads_back_as_the_same_config(config):
    text = to_toml(config, ["a comment", "and\nanother"], keep_key=True)
    back = parse_config(text, "written.toml")
    assert back == config
    # and the fields that do not define the games: isolation, and the key the file gives
    assert (back.isolation, back.deal_key) == (config.isolation, config.deal_key)


@settings(max_examples=50, deadline=None)
@given(configs())
def test_the_deal_key_is_written_only_when_asked(config):
    text = to_toml(config)
    assert "deal_key" not in tomllib.loads(text)
    assert parse_config(text, "written.toml").deal_key is None


@pytest.mark.parametrize("path", SHIPPED, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_shipped_tournament_file_round_trips(path):
    config = load_config(path)
    back = parse_config(to_toml(config), str(path), base=path.parent)
    assert back == config
    assert [e.folder() for e in back.entrants] == [e.folder() for e in config.entrants]


def test_the_shipped_files_are_found():
    assert len(SHIPPED) >= 5
