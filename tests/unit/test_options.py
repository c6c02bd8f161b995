"""A bot's options, each declared once as an ``Option`` (its default, range and doc), and the given values
checked against them (and ``check_options``) before anything starts."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest

from arena.api import Bot, Option
from arena.api.options import declared_options
from arena.cli import main
from arena.play.referee import Referee
from arena.plugins import BotError, load_bot, parse_bot_spec

RANGED = '''
from typing import Any, ClassVar

from arena.bots import Bot, Option


class RangedBot(Bot):
    """Declares what its options may be."""

    options: ClassVar[dict[str, Option]] = {
        "depth": Option(2, min=1, max=5, doc="moves to look ahead"),
        "style": Option("calm", choices=("calm", "wild")),
        "budget": Option(0.5, min=0),
        "fallback": Option(0),
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
    """RangedBot in a file of its own: the ref of its class."""
    path = tmp_path / "ranged.py"
    path.write_text(RANGED)
    return f"{path}:RangedBot"


@pytest.mark.parametrize("text, message", [
    ("mcts:playout=bogus", "option 'playout' must be one of greedy, random, not 'bogus'"),
    ("mcts:iterations=-5", "option 'iterations' must be at least 0, not -5"),
    ("mcts:iterations=0", "options: set an iteration budget (iterations), a time budget (seconds or clock_share), or both"),
    ("mcts:candidates=-1", "option 'candidates' must be at least 0, not -1"),
    ("mcts:exploration=-0.5", "option 'exploration' must be at least 0, not -0.5"),
    ("lookahead:width=-1", "option 'width' must be at least 0, not -1"),
])
def test_builtin_bots_refuse_bad_options_when_the_spec_is_read(text, message):
    with pytest.raises(BotError) as caught:
        parse_bot_spec(text)
    assert str(caught.value) == f"bot {text.split(':')[0]!r}: {message}"


def test_good_options_of_the_builtin_bots_pass():
    assert parse_bot_spec("mcts:iterations=0,seconds=0.5").given == {"iterations": 0, "seconds": 0.5}
    assert parse_bot_spec("mcts:playout=random").given == {"playout": "random"}


def test_ranges_and_the_check_hook_of_a_bot(ranged):
    assert parse_bot_spec(f"{ranged}:depth=5,style=wild").given == {"depth": 5, "style": "wild"}
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
    assert parse_bot_spec(f"{ranged}:budget=0,fallback=1").given == {"budget": 0.0, "fallback": 1}


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


class BareDefault(Bot):
    """Declares an option as a bare default, not an Option."""

    options: ClassVar[dict[str, Any]] = {"depth": 2}

    def choose(self, view):
        raise NotImplementedError


class BadName(Bot):
    """Declares an option whose name is no identifier."""

    options: ClassVar[dict[str, Option]] = {"two words": Option(1)}

    def choose(self, view):
        raise NotImplementedError


def test_bad_declarations_are_refused_when_the_bot_is_loaded():
    with pytest.raises(BotError, match=r"BareDefault.options\['depth'\]: 2 is not an Option; declare it as "
                                       r"Option\(default, min=\.\.\., max=\.\.\., choices=\.\.\., doc=\.\.\.\)$"):
        load_bot(f"{__file__}:BareDefault")
    with pytest.raises(BotError, match=r"BadName.options: 'two words' is not a valid option name"):
        load_bot(f"{__file__}:BadName")
    assert declared_options(Bot) == {}


# -- Option --------------------------------------------------------------------------------


def test_an_option_is_its_default_its_range_and_its_doc():
    option = Option(400, min=1, max=1000, doc="  playouts\n per move ")
    assert (option.default, option.type, option.min, option.max, option.doc) == (400, int, 1, 1000, "playouts per move")
    assert option.allows(1) and option.allows(1000) and not option.allows(0) and not option.allows(1001)
    assert option.range_text() == "from 1 to 1000" and option.show() == "400 (from 1 to 1000): playouts per move"
    assert option.show(7) == "7 (from 1 to 1000): playouts per move" and Option(0.5, doc="d").show() == "0.5: d"
    assert Option(0.5, min=0).range_text() == "at least 0" and Option(3, max=5).range_text() == "at most 5"
    assert Option(True).show() == "true" and Option("x").range_text() == "any value"
    style = Option("calm", choices=["calm", "wild"])
    assert style.choices == ("calm", "wild") and style.allows("wild") and not style.allows("odd")
    assert Option(1.0, choices=(1, 2.5)).choices == (1.0, 2.5)  # a whole number stands for a float
    assert not Option(2).allows("2")  # a value of another type is never in range
    assert Option(2, min=1) == Option(2, min=1) and hash(Option(2, min=1)) == hash(Option(2, min=1))


@pytest.mark.parametrize("make, message", [
    (lambda: Option([1, 2]), "a default must be int, float, bool or str, not \\[1, 2\\]"),
    (lambda: Option(None), "a default must be int, float, bool or str"),
    (lambda: Option(float("nan")), "a default must be a finite number"),
    (lambda: Option("a,b"), "a default may not contain ','"),
    (lambda: Option("x" * 199), "its default is 201 characters long as JSON, more than 200"),
    (lambda: Option(0, min=1), "the default 0 is outside its range \\(at least 1\\)"),
    (lambda: Option(9, min=1, max=5), "the default 9 is outside its range \\(from 1 to 5\\)"),
    (lambda: Option(3, min=5, max=1), "min 5 is above max 1"),
    (lambda: Option("calm", min=1), "min is for numbers, not for a str option"),
    (lambda: Option(True, max=1), "max is for numbers, not for a bool option"),
    (lambda: Option(1, min="0"), "min must be a finite number, not '0'"),
    (lambda: Option(1, max=True), "max must be a finite number, not True"),
    (lambda: Option(1.0, max=float("inf")), "max must be a finite number, not inf"),
    (lambda: Option("odd", choices=("calm", "wild")), "the default odd is outside its range \\(one of calm, wild\\)"),
    (lambda: Option("calm", choices="calm"), "choices are a tuple of values, not 'calm'"),
    (lambda: Option("calm", choices=()), "choices cannot be empty"),
    (lambda: Option(1, choices=(1, "2")), "a choice of a int option must be a int, not '2'"),
    (lambda: Option(1, choices=(1, True)), "a choice of a int option must be a int, not True"),
    (lambda: Option("a", choices=("a", "b,c")), "a choice may not contain ','"),
    (lambda: Option(1, doc=5), "doc is one line of text, not 5"),
    (lambda: Option(1, doc="d" * 201), "its doc is 201 characters long, more than 200"),
])
def test_an_option_that_cannot_be_right_is_refused_where_it_is_written(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_the_names_a_bot_author_imports():
    import arena.api
    import arena.bots
    from arena.bots import PASS, Bot, Option  # noqa: F401 - the line the docs give

    # arena.bots is the author's module: arena.api's names, name for name, and no machinery.
    assert sorted(arena.bots.__all__) == sorted(arena.api.__all__)
    for name in arena.bots.__all__:
        assert getattr(arena.bots, name) is getattr(arena.api, name)
    public = {name for name in vars(arena.bots) if not name.startswith("_")}
    assert public == set(arena.bots.__all__), public ^ set(arena.bots.__all__)
    assert Bot is arena.api.Bot and Option is arena.api.Option and PASS == arena.api.Move(-1, -1, -1)
    for machinery in ("load_bot", "parse_bot_spec", "BotError", "BotSpec", "check_options", "check_declared",
                      "OptionRange", "resolve_ref", "clash", "format_option", "describe_failure"):
        assert not hasattr(arena.bots, machinery), machinery


def test_ranges_and_docs_in_arena_bots(cli):
    result = cli.invoke(main, ["bots"])
    assert result.exit_code == 0
    # Indented under the bot's name, as wide as the longest name listed.
    lines = [line.strip() for line in result.output.splitlines()]
    assert "iterations=600 (at least 0): iterations per move, 0 for no iteration budget" in lines
    assert "playout=greedy (one of greedy, random): how a playout picks its moves" in lines


# -- the commands -----------------------------------------------------------------------


@pytest.mark.parametrize("isolation", ["none", "process"])
@pytest.mark.parametrize("bot, message", [
    ("mcts:playout=bogus", "bot 'mcts': option 'playout' must be one of greedy, random, not 'bogus'"),
    ("mcts:iterations=0", "bot 'mcts': options: set an iteration budget (iterations), a time budget "
                          "(seconds or clock_share), or both"),
])
def test_arena_play_refuses_bad_options_in_one_line(tmp_path, isolation, bot, message, cli):
    record = tmp_path / "game.json"
    result = cli.invoke(main, ["play", bot, "random", "--seed", "1", "--isolation", isolation,
                               "--record", str(record), "--logs", str(tmp_path / "logs")])
    assert result.exit_code != 0
    assert result.output == f"Error: {message}\n"
    assert not record.exists()


def test_arena_bots_probe_refuses_bad_options(cli):
    result = cli.invoke(main, ["bots", "--probe", "mcts:iterations=-5"])
    assert result.exit_code != 0
    assert result.output == "Error: bot 'mcts': option 'iterations' must be at least 0, not -5\n"


@pytest.mark.parametrize("isolation", ["none", "process"])
def test_arena_run_refuses_bad_options_before_any_game(tmp_path, isolation, cli, write_tournament):
    path = write_tournament(f"""
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
    result = cli.invoke(main, ["run", str(path), "--out", str(out), "-q"])
    assert result.exit_code != 0
    assert result.output == (f"Error: {path}: entrants[1].bot: bot 'mcts': option 'iterations' must be at least 0, "
                             f"not -5\n")
    assert not out.exists()


PROGRAM = '''
import json, sys
for line in sys.stdin:
    kind = json.loads(line)["type"]
    if kind == "hello":
        hello = {"type": "hello", "protocol": "uptown-bot/1", "name": "p", "options": {"depth": 2}}
        if "--info" in sys.argv:
            hello["option_info"] = {"depth": {"min": 1, "max": 5, "doc": "moves ahead"}}
        print(json.dumps(hello), flush=True)
    elif kind == "quit":
        break
'''


@pytest.mark.parametrize("info", [False, True])
def test_a_program_declares_its_ranges_in_its_hello_or_not(tmp_path, info):
    """A program whose hello has no option_info plays as before; one with it has its ranges checked too."""
    path = tmp_path / "program.py"
    path.write_text(PROGRAM)
    command = f"exec:python3 {path}" + (" --info" if info else "")
    with Referee(5.0, isolation="process") as referee:
        try:
            if info:
                with pytest.raises(BotError, match=r"option 'depth' must be from 1 to 5, not 9$"):
                    referee.prepare(f"{command}:depth=9")
            else:
                assert referee.prepare(f"{command}:depth=9").options == {"depth": 9}
            bot = referee.prepare(f"{command}:depth=3")
            assert bot.options == {"depth": 3} and bot.declared is not None
            assert bot.declared.options["depth"] == (Option(2, min=1, max=5, doc="moves ahead") if info else Option(2))
        finally:
            referee.close()


def test_arena_bots_probe_shows_ranges_and_docs(cli):
    """A Python bot's host declares its options' ranges and docs in its hello (option_info)."""
    result = cli.invoke(main, ["bots", "--probe", "lookahead:width=3"])
    assert result.exit_code == 0, result.output
    assert "  options:\n    width=3 (at least 0): how many of greedy's cheapest moves are looked at again" in result.output
