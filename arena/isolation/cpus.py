"""Where the arena's processes run: the CPUs this process may use, a worker kept to one of them, and a
referee's thread kept beside its bots while it plays.

A turn is a round trip between a referee and a bot program.  On one core it costs about half of what
it costs across two, so a worker and the bot programs it starts share a CPU (:func:`pin_to_cpu`; they
inherit it), and a referee's thread keeps to its bots' CPU while it plays (:class:`KeptToCpu`).
"""

from __future__ import annotations

import os


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity where the platform tells it), at least 1."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def pin_to_cpu(index: int) -> None:
    """Keep this process (or task thread) and the bot programs it starts to the ``index``-th CPU it may use."""
    cpus = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpus[index % len(cpus)]})


def current_cpu() -> int | None:
    """The CPU this thread runs on now (one it may use), or None where that cannot be told."""
    if not hasattr(os, "sched_getaffinity"):
        return None
    allowed = os.sched_getaffinity(0)
    try:
        with open("/proc/thread-self/stat") as stat:
            cpu = int(stat.read().rpartition(")")[2].split()[36])
    except (OSError, ValueError, IndexError):
        cpu = min(allowed)
    return cpu if cpu in allowed else min(allowed)


def _not_preempting() -> tuple[int, int] | None:
    """Make this thread one that a wake-up does not let preempt the task running on its CPU
    (``SCHED_BATCH``; what it starts is not), and return its policy and priority before (None where
    none can be set).

    Pinned, a referee shares its CPU with its bots.  Woken by a bot's answer, a referee that preempts
    at once catches the bot before it is back asleep: freezing it then takes a wake-up and a switch
    to run it into the freezer.  Left to run, the bot host goes back to sleep in a few microseconds
    where the freezer stops it in place.  Whatever the bot runs until the referee reads its answer
    is on its own clock, as before.
    """
    if not hasattr(os, "SCHED_BATCH"):
        return None
    try:
        before = os.sched_getscheduler(0), os.sched_getparam(0).sched_priority
        if before[0] != os.SCHED_OTHER:
            return None  # a policy the user chose: kept
        os.sched_setscheduler(0, os.SCHED_BATCH | os.SCHED_RESET_ON_FORK, os.sched_param(0))
    except OSError:
        return None
    return before


class KeptToCpu:
    """While entered, this thread keeps to ``cpu`` and does not preempt the bots there; left, it gets its
    CPUs and scheduling policy back."""

    def __init__(self, cpu: int) -> None:
        self.cpu = cpu
        self._affinity: set[int] | None = None
        self._policy: tuple[int, int] | None = None

    def __enter__(self) -> KeptToCpu:
        self._affinity = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {self.cpu})
        self._policy = _not_preempting()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._affinity is not None:
            os.sched_setaffinity(0, self._affinity)
            self._affinity = None
        if self._policy is not None:
            try:
                os.sched_setscheduler(0, self._policy[0], os.sched_param(self._policy[1]))
            except OSError:
                pass
            self._policy = None
