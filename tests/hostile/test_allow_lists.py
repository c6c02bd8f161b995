"""The walls by allow-list, attacked from inside real jails: the system calls a bot can make are exactly the
documented ones, and no file a bot can read carries another bot's moves of kernel state."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sandbox_levels import USERNS, needs_jail

from arena.isolation import sandbox
from arena.isolation.sandbox import StartOptions, start

SECCOMP = Path(sandbox.__file__).with_name("seccomp.py")
NAMESPACED = [pytest.param("jail", marks=needs_jail),
              pytest.param("userns", marks=pytest.mark.skipif(not USERNS, reason="user namespaces are refused here"))]
SYSTEM_PYTHON = shutil.which("python3", path=sandbox.PATH) or sys.executable

#: Calls every number below TOP, each in a child of its own with zeros for arguments (nothing a zero can
#: harm), and prints what each one did: ``ENOSYS``, another errno's name, ``ok``, or ``signal N`` for a child
#: that died of it (``exit`` ends the child, ``pause`` waits for its alarm, ``rt_sigreturn`` faults).
PROBE = r"""
import ctypes, errno, json, os, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
found = {}
for number in range(int(sys.argv[1])):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        signal.alarm(1)
        result = libc.syscall(ctypes.c_long(number), 0, 0, 0, 0, 0, 0)
        error = ctypes.get_errno()
        os.write(write, b"ok" if result >= 0 else errno.errorcode.get(error, str(error)).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as answer:
        said = answer.read(32).decode()  # the first writer's: a fork's two processes both write
    status = os.waitpid(pid, 0)[1]
    found[number] = said or (f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else "exit")
print(json.dumps(found))
"""
#: One past the highest system-call number probed: every number of x86-64 and arm64 today lies below it.
TOP = 512


def _load_seccomp():
    import importlib.util

    spec = importlib.util.spec_from_file_location("arena_seccomp_listed", SECCOMP)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _unassigned(number: int) -> bool:
    """Whether libseccomp knows no system call of this machine by ``number``."""
    import ctypes

    lib = ctypes.CDLL("libseccomp.so.2")
    lib.seccomp_syscall_resolve_num_arch.restype = ctypes.c_void_p
    return not lib.seccomp_syscall_resolve_num_arch(0, number)


def _run_jailed(level: str, script: str, *args: str) -> str:
    box = start([SYSTEM_PYTHON, "-c", script, *args], StartOptions(level=level, stderr=sys.stderr.fileno()))
    try:
        out = box.process.stdout.read().decode()
        assert box.wait(120) == 0
        return out
    finally:
        box.kill()


def _unfiltered(script: str, *args: str) -> str:
    """What the kernel itself answers a process without capabilities in namespaces of its own (no filter)."""
    command = ["unshare", "--ipc", "--net", "--uts", "--mount", "--pid", "--fork", "setpriv", "--reuid=1499999",
               "--regid=1499999", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs",
               SYSTEM_PYTHON, "-c", script, *args]
    return subprocess.run(command, capture_output=True, text=True, check=True, timeout=300, cwd="/").stdout


@pytest.mark.slow
@pytest.mark.parametrize("level", NAMESPACED)
def test_the_system_calls_a_bot_can_make_are_exactly_the_documented_ones(level):
    if os.geteuid() != 0 or not (shutil.which("unshare") and shutil.which("setpriv")):
        pytest.skip("the kernel's own answers are probed as root, with util-linux's unshare and setpriv")
    listed = _load_seccomp()
    documented = set(listed.allowed_numbers()) | set(listed.answered_numbers()) | set(listed.refused_as_numbers())
    jailed = {int(k): v for k, v in json.loads(_run_jailed(level, PROBE, str(TOP))).items()}
    kernel = {int(k): v for k, v in json.loads(_unfiltered(PROBE, str(TOP))).items()}
    # A number no system call has that is answered before any filter sees it (this machine's hypervisor
    # answers two: one kills its caller, one fails with ENXIO) is no call the filter let through.
    before_filter = {n for n in range(TOP) if n not in documented and _unassigned(n) and jailed[n] == kernel[n] != "ENOSYS"}
    open_in_jail = {n for n in range(TOP) if jailed[n] != "ENOSYS"} - before_filter
    implemented = {n for n in range(TOP) if kernel[n] != "ENOSYS"}
    print(f"{level}: {len(open_in_jail)} system calls answered in the jail, of {len(implemented)} the kernel has; "
          f"documented: {len(documented)}; answered before any filter: {sorted(before_filter)}")
    assert open_in_jail == documented & implemented, (
        f"allowed but not documented: {sorted(open_in_jail - documented)}; "
        f"documented but refused: {sorted((documented & implemented) - open_in_jail)}")


#: Lists every file a bot can read that is not one of its own processes' (what the kernel shows of the whole
#: machine, its network namespace's included), then, on each line of its input, prints a digest of each.
SCAN = r"""
import hashlib, json, os, sys
own = {entry for entry in os.listdir("/proc") if entry.isdigit()} | {"self", "thread-self"}

def walk(top, files):
    try:
        entries = list(os.scandir(top))
    except OSError:
        return
    for entry in entries:
        if top == "/proc" and entry.name in own:
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                walk(entry.path, files)
            elif entry.is_file(follow_symlinks=False):
                files.append(entry.path)
        except OSError:
            pass

files = []
for top in ("/proc", "/sys", "/proc/self/net"):
    walk(top, files)

def digest(path):
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read(1 << 20)).hexdigest()[:16]
    except OSError:
        return None

readable = sorted(path for path in files if digest(path) is not None)
print(json.dumps(readable), flush=True)
for line in sys.stdin:
    print(json.dumps({path: digest(path) for path in readable}), flush=True)
"""

#: Moves kernel state on each line of its input and holds it until the next: threads, processes, memory,
#: pipes, sockets, eventfds, files, and whatever of AIO, inotify and memfd the filter lets through.
MOVE = r"""
import ctypes, mmap, os, socket, sys, tempfile, threading
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long

def move():
    stop = threading.Event()
    threads = [threading.Thread(target=stop.wait, daemon=True) for _ in range(8)]
    for thread in threads:
        thread.start()
    gate, opened = os.pipe()
    children = []
    for _ in range(4):
        pid = os.fork()
        if pid == 0:
            os.close(opened)
            os.read(gate, 1)  # until the release closes the pipe
            os._exit(0)
        children.append(pid)
    os.close(gate)
    memory = mmap.mmap(-1, 64 << 20)
    memory.write(b"x" * (64 << 20))
    fds = [fd for _ in range(40) for fd in os.pipe()]
    for w in fds[1::2]:
        os.write(w, b"y" * 4096)
    fds += [os.eventfd(1) for _ in range(20)]
    sockets = [s for _ in range(20) for s in socket.socketpair()]
    for a in sockets[::2]:
        a.send(b"z" * 4096)
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(b"\0arena-mover")
    unix.listen()
    sockets.append(unix)
    for family, kind, to in ((socket.AF_INET, socket.SOCK_DGRAM, ("127.0.0.1", 9)),
                             (socket.AF_INET6, socket.SOCK_STREAM, ("::1", 9))):
        try:
            s = socket.socket(family, kind)
            sockets.append(s)
            s.connect(to)
            s.send(b"q")
        except OSError:
            pass
    files = []
    for n in range(20):
        f = tempfile.TemporaryFile()
        f.write(os.urandom(1 << 16))
        f.flush()
        files.append(f)
    # AIO, inotify and memfd, as far as the filter lets them through.
    aio = ctypes.c_ulong(0)
    for number, args in ((206, (65536, ctypes.byref(aio))), (253, ()), (319, (b"m", 0))):
        result = libc.syscall(number, *args)
        if result > 0 and number != 206:
            fds.append(result)

    def release():
        stop.set()
        os.close(opened)
        for pid in children:
            os.waitpid(pid, 0)
        for fd in fds:
            os.close(fd)
        for s in sockets:
            s.close()
        for f in files:
            f.close()
        memory.close()
        if aio.value:
            libc.syscall(207, aio)
    return release

release = None
for line in sys.stdin:
    if line.strip() == "move":
        release = move()
    elif release is not None:
        release()
        release = None
    print("done", flush=True)
"""


def _ask(box, line: str) -> str:
    box.process.stdin.write(line.encode() + b"\n")
    box.process.stdin.flush()
    return box.process.stdout.readline().decode()


@pytest.mark.slow
@pytest.mark.parametrize("level", NAMESPACED)
def test_no_file_a_bot_can_read_carries_what_another_bot_does(level):
    cpu = min(os.sched_getaffinity(0))  # the two bots of a table share their worker's CPU
    scanner = start([SYSTEM_PYTHON, "-c", SCAN], StartOptions(level=level, cpu=cpu, stderr=sys.stderr.fileno()))
    mover = start([SYSTEM_PYTHON, "-c", MOVE], StartOptions(level=level, cpu=cpu, stderr=sys.stderr.fileno()))
    try:
        readable = json.loads(scanner.process.stdout.readline())
        print(f"{level}: {len(readable)} machine-wide files readable in the jail: {readable}")
        # Rounds in a random order, half of them with the other bot moving state between the two scans: a
        # file carries its moves when it changes with them and not without (the host's own traffic moves a
        # few of the network namespace's counters, the softnet statistics, in rounds of either kind).
        moves = [True] * 8 + [False] * 8
        random.Random(49).shuffle(moves)
        # Every round lasts as long between its two readings, moves or not: the host's traffic, which a longer
        # round sees more of, must not look like the moves.
        started = time.monotonic()
        assert _ask(mover, "move") == "done\n" and _ask(mover, "release") == "done\n"
        gap = max(0.5, 3 * (time.monotonic() - started))
        changed: dict[str, list[bool]] = {path: [] for path in readable}
        for move in moves:
            before = json.loads(_ask(scanner, "scan"))
            started = time.monotonic()
            if move:
                assert _ask(mover, "move") == "done\n"
            time.sleep(max(0.0, started + gap - time.monotonic()))
            after = json.loads(_ask(scanner, "scan"))
            assert _ask(mover, "release") == "done\n"
            for path in readable:
                changed[path].append(before[path] != after[path])
        carried = {path for path, flags in changed.items()
                   if sum(f for f, m in zip(flags, moves) if m) == 8 and sum(f for f, m in zip(flags, moves) if not m) < 4}
        noisy = sorted(path for path, flags in changed.items() if any(flags))
        print(f"changed in some round (the host's own activity): {noisy}")
        assert not carried, f"these files carry another bot's moves: {sorted(carried)}"
        assert len(readable) <= 80
    finally:
        scanner.kill()
        mover.kill()
