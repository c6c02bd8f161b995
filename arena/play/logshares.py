"""The shares of a folder of bots' logs (one log's, all of them together), reserved before a process writes.

A process's jail copies its standard error to its log up to a number of bytes fixed when it starts, so that
room is reserved then (:func:`reserve`) in the folder's ledger, ``.log-shares``, under ``flock``: processes
that start at once, in any worker, are counted one after another.  A log may grow to its size plus the
grants held; a grant is given back when its process ends, and names its holder by pid and start time, so
that one of a worker killed outright counts no more.  How it is shared: docs/reference/output-files.md.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from itertools import count

#: The ledger of the grants held, in the folder of the logs.
LEDGER = ".log-shares"
#: A process is granted at most this part of what is left of a share.
PART = 4
#: A grant smaller than this is none: past it, the log is full.
SMALLEST = 16 << 10

_keys = count()


@dataclass(frozen=True)
class Shares:
    """The most one log (``entrant``) and all the ``*.log`` files of its folder (``folder``) may hold, in bytes."""

    entrant: int
    folder: int


@dataclass
class Reservation:
    """Room reserved in a log for one process: ``bytes`` of its standard error (0: none)."""

    log: str
    bytes: int
    key: str

    def give_back(self) -> None:
        """End the grant: what the process wrote is in the log's size from now on.  Safe to call twice."""
        if self.bytes <= 0:
            return
        self.bytes = 0
        try:
            with _ledger(os.path.dirname(self.log) or ".") as ledger:
                ledger.grants = [grant for grant in ledger.grants if grant.key != self.key]
        except OSError:
            pass  # counted no more once this process has ended


def reserve(log: str, wanted: int, shares: Shares, overhead: int = 0) -> Reservation:
    """Reserve up to ``wanted`` bytes of ``log`` for a process that starts now, within ``shares``, and
    ``overhead`` more for the lines its jail adds: a :class:`Reservation` of at most :data:`PART` of what is
    left, of none when less than :data:`SMALLEST`."""
    started = _started(os.getpid())
    key = f"{os.getpid()}-{started}-{next(_keys)}"
    with _ledger(os.path.dirname(log) or ".") as ledger:
        left = ledger.left(log, shares)
        granted = min(wanted, left // PART)
        if granted < SMALLEST or granted + overhead > left:
            return Reservation(log, 0, key)
        ledger.grants.append(_Grant(os.getpid(), started, key, os.path.basename(log), granted + overhead))
    return Reservation(log, granted, key)


def append(log: str, data: bytes, shares: Shares) -> bool:
    """Append the arena's own ``data`` to ``log`` when it fits in what is left of ``shares``; whether it did."""
    with _ledger(os.path.dirname(log) or ".") as ledger:
        if ledger.left(log, shares) < len(data):
            return False
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
    return True


@dataclass(frozen=True)
class _Grant:
    """A line of the ledger: ``bytes`` of the log named ``log`` held by the process ``pid`` (started at
    ``start``) under ``key``."""

    pid: int
    start: str
    key: str
    log: str
    bytes: int


@dataclass
class _Ledger:
    """The grants of a folder held by live processes, read under the ledger's lock."""

    folder: str
    grants: list[_Grant]

    def left(self, log: str, shares: Shares) -> int:
        """What ``log`` may still be granted: the least of what is left of its share and of the folder's."""
        name = os.path.basename(log)
        sizes = _sizes(self.folder)
        held = sum(grant.bytes for grant in self.grants)
        held_here = sum(grant.bytes for grant in self.grants if grant.log == name)
        return min(shares.entrant - sizes.get(name, 0) - held_here, shares.folder - sum(sizes.values()) - held)


@contextmanager
def _ledger(folder: str) -> Iterator[_Ledger]:
    """The folder's ledger, locked (``flock``) while the block runs and written back after it, without
    the grants of processes that are gone; removed when none is left, so that a folder whose processes
    have all ended holds only its logs."""
    path = os.path.join(folder, LEDGER)
    fd = _locked(path)
    try:
        ledger = _Ledger(folder, [grant for grant in _read(fd) if _alive(grant)])
        yield ledger
        if not ledger.grants:
            os.unlink(path)
            return
        data = "".join(json.dumps(asdict(grant), separators=(",", ":")) + "\n" for grant in ledger.grants).encode()
        # Written in place: a holder killed in between leaves old lines after the new, which count a grant
        # twice (never too little) until their holder ends.
        os.pwrite(fd, data, 0)
        os.ftruncate(fd, len(data))
    finally:
        os.close(fd)  # and the lock with it


def _locked(path: str) -> int:
    """The ledger ``path`` open and locked: the file that has the name once locked, not one removed by the
    holder before (whoever waited on that one takes the lock of a file nobody else will read)."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            if os.fstat(fd).st_ino == os.stat(path, follow_symlinks=False).st_ino:
                return fd
        except FileNotFoundError:
            pass
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)


def _read(fd: int) -> list[_Grant]:
    data = bytearray()
    while chunk := os.pread(fd, 1 << 16, len(data)):
        data += chunk
    grants = []
    for line in data.splitlines():
        try:
            grant = _Grant(**json.loads(line))
        except (ValueError, TypeError):
            continue  # a line cut short
        if isinstance(grant.pid, int) and isinstance(grant.bytes, int):
            grants.append(grant)
    return grants


def _sizes(folder: str) -> dict[str, int]:
    """The size of every ``*.log`` file in ``folder``, by name."""
    sizes = {}
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.endswith(".log") and entry.is_file(follow_symlinks=False):
                    sizes[entry.name] = entry.stat(follow_symlinks=False).st_size
    except OSError:
        pass
    return sizes


def _started(pid: int) -> str:
    """When the process ``pid`` started (clock ticks after boot), which tells it from a later process given
    the same pid; empty when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rpartition(b")")[2].split()[19].decode()
    except (OSError, IndexError):
        return ""


def _alive(grant: _Grant) -> bool:
    """Whether the process that holds ``grant`` still runs (it may still write its log)."""
    return grant.pid > 0 and _started(grant.pid) == grant.start != ""
