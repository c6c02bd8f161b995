"""A record is the same bytes whichever engine played it: `arena run` and `arena play`, native and ARENA_PURE=1.

The engine is chosen when arena.rules is imported, so each run is a process of its own.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.rules.engine import ENGINE

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(ENGINE != "native", reason="the native engine is not built or ARENA_PURE is set")

TOURNAMENT = """
name = "engines"
players = {players}
deals = 1  # 4 games of 4 players, 12 of 2 (the engines' turn-by-turn agreement is tests/unit/test_native.py's)
seating = "rotate"
seed = 77
deal_key = "0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f"  # both runs dealt the same games
scoring = "{scoring}"
time_limit = 60.0
# The bots in the referee's process, on its engine: what the engines decide is what is compared (a
# game's record is the same in any isolation; the sandbox would only add its starts to each run).
isolation = "none"

[[entrants]]
name = "random"
bot = "random"

[[entrants]]
name = "greedy"
bot = "greedy"

[[entrants]]
name = "lookahead"
bot = "lookahead"

[[entrants]]
name = "mcts"
bot = "mcts"
options = {{ iterations = 12, candidates = 3 }}
"""


def python(code: str, args: list[str], pure: bool, cwd) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "ARENA_PURE"}
    if pure:
        env["ARENA_PURE"] = "1"
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    return done


def arena(args: list[str], pure: bool, cwd) -> subprocess.CompletedProcess[str]:
    """`arena ARGS`, after checking that the process uses the engine asked for."""
    engine = python("from arena.rules import ENGINE; print(ENGINE)", [], pure, cwd).stdout.strip()
    assert engine == ("pure" if pure else "native")
    return python("import sys; from arena.cli import main; sys.argv[0] = 'arena'; main()", args, pure, cwd)


@pytest.mark.parametrize(("players", "scoring"), [(4, "uptown"), (2, "blockers")])
@pytest.mark.slow
def test_a_tournament_writes_the_same_records_with_either_engine(tmp_path, write_tournament, players: int,
                                                                 scoring: str) -> None:
    write_tournament(TOURNAMENT.format(players=players, scoring=scoring), "t.toml")
    records = []
    for pure in (False, True):
        out = tmp_path / ("pure" if pure else "native")
        arena(["run", "t.toml", "--out", str(out), "-j", "1", "--quiet", "--no-compress"], pure, tmp_path)
        records.append((out / "records.jsonl").read_bytes())
    assert records[0] and records[0] == records[1]


@pytest.mark.slow
def test_arena_play_records_the_same_bytes_with_either_engine(tmp_path) -> None:
    texts = []
    for pure in (False, True):
        path = tmp_path / f"{pure}.json"
        arena(["play", "mcts:iterations=15", "greedy", "random", "--seed", "5", "--record", str(path)], pure, tmp_path)
        texts.append(path.read_bytes())
    assert texts[0] == texts[1]


@pytest.mark.slow
def test_faulted_seats_and_a_mutating_bot_play_on_the_same_with_either_engine(tmp_path) -> None:
    # The referee's random fallback for a faulted seat, and a bot that edits the MoveSet it is handed:
    # what each engine does with them is in the record, so the records must agree.
    bots = "tests/fixtures/bad_bots.py"
    texts = []
    for pure in (False, True):
        path = tmp_path / f"{pure}.json"
        arena(["play", f"{bots}:IllegalBot", f"{bots}:MutatingBot", f"{bots}:TupleBot", "random", "--seed", "9",
               "--record", str(path)], pure, ROOT)
        texts.append(path.read_bytes())
    assert b'"faults"' in texts[0] and texts[0] == texts[1]
