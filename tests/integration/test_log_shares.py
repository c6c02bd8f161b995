"""The shares of the bots' logs hold however many workers start processes at the same moment: room in a
log is reserved before a process starts, given back when it ends, and a grant whose holder is gone counts
no more.  The bots are real programs in the sandbox that flood their standard error; the shares are
scaled down so that the floods take a moment."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from arena.isolation import sandbox
from arena.isolation.limits import Limits
from arena.play import botprocess, logshares
from arena.play.botprocess import BotProcess, BotProcessError, Program

MIB = 1 << 20
#: The system's Python: a bot of its own, as a program bot is.
PYTHON = shutil.which("python3", path=sandbox.PATH) or sys.executable
#: A bot that writes 4 MiB to its standard error and ends without a word on its standard output: each of
#: its processes would fill its 2 MiB cap.
FLOOD = Program((PYTHON, "-c", "import sys; sys.stderr.buffer.write(b'e' * (4 << 20)); sys.exit(3)"),
                limits=Limits(log_mb=2))
ENTRANTS = ("alpha", "beta", "gamma")


@pytest.fixture
def small_shares(monkeypatch: pytest.MonkeyPatch) -> None:
    """3 MiB a log and 5 MiB the folder's logs, where each process may write 2 MiB: three entrants' floods
    would pass both shares many times over."""
    monkeypatch.setattr(botprocess, "ENTRANT_LOG_MB", 3)
    monkeypatch.setattr(botprocess, "RUN_LOG_MB", 5)


def _flood(processes: list[BotProcess]) -> None:
    """Launch every process, then wait for each to end by itself (however long the machine takes: what
    it wrote is then in its log) and free it."""
    for process in processes:
        process.launch()
    for process in processes:
        while process.alive:
            time.sleep(0.01)
        process.kill()


def _worker(folder: str, barrier: multiprocessing.synchronize.Barrier, each: int) -> None:
    """Start ``each`` processes of the flooding bot for every entrant at once, after every worker is ready:
    their floods overlap."""
    barrier.wait()
    _flood([BotProcess(FLOOD, log=os.path.join(folder, f"{name}.log")) for _ in range(each) for name in ENTRANTS])


def _flood_together(folder: Path, workers: int, each: int) -> None:
    context = multiprocessing.get_context("fork")  # the workers inherit the scaled shares
    barrier = context.Barrier(workers)
    started = [context.Process(target=_worker, args=(str(folder), barrier, each)) for _ in range(workers)]
    for process in started:
        process.start()
    for process in started:
        process.join()
        assert process.exitcode == 0


def _sizes(folder: Path) -> dict[str, int]:
    return {path.name: path.stat().st_size for path in folder.glob("*.log")}


@pytest.mark.slow
def test_processes_started_at_once_by_several_workers_never_pass_a_log_s_share(tmp_path, small_shares):
    """Four workers start two flooding processes of each of three entrants at the same moment, twice: no
    log passes its 3 MiB and the folder's logs not their 5 MiB, though the processes' caps add up to 48."""
    for _ in range(2):
        _flood_together(tmp_path, workers=4, each=2)
        sizes = _sizes(tmp_path)
        assert set(sizes) == {f"{name}.log" for name in ENTRANTS}
        assert max(sizes.values()) <= 3 * MIB, sizes
        assert sum(sizes.values()) <= 5 * MIB, sizes
    # What the floods were granted was written: the folder is near its share, not far below it.
    assert sum(_sizes(tmp_path).values()) > 4 * MIB
    assert b"standard error past" in (tmp_path / "alpha.log").read_bytes()
    assert not (tmp_path / logshares.LEDGER).exists(), "every grant was given back"


@pytest.mark.slow
def test_a_bot_that_floods_and_ends_in_every_game_fills_its_share_and_no_more(tmp_path, small_shares):
    """A bot that floods standard error and ends in every game gets a fresh process each time: its log
    grows to its share and stops there, a line saying so, while another entrant's log still has room."""
    log = tmp_path / "alpha.log"
    for _ in range(20):
        _flood([BotProcess(FLOOD, log=str(log))])
    assert 3 * MIB - 4 * logshares.PART * logshares.SMALLEST < log.stat().st_size <= 3 * MIB
    assert b"--- arena: no room left in this log's share (3 MiB a log, 5 MiB the folder's logs)" in log.read_bytes()
    _flood([BotProcess(FLOOD, log=str(tmp_path / "beta.log"))])
    assert (tmp_path / "beta.log").stat().st_size > MIB // 2


def test_a_spent_share_leaves_the_log_at_its_size_whatever_the_referee_notes(tmp_path, small_shares):
    """Once a log's share is spent, a new process gets no room, and the referee's own lines (the game that
    follows, the line that says the share is spent) are written only while they fit."""
    log = tmp_path / "alpha.log"
    log.write_bytes(b"e" * (3 * MIB - 100))
    process = BotProcess(FLOOD, log=str(log))
    with pytest.raises(BotProcessError):
        process.start(1.0)
    process.kill()
    for game in range(10):
        process.note(f"t000-d{game:04d}-r00, seat 0")
    assert 3 * MIB - 100 < log.stat().st_size <= 3 * MIB


def test_a_grant_is_given_back_when_its_process_ends(tmp_path):
    """What a process did not write returns to the share when it ends; what it wrote stays counted."""
    shares = logshares.Shares(entrant=64 * MIB, folder=1024 * MIB)
    log = str(tmp_path / "alpha.log")
    first = logshares.reserve(log, 16 * MIB, shares)
    assert first.bytes == 16 * MIB
    second = logshares.reserve(log, 16 * MIB, shares)
    assert second.bytes == 12 * MIB  # a quarter of the 48 MiB left
    first.give_back()
    second.give_back()
    Path(log).write_bytes(b"e" * (8 * MIB))
    assert logshares.reserve(log, 16 * MIB, shares).bytes == 14 * MIB  # a quarter of 64 - 8


def test_the_grant_of_a_worker_killed_outright_counts_no_more(tmp_path):
    """A worker that ends without giving its grants back (killed) leaves them in the ledger; the next
    reservation finds their holder gone and counts them no more.  A grant that names a live pid with
    another start time is a gone process's whose pid was given again."""
    shares = logshares.Shares(entrant=64 * MIB, folder=1024 * MIB)
    log = str(tmp_path / "alpha.log")
    context = multiprocessing.get_context("fork")
    child = context.Process(target=lambda: (logshares.reserve(log, 16 * MIB, shares), os._exit(0)))
    child.start()
    child.join()
    assert b'"bytes":16777216' in (tmp_path / logshares.LEDGER).read_bytes()
    (tmp_path / logshares.LEDGER).write_text(
        (tmp_path / logshares.LEDGER).read_text()
        + f'{{"pid":{os.getpid()},"start":"1","key":"x","log":"alpha.log","bytes":{32 * MIB}}}\n')
    assert logshares.reserve(log, 16 * MIB, shares).bytes == 16 * MIB
