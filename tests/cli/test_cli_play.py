"""``arena play``: one refereed game from the command line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena import records
from arena.cli import main

ROOT = Path(__file__).parents[2]
BAD = Path(__file__).parents[1] / "fixtures" / "bad_bots.py"


@pytest.fixture
def run(cli):
    """``arena play`` with these arguments."""
    return lambda *args: cli.invoke(main, ["play", *args])


def one_line_error(result, *, status: int | None = None) -> str:
    """The error of a failed run: non-zero exit, no traceback, the message on one 'Error:' line."""
    assert result.exit_code != 0, result.output
    if status is not None:
        assert result.exit_code == status
    assert isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, result.output
    return errors[0]


@pytest.mark.slow
def test_play_four_random_bots_shows_board_and_result(run):
    result = run("random", "random", "random", "random", "--seed", "5")
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.startswith("seed 5, 4 players, uptown scoring, ")
    assert "\x1b[" not in out  # plain text when not on a terminal
    assert re.search(r"^A  ", out, re.MULTILINE) and re.search(r"^I  ", out, re.MULTILINE)
    for heading in ("groups", "captures", "penalty", "blockers", "uptown rank", "blockers rank", "faults", "won"):
        assert heading in out
    assert re.search(r"^Winners? under Uptown scoring: random \(seat \d\)", out, re.MULTILINE)
    assert re.search(r"^bots ran in \w+ \(.*\); arena info lists each wall$", out, re.MULTILINE)  # process isolation, the default


@pytest.mark.slow
def test_a_seed_is_chosen_and_printed_when_none_is_given(tmp_path, run):
    path = tmp_path / "game.json"
    result = run("random", "random", "--record", str(path))
    assert result.exit_code == 0, result.output
    seed = int(re.match(r"seed (\d+),", result.output).group(1))
    assert records.load(path)["seed"] == seed
    assert f"record written to {path}" in result.output


@pytest.mark.slow
def test_record_is_written_and_replays_to_the_shown_result(tmp_path, run):
    path = tmp_path / "game.json"
    result = run("random", "random", "random", "--seed", "9", "--scoring", "blockers", "--penalty", "opponent",
                 "--time-limit", "3", "--record", str(path))
    assert result.exit_code == 0, result.output
    record = records.load(path)
    game = records.replay(record)
    assert record["seed"] == 9 and record["scoring"] == "blockers" and record["penalty"] == "opponent"
    assert record["time_limit"] == 3.0 and record["faults"] == []
    assert [b["spec"] for b in record["bots"]] == ["random"] * 3
    assert "Winner under Blockers! scoring" in result.output or "Winners under Blockers! scoring" in result.output
    assert path.read_text() == records.dumps(record)
    assert len(game.moves) == len(record["moves"])


@pytest.mark.slow
def test_same_seed_same_record(tmp_path, run):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    for path in (first, second):
        example = f"{ROOT / 'examples' / 'example_bot.py'}:ExampleBot"
        assert run("random", example, "--seed", "77", "--record", str(path), "-q").exit_code == 0
    assert first.read_bytes() == second.read_bytes()


@pytest.mark.slow
def test_quiet_prints_only_the_winner_line(run):
    result = run("random", "random", "--seed", "3", "--quiet")
    assert result.exit_code == 0
    winners = r"random \(seat \d\)(, random \(seat \d\))?"
    assert re.fullmatch(rf"seed 3: winners? {winners} under uptown scoring\n", result.output)


@pytest.mark.slow
def test_the_example_bot_plays_by_its_file_name(monkeypatch, run):
    monkeypatch.chdir(ROOT)
    result = run("examples/example_bot.py:ExampleBot", "random", "random", "--seed", "1")
    assert result.exit_code == 0, result.output
    assert "examples/example_bot.py:ExampleBot" in result.output
    result = run("examples/example_bot.py:ExampleBot:captures=false", "random", "--seed", "1", "-q")
    assert result.exit_code == 0, result.output


@pytest.mark.slow
def test_bots_with_options_and_faults_in_the_table(tmp_path, run):
    path = tmp_path / "game.json"
    result = run(f"{BAD}:RaisingBot:after=1", f"{BAD}:LoopingBot:after=2", "random", "--seed", "4",
                 "--time-limit", "0.3", "--record", str(path))
    assert result.exit_code == 0, result.output
    out = result.output
    assert "faults:" in out
    assert re.search(r"seat 0 .*move 3: exception: ValueError: the bot broke", out)
    assert re.search(r"seat 1 .*move 7: timeout: no move within the time limit of 0.3 s", out)
    record = records.load(path)
    assert [(f["seat"], f["move"], f["kind"]) for f in record["faults"]] == [(0, 3, "exception"), (1, 7, "timeout")]
    assert record["bots"][0]["spec"] == f"{BAD}:RaisingBot:after=1"
    records.replay(record)
    quiet = run(f"{BAD}:RaisingBot:after=1", "random", "--seed", "4", "-q")
    assert "; faults: seat 0 exception at move 2" in quiet.output


def test_a_printing_bot_does_not_corrupt_the_output(run):
    result = run(f"{BAD}:PrintingBot", "random", "--seed", "2", "--isolation", "none")
    assert result.exit_code == 0
    assert "BOT" not in result.output
    assert result.output.startswith("seed 2, 2 players")


def test_a_bot_calling_sys_exit_does_not_end_the_command(run):
    result = run(f"{BAD}:ExitBot:after=0", "random", "--seed", "2", "--isolation", "none")
    assert result.exit_code == 0, result.output
    assert "exit: called sys.exit(3)" in result.output


@pytest.mark.slow
def test_isolated_play(tmp_path, run):
    logs = tmp_path / "logs"
    result = run(f"{BAD}:HardExitBot:after=1", f"{BAD}:PrintingBot", "--seed", "2", "--isolation", "process",
                 "--time-limit", "2", "--logs", str(logs))
    assert result.exit_code == 0, result.output
    out = result.output
    assert "crash: the bot's process ended: exit code 7" in out
    assert re.search(r"^bots ran in \w+ \(.*\); arena info lists each wall$", out, re.MULTILINE)
    assert "Python bots ran in this process" not in out
    # Each seat's log is named after the seat and the bot, and the output says which is whose.
    assert out.endswith(f"bot logs (their standard error) in {logs}: seat 0 seat0-bad_bots.py_HardExitBot.log, "
                        "seat 1 seat1-bad_bots.py_PrintingBot.log\n")
    assert sorted(p.name for p in logs.iterdir()) == ["seat0-bad_bots.py_HardExitBot.log",
                                                      "seat1-bad_bots.py_PrintingBot.log"]
    assert "(log: seat0-bad_bots.py_HardExitBot.log)" in out
    # What a bot prints goes to its log, never to the command's output.
    assert "BOT" not in out
    assert any("PRINTED BY A BOT" in log.read_text() for log in logs.iterdir())


def test_play_in_process(run):
    result = run(f"{BAD}:PrintingBot", "random", "--seed", "2", "--isolation", "none")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "BOT" not in out
    assert not re.search(r"^bots ran in", out, re.MULTILINE)
    assert "Python bots ran in this process (isolation none: trusted code only)\n" in out
    # What it printed on standard output is dropped in process too: its log holds nothing, and is not kept.
    assert "\nbot logs: none kept, the bots wrote nothing on standard error" in out


# -- bad input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, message",
    [
        (["random"], "Uptown is played by 2 to 5 bots, not 1"),
        ([], "Uptown is played by 2 to 5 bots, not 0"),
        (["random"] * 6, "Uptown is played by 2 to 5 bots, not 6"),
        (["random", "nobody"], "bot 'nobody': unknown bot (known bots: "),
        (["random", "random:depth=3"], "bot 'random': takes no option 'depth' (its options: none)"),
        (["random", f"{BAD}:OptionsBot:depth=deep"], "option 'depth' takes a whole number (default 3), not 'deep'"),
        (["random", f"{BAD}:OptionsBot:greedy=maybe"], "option 'greedy' takes true or false"),
        (["random", "depth=3"], "options follow the bot after a colon"),
        (["random", "mcts:400"], "'400' is not a class name"),
        (["random", "missing/bot.py:Bot"], "bot 'missing/bot.py:Bot': file missing/bot.py not found"),
        (["random", "no_such_module:Bot"], "bot 'no_such_module:Bot': no module named 'no_such_module'"),
        (["random", "arena_bots.random_bot:Nothing"], "arena_bots.random_bot has no class 'Nothing'"),
        (["random", f"{BAD}:NotABot"], "NotABot is not a Bot subclass"),
        # Refused by its own check_options with nothing given (a missing extra), before the game, in either isolation.
        (["random", f"{BAD}:NeedsAnExtraBot"], "options: needs the frobnicate extra"),
        (["random", f"{BAD}:NeedsAnExtraBot", "--isolation", "none"], "options: needs the frobnicate extra"),
        (["random", "arena.rules:Move"], "Move is not a Bot subclass"),
        (["random", "random", "--seed", "x"], "'x' is not a valid integer"),
        (["random", "random", "--seed", "1.5"], "'1.5' is not a valid integer"),
        (["random", "random", "--time-limit", "0"], "--time-limit"),
        (["random", "random", "--time-limit", "-1"], "--time-limit"),
        (["random", "random", "--time-limit", "soon"], "'soon' is not a number of seconds"),
        (["random", "random", "--scoring", "golf"], "'golf' is not one of 'uptown', 'blockers'"),
        (["random", "random", "--penalty", "none"], "'none' is not one of 'color', 'opponent'"),
        (["random", "random", "--record", "no/such/folder/game.json"], "folder no/such/folder does not exist"),
        (["random", "exec:./no-such-bot"], "bot 'exec:./no-such-bot': ./no-such-bot: ./no-such-bot does not exist"),
        (["random", "exec:README.md"], "no program 'README.md' on the bots' PATH"),
        (["random", "exec:true"], "bot 'exec:true': true: ended before answering hello: exit code 0"),
        (["random", "exec:"], "the command is missing after exec:"),
        (["random", "exec:'open"], "the command cannot be read"),
        (["random", "random", "--isolation", "thin"], "'thin' is not one of 'process', 'none'"),
    ],
)
@pytest.mark.slow
def test_bad_input_is_one_line_without_traceback(args, message, run):
    line = one_line_error(run(*args))
    assert message in line, line


def test_record_path_that_is_a_folder(tmp_path, run):
    line = one_line_error(run("random", "random", "--record", str(tmp_path)))
    assert "is a folder, not a file" in line


def test_record_path_that_is_not_writable(tmp_path, monkeypatch, run):
    # Checked with os.access before the game; faked here, since root may write anywhere.
    monkeypatch.setattr("arena.commands.play.os.access", lambda path, mode: False)
    line = one_line_error(run("random", "random", "--record", str(tmp_path / "game.json")))
    assert f"{tmp_path / 'game.json'} is not writable" in line


@pytest.mark.slow
def test_record_that_cannot_be_written_after_the_game(tmp_path, monkeypatch, run):
    def refuse(path, record):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(records, "write", refuse)
    result = run("random", "random", "--seed", "1", "--record", str(tmp_path / "game.json"))
    line = one_line_error(result, status=1)
    assert f"cannot write the record to {tmp_path / 'game.json'}: Permission denied" in line


# -- bot programs ------------------------------------------------------------------------

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "protocol"


@pytest.mark.slow
def test_protocol_programs_in_two_languages_play_a_game(tmp_path, run):
    import shutil
    import sys

    if shutil.which("node") is None:
        pytest.skip("node is not installed: the JavaScript example cannot run")
    js = f"exec:node {EXAMPLES / 'random_bot.js'}:captures=false"
    py = f"exec:{sys.executable} {EXAMPLES / 'random_bot.py'}"
    record, talk = tmp_path / "game.json", tmp_path / "talk.txt"
    result = run(js, py, "greedy", "--seed", "12", "--record", str(record), "--logs", str(tmp_path / "logs"),
                 "--transcript", str(talk))
    assert result.exit_code == 0, result.output
    assert "bots ran in " in result.output and f"bot logs (their standard error) in {tmp_path / 'logs'}" in result.output
    game = records.load(record)
    assert not game["faults"] and game["bots"][0]["options"] == {"captures": False}
    records.replay(game)
    lines = talk.read_text().splitlines()
    assert sum(1 for line in lines if line.startswith("[seat 0] < ")) == 24  # one answer a turn, 24 turns
    assert "random-js: game as seat 0" in (tmp_path / "logs").joinpath(next(
        p.name for p in (tmp_path / "logs").iterdir() if "random_bot.js" in p.name)).read_text()
    # The same seed, the same game: the programs' generators are seeded from the game message.
    again = tmp_path / "again.json"
    assert run(js, py, "greedy", "--seed", "12", "--record", str(again), "-q").exit_code == 0
    assert records.load(again) == game


@pytest.mark.slow
def test_probe_shows_what_a_program_declares(cli):
    import shutil

    if shutil.which("node") is None:
        pytest.skip("node is not installed: the JavaScript example cannot run")
    result = cli.invoke(main, ["bots", "--probe", f"exec:node {EXAMPLES / 'random_bot.js'}",
                               "--probe", "mcts:iterations=7"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].endswith(": random-js: Plays a legal move chosen at random (SplitMix64).")
    assert "  protocol: uptown-bot/1, in " in result.output
    # A program that declares no option_info: its options' values alone.
    assert lines[lines.index("  options:") + 1] == "    captures=true"
    # A Python bot: its options' values with their ranges and docs, each on a line.
    at = lines.index("    iterations=7 (at least 0): iterations per move, 0 for no iteration budget")
    assert [line.split("=")[0].strip() for line in lines[at:at + 9]] == [
        "iterations", "seconds", "clock_share", "exploration", "candidates", "widening", "widen_root", "playout",
        "engine"]
    bad = cli.invoke(main, ["bots", "--probe", "exec:true"])
    (line,) = bad.output.strip().splitlines()
    assert bad.exit_code == 1 and line.startswith("Error: bot 'exec:true': true: ended before answering hello: exit "
                                                  "code 0 (its standard error: ")


def test_an_exec_bot_s_record_entry_keeps_the_name_it_declared(cli, tmp_path):
    import json
    import sys

    path = tmp_path / "g.json"
    spec = f"exec:{sys.executable} {EXAMPLES / 'random_bot.py'}"
    result = cli.invoke(main, ["play", spec, "greedy", "--seed", "2", "--record", str(path)])
    assert result.exit_code == 0, result.output
    record = json.loads(path.read_text())
    assert record["players"][0]["name"] == record["bots"][0]["spec"] == spec
    assert record["bots"][0]["name"] == "random-py"  # from its hello
    assert "name" not in record["bots"][1]  # a Python bot is named by its spec, under any isolation


def test_the_final_board_marks_the_last_tile_played_as_its_legend_says(run):
    """The legend promises a * after the last move's tile: the final board has exactly one, on that cell."""
    from arena.play.referee import play_game
    from arena.rules.geometry import CELL_NAMES

    result = run("random", "greedy", "--seed", "11", "--isolation", "none")
    assert result.exit_code == 0, result.output
    board = [line for line in result.output.splitlines() if line[:1] in "ABCDEFGHI" and line[1:3] == "  "]
    marked = [line for line in board if "*" in line]
    assert len(marked) == 1 and marked[0].count("*") == 1, board
    history = play_game(["random", "greedy"], 11, isolation="none").state.history
    last = next(move for move, _ in reversed(history) if not move.is_pass)
    assert marked[0][0] == CELL_NAMES[last.cell][0], (marked[0], last)
