"""``arena bots``: every bot found, and every plug-in that failed to load."""

from __future__ import annotations

from importlib.metadata import EntryPoint
from pathlib import Path

import arena.plugins.loading
from arena.cli import main

FIXTURES = Path(__file__).parents[1] / "fixtures"


def fake_plugins(monkeypatch, pairs: list[tuple[str, str]]) -> None:
    monkeypatch.syspath_prepend(str(FIXTURES))
    eps = [EntryPoint(name, value, arena.plugins.GROUP) for name, value in pairs]
    monkeypatch.setattr(arena.plugins.loading, "entry_points", lambda group: [ep for ep in eps if ep.group == group])


def test_lists_installed_bots(cli):
    result = cli.invoke(main, ["bots"])
    assert result.exit_code == 0, result.output
    assert "  random  " in result.output or "  random" in result.output
    assert "Plays a legal move chosen uniformly at random." in result.output
    assert "from arena_bots.random_bot:RandomBot (uptown-arena " in result.output
    # The footer names every kind of spec, programs in other languages too.
    footer = " ".join(result.output.split("Play one with", 1)[1].split())
    assert "package.module:Name" in footer and "path/to/file.py:Name" in footer and "exec:COMMAND" in footer


def test_lists_bots_with_options_and_broken_plugins_with_reasons(cli, monkeypatch):
    fake_plugins(monkeypatch, [
        ("options", "bad_bots:OptionsBot"),
        ("broken", "broken_import:Bot"),
        ("notabot", "bad_bots:NotABot"),
        ("last", "bad_bots:LastMoveBot"),
    ])
    result = cli.invoke(main, ["bots"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Bots (2, entry-point group arena.bots):" in out
    assert "  last     Plays the last legal move (MutatingBot's well-behaved twin)." in out
    assert "           from bad_bots:LastMoveBot" in out
    assert "           options: none" in out
    assert "  options  Takes one option of every type." in out
    assert ("           options:\n             depth=3\n             budget=0.5\n             greedy=true\n"
            "             style=calm\n") in out
    assert "Plug-ins that failed to load (2):" in out
    failed = out.split("Plug-ins that failed to load")[1]
    assert "  broken   broken_import:Bot" in failed
    assert "entry point broken_import:Bot failed to load: ImportError: this plug-in is broken on purpose" in failed
    assert "  notabot  bad_bots:NotABot" in failed
    assert "NotABot is not a Bot subclass" in failed
    assert out.index("  last ") < out.index("  options ")  # sorted by name


def test_no_bots_and_only_failures(cli, monkeypatch):
    fake_plugins(monkeypatch, [("broken", "broken_import:Bot")])
    result = cli.invoke(main, ["bots"])
    assert result.exit_code == 0
    assert "No bots found in the entry-point group arena.bots." in result.output
    assert "Plug-ins that failed to load (1):" in result.output


def test_a_listed_bot_can_be_played_by_its_name(cli, monkeypatch):
    fake_plugins(monkeypatch, [("options", "bad_bots:OptionsBot"), ("broken", "broken_import:Bot")])
    # In process: a bot program would not see the entry points faked here.
    result = cli.invoke(main, ["play", "options:depth=1", "options", "--seed", "1", "-q",
                                       "--isolation", "none"])
    assert result.exit_code == 0, result.output
    assert "under uptown scoring" in result.output


def test_a_bot_that_refuses_itself_here_is_listed_as_not_usable_with_the_reason(cli, monkeypatch):
    """A bot whose check_options refuses its defaults (an optional library missing) is listed, with why it
    cannot play here; the others are not marked."""
    fake_plugins(monkeypatch, [("extra", "bad_bots:NeedsAnExtraBot"), ("options", "bad_bots:OptionsBot")])
    result = cli.invoke(main, ["bots"])
    assert result.exit_code == 0, result.output
    listed = result.output.split("\n\n")
    extra = next(block for block in listed if "  extra " in block)
    assert "not usable here: options: needs the frobnicate extra: pip install 'uptown-arena[frobnicate]'" in extra
    assert "not usable here" not in next(block for block in listed if "  options " in block)
