"""An ArenaError raised by any command is one line, ``Error: ...``, exit status 1, and no traceback.

The commands do not catch the arena's errors to print them: the command group does
(:meth:`arena.cli.LazyGroup.invoke`).  These run real commands into real errors of several classes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
import pytest

import arena.cli as cli_module
from arena.cli import main
from arena.errors import ArenaError
from arena.records import RecordError, dumps

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def only_error(result) -> str:
    """The one line a failed command printed (it printed nothing else), without ``Error: ``."""
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    assert result.stdout == ""
    assert result.stderr.startswith("Error: ") and result.stderr.endswith("\n")
    assert result.stderr.count("\n") == 1, result.stderr
    return result.stderr.removeprefix("Error: ").rstrip("\n")


def test_replaying_a_damaged_record_is_one_line_naming_the_file_and_the_move(tmp_path, cli):
    record = json.loads((GOLDEN / "3p-seed3.json").read_text())
    record["moves"][5]["seat"] = 0
    path = tmp_path / "bad.json"
    path.write_text(dumps(record))
    assert only_error(cli.invoke(main, ["replay", str(path)])) == (
        f"{path}: move 5: seat 0 is not to move, seat 2 is (T3)")


def test_a_record_that_is_not_json_is_one_line(tmp_path, cli):
    path = tmp_path / "x.json"
    path.write_text("hello")
    line = only_error(cli.invoke(main, ["replay", str(path)]))
    assert line.startswith(f"{path}: ")


def test_playing_an_unknown_bot_is_one_line(cli):
    line = only_error(cli.invoke(main, ["play", "random", "nobody", "--isolation", "none"]))
    assert line.startswith("bot 'nobody': unknown bot (known bots: ")


def test_viewing_a_game_not_in_the_file_is_one_line_with_the_nearest_ids(tmp_path, cli):
    lines = tmp_path / "records.jsonl"
    lines.write_text("".join(json.dumps({**json.loads((GOLDEN / name).read_text()), "game_id": game_id}) + "\n"
                             for game_id, name in (("g-01", "2p-seed2.json"), ("g-02", "3p-seed3.json"))))
    line = only_error(cli.invoke(main, ["view", str(lines), "--game", "g-03", "-o", str(tmp_path / "out.html")]))
    assert line.startswith(f"no game with id g-03 in {lines}; nearest: ")
    assert not (tmp_path / "out.html").exists()


class _Odd(ArenaError):
    """An error class no command knows of."""


@pytest.mark.parametrize("error", [_Odd("the odd one\x1b[2J out"), RecordError("a record's fault")])
def test_any_arena_error_is_one_escaped_line(error, cli, monkeypatch):
    @click.command("boom")
    def boom() -> None:
        raise error

    # A command of the real group: its module is this one, whose ``command`` raises the error.
    monkeypatch.setitem(cli_module.COMMANDS, "boom", (__name__, "Raise an error."))
    monkeypatch.setattr(sys.modules[__name__], "command", boom, raising=False)
    line = only_error(cli.invoke(main, ["boom"]))
    assert line == str(error).replace("\x1b", "\\x1b")
