"""Every machine-wide resource a bot can take is charged to it or refused: one row of the threat model's table
each.  A jailed bot takes all it may of a resource and holds it; meanwhile another jailed bot, on the same
CPU as at a table, and the host itself use the same resource as usual."""

from __future__ import annotations

import ctypes
import fcntl
import os
import shutil
import sys
import tempfile

import pytest
from sandbox_levels import needs_jail

from arena.isolation import sandbox
from arena.isolation.sandbox import StartOptions, start

SYSTEM_PYTHON = shutil.which("python3", path=sandbox.PATH) or sys.executable
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
#: x86-64's numbers of the calls the host makes itself (the same on every x86-64 kernel).
IO_SETUP, IO_DESTROY, INOTIFY_INIT1, ADD_KEY, KEYCTL, MSGGET, MSGCTL = 206, 207, 294, 248, 250, 68, 71

PRELUDE = r"""
import ctypes, errno, fcntl, os, socket, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long

def refused(number, *args):
    result = libc.syscall(ctypes.c_long(number), *args)
    return "refused" if result < 0 and ctypes.get_errno() == errno.ENOSYS else f"allowed ({result})"

def error(number, *args):
    result = libc.syscall(ctypes.c_long(number), *args)
    return errno.errorcode[ctypes.get_errno()] if result < 0 else "ok"

def until_full(make):
    count = 0
    while True:
        try:
            make()
        except OSError as exc:
            return count, errno.errorcode[exc.errno]
        count += 1
"""

#: A resource -> (what the taker does, printing one line once it holds all it may; what the other bot does,
#: printing "ok" when it could).
TAKE_AND_USE = {
    "aio events": ("print(refused(206, 65536, ctypes.byref(ctypes.c_ulong(0))))",
                   "print('ok' if refused(206, 1, ctypes.byref(ctypes.c_ulong(0))) == 'refused' else 'no')"),
    "inotify": ("print(refused(294, 0))", "print('ok')"),
    "pipe buffers": (
        # Its processes (the pids limit) each fill every descriptor they may with full pipes.
        "kids = []\n"
        "for _ in range(40):\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        fds = []\n"
        "        def make():\n"
        "            r, w = os.pipe()\n"
        "            fds.extend((r, w))\n"
        "            os.set_blocking(w, False)\n"
        "            try:\n"
        "                while os.write(w, b'x' * 65536):\n"
        "                    pass\n"
        "            except BlockingIOError:\n"
        "                pass\n"
        "        until_full(make)\n"
        "        sys.stdin.read()\n"
        "        os._exit(0)\n"
        "    kids.append(pid)\n"
        "print('taken')\n",
        "r, w = os.pipe()\nprint('ok' if fcntl.fcntl(w, 1032) == 65536 else 'small')"),  # F_GETPIPE_SZ
    "ptys": ("print('refused' if not os.path.exists('/dev/ptmx') else 'allowed')",
             "print('ok')"),
    "sysv and posix message ipc": (
        "print(refused(68, 0, 0o1600), refused(240, b'q', 0o100, 0o600, None))",  # msgget, mq_open
        "print('ok')"),
    "posix shared memory": (
        "print(until_full(lambda: open(f'/dev/shm/fill{os.urandom(4).hex()}', 'wb').write(b'x' * (1 << 20))))",
        "open('/dev/shm/sem.arena', 'wb').write(b'x' * (1 << 20))\nprint('ok')"),
    "kernel keys": ("print(refused(248, b'user', b'arena-key', b'x', 1, -4))", "print('ok')"),
    "locks": (
        "import fcntl\nf = open(sys.executable, 'rb')\nfcntl.flock(f, fcntl.LOCK_EX)\nprint('held')",
        "import fcntl\nf = open(sys.executable, 'rb')\nfcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)\nprint('ok')"),
    "memfd and tmpfs": (
        "print(refused(319, b'm', 0), until_full(lambda: open(f'/tmp/fill{os.urandom(4).hex()}', 'wb')"
        ".write(b'x' * (1 << 20))))",
        "open('/tmp/own', 'wb').write(b'x' * (8 << 20))\nprint('ok')"),
    "sockets": (
        "held = []\n"
        "def make():\n"
        "    held.extend(socket.socketpair())\n"
        "print(until_full(make), [error(41, family, 1, 0) for family in (2, 10, 16, 17, 40)])\n"
        "listener = socket.socket(socket.AF_UNIX)\nlistener.bind(b'\\0arena-name')\n",
        "s = socket.socket(socket.AF_UNIX)\ns.bind(b'\\0arena-name')\na, b = socket.socketpair()\nprint('ok')"),
    "pids": (
        "kids = []\n"
        "def make():\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        sys.stdin.read()\n"
        "        os._exit(0)\n"
        "    kids.append(pid)\n"
        "print(until_full(make))\n",
        "for _ in range(8):\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n        os._exit(0)\n"
        "    os.waitpid(pid, 0)\n"
        "print('ok')"),
    "disk": (
        # Every mount it may write is a tmpfs of a bounded size: nothing reaches the machine's disks.
        "rw = [line.split() for line in open('/proc/self/mountinfo')]\n"
        "rw = [(f[4], f[f.index('-') + 1], f[-1]) for f in rw if f[5].split(',')[0] == 'rw']\n"
        "print(sorted(rw))",
        "print('ok')"),
}


def _host_uses(resource: str) -> str:
    """The host's own use of ``resource`` while the bot holds all it may: "ok", or what went wrong."""
    if resource == "aio events":
        context = ctypes.c_ulong(0)
        if libc.syscall(IO_SETUP, 128, ctypes.byref(context)) != 0:
            return f"io_setup failed: {os.strerror(ctypes.get_errno())}"
        libc.syscall(IO_DESTROY, context)
    elif resource == "inotify":
        fd = libc.syscall(INOTIFY_INIT1, 0)
        if fd < 0:
            return f"inotify_init1 failed: {os.strerror(ctypes.get_errno())}"
        os.close(fd)
    elif resource == "pipe buffers":
        r, w = os.pipe()
        size = fcntl.fcntl(w, 1032)
        os.close(r)
        os.close(w)
        if size != 65536:
            return f"a pipe of {size} bytes"
    elif resource == "ptys":
        master, slave = os.openpty()
        os.close(master)
        os.close(slave)
    elif resource in ("posix shared memory", "memfd and tmpfs", "disk"):
        with tempfile.TemporaryFile(dir="/dev/shm" if resource == "posix shared memory" else None) as f:
            f.write(b"x" * (8 << 20))
    elif resource == "pids":
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
    elif resource == "locks":
        with open(SYSTEM_PYTHON, "rb") as f:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return "ok"


def _started(script: str, cpu: int) -> sandbox.Sandboxed:
    return start([SYSTEM_PYTHON, "-c", PRELUDE + script + "\nsys.stdout.flush()\nsys.stdin.read()\n"],
                 StartOptions(level="jail", cpu=cpu, stderr=sys.stderr.fileno()))


@needs_jail
@pytest.mark.slow
@pytest.mark.parametrize("resource", list(TAKE_AND_USE))
def test_one_bot_taking_all_it_may_leaves_other_bots_and_the_host_unharmed(resource):
    take, use = TAKE_AND_USE[resource]
    cpu = min(os.sched_getaffinity(0))
    taker = _started(take, cpu)
    try:
        taken = taker.process.stdout.readline().decode().strip()
        assert taken, f"the taker of {resource} ended: {taker.wait(5)}"
        print(f"{resource}: the taker got {taken}")
        other = start([SYSTEM_PYTHON, "-c", PRELUDE + use], StartOptions(level="jail", cpu=cpu,
                                                                        stderr=sys.stderr.fileno()))
        try:
            assert other.process.stdout.read().decode().strip() == "ok"
            assert other.wait(30) == 0
        finally:
            other.kill()
        assert _host_uses(resource) == "ok"
        _check_taken(resource, taken)
    finally:
        taker.kill()


def _check_taken(resource: str, taken: str) -> None:
    """What the taker got is what the table says bounds it."""
    if resource in ("aio events", "inotify", "kernel keys"):
        assert taken == "refused"
    elif resource == "sysv and posix message ipc":
        assert taken == "refused refused"
    elif resource == "ptys":
        assert taken == "refused"
    elif resource == "posix shared memory":
        assert taken == "(16, 'ENOSPC')"  # its own 16 MiB /dev/shm
    elif resource == "memfd and tmpfs":
        assert taken == f"refused ({sandbox.Limits().tmp_mb}, 'ENOSPC')"
    elif resource == "sockets":
        count, families = taken.split(") [")
        assert "EMFILE" in count and families == ", ".join(["'EAFNOSUPPORT'"] * 5) + "]"
    elif resource == "pids":
        assert "EAGAIN" in taken and int(taken.strip("()").split(",")[0]) < sandbox.Limits().processes
    elif resource == "disk":
        writable = eval(taken)
        assert writable and all(kind == "tmpfs" and "size=" in options or point == "/proc" and kind == "proc"
                                for point, kind, options in writable), writable
