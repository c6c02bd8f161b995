"""The fork server (arena/isolation/forkserver.py): a Python bot host forked from it in the jail finds
nothing of another bot's start in its memory, holds none of the server's descriptors, and draws its own
random numbers; its walls are those of a bot started by exec."""

from __future__ import annotations

import os
import re
import secrets
from pathlib import Path

import pytest
from sandbox_levels import needs_jail

from arena.isolation import forkserver
from arena.play.botprocess import BotProcess, Program, host_command, python_program

pytestmark = [needs_jail, pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="no pidfd_open: no fork server")]

SCANNER = str(Path(__file__).resolve().parents[1] / "fixtures" / "memory_scan_bot.py") + ":ScanBot"


def _secret() -> str:
    return "ARENA-SECRET-" + secrets.token_hex(8)


def _scan(tmp_path: Path, name: str, own: str) -> dict[str, str]:
    """Start the scanning bot (its own secret ``own`` in its environment) and read what it logged."""
    scanner = python_program(SCANNER)
    log = tmp_path / f"{name}.log"
    process = BotProcess(Program(scanner.command, cwd=scanner.cwd, env=(("OWN", own),), host=scanner.host),
                         log=str(log))
    try:
        process.start(5.0)
    finally:
        process.stop()
    line = next(line for line in log.read_text().splitlines() if line.startswith("SCAN "))
    found, read, rng, fds = re.fullmatch(r"SCAN found (.*) read (\d+) random (\d+) fds (.*)", line).groups()
    return {"found": found, "read": read, "random": rng, "fds": fds}


def test_a_bot_host_finds_nothing_of_another_bots_start(tmp_path):
    assert forkserver.server() is not None
    other = _secret()
    # A longer start than the scanner's, its secret last: a buffer not cleared would still hold it.
    ref = "arena_bots.random_bot:RandomBot"
    started = BotProcess(Program(host_command(ref), env=(("PAD", "x" * 20000), ("SECRET", other)), host=ref))
    started.start(5.0)
    try:
        own = _secret()
        seen = _scan(tmp_path, "while", own)
    finally:
        started.stop()
    after = _scan(tmp_path, "after", _secret())
    for scan in (seen, after):
        assert int(scan["read"]) > 1 << 20, "the scan read its own memory"
        assert other not in scan["found"]
    assert own in seen["found"].split(), "the scan finds a secret where there is one"


def test_a_bot_host_holds_only_its_pipes_and_draws_its_own_numbers(tmp_path):
    scans = [_scan(tmp_path, f"scan{i}", _secret()) for i in range(2)]
    for scan in scans:
        for entry in scan["fds"].split():
            fd, target = entry.split("=", 1)
            # Its standard streams, the protocol's copy of standard output, the listing itself: pipes
            # and /dev/null; never a socket (the server's channel) nor a pidfd.
            assert target.startswith(("pipe:", "/dev/null", "/proc/")), entry
    assert scans[0]["random"] != scans[1]["random"]
