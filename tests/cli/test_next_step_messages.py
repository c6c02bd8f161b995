"""Messages that say what to do next: each names the fix, the folder or the file the user needs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from arena.cli import main

#: A bot program that shakes hands, then prints its debugging to standard output at its first turn.
NOISY = """
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "hello", "protocol": "uptown-bot/1", "name": "noisy"}), flush=True)
    elif message["type"] == "turn":
        print("debug: thinking about", message["legal"][0], flush=True)
    elif message["type"] == "quit":
        break
"""

#: A bot program that says what it is doing on standard error and never answers hello.
SLOW = """
import sys, time
print("loading weights from model.bin", file=sys.stderr, flush=True)
time.sleep(60)
"""


def program(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return f"exec:{sys.executable} {path}"


def test_a_line_of_debugging_on_standard_output_says_to_write_it_to_standard_error(cli, tmp_path):
    result = cli.invoke(main, ["play", program(tmp_path, "noisy.py", NOISY), "random", "--seed", "1",
                               "--logs", str(tmp_path / "logs"), "--record", str(tmp_path / "g.json")])
    assert result.exit_code == 0, result.output
    faults = json.loads((tmp_path / "g.json").read_text())["faults"]
    assert faults[0]["kind"] == "protocol"
    assert faults[0]["message"].startswith("wrote a line that is not JSON: 'debug: thinking about")
    assert "write debug output to standard error" in faults[0]["message"]
    assert "write debug output to standard error" in result.output


def test_a_handshake_timeout_shows_the_last_words_and_the_log(cli, tmp_path, monkeypatch):
    monkeypatch.setattr("arena.play.botprocess.STARTUP_SECONDS", 1.0)
    logs = tmp_path / "logs"
    result = cli.invoke(main, ["play", program(tmp_path, "slow.py", SLOW), "random", "--time-limit", "0.5",
                               "--logs", str(logs)])
    assert result.exit_code != 0
    line = result.output.strip()
    assert len(line.splitlines()) == 1, line
    assert "no answer to hello within 1.5 s" in line
    assert "its last words: loading weights from model.bin" in line
    log = logs / "seat0-slow.py.log"
    assert f"(its standard error: {log})" in line and log.is_file()


def test_a_missing_program_names_the_folder_it_was_read_from(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = cli.invoke(main, ["play", "exec:rustbot/target/release/rustbot", "random"])
    assert result.exit_code != 0
    assert result.output.strip() == (
        "Error: bot 'exec:rustbot/target/release/rustbot': rustbot/target/release/rustbot: "
        f"rustbot/target/release/rustbot does not exist (read from the folder {tmp_path})"
    )


TOURNAMENT = """
name = "held"
players = 3
deals = 1
seed = 5
[[entrants]]
bot = "random"
[[entrants]]
bot = "greedy"
[[entrants]]
name = "other"
command = ["{python}", "{bot}"]
"""


@pytest.mark.parametrize("held, message", [
    ("games", "already holds 1 games of this tournament; add --resume"),
    ("other", "already holds a different tournament"),
    ("bare", "holds results without a tournament.toml"),
])
def test_a_folder_holding_results_is_refused_before_any_bot_starts(cli, tmp_path, monkeypatch, write_tournament,
                                                                   held, message):
    from arena.play.botprocess import BotProcess

    started: list[str] = []

    def launch(self: BotProcess) -> None:
        started.append(self.program.text)
        raise AssertionError("a bot started")

    monkeypatch.setattr(BotProcess, "launch", launch)
    text = TOURNAMENT.format(python=sys.executable, bot=tmp_path / "noisy.py")
    path = write_tournament(text, "held.toml")
    out = tmp_path / "out"
    out.mkdir()
    if held != "bare":
        (out / "tournament.toml").write_text(text if held == "games" else text.replace("seed = 5", "seed = 6"))
    (out / "games.csv").write_text("game_id\n1\n2\n3\n")
    result = cli.invoke(main, ["run", str(path), "--out", str(out), "-q"])
    assert result.exit_code == 1
    assert message in result.output and len(result.output.strip().splitlines()) == 1, result.output
    assert started == []
    assert (out / "games.csv").read_text() == "game_id\n1\n2\n3\n"


def test_a_tournament_s_handshake_timeout_keeps_the_log_it_names(cli, tmp_path, monkeypatch, write_tournament):
    monkeypatch.setattr("arena.play.botprocess.STARTUP_SECONDS", 1.0)
    (tmp_path / "slow.py").write_text(SLOW)
    path = write_tournament(TOURNAMENT.replace("noisy.py", "slow.py").format(python=sys.executable,
                                                                             bot=tmp_path / "slow.py"), "slow.toml")
    result = cli.invoke(main, ["run", str(path), "--out", str(tmp_path / "out"), "-q"])
    assert result.exit_code == 1
    line = result.output.strip()
    assert "no answer to hello within" in line and "its last words: loading weights from model.bin" in line
    log = Path(line.split("(its standard error: ")[1].rstrip(")"))
    assert "loading weights from model.bin" in log.read_text()
    import shutil

    shutil.rmtree(log.parent)


@pytest.mark.parametrize("old, new, update", [
    ('bot = "greedy"', 'bot = "greedy"\noptions = { captures = false }', True),  # an entrant's options changed
    ("deals = 1", "deals = 2", True),  # more rounds, as a longer deals file gives
    ("seed = 5", "seed = 6", False),  # every stored game would be another: no update keeps them
])
def test_a_folder_of_a_changed_tournament_names_update_where_an_update_can_bring_it_up(
        cli, tmp_path, write_tournament, old, new, update):
    text = TOURNAMENT.format(python=sys.executable, bot=tmp_path / "noisy.py")
    out = tmp_path / "out"
    out.mkdir()
    (out / "tournament.toml").write_text(text)
    assert old in text
    path = write_tournament(text.replace(old, new, 1), "held.toml")
    result = cli.invoke(main, ["run", str(path), "--out", str(out), "--resume", "-q"])
    assert result.exit_code == 1 and "already holds a different tournament" in result.output, result.output
    assert ("add --update to bring the folder up to the file" in result.output) == update, result.output
    assert "choose another folder with --out, or start again with --overwrite" in result.output
