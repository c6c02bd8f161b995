"""The processes a test started, told from those of the tests another pytest-xdist worker runs beside it.

A test's own processes are this test process's descendants; a process that outlived its parent (a bot's
detached child, a daemon) is adopted by init.  So the processes a test looks for, a test's leftovers, are
among this process's descendants and init's children (:func:`ours`): never another worker's, which are
that worker's descendants while its test plays (an orphan of its that outlived its test is a leftover
whichever test finds it).
"""

from __future__ import annotations

import os
import time


def _stat(pid: int | str) -> tuple[bytes, int] | None:
    """A process's state letter and parent (None: gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state, ppid = f.read().rpartition(b")")[2].split()[:2]
    except (OSError, ValueError):
        return None
    return state, int(ppid)


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie has ended)."""
    found = _stat(pid)
    return found is not None and found[0] != b"Z"


def ours() -> set[int]:
    """The live processes (not zombies) this process started, and theirs, however deep; and the orphans
    init adopted, and theirs, outside the tree this process runs in (where the other workers are)."""
    parent: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        found = _stat(entry.name) if entry.name.isdigit() else None
        if found is not None and found[0] != b"Z":
            parent[int(entry.name)] = found[1]
    children: dict[int, list[int]] = {}
    for pid, ppid in parent.items():
        children.setdefault(ppid, []).append(pid)
    me = top = os.getpid()
    while parent.get(top, 1) > 1:
        top = parent[top]
    found = set()
    todo = [me, *(pid for pid in children.get(1, ()) if pid != top)]
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo += children.get(pid, ())
    found.discard(me)
    return found


def processes_with(*marks: bytes) -> list[tuple[int, str]]:
    """Live processes this process started, or orphans (:func:`ours`), whose command line holds one of
    ``marks``."""
    found = []
    for pid in sorted(ours()):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        if any(mark in cmdline for mark in marks):
            found.append((pid, cmdline.replace(b"\0", b" ").decode(errors="replace")[:200]))
    return found


def leftovers(*marks: bytes, wait: float = 2.0) -> list[tuple[int, str]]:
    """The processes holding ``marks`` still there after ``wait`` seconds (for the kernel to reap them)."""
    deadline = time.monotonic() + wait
    while True:
        found = processes_with(*marks)
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)
