"""``arena play human BOT...``: a person plays whole games in a pseudo-terminal against ``random`` bots."""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal (os.openpty)")

PROMPT = "? lists the moves, q resigns): "
WHICH = "anything else: back)? "
LISTED = re.compile(r"#(\d+) ([rbgyp])(\S+) ([A-I][1-9])")
RACK = re.compile(r"your rack: (.*)")


class Session:
    """``arena play`` with its standard input and output on a pseudo-terminal."""

    def __init__(self, *args: str) -> None:
        self.master, slave = os.openpty()
        env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
        self.process = subprocess.Popen([sys.executable, "-m", "arena", "play", *args], stdin=slave,
                                        stdout=slave, stderr=slave, env=env, close_fds=True)
        os.close(slave)
        self.seen = ""
        self.done = False

    def until(self, *marks: str) -> str:
        """The output up to the first of ``marks`` (or to the end), consumed."""
        while True:
            hits = [(self.seen.find(m), m) for m in marks if m in self.seen]
            if hits:
                at, mark = min(hits)
                head, self.seen = self.seen[: at + len(mark)], self.seen[at + len(mark):]
                return head
            if self.done:
                head, self.seen = self.seen, ""
                return head
            ready, _, _ = select.select([self.master], [], [], 120)
            assert ready, f"no output; so far: {self.seen[-2000:]}"
            try:
                data = os.read(self.master, 65536)
            except OSError:  # the other end closed: the game is over
                data = b""
            if not data:
                self.done = True
            self.seen += data.decode().replace("\r\n", "\n")

    def type(self, line: str) -> None:
        os.write(self.master, line.encode() + b"\n")

    def close(self) -> int:
        self.until("\0never")
        os.close(self.master)
        return self.process.wait(120)


def legal_moves(session: Session) -> list[tuple[str, str, str, str]]:
    """``?`` at the prompt: the listed moves as (number, tile, cell, color)."""
    session.type("?")
    listing = session.until(PROMPT)
    return [(m[1], m[3], m[4], m[2]) for m in LISTED.finditer(listing)]


def answer_which(session: Session, text: str) -> str:
    """After typing a move: answer any "which one" with 1; the output up to the next prompt or the end."""
    out = session.until(PROMPT, WHICH)
    if out.endswith(WHICH):
        session.type("1")
        out += session.until(PROMPT)
    return out


def verify(path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "arena", "replay", "--verify", str(path)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_a_whole_game_typed_in_every_form(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    session = Session("human", "random", "random", "--seed", "12", "--record", str(record))
    first = session.until(PROMPT)
    assert "seat 0 human" in first and RACK.search(first)

    session.type("u")  # no undo: it would break the record
    assert "there is no undo" in session.until(PROMPT)
    session.type("zz B9")
    refused = session.until(PROMPT)
    echo, reason, prompt = refused.split("\n")  # the typed line, one line of reason, the prompt again
    assert echo == "zz B9" and reason.startswith("zz B9: not a move") and prompt.startswith("your move")
    moves = legal_moves(session)
    assert moves, "? lists the legal moves"
    # A letter tile on a cell outside its row breaks M1; the reason names the rule, and the prompt comes back.
    tile = next(m[1] for m in moves if len(m[1]) == 1 and m[1] != "$")
    elsewhere = f"{'B' if tile == 'A' else 'A'}1" if tile.isalpha() else f"A{int(tile) % 9 + 1}"
    session.type(f"{tile} {elsewhere}")  # a letter out of its row, a number out of its column
    refused = session.until(PROMPT)
    echo, reason, prompt = refused.split("\n")
    assert reason.startswith("not a legal move") and reason.endswith("does not fit " + elsewhere + " (M1)") and prompt.startswith("your move")
    session.type("#99999")
    assert "legal moves, #1 to #" in session.until(PROMPT)

    forms = ["tile cell", "cell", "rack", "list"]
    turns = 0
    while True:
        moves = legal_moves(session)
        form = forms[turns % len(forms)]
        number, tile, cell, _ = moves[turns % len(moves)]
        if form == "tile cell":
            session.type(f"{tile} {cell}")
        elif form == "cell":
            session.type(cell)
        elif form == "rack":
            session.type("1")
        else:
            session.type(f"#{number}")
        turns += 1
        out = answer_which(session, form)
        assert "not a move" not in out and "not a legal move" not in out, out
        if not out.endswith(PROMPT):
            break
    assert session.close() == 0
    assert turns > 4
    game = json.loads(record.read_text())
    assert game["bots"][0]["spec"] == "human"
    assert game["faults"] == []
    verify(record)


@pytest.mark.slow
def test_q_resigns_and_the_fallback_plays_on(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    session = Session("human", "random", "--seed", "5", "--record", str(record), "--isolation", "process")
    session.until(PROMPT)
    session.type("q")
    assert session.close() == 0
    game = json.loads(record.read_text())
    assert [f["kind"] for f in game["faults"]] == ["resign"]
    assert game["faults"][0]["seat"] == 0 and game["faults"][0]["move"] == 0
    assert game["bots"][0]["spec"] == "human"
    verify(record)


@pytest.mark.slow
def test_the_end_of_the_input_resigns(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    done = subprocess.run([sys.executable, "-m", "arena", "play", "random", "human", "--seed", "5",
                           "--record", str(record)], stdin=subprocess.DEVNULL, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    game = json.loads(record.read_text())
    assert [(f["seat"], f["kind"]) for f in game["faults"]] == [(1, "resign")]
    verify(record)


@pytest.mark.slow
def test_a_human_seat_takes_no_options() -> None:
    done = subprocess.run([sys.executable, "-m", "arena", "play", "human:x=1", "random"],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True)
    assert done.returncode != 0 and "takes no options" in done.stderr and "Traceback" not in done.stderr
