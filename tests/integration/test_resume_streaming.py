"""Games stored as they finish: a worker (local or on Dask) that holds a whole seating's pass of games
hands each back as it ends, so Ctrl-C in a sandboxed run of slow bots loses no finished game, none is
stored twice, and ``--resume`` completes the run to what an uninterrupted run stores.
"""

from __future__ import annotations

import gzip
import json
import os
import pty
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from arena.plan.config import load_config, parse_config
from arena.plan.schedule import Schedule, count_games, schedule
from arena.results.files import pack
from arena.results.verify import without_timing
from arena.tournament.run.chunks import LOCAL_CHUNKS, ChunkSizes
from arena.tournament.run.codec import Played
from arena.tournament.run.settings import worker_settings

#: A bot that plays as ``random`` does, a hundredth of a second a move (about half a second a game, longer
#: than a worker waits before it hands finished games back), and says on standard error when a game ends.
SLEEPY = """
import sys
import time

from arena_bots.random_bot import RandomBot


class SleepyBot(RandomBot):
    def choose(self, view):
        time.sleep(0.01)
        return super().choose(view)

    def game_over(self, result):
        print("end", file=sys.stderr, flush=True)
"""

DEALS = 16
KEY = "0f" * 32


@pytest.fixture(scope="module")
def whole(shared_folder) -> tuple[Path, Path]:
    """The tournament file (the sleepy bot against random, two players, sandboxed, dealt with a key of its
    own) and its run played through, uninterrupted.  Read only."""

    def make(folder: Path) -> None:
        (folder / "sleepy.py").write_text(SLEEPY, encoding="utf-8")
        (folder / "sleepy.toml").write_text(
            f'name = "sleepy"\nplayers = 2\ndeals = {DEALS}\nseed = 7\ntime_limit = 5\nisolation = "process"\n'
            f'deal_key = "{KEY}"\n[[entrants]]\nname = "sleepy"\nbot = "sleepy.py:SleepyBot"\n'
            '[[entrants]]\nname = "rnd"\nbot = "random"\n', encoding="utf-8")
        done = arena("run", str(folder / "sleepy.toml"), "--out", str(folder / "whole"), "--workers", "2", "-q",
                     "--no-compress")
        assert done.returncode == 0, done.stderr

    folder = shared_folder("ctrl-c-sleepy", make)
    return folder / "sleepy.toml", folder / "whole"


def arena(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True, timeout=600)


class Terminal:
    """A run of ``arena run`` with its standard error on a terminal of its own (so it shows its progress
    bar), read as it comes; Ctrl-C is the default handler, whatever this test was started from."""

    def __init__(self, *args: str) -> None:
        code = ("import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
                "from arena.cli import main; main()")
        self.master, slave = pty.openpty()
        self.process = subprocess.Popen([sys.executable, "-c", code, "run", *args], stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=slave, start_new_session=True)
        os.close(slave)
        self.shown = bytearray()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 4096)
            except OSError:  # the run has ended: nothing holds the terminal any more
                return
            if not data:
                return
            self.shown += data

    def text(self) -> str:
        return self.shown.decode("utf-8", "replace")

    def interrupt(self) -> int:
        """Ctrl-C as a terminal sends it (to the whole group); the run's exit status."""
        os.killpg(self.process.pid, signal.SIGINT)
        status = self.process.wait(120)
        self.reader.join(30)
        os.close(self.master)
        return status


def stored_ids(out: Path) -> list[str]:
    """The games in the folder: those with a whole record line and their rows (a game counts once both are)."""
    rows = out / "games.csv"
    if not rows.exists():
        return []
    with_rows = {line.split(",", 1)[0] for line in rows.read_text().splitlines()[1:]}
    records = out / "records.jsonl"
    lines = records.read_text().splitlines(keepends=True) if records.exists() else []
    return [json.loads(line)["game_id"] for line in lines if line.endswith("\n")
            and json.loads(line)["game_id"] in with_rows]


def ended_ids(out: Path) -> list[str]:
    """The games whose end the sleepy bot has logged: the arena heads its log with each game's id."""
    path = out / "bots" / "sleepy.log"
    ended, game = [], None
    for line in (path.read_text().splitlines() if path.exists() else []):
        if header := re.fullmatch(r"--- arena: (\S+), seat \d+ ---", line):
            game = header.group(1)
        elif line == "end" and game is not None:
            ended.append(game)
    return ended


def first_pass(path: Path, workers: int) -> int:
    """How many games a worker's first chunk holds (a seating's pass, :mod:`arena.tournament.run.chunks`)."""
    schedule = Schedule(load_config(path))
    total = count_games(schedule.config)
    return len(ChunkSizes(LOCAL_CHUNKS, workers, 2 * workers, total, LOCAL_CHUNKS.most, passes=True)
               .take(schedule.pending(set())))


def rows_without_timing(out: Path) -> list[str]:
    return [without_timing(line) for line in (out / "games.csv").read_text().splitlines()]


def records_by_id(out: Path) -> dict[str, str]:
    lines = (out / "records.jsonl").read_text().splitlines()
    by_id = {json.loads(line)["game_id"]: line for line in lines}
    assert len(by_id) == len(lines), "a game was stored twice"
    return by_id


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_keeps_every_finished_game_and_resume_completes_the_run(tmp_path, whole, workers):
    path, reference = whole
    total = count_games(load_config(path))
    chunk = first_pass(path, workers)
    assert chunk >= 6  # a pass long enough that the run is stopped well inside it
    out = tmp_path / "stopped"
    run = Terminal(str(path), "--out", str(out), "--workers", str(workers), "--no-compress")
    try:
        # The folder holds games, one by one as they end, while every worker is still on its first pass.
        while len(stored_ids(out)) < 2:
            assert run.process.poll() is None, run.text()
            time.sleep(0.02)
        assert len(ended_ids(out)) < chunk, "no game was stored before a whole pass ended"
        ended = ended_ids(out)  # read before Ctrl-C: each of these games ended before it
        status = run.interrupt()
    finally:
        if run.process.poll() is None:
            os.killpg(run.process.pid, signal.SIGKILL)
            run.process.wait()
    shown = run.text()
    assert status == 130, shown
    stored = stored_ids(out)
    assert f"interrupted: {len(stored)} of {total} games stored in" in shown
    # The progress bar, or the standings above it, moved with the games, before any pass ended.
    counts = [int(bar or standings) for bar, standings in re.findall(rf"\b(\d+)/{total}\b|after (\d+) of {total} games",
                                                                     shown)]
    assert any(0 < count < chunk for count in counts), shown
    # Every game that ended is stored, but the one each worker may have been handing back at Ctrl-C;
    # none is stored twice.
    assert len(stored) == len(set(stored)) < total
    assert len(set(ended) - set(stored)) <= workers, (ended, stored)

    resumed = arena("run", str(path), "--out", str(out), "--workers", "2", "--resume", "-q", "--no-compress")
    assert resumed.returncode == 0, resumed.stderr
    assert rows_without_timing(out) == rows_without_timing(reference)
    assert records_by_id(out) == records_by_id(reference)
    for table in ("standings.csv", "head_to_head.csv", "seats.csv"):
        assert (out / table).read_text() == (reference / table).read_text()
    # The resume played only the games not stored.
    starts = re.findall(r"(\d+) games, (\d+) stored, (\d+) to play", (out / "arena.log").read_text())
    assert starts[-1] == (str(total), str(len(stored)), str(total - len(stored)))


@pytest.mark.slow
@pytest.mark.cluster
@pytest.mark.xdist_group("cluster")
def test_a_dask_task_of_a_whole_pass_hands_back_each_game_as_it_ends(tmp_path):
    pytest.importorskip("distributed", reason="the dask extra is not installed (pip install '.[dask]')")
    from arena.tournament.run.cluster import Cluster, DaskWorkers

    bot = tmp_path / "sleepy.py"
    bot.write_text(SLEEPY, encoding="utf-8")
    config = parse_config(f'name = "d"\nplayers = 2\ndeals = 6\nseed = 3\nisolation = "none"\ndeal_key = "{KEY}"\n'
                          f'[[entrants]]\nname = "sleepy"\nbot = "{bot}:SleepyBot"\n'
                          '[[entrants]]\nname = "rnd"\nbot = "random"\n', "d.toml")
    total = count_games(config)
    cluster = Cluster.connect("local:1")
    try:
        with DaskWorkers(cluster, (worker_settings(config), None), 600.0) as pool:
            handed = list(pool.play(schedule(config), total, passes=True))
    finally:
        cluster.close()
    # Two tasks (a pass each, six games); every game takes longer than a worker waits before it hands
    # finished games back, so each comes back alone, as it ends, not with its task.
    assert [count for count, _, _, _ in handed] == [1] * total
    ids = [json.loads(lines)["game_id"] for _, lines, _, _ in handed]
    assert sorted(ids) == sorted(game.game_id for game in schedule(config))


@pytest.mark.parametrize("compressed", [False, True])
def test_a_part_keeps_only_the_games_asked_for(compressed):
    records = [json.dumps({"game_id": f"g{i}", "moves": [i] * i}).encode() + b"\n" for i in range(3)]
    rows = [f"g{i},0\ng{i},1\n".encode() for i in range(3)]
    faults = [{"game_id": "g1", "seat": 0, "entrant": "e", "move": 2, "kind": "crash", "message": "gone"}]
    joined = b"".join(records)
    part = Played(pack(joined) if compressed else joined, b"".join(rows), 0.5, faults, (4, 7, 9),
                  tuple((len(r), len(w)) for r, w in zip(records, rows, strict=True)))
    assert part.only({4, 7, 9}, compressed) is part
    kept = part.only({4, 9}, compressed)
    assert (gzip.decompress(kept.records) if compressed else kept.records) == records[0] + records[2]
    assert kept.rows == rows[0] + rows[2]
    assert kept.games == (4, 9) and kept.faults == []
    assert kept.sizes == (part.sizes[0], part.sizes[2])
    assert part.only({7}, compressed).faults == faults
    assert part.only(set(), compressed).records == b""
