"""What a sandboxed program is given and how a failure to give it is told: its :class:`Limits`, the uids and gids bots run as and their processes, :class:`SandboxError`."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from arena.errors import ArenaError

#: First uid of the range bot processes run as (one each, so that limits per uid are theirs alone).
UID_BASE = 1_500_000


#: First gid of the groups that may read a staged copy (one per staged path).
GID_BASE = 1_400_000


#: The resource limit that bounds a bot's memory where no memory cgroup charges it: ``RLIMIT_DATA``, its
#: private writable memory (its heap, its threads' stacks, the pages a runtime commits), not ``RLIMIT_AS``,
#: its address space, which the JVM, Go, .NET and V8 reserve by the gigabyte at start and never touch.
MEMORY_RLIMIT = "DATA"


@dataclass(frozen=True)
class Limits:
    """What one bot process may use."""

    #: Charged to its memory cgroup; without one, the bound of :data:`MEMORY_RLIMIT`.
    memory_mb: int = 2048
    #: Processes and threads, the program itself (and, in the jail, the jail's outer process) included.
    processes: int = 64
    open_files: int = 256
    #: The largest file it may write (its standard error log is written for it, see ``log_mb``).
    file_mb: int = 256
    #: The size of its private ``/tmp``.
    tmp_mb: int = 64
    #: How much of its standard error reaches its log; past it the rest is read and dropped.
    log_mb: int = 16


class SandboxError(ArenaError, RuntimeError):
    """A program that cannot be started; the message is one line."""


def counted_processes(uid: int, user_namespace: bool) -> int:
    """How many processes besides the bot's own a limit on processes (``RLIMIT_NPROC``) set for it counts:
    from Linux 5.14 on, in a user namespace of its own, those of that namespace alone (the jail's outer
    process); otherwise every process ``uid`` runs on the machine now."""
    if user_namespace and kernel() >= (5, 14):
        return 1
    return processes_of(uid)


def kernel() -> tuple[int, int]:
    """This machine's Linux version, (major, minor)."""
    found = re.match(r"(\d+)\.(\d+)", os.uname().release)
    return (int(found[1]), int(found[2])) if found else (0, 0)


def processes_of(uid: int) -> int:
    """How many processes ``uid`` runs now (a limit on processes per uid counts them)."""
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                count += entry.stat().st_uid == uid
            except OSError:
                pass
    return count


#: Numbers for the uids and cgroups of this process's bot programs.
serials = iter(range(1_000_000))
