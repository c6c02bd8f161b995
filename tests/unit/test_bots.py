"""Bot specs, loading bots by name, module or file, and discovery through entry points."""

from __future__ import annotations

import re
import shlex
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

import arena.plugins.loading
from arena.api import Bot
from arena.api.options import format_option
from arena.plugins import (
    GROUP,
    BotError,
    BotSpec,
    bot_options,
    description,
    discover,
    load_bot,
    make_bot_spec,
    parse_bot_spec,
    split_bot_spec,
)
from arena.plugins.specs import exec_ref

FIXTURES = Path(__file__).parents[1] / "fixtures"
BAD = FIXTURES / "bad_bots.py"


def fixture(name: str) -> str:
    return f"{BAD}:{name}"


@pytest.fixture
def fake_plugins(monkeypatch):
    """Replace the installed entry points by the given ``name -> value`` pairs (fixtures on sys.path)."""
    monkeypatch.syspath_prepend(str(FIXTURES))

    def install(pairs: dict[str, str] | list[tuple[str, str]]) -> None:
        items = list(pairs.items()) if isinstance(pairs, dict) else list(pairs)
        eps = [EntryPoint(name, value, GROUP) for name, value in items]
        monkeypatch.setattr(arena.plugins.loading, "entry_points", lambda group: [ep for ep in eps if ep.group == group])

    return install


# -- spec syntax -------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, ref, options",
    [
        ("random", "random", {}),
        ("mcts:iterations=400", "mcts", {"iterations": "400"}),
        ("mcts:iterations=400,seconds=0.5", "mcts", {"iterations": "400", "seconds": "0.5"}),
        ("arena_bots.greedy:GreedyBot", "arena_bots.greedy:GreedyBot", {}),
        ("arena_bots.greedy:GreedyBot:depth=2", "arena_bots.greedy:GreedyBot", {"depth": "2"}),
        ("my/bot.py:Bot", "my/bot.py:Bot", {}),
        ("my/bot.py:Bot:style=a:b", "my/bot.py:Bot", {"style": "a:b"}),
        ("x:y=a=b", "x", {"y": "a=b"}),
        ("x:y=", "x", {"y": ""}),
    ],
)
def test_split_bot_spec(text, ref, options):
    assert split_bot_spec(text) == (ref, options)


@pytest.mark.parametrize(
    "text, ref, options",
    [
        ("exec:java -XX:+UseSerialGC -cp bots Bot", "exec:java -XX:+UseSerialGC -cp bots Bot", {}),
        ("exec:java -XX:MaxMetaspaceSize=64m -cp bots Bot", "exec:java -XX:MaxMetaspaceSize=64m -cp bots Bot", {}),
        ("exec:java -Dlevel=2 -cp . Bot", "exec:java -Dlevel=2 -cp . Bot", {}),
        ("exec:java -cp lib/a.jar:lib/b.jar:. Bot", "exec:java -cp lib/a.jar:lib/b.jar:. Bot", {}),
        ("exec:java -Dx=1 -cp bots Bot:captures=false", "exec:java -Dx=1 -cp bots Bot", {"captures": "false"}),
        ("exec:node bot.js:captures=false,depth=2", "exec:node bot.js", {"captures": "false", "depth": "2"}),
        ("exec:./bot:style=a:b", "exec:./bot", {"style": "a:b"}),
        ("exec:./bot --host=a:b", "exec:./bot --host=a:b", {}),
        # A last word that would read as options is the command's when it is quoted.
        ("exec:./bot '-XX:Level=1'", "exec:./bot '-XX:Level=1'", {}),
        ("exec:./bot -XX:Level=1", "exec:./bot -XX", {"Level": "1"}),
    ],
)
def test_an_exec_command_keeps_its_colons_and_equals_signs(text, ref, options):
    assert split_bot_spec(text) == (ref, options)


@pytest.mark.parametrize("command", [["java", "-XX:MaxMetaspaceSize=64m", "-cp", "bots", "Bot"],
                                     ["./bot", "-XX:Level=1"], ["./bot", "it's:a=b"], ["./bot:a=1"]])
def test_a_command_given_as_words_reads_back_as_that_command(command):
    ref = exec_ref(command)
    assert split_bot_spec(ref) == (ref, {})
    assert shlex.split(ref.removeprefix("exec:")) == command
    assert split_bot_spec(ref + ":captures=false") == (ref, {"captures": "false"})


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "cannot be empty"),
        ("iterations=400", "options follow the bot after a colon"),
        (":x=1", "the bot is missing"),
        ("mcts:400", "'400' is not a class name; options are written REF:key=value"),
        ("random:", "'' is not a class name"),
        ("random:iterations",
         "random has no class 'iterations' (to give bot random an option, write random:name=value)"),
        ("greedy:depth", "no module named 'greedy' (to give bot greedy an option, write greedy:name=value)"),
        ("mcts:iterations=4,seconds", "option 'seconds' has no value"),
        ("mcts:=4", "has no name"),
        ("mcts:a=1,a=2", "option 'a' is given twice"),
        (" random", "may not start or end with spaces"),
        ("my bot:Name", "neither a module name"),
        (":Name", "the module or file is missing"),
    ],
)
def test_bad_spec_syntax_is_one_line_naming_the_bot(text, message):
    with pytest.raises(BotError, match="^bot .*" + re.escape(message)) as info:
        parse_bot_spec(text)
    assert "\n" not in str(info.value)


def test_parse_converts_options_to_the_types_of_the_defaults():
    spec = parse_bot_spec(fixture("OptionsBot") + ":depth=5,budget=2,greedy=no,style=wild")
    assert spec.given == {"depth": 5, "budget": 2.0, "greedy": False, "style": "wild"}
    assert type(spec.given["budget"]) is float
    assert bot_options(spec) == {"depth": 5, "budget": 2.0, "greedy": False, "style": "wild"}
    assert bot_options(parse_bot_spec(fixture("OptionsBot") + ":depth=1")) == {
        "depth": 1, "budget": 0.5, "greedy": True, "style": "calm",
    }


@pytest.mark.parametrize("text, value", [("true", True), ("YES", True), ("1", True), ("False", False), ("0", False)])
def test_bool_option_words(text, value):
    assert parse_bot_spec(fixture("OptionsBot") + f":greedy={text}").given == {"greedy": value}


@pytest.mark.parametrize(
    "options, message",
    [
        ("depth=deep", "option 'depth' takes a whole number \\(default 3\\), not 'deep'"),
        ("depth=2.5", "option 'depth' takes a whole number"),
        ("budget=fast", "option 'budget' takes a finite number \\(default 0.5\\), not 'fast'"),
        ("budget=nan", "option 'budget' takes a finite number"),
        ("budget=inf", "option 'budget' takes a finite number"),
        ("greedy=maybe", "option 'greedy' takes true or false \\(default true\\), not 'maybe'"),
        ("colour=red", "takes no option 'colour' \\(its options: budget, depth, greedy, style\\)"),
    ],
)
def test_bad_option_names_the_bot_and_the_problem(options, message):
    with pytest.raises(BotError, match=f"^bot '{BAD}:OptionsBot': {message}"):
        parse_bot_spec(fixture("OptionsBot") + ":" + options)


def test_option_for_a_bot_without_options():
    with pytest.raises(BotError, match="^bot 'random': takes no option 'depth' \\(its options: none\\)$"):
        parse_bot_spec("random:depth=2")


def test_make_bot_spec_takes_typed_values_as_from_toml():
    spec = make_bot_spec(fixture("OptionsBot"), {"depth": 7, "budget": 1, "greedy": False, "style": "x"})
    assert spec.given == {"depth": 7, "budget": 1.0, "greedy": False, "style": "x"}
    assert make_bot_spec(fixture("OptionsBot"), {"depth": "7"}).given == {"depth": 7}
    with pytest.raises(BotError, match="option 'depth' takes a whole number .*not True"):
        make_bot_spec(fixture("OptionsBot"), {"depth": True})
    with pytest.raises(BotError, match="option 'greedy' takes true or false .*not 1"):
        make_bot_spec(fixture("OptionsBot"), {"greedy": 1})
    with pytest.raises(BotError, match="option 'style' takes text"):
        make_bot_spec(fixture("OptionsBot"), {"style": 3})
    with pytest.raises(BotError, match="option 'style': a value may not contain ','"):
        make_bot_spec(fixture("OptionsBot"), {"style": "a,b"})
    with pytest.raises(BotError, match="give the options apart"):
        make_bot_spec("random:x=1", {})


def test_canonical_text_round_trips():
    spec = parse_bot_spec(fixture("OptionsBot") + ":style=s,greedy=1,budget=1e-05,depth=+4")
    assert str(spec) == fixture("OptionsBot") + ":budget=1e-05,depth=4,greedy=true,style=s"
    assert parse_bot_spec(str(spec)) == spec
    assert hash(parse_bot_spec(str(spec))) == hash(spec)
    assert str(parse_bot_spec("random")) == "random"
    assert [format_option(v) for v in (True, False, 3, 0.5, "calm")] == ["true", "false", "3", "0.5", "calm"]


def test_bot_spec_is_frozen():
    spec = BotSpec("random")
    with pytest.raises(AttributeError):
        spec.ref = "greedy"  # type: ignore[misc]
    assert spec == BotSpec("random", {})


# -- loading -------------------------------------------------------------------------


def test_load_entry_point_module_and_file_refs(monkeypatch):
    from arena_bots.random_bot import RandomBot

    assert load_bot("random") is RandomBot
    assert load_bot("arena_bots.random_bot:RandomBot") is RandomBot
    assert load_bot(BotSpec("random")) is RandomBot
    cls = load_bot(fixture("OptionsBot"))
    assert issubclass(cls, Bot) and cls.__name__ == "OptionsBot"
    assert load_bot(fixture("OptionsBot")) is cls  # loaded once
    monkeypatch.chdir(FIXTURES)
    assert load_bot("bad_bots.py:OptionsBot") is cls  # the same file, named relative to the current folder


def test_module_in_the_current_folder_can_be_named(monkeypatch):
    monkeypatch.chdir(FIXTURES)
    monkeypatch.setattr("sys.path", [p for p in __import__("sys").path if p not in ("", str(FIXTURES))])
    cls = load_bot("bad_bots:LastMoveBot")
    assert cls.__name__ == "LastMoveBot"


@pytest.mark.parametrize(
    "ref, message",
    [
        ("no_such_bot",
         "unknown bot \\(known bots: .*random.*; or give package.module:Name, path/to/file.py:Name or exec:COMMAND\\)"),
        ("no_such_module.sub:Bot", "no module named 'no_such_module'"),
        ("bots.no_such_module:Bot", "no module named 'bots.no_such_module'"),
        ("arena_bots.random_bot:NoSuchBot", "arena_bots.random_bot has no class 'NoSuchBot'"),
        ("arena.rules:Move", "Move is not a Bot subclass"),
        ("arena.bots:Bot", "Bot does not define choose\\(view\\)"),
        ("nowhere/bot.py:Bot", "file nowhere/bot.py not found"),
        (f"{FIXTURES}.py:Bot", "not found"),
        (f"{BAD}:NoSuchBot", "has no class 'NoSuchBot'"),
        (f"{BAD}:NotABot", "NotABot is not a Bot subclass"),
        (f"{BAD}:not_a_class", "42 is not a Bot subclass \\(it is 'int', not a class\\)"),
        (f"{BAD}:NoChooseBot", "NoChooseBot does not define choose"),
        (f"{BAD}:BadOptionsBot", "options\\['weights'\\]: \\[1, 2, 3\\] is not an Option"),
        (f"{FIXTURES / 'broken_import.py'}:Bot", "failed to load: ImportError: this plug-in is broken on purpose"),
    ],
)
def test_load_errors_are_one_line_naming_the_bot(ref, message):
    with pytest.raises(BotError) as info:
        load_bot(ref)
    text = str(info.value)
    assert text.startswith(f"bot {ref!r}: ")
    assert "\n" not in text
    assert re.search(message, text), text


def test_a_folder_is_not_a_bot_file(tmp_path):
    (tmp_path / "dir.py").mkdir()
    with pytest.raises(BotError, match="is not a file"):
        load_bot(f"{tmp_path / 'dir.py'}:Bot")


def test_file_with_a_syntax_error(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("class Bot(\n")
    with pytest.raises(BotError, match="failed to load: SyntaxError"):
        load_bot(f"{path}:Bot")


def test_load_bot_checks_the_options_of_a_spec():
    with pytest.raises(BotError, match="takes no option 'x'"):
        load_bot(BotSpec("random", {"x": 1}))
    with pytest.raises(BotError, match="option 'depth' takes a whole number"):
        load_bot(BotSpec(fixture("OptionsBot"), {"depth": "three"}))
    with pytest.raises(BotError, match="use parse_bot_spec"):
        load_bot("random:x=1")
    with pytest.raises(TypeError):
        load_bot(3)  # type: ignore[arg-type]


# -- discovery -------------------------------------------------------------------------


def test_discover_installed_bots_come_through_the_entry_points():
    found, _ = discover()
    assert "random" in found
    info = found["random"]
    assert info.source.startswith("arena_bots.random_bot:RandomBot (uptown-arena ")
    assert info.description == "Plays a legal move chosen uniformly at random."
    assert info.options == {}


def test_discover_reports_every_broken_plugin_and_keeps_the_others(fake_plugins):
    fake_plugins([
        ("listening", "bad_bots:ListeningBot"),
        ("broken", "broken_import:Bot"),
        ("missing", "no_such_package.bots:Bot"),
        ("notabot", "bad_bots:NotABot"),
        ("noclass", "bad_bots:Nope"),
        ("badoptions", "bad_bots:BadOptionsBot"),
        ("options", "bad_bots:OptionsBot"),
        ("listening", "bad_bots:LastMoveBot"),
        ("random", "arena_bots.random_bot:RandomBot"),
    ])
    found, failures = discover()
    assert list(found) == ["options", "random"]  # a name registered twice plays neither
    assert {key: option.default for key, option in found["options"].options.items()} == {
        "depth": 3, "budget": 0.5, "greedy": True, "style": "calm"}
    assert found["options"].description == "Takes one option of every type."
    assert found["options"].source == "bad_bots:OptionsBot"
    reasons = {(f.name, f.source): f.reason for f in failures}
    assert len(reasons) == 6
    assert "ImportError: this plug-in is broken on purpose" in reasons["broken", "broken_import:Bot"]
    assert "No module named 'no_such_package'" in reasons["missing", "no_such_package.bots:Bot"]
    assert "NotABot is not a Bot subclass" in reasons["notabot", "bad_bots:NotABot"]
    assert "AttributeError" in reasons["noclass", "bad_bots:Nope"]
    assert "is not an Option" in reasons["badoptions", "bad_bots:BadOptionsBot"]
    assert reasons["listening", "bad_bots:ListeningBot, bad_bots:LastMoveBot"] == (
        "is registered 2 times, by an unnamed plug-in (bad_bots:ListeningBot) and an unnamed plug-in "
        "(bad_bots:LastMoveBot); name its class: bad_bots:ListeningBot or bad_bots:LastMoveBot"
    )
    assert all("\n" not in reason for reason in reasons.values())


def test_a_broken_plugin_does_not_stop_loading_another_by_name(fake_plugins):
    fake_plugins({"broken": "broken_import:Bot", "first": "bad_bots:LastMoveBot"})
    assert load_bot("first").__name__ == "LastMoveBot"
    with pytest.raises(BotError, match="^bot 'broken': entry point broken_import:Bot failed to load: ImportError"):
        load_bot("broken")
    with pytest.raises(BotError, match=r"unknown bot \(known bots: broken, first;"):
        parse_bot_spec("second")


def test_no_plugins_at_all(fake_plugins):
    fake_plugins({})
    assert discover() == ({}, [])
    with pytest.raises(BotError, match="unknown bot \\(no bots are installed;"):
        load_bot("random")


def test_description_is_the_first_docstring_line_of_the_class_itself():
    class Documented(Bot):
        """First line.

        More.
        """

    class Undocumented(Documented):
        pass

    assert description(Documented) == "First line."
    assert description(Undocumented) == ""
