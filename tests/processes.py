"""The processes a test started, told from those of the tests another pytest-xdist worker runs beside it.

A test's own processes are this test process's descendants; a process that outlived its parent (a bot's
detached child, a daemon) is adopted by init.  So the processes a test looks for, a test's leftovers, are
among this process's descendants and init's children (:func:`ours`): never another worker's, which are
that worker's descendants while its test plays (an orphan of its that outlived its test is a leftover
whichever test finds it).

One orphan is still another worker's: a jailed bot whose jail's outer process was killed while the bot was
being killed (the referee waits for the outer process half a second, less than a loaded machine may take).
Init adopts the bot for the moment its referee takes to empty its cgroups; that cgroup's name,
``bot-<pid>-<n>``, names the process that made it, the referee, still running in the other worker's tree.
"""

from __future__ import annotations

import os
import re
import time


def _stat(pid: int | str) -> tuple[bytes, int] | None:
    """A process's state letter and parent (None: gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state, ppid = f.read().rpartition(b")")[2].split()[:2]
    except (OSError, ValueError):
        return None
    return state, int(ppid)


def parent_of(pid: int) -> int | None:
    """A process's parent (None: gone)."""
    found = _stat(pid)
    return None if found is None else found[1]


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie has ended)."""
    found = _stat(pid)
    return found is not None and found[0] != b"Z"


def ours() -> set[int]:
    """The live processes (not zombies) this process started, and theirs, however deep; and the orphans
    init adopted, and theirs, outside the tree this process runs in (where the other workers are), but
    for those in a bot cgroup a process of that tree, outside this one's, made."""
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
    mine = _tree(children, [me])
    others = _tree(children, [top]) - mine
    orphans = [pid for pid in children.get(1, ()) if pid != top and _cgroup_maker(pid) not in others]
    found = mine | _tree(children, orphans)
    found.discard(me)
    return found


def _tree(children: dict[int, list[int]], roots: list[int]) -> set[int]:
    """``roots`` and their descendants, however deep."""
    found: set[int] = set()
    todo = list(roots)
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo += children.get(pid, ())
    return found


def _cgroup_maker(pid: int) -> int | None:
    """The process that made the arena cgroup ``pid`` is in (its name is ``bot-<maker>-<n>``); None: none."""
    try:
        with open(f"/proc/{pid}/cgroup", encoding="utf-8") as f:
            found = re.search(r"/bot-(\d+)-\d+(?:/|$)", f.read(), re.MULTILINE)
    except OSError:
        return None
    return int(found.group(1)) if found else None


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
