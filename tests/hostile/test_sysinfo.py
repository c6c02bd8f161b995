"""sysinfo(2) in the sandbox: the jail's outer process answers it with the bot's own figures (its memory limit and
use, its own processes, its age), so that two bots at one table learn nothing of each other through it, and runtimes
that size themselves by it (glibc's sysconf, Node's os.totalmem, the JVM's default heap) see the bot's limit."""

from __future__ import annotations

import ctypes
import json
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from sandbox_levels import JAIL, USERNS, needs_jail

from arena.isolation import sandbox
from arena.isolation.sandbox import Limits, StartOptions, start

LEVELS = [pytest.param("jail", marks=pytest.mark.skipif(not JAIL, reason="the jail needs root and namespaces")),
          pytest.param("userns", marks=pytest.mark.skipif(not USERNS, reason="user namespaces are refused here")),
          pytest.param("rlimits")]
SYSTEM_PYTHON = shutil.which("python3", path=sandbox.PATH) or sys.executable
FIELDS = ("uptime", "load1", "load5", "load15", "totalram", "freeram", "sharedram", "bufferram", "totalswap",
          "freeswap", "procs", "pad", "totalhigh", "freehigh", "mem_unit")
#: A program that prints its sysinfo as JSON each time it reads a line (and once at start); ``threads N`` and
#: ``hold MB`` make it start N sleeping threads and hold MB MiB first.
READER = f"""
import ctypes, json, os, struct, sys, threading
libc = ctypes.CDLL(None, use_errno=True)
held, threads = [], []
def report():
    buffer = ctypes.create_string_buffer(112)
    result = libc.sysinfo(buffer)
    fields = dict(zip({FIELDS!r}, struct.unpack("@l3L6LHHLLI4x", buffer.raw)))
    fields["result"] = result
    fields["bad_pointer"] = libc.sysinfo(ctypes.c_void_p(16)), ctypes.get_errno()
    fields["phys"] = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    print(json.dumps(fields), flush=True)
report()
for line in sys.stdin:
    word, _, count = line.partition(" ")
    if word == "threads":
        stop = threading.Event()
        for _ in range(int(count)):
            threads.append(threading.Thread(target=stop.wait, daemon=True))
            threads[-1].start()
    elif word == "hold":
        held.append(bytearray(int(count) << 20))
        held[-1][::4096] = b"x" * len(held[-1][::4096])
    report()
"""
LIMIT_MB = 300


def _ask(box: sandbox.Sandboxed, line: str) -> dict:
    assert box.process.stdin is not None and box.process.stdout is not None
    box.process.stdin.write(line.encode() + b"\n")
    box.process.stdin.flush()
    return json.loads(box.process.stdout.readline())


@pytest.mark.parametrize("level", LEVELS)
def test_sysinfo_gives_the_bot_s_own_figures(level):
    box = start([SYSTEM_PYTHON, "-c", READER], StartOptions(level=level, limits=Limits(memory_mb=LIMIT_MB),
                stderr=sys.stderr.fileno()))
    try:
        assert box.process.stdout is not None
        first = json.loads(box.process.stdout.readline())
        later = _ask(box, "threads 5")
        walls = box.walls
    finally:
        box.kill()
    assert "sysinfo answered with the bot's own figures" in walls
    assert ("those of the calling process" in walls) == (level != "jail")
    limit = LIMIT_MB << 20
    assert first["result"] == 0 and first["mem_unit"] == 1
    assert first["totalram"] == limit and first["phys"] == limit
    assert 0 < first["freeram"] < limit
    assert 1 <= first["procs"] <= 4 and later["procs"] >= first["procs"] + 5
    assert first["load1"] == first["load5"] == first["load15"] == 0
    assert first["sharedram"] == first["bufferram"] == first["totalswap"] == first["freeswap"] == 0
    assert 0 <= first["uptime"] < 60
    assert first["bad_pointer"] == [-1, 14]  # EFAULT, as the kernel's own answer


@needs_jail
def test_two_bots_at_one_table_learn_nothing_of_each_other_through_sysinfo():
    """The sender starts 40 threads and holds 200 MiB between two of the receiver's readings: the receiver's
    figures move by its own doing only (a few pages of its own Python)."""
    boxes = [start([SYSTEM_PYTHON, "-c", READER], StartOptions(limits=Limits(memory_mb=LIMIT_MB), stderr=sys.stderr.fileno()))
             for _ in range(2)]
    try:
        sender, receiver = boxes
        for box in boxes:
            assert box.process.stdout is not None
            box.process.stdout.readline()
        before = _ask(receiver, "")
        sent = _ask(sender, "threads 40")
        sent = _ask(sender, "hold 200")
        after = _ask(receiver, "")
    finally:
        for box in boxes:
            box.kill()
    assert after["procs"] == before["procs"]
    assert abs(after["freeram"] - before["freeram"]) < 4 << 20
    assert after["totalram"] == before["totalram"] == LIMIT_MB << 20
    assert sent["procs"] >= 41 and sent["freeram"] < (LIMIT_MB - 200) << 20  # the sender sees its own


@needs_jail
def test_node_s_total_memory_is_the_bot_s_limit():
    if not shutil.which("node", path=sandbox.PATH):
        pytest.skip("no node on this machine")
    box = start(["node", "-e", "const os = require('os');"
                 "console.log(JSON.stringify([os.totalmem(), os.freemem(), os.availableParallelism()]))"],
                StartOptions(limits=Limits(memory_mb=LIMIT_MB), stderr=sys.stderr.fileno()))
    try:
        assert box.process.stdout is not None
        total, free, cpus = json.loads(box.process.stdout.read())
        assert box.wait(30) == 0
    finally:
        box.kill()
    assert total == LIMIT_MB << 20
    assert 0 < free < total
    assert cpus >= 1


@needs_jail
def test_nproc_and_the_c_library_s_figures_are_sane():
    box = start(["sh", "-c", "nproc; getconf _PHYS_PAGES; getconf PAGESIZE; getconf _AVPHYS_PAGES"],
                StartOptions(limits=Limits(memory_mb=LIMIT_MB), stderr=sys.stderr.fileno()))
    try:
        assert box.process.stdout is not None
        cpus, pages, size, free = (int(n) for n in box.process.stdout.read().split())
        assert box.wait(30) == 0
    finally:
        box.kill()
    assert cpus >= 1
    assert pages * size == LIMIT_MB << 20
    assert 0 < free <= pages


def test_the_answer_s_layout_is_the_kernel_s_struct_sysinfo():
    """The figures are written in the layout the kernel itself writes (checked against a real call here)."""
    libc = ctypes.CDLL(None, use_errno=True)
    buffer = ctypes.create_string_buffer(112)
    assert libc.sysinfo(buffer) == 0
    fields = dict(zip(FIELDS, struct.unpack("@l3L6LHHLLI4x", buffer.raw)))
    assert struct.calcsize("@l3L6LHHLLI4x") == 112
    assert fields["mem_unit"] >= 1 and fields["totalram"] * fields["mem_unit"] > 0 and fields["procs"] >= 1


def test_where_no_call_can_be_handed_over_sysinfo_is_left_open_and_the_walls_say_so():
    """A kernel or libseccomp that cannot notify (here: told so) leaves sysinfo open, saying so: refused, glibc's
    sysconf and the JVM would size themselves by an uninitialised struct."""
    code = f"""
import ctypes, importlib.util, sys
spec = importlib.util.spec_from_file_location("arena_seccomp", {str(Path(sandbox.JAIL).with_name("seccomp.py"))!r})
seccomp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(seccomp)
seccomp._API_NOTIFY = 1 << 30
libc = ctypes.CDLL(None, use_errno=True)
assert libc.prctl(38, 1, 0, 0, 0) == 0
print(seccomp.install(answer=True))
print(seccomp.listener, libc.sysinfo(ctypes.create_string_buffer(112)), ctypes.get_errno())
"""
    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    description, outcome = done.stdout.splitlines()
    assert description.endswith("; sysinfo open, the machine's figures (this kernel or libseccomp cannot hand it over)")
    assert outcome.split()[:2] == ["-1", "0"]
