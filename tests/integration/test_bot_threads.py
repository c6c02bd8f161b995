"""Python bots with threads of their own play in the sandbox as they do without it.

The bot host waits for each turn with a signal its pipe raises (``arena/wire/bothost.py``); a thread the
bot started (a daemon loop, a thread pool, a timer, a logging listener) or a library's (numpy's) must never
take that signal from it, or the host sleeps on with a turn in its pipe and the bot is faulted ``timeout``.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sandbox_levels import JAIL, USERNS  # the levels this machine gives, found once

from arena.cli import main

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
THREADED = f"{FIXTURES / 'threaded_bot.py'}:ThreadedBot"
NUMPY = f"{FIXTURES / 'numpy_bot.py'}:NumpyBot"
#: The default sandbox as root (jail), and as a user without root gets it (userns).
LEVELS = [pytest.param("jail", marks=pytest.mark.skipif(not JAIL, reason="the jail needs root and namespaces")),
          pytest.param("userns", marks=pytest.mark.skipif(not USERNS, reason="user namespaces are refused here"))]


def play(path: Path, out: Path, *options: str, level: str | None = None) -> list[dict[str, str]]:
    """The rows of games.csv of ``arena run`` of ``path``, the sandbox capped at ``level``."""
    env = {**os.environ, "ARENA_SANDBOX": level} if level else None
    done = subprocess.run([sys.executable, "-m", "arena", "run", str(path), "--out", str(out), "-q", "--workers", "2",
                           *options], cwd=ROOT, capture_output=True, text=True, check=False, env=env)
    assert done.returncode == 0, done.stderr
    with open(out / "games.csv", newline="") as f:
        return list(csv.DictReader(f))


def outcomes(rows: list[dict[str, str]]) -> list[tuple[str, ...]]:
    """What each seat of each game did, without its times."""
    return sorted((row["game_id"], row["seat"], row["entrant"], row["groups"], row["captured_total"],
                   row["blockers_score"], row["uptown_rank"], row["moves"], row["faulted"]) for row in rows)


@pytest.mark.slow
@pytest.mark.parametrize("level", LEVELS)
def test_bots_with_threads_of_their_own_play_100_games_without_a_fault(tmp_path, level):
    """The threaded bot against the numpy bot, 100 games: before the host's signal went to its reading thread
    alone, the threaded bot was faulted in nearly every game, at any move.  They play the games they play in
    the referee's own process (isolation none), move for move."""
    path = tmp_path / "threads.toml"
    # A time limit thousands of times a move's cost (well under a millisecond): a fault here is a host that
    # never saw its turn, however busy the machine.  Public deals: the same games in both runs.
    path.write_text(f'name = "threads"\nseed = 5\nplayers = 2\ndeals = 50\ntime_limit = 3.0\npublic_deals = true\n'
                    f'[[entrants]]\nname = "threaded"\nbot = "{THREADED}"\n'
                    f'[[entrants]]\nname = "numpy"\nbot = "{NUMPY}"\n')
    rows = play(path, tmp_path / "sandboxed", level=level)
    assert len({row["game_id"] for row in rows}) == 100
    faulted = [(row["game_id"], row["entrant"]) for row in rows if row["faulted"] != "0"]
    assert faulted == [], (faulted, (tmp_path / "sandboxed" / "arena.log").read_text()[-2000:])
    assert all(int(row["moves"]) > 0 for row in rows)
    log = (tmp_path / "sandboxed" / "bots" / "threaded.log").read_text()
    assert log.count("a game starts; ") == 50  # its threads ran: its logging listener wrote each of its games
    assert outcomes(rows) == outcomes(play(path, tmp_path / "in-process", "--isolation", "none"))


def test_a_bot_with_threads_of_its_own_passes_the_probe(cli):
    result = cli.invoke(main, ["bots", "--seed", "3", "--time-limit", "2", "--probe", THREADED])
    assert result.exit_code == 0, result.output
    (game,) = [line for line in result.output.splitlines() if line.startswith("  game:")]
    assert ", no fault (" in game
