"""The processes a test started: found among this test process's descendants, never another's.

Every pytest-xdist worker that plays hostile bots adopts its orphans (:func:`adopt_orphans`, called by
``tests/hostile/conftest.py``), so a bot's child that outlived its parent is still found here, and the
tests of two workers never take each other's bots for their leftovers.  An adopted orphan that ends is
this process's zombie until reaped (:func:`reap_adopted`): a test that waits for a process to end looks
for a live one (:func:`running`).
"""

from __future__ import annotations

import ctypes
import os
import time

#: prctl's option that makes a process the reaper of its orphaned descendants.
PR_SET_CHILD_SUBREAPER = 36


def adopt_orphans() -> None:
    """Make this test process the reaper of every orphan it leaves (a bot's child that outlived its
    parent, a daemon): then every process a test of this process started stays its descendant, and two
    pytest-xdist workers can play hostile bots side by side without taking each other's for leftovers."""
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


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


def zombie_children() -> set[int]:
    """This process's children that have ended and were not waited for."""
    me = os.getpid()
    found = set()
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and _stat(entry.name) == (b"Z", me):
            found.add(int(entry.name))
    return found


def reap_adopted(before: set[int]) -> None:
    """Wait for this process's zombie children but those of ``before`` (:func:`zombie_children` when the
    test began): the orphans a test left, adopted and ended."""
    for pid in zombie_children() - before:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass


def descendants() -> set[int]:
    """The live processes (not zombies) this process started, and theirs, however deep."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        found = _stat(entry.name) if entry.name.isdigit() else None
        if found is not None and found[0] != b"Z":
            children.setdefault(found[1], []).append(int(entry.name))
    found, todo = set(), [os.getpid()]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def processes_with(*marks: bytes) -> list[tuple[int, str]]:
    """Live processes this process started (:func:`descendants`: with :func:`adopt_orphans`, also those
    that outlived their parent) whose command line holds one of ``marks``."""
    found = []
    for pid in sorted(descendants()):
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
