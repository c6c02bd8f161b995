"""A bot's options, each declared once as an ``Option`` (its default, range and doc), and the given values
checked against them (and ``check_options``) before anything starts; the older form still loads."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any, ClassVar

import pytest

from arena.api import Bot, Option, OptionRange
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


#: RangedBot declared the older way: defaults, and their ranges apart.
LEGACY = RANGED.replace("from arena.bots import Bot, Option", "from arena.bots import Bot, OptionRange").replace('''
    options: ClassVar[dict[str, Option]] = {
        "depth": Option(2, min=1, max=5, doc="moves to look ahead"),
        "style": Option("calm", choices=("calm", "wild")),
        "budget": Option(0.5, min=0),
        "fallback": Option(0),
    }
''', '''
    options: ClassVar[dict[str, Any]] = {"depth": 2, "style": "calm", "budget": 0.5, "fallback": 0}
    option_ranges: ClassVar[dict[str, OptionRange]] = {
        "depth": OptionRange(min=1, max=5),
        "style": OptionRange(choices=("calm", "wild")),
        "budget": OptionRange(min=0),
    }
''')


@pytest.fixture(params=["option", "legacy"])
def ranged(request, tmp_path: Path) -> str:
    """The same bot declared with Options, and the older way (which loads with a DeprecationWarning)."""
    path = tmp_path / f"ranged_{request.param}.py"
    path.write_text(RANGED if request.param == "option" else LEGACY)
    if request.param == "legacy":
        with pytest.warns(DeprecationWarning, match=r"RangedBot: options declared as \{name: default\} with "
                                                     r"option_ranges \(depth, style, budget, fallback\) are deprecated"):
            load_bot(f"{path}:RangedBot")
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
    with pytest.raises(BotError, match=r"option_ranges\['depth'\]: declare its range in its Option"):
        load_bot(f"{__file__}:RangeTwice")


class RangeTwice(Bot):
    """An Option, and a range for it apart."""

    options: ClassVar[dict[str, Option]] = {"depth": Option(1)}
    option_ranges: ClassVar[dict[str, OptionRange]] = {"depth": OptionRange(min=1)}

    def choose(self, view):
        raise NotImplementedError


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


def test_the_older_form_reads_as_options_and_plays_the_same(tmp_path):
    new, old = tmp_path / "new.py", tmp_path / "old.py"
    new.write_text(RANGED)
    old.write_text(LEGACY)
    with pytest.warns(DeprecationWarning):
        old_cls = load_bot(f"{old}:RangedBot")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the Option form warns of nothing; the older form warns once per class
        new_cls = load_bot(f"{new}:RangedBot")
        assert declared_options(old_cls) == {
            key: Option(option.default, min=option.min, max=option.max, choices=option.choices)
            for key, option in declared_options(new_cls).items()
        }
        assert old_cls(0, None, {"depth": 4}, None).config == new_cls(0, None, {"depth": 4}, None).config == {
            "depth": 4, "style": "calm", "budget": 0.5, "fallback": 0}
    for given in ("depth=3,style=wild", "budget=0,fallback=2"):
        assert parse_bot_spec(f"{old}:RangedBot:{given}").given == parse_bot_spec(f"{new}:RangedBot:{given}").given


def test_the_names_a_bot_author_imports():
    import arena.api
    import arena.bots
    from arena.bots import PASS, Bot, Option  # noqa: F401 - the line the docs give

    for name in ("Bot", "Option", "PASS", "SeatView", "Move", "MoveSet", "Cells", "GameSettings", "SeatResult",
                 "IllegalMove", "OptionRange"):
        assert getattr(arena.bots, name) is getattr(arena.api, name)
    assert Bot is arena.api.Bot and Option is arena.api.Option and PASS == arena.api.Move(-1, -1, -1)
    # What other code imports from arena.bots keeps working.
    from arena.bots import (  # noqa: F401
        EXEC_PREFIX,
        GROUP,
        MAX_DECLARED,
        MAX_OPTIONS,
        BotError,
        BotSpec,
        bot_options,
        check_declared,
        check_options,
        describe_failure,
        discover,
        format_option,
        load_bot,
        make_bot_spec,
        parse_bot_spec,
        resolve_ref,
        show_value,
        split_bot_spec,
    )
    assert BotSpec("mcts", {"iterations": 5}).options == {"iterations": 5}  # the older name of BotSpec.given
    assert check_declared({"depth": 2}, "x", {"depth": "3"}, {"depth": OptionRange(max=5)}) == {"depth": 3}
    with pytest.raises(BotError, match="option 'depth' must be at most 5, not 6"):
        check_declared({"depth": 2}, "x", {"depth": "6"}, {"depth": OptionRange(max=5)})


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
