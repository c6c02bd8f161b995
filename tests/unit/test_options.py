"""Option values a bot declares valid (``option_ranges``, ``check_options``), checked before anything starts."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest
from click.testing import CliRunner

from arena.bots import Bot, BotError, OptionRange, load_bot, parse_bot_spec
from arena.cli import main
from arena.referee import Referee

RANGED = '''
from typing import Any, ClassVar

from arena.bots import Bot, OptionRange


class RangedBot(Bot):
    """Declares what its options may be."""

    options: ClassVar[dict[str, Any]] = {"depth": 2, "style": "calm", "budget": 0.5, "fallback": 0}
    option_ranges: ClassVar[dict[str, OptionRange]] = {
        "depth": OptionRange(min=1, max=5),
        "style": OptionRange(choices=("calm", "wild")),
        "budget": OptionRange(min=0),
    }

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> None:
        if options["budget"] == 0 and options["fallback"] == 0:
            raise ValueError("set a budget or a fallback")

    def choose(self, view):
        return self.rng.choice(list(view.legal))
'''


@pytest.fixture
def ranged(tmp_path: Path) -> str:
    path = tmp_path / "ranged.py"
    path.write_text(RANGED)
    return f"{path}:RangedBot"


@pytest.mark.parametrize("text, message", [
    ("mcts:playout=bogus", "option 'playout' must be one of greedy, random, not 'bogus'"),
    ("mcts:iterations=-5", "option 'iterations' must be at least 0, not -5"),
    ("mcts:iterations=0", "options: set an iteration budget (iterations), a time budget (seconds), or both"),
    ("mcts:candidates=-1", "option 'candidates' must be at least 0, not -1"),
    ("mcts:exploration=-0.5", "option 'exploration' must be at least 0, not -0.5"),
    ("lookahead:width=-1", "option 'width' must be at least 0, not -1"),
])
def test_builtin_bots_refuse_bad_options_when_the_spec_is_read(text, message):
    with pytest.raises(BotError) as caught:
        parse_bot_spec(text)
    assert str(caught.value) == f"bot {text.split(':')[0]!r}: {message}"


def test_good_options_of_the_builtin_bots_pass():
    assert parse_bot_spec("mcts:iterations=0,seconds=0.5").options == {"iterations": 0, "seconds": 0.5}
    assert parse_bot_spec("mcts:playout=random").options == {"playout": "random"}


def test_ranges_and_the_check_hook_of_a_bot(ranged):
    assert parse_bot_spec(f"{ranged}:depth=5,style=wild").options == {"depth": 5, "style": "wild"}
    for options, message in [
        ("depth=0", "option 'depth' must be from 1 to 5, not 0"),
        ("depth=6", "option 'depth' must be from 1 to 5, not 6"),
        ("style=odd", "option 'style' must be one of calm, wild, not 'odd'"),
        ("budget=-1.5", "option 'budget' must be at least 0, not -1.5"),
        ("budget=0", "options: set a budget or a fallback"),
    ]:
        with pytest.raises(BotError) as caught:
            parse_bot_spec(f"{ranged}:{options}")
        assert str(caught.value) == f"bot {ranged!r}: {message}"
    assert parse_bot_spec(f"{ranged}:budget=0,fallback=1").options == {"budget": 0.0, "fallback": 1}


@pytest.mark.parametrize("isolation", ["none", "process"])
@pytest.mark.slow
def test_the_referee_refuses_bad_options_before_any_game(ranged, isolation):
    with Referee(5.0, isolation=isolation) as referee:
        try:
            with pytest.raises(BotError, match=r"option 'depth' must be from 1 to 5, not 9$"):
                referee.prepare(f"{ranged}:depth=9")
            with pytest.raises(BotError, match=r"options: set a budget or a fallback$"):
                referee.prepare(f"{ranged}:budget=0")
            with pytest.raises(BotError, match=r"option 'playout' must be one of greedy, random, not 'x'$"):
                referee.prepare("mcts:playout=x")
            assert referee.prepare(f"{ranged}:depth=3").options["depth"] == 3
        finally:
            referee.close()


class BadDefault(Bot):
    """Its default is outside its own range."""

    options: ClassVar[dict[str, Any]] = {"depth": 0}
    option_ranges: ClassVar[dict[str, OptionRange]] = {"depth": OptionRange(min=1)}

    def choose(self, view):
        raise NotImplementedError


class RangeOfNothing(Bot):
    """A range for an option it does not declare."""

    options: ClassVar[dict[str, Any]] = {"depth": 1}
    option_ranges: ClassVar[dict[str, OptionRange]] = {"width": OptionRange(min=1)}

    def choose(self, view):
        raise NotImplementedError


def test_bad_declarations_are_refused_when_the_bot_is_loaded(monkeypatch):
    monkeypatch.setitem(globals(), "BadDefault", BadDefault)
    with pytest.raises(BotError, match=r"BadDefault.options\['depth'\]: the default 0 is outside its range"):
        load_bot(f"{__file__}:BadDefault")
    with pytest.raises(BotError, match=r"option_ranges\['width'\]: not one of its options"):
        load_bot(f"{__file__}:RangeOfNothing")


def test_ranges_in_arena_bots():
    result = CliRunner().invoke(main, ["bots"])
    assert result.exit_code == 0
    assert "iterations=600 (at least 0)" in result.output
    assert "playout=greedy (one of greedy, random)" in result.output


# -- the commands -----------------------------------------------------------------------


@pytest.mark.parametrize("isolation", ["none", "process"])
@pytest.mark.parametrize("bot, message", [
    ("mcts:playout=bogus", "bot 'mcts': option 'playout' must be one of greedy, random, not 'bogus'"),
    ("mcts:iterations=0", "bot 'mcts': options: set an iteration budget (iterations), a time budget "
                          "(seconds), or both"),
])
def test_arena_play_refuses_bad_options_in_one_line(tmp_path, isolation, bot, message):
    record = tmp_path / "game.json"
    result = CliRunner().invoke(main, ["play", bot, "random", "--seed", "1", "--isolation", isolation,
                                       "--record", str(record), "--logs", str(tmp_path / "logs")])
    assert result.exit_code != 0
    assert result.output == f"Error: {message}\n"
    assert not record.exists()


def test_arena_bots_probe_refuses_bad_options():
    result = CliRunner().invoke(main, ["bots", "--probe", "mcts:iterations=-5"])
    assert result.exit_code != 0
    assert result.output == "Error: bot 'mcts': option 'iterations' must be at least 0, not -5\n"


@pytest.mark.parametrize("isolation", ["none", "process"])
def test_arena_run_refuses_bad_options_before_any_game(tmp_path, isolation):
    path = tmp_path / "t.toml"
    path.write_text(f"""
name = "t"
players = 2
deals = 1
seed = 1
isolation = "{isolation}"
[[entrants]]
bot = "random"
[[entrants]]
name = "search"
bot = "mcts"
options = {{ iterations = -5 }}
""")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(out), "-q"])
    assert result.exit_code != 0
    assert result.output == (f"Error: {path}: entrants[1].bot: bot 'mcts': option 'iterations' must be at least 0, "
                             f"not -5\n")
    assert not out.exists()
