"""Ctrl-C in ``arena play`` and ``arena bots --probe``: one line that says so and gives the seed that plays the
game again, exit status 130 as for a run, and no folder of logs left behind in the temporary folder."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

BAD = Path(__file__).parents[1] / "fixtures" / "bad_bots.py"
ROOT = Path(__file__).parents[2]


def interrupted(args: list[str], tmp: Path) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` with its temporary files under ``tmp``, sent Ctrl-C (SIGINT to its process group, as a
    terminal sends it) once a bot's log exists, that is once the game has begun."""
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp), "COLUMNS": "80", "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "arena", *args], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True, stdin=subprocess.DEVNULL)
    try:
        while not any(tmp.glob("arena-*-logs-*/*.log")):
            assert process.poll() is None, process.communicate()
            time.sleep(0.05)
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    return subprocess.CompletedProcess(args, process.returncode, out, err)


@pytest.mark.slow
def test_ctrl_c_in_play_says_interrupted_gives_the_seed_and_exits_130(tmp_path: Path) -> None:
    done = interrupted(["play", f"{BAD}:SleepingBot:after=0", "random", "--seed", "4711", "--time-limit", "600"],
                       tmp_path / "tmp")
    assert done.returncode == 130, (done.stdout, done.stderr)
    assert "Aborted!" not in done.stderr and "Traceback" not in done.stderr
    assert "interrupted: the game of seed 4711 was not finished; the same command with --seed 4711" in done.stderr
    assert list((tmp_path / "tmp").glob("arena-play-logs-*")) == []  # the bots wrote nothing: no folder kept


@pytest.mark.slow
def test_ctrl_c_in_a_probe_says_interrupted_gives_the_seed_and_exits_130(tmp_path: Path) -> None:
    done = interrupted(["bots", "--probe", f"{BAD}:SleepingBot:after=0", "--seed", "99", "--time-limit", "600"],
                       tmp_path / "tmp")
    assert done.returncode == 130, (done.stdout, done.stderr)
    assert "Aborted!" not in done.stderr and "Traceback" not in done.stderr
    assert "interrupted: the probe was not finished; --seed 99 plays its game again" in done.stderr
    assert list((tmp_path / "tmp").glob("arena-probe-logs-*")) == []


@pytest.mark.slow
def test_a_game_leaves_no_folder_of_empty_logs_and_keeps_one_a_bot_wrote_in(tmp_path: Path) -> None:
    env = {**os.environ, "TMPDIR": str(tmp_path), "COLUMNS": "80", "PYTHONPATH": str(ROOT)}

    def play(*bots: str) -> str:
        done = subprocess.run([sys.executable, "-m", "arena", "play", *bots, "--seed", "3"], env=env,
                              capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
        assert done.returncode == 0, done.stderr
        return done.stdout

    quiet = play("random", "greedy")
    assert "bot logs: none kept, the bots wrote nothing on standard error (--logs DIR keeps every log)" in quiet
    assert list(tmp_path.glob("arena-play-logs-*")) == []
    talking = play(f"{BAD}:PrintingBot", "random")
    (kept,) = tmp_path.glob("arena-play-logs-*")
    assert f"bot logs (their standard error) in {kept}: seat 0 " in talking
