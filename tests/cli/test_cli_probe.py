"""``arena bots --probe``: a bot shakes hands and plays one game against random, as in a tournament."""

from __future__ import annotations

import sys
from pathlib import Path

from arena.cli import main

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "tests" / "fixtures" / "programs"
BAD = ROOT / "tests" / "fixtures" / "bad_bots.py"


def probe(cli, *args: str):
    return cli.invoke(main, ["bots", "--seed", "3", "--time-limit", "2", *args])


def game_line(output: str) -> str:
    (line,) = [line for line in output.splitlines() if line.startswith("  game:")]
    return line


def test_a_program_that_plays_well_is_usable(cli):
    result = probe(cli, "--probe", f"exec:{sys.executable} {ROOT / 'examples' / 'protocol' / 'random_bot.py'}")
    assert result.exit_code == 0, result.output
    assert "  protocol: uptown-bot/1, in " in result.output  # the handshake, as before
    line = game_line(result.output)
    assert line.startswith("  game:     seat 0 against random, seed 3, time limit 2 s: ")
    answered = int(line.split(": ")[2].split()[0])
    assert answered > 10 and ", no fault (" in line


def test_a_program_that_answers_hello_but_crashes_on_its_first_turn_is_not_usable(cli):
    result = probe(cli, "--probe", f"exec:{sys.executable} {PROGRAMS / 'first_turn_crash.py'}")
    assert result.exit_code == 1, result.output
    assert "  protocol: uptown-bot/1, in " in result.output  # the handshake went well
    assert ": 0 turns answered; first fault at move 0: crash: the bot's process ended: exit code 1" \
        in game_line(result.output)
    error = result.output.splitlines()[-1]
    assert error.startswith(f"Error: bot 'exec:{sys.executable} {PROGRAMS / 'first_turn_crash.py'}' is not usable: "
                            "it faulted at move 0 of the probe game: crash: ")
    assert "KeyError: 'moves'" in error  # its own error line
    log = next(line for line in result.output.splitlines() if line.startswith("  log:")).split()[-1]
    assert "KeyError: 'moves'" in Path(log).read_text()
    assert "  again:    arena play " in result.output and " random --seed 3 --time-limit 2" in result.output


def test_a_program_that_plays_an_illegal_move_is_not_usable(cli):
    result = probe(cli, "--probe", f"exec:{sys.executable} {PROGRAMS / 'illegal_move.py'}")
    assert result.exit_code == 1, result.output
    assert "first fault at move 0: illegal: returned red:" in game_line(result.output)
    assert "not a legal move" in result.output.splitlines()[-1]


def test_the_probe_plays_under_the_isolation_and_time_limit_given(cli):
    """A Python bot in process (isolation none) that overruns a short limit at its third turn: late."""
    result = cli.invoke(main, ["bots", "--probe", f"{BAD}:SleepingBot:after=2", "--isolation", "none",
                               "--time-limit", "0.2", "--seed", "4"])
    assert result.exit_code == 1, result.output
    line = game_line(result.output)
    assert ": 2 turns answered; first fault at move " in line and ": timeout: " in line
    assert "runs in:  this process" in result.output


def test_every_bot_is_probed_and_the_error_names_the_first_unusable(cli):
    result = cli.invoke(main, ["bots", "--isolation", "none", "--seed", "3", "--probe", f"{BAD}:RaisingBot:after=1",
                               "--probe", "greedy", "--probe", f"{BAD}:IllegalBot:after=0"])
    assert result.exit_code == 1, result.output
    games = [line for line in result.output.splitlines() if line.startswith("  game:")]
    assert len(games) == 3 and ", no fault (" in games[1]
    assert result.output.splitlines()[-1].startswith(f"Error: bot '{BAD}:RaisingBot:after=1' is not usable: ")
    assert result.output.splitlines()[-1].endswith("(and 1 more, above)")


def test_the_human_seat_is_no_bot_to_probe(cli):
    result = cli.invoke(main, ["bots", "--probe", "human"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.output.strip().splitlines()[-1] == (
        "Error: Invalid value for '--probe': human is you at the terminal: there is no bot to probe")
