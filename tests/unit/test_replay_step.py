"""``arena replay --step``: on a terminal it waits for Enter (q quits) and shows every rack; --from/--to.

The interactive tests drive the real ``arena replay`` process through a
pseudo-terminal, as a person at a terminal would.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from arena.cli import main
from arena.display import text as render
from arena.records import replay
from arena.rules import COLORS

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
RECORD = GOLDEN / "4p-seed4.json"
#: Only a guard against a hung child: never reached by a working replay, however slow the machine.
HANG = 300.0


def _take_terminal() -> None:
    """In the child, after its new session starts: make the pseudo-terminal its controlling terminal (Ctrl-C),
    with Ctrl-C's signal as a shell at a terminal leaves it: handled by default and not blocked (a test run
    started in the background of a script inherits it ignored, and a child inherits the mask of the thread
    that starts it)."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


class Terminal:
    """``arena replay ARGS`` with a pseudo-terminal as its standard input, output and error."""

    def __init__(self, *args: str) -> None:
        master, slave = pty.openpty()
        env = {**os.environ, "COLUMNS": "120"}
        env.pop("NO_COLOR", None)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "arena", "replay", *args],
            stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True, close_fds=True,
            preexec_fn=_take_terminal,
        )
        os.close(slave)
        self.fd = master
        self.output = ""

    def read_until(self, marker: str) -> str:
        """Everything printed until ``marker`` (or the end of the output); the new text is returned."""
        start = len(self.output)
        while marker not in self.output[start:]:
            ready, _, _ = select.select([self.fd], [], [], HANG)
            assert ready, f"no output for {HANG} s; so far:\n{self.output}"
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:  # EIO: the child closed the terminal
                chunk = b""
            if not chunk:
                break
            self.output += chunk.decode("utf-8", errors="replace").replace("\r\n", "\n")
        return self.output[start:]

    def press(self, key: str) -> None:
        os.write(self.fd, key.encode())

    def finish(self) -> int:
        self.read_until("\0never printed\0")
        return self.process.wait(timeout=HANG)

    def close(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        os.close(self.fd)


@pytest.fixture
def terminal_replay():
    opened: list[Terminal] = []

    def start(*args: str) -> Terminal:
        opened.append(Terminal(*args))
        return opened[-1]

    yield start
    for term in opened:
        term.close()


PROMPT = re.compile(r"\[move (\d+) of 0-\d+\] Enter: next move, q: quit")


def racks_shown(text: str) -> dict[str, list[str]]:
    """Color name -> the tiles its rack line shows, read back from the text after one move."""
    racks = {}
    for line in text.split("racks:\n", 1)[1].splitlines():
        match = re.match(r"  (\w+) +\(seat \d+[^)]*\): (.*?)  +(\d+ in the pile|finished)$", line)
        if not match:
            break
        racks[match[1]] = [] if match[2].strip() == "-" else match[2].split()
    return racks


def expected_racks(index: int) -> dict[str, list[str]]:
    game = replay(json.loads(RECORD.read_text()))
    state = list(game.states())[index].state
    return {COLORS[c]: [render.TILE_ABBREVIATIONS[t] for t in state.racks[c]] for c in state.settings.colors}


def test_step_waits_for_enter_and_shows_every_rack(terminal_replay):
    term = terminal_replay(str(RECORD), "--step", "--from", "10", "--to", "12", "--no-color")
    first = term.read_until("q: quit")
    assert "move 10: seat" in first and "move 11:" not in first
    assert PROMPT.search(first)[1] == "10"
    assert racks_shown(first) == expected_racks(10)
    assert len(racks_shown(first)) == 4  # every color, not only the one that moved
    term.press("\r")
    second = term.read_until("q: quit")
    assert "move 11: seat" in second and "move 12:" not in second
    assert racks_shown(second) == expected_racks(11)
    term.press(" ")
    rest = term.read_until("the game has")
    assert "move 12: seat" in rest and "q: quit" not in rest  # no prompt after the last move asked for
    assert "(stopped after move 12; the game has" in rest
    assert term.finish() == 0
    assert "Traceback" not in term.output and "\x1b[" not in term.output


def test_q_quits_at_the_prompt(terminal_replay):
    term = terminal_replay(str(RECORD), "--step", "--no-color")
    first = term.read_until("q: quit")
    assert "move 0: seat 0" in first
    term.press("x")  # other keys are ignored
    term.press("q")
    assert term.finish() == 0
    assert "move 1:" not in term.output and "final board" not in term.output
    assert "Traceback" not in term.output


def test_ctrl_c_at_the_prompt_quits_without_a_traceback(terminal_replay):
    term = terminal_replay(str(RECORD), "--step", "--from", "5")
    term.read_until("q: quit")
    term.press("\x03")
    assert term.finish() == 0
    assert "Traceback" not in term.output and "move 6:" not in term.output
    assert "\x1b[1;31m" in term.output  # a terminal, no NO_COLOR: in color


def test_stepping_to_the_end_shows_the_result(terminal_replay):
    record = json.loads(RECORD.read_text())
    last = len(record["moves"]) - 1
    term = terminal_replay(str(RECORD), "--step", "--from", str(last - 1), "--no-color")
    term.read_until("q: quit")
    term.press("\n")
    assert term.finish() == 0
    assert f"move {last}: seat" in term.output and "final board:" in term.output
    assert "Winner under Uptown scoring" in term.output


# -- not a terminal: everything at once -------------------------------------------


@pytest.fixture
def run(cli):
    """``arena replay`` with these arguments."""
    return lambda *args: cli.invoke(main, ["replay", *args])


def test_step_without_a_terminal_prints_the_range_without_waiting(run):
    result = run(str(RECORD), "--step", "--from", "3", "--to", "5")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "q: quit" not in out
    assert [int(n) for n in re.findall(r"^move (\d+): ", out, re.M)] == [3, 4, 5]
    assert out.count("racks:") == 3
    assert racks_shown(out.split("move 4: ", 1)[1]) == expected_racks(4)
    assert "(stopped after move 5; the game has" in out and "final board" not in out


@pytest.mark.parametrize(("args", "message"), [
    (["--step", "--from", "500"], "--from 500: the game has"),
    (["--step", "--to", "-1"], "--to -1: the game has"),
    (["--step", "--from", "9", "--to", "3"], "--from 9 comes after --to 3"),
    (["--from", "3"], "--from and --to choose the moves of --step"),
    (["--step", "--from", "x"], "'x' is not a valid integer"),
])
def test_bad_move_numbers_are_one_line(args, message, run):
    result = run(str(RECORD), *args)
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert message in result.output.strip().splitlines()[-1]
