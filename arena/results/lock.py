"""The lock that keeps two runs from writing one results folder."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from arena.errors import os_error_line
from arena.results.files import HELD_LOCKS, LOCK_FILE, RunError


def _held(out: Path, holder: str) -> str:
    return (f"{out} is being written by another run (pid {holder}); wait for it to end, "
            f"or choose another folder with --out")


def _try_making(out: Path) -> None:
    """Make the folder ``out`` and its missing parents, and remove them again: a RunError when they cannot be."""
    made = [path for path in (out, *out.parents) if not path.exists()]
    try:
        out.mkdir(parents=True)
    except OSError as exc:
        raise RunError(f"{out}: cannot write there: {os_error_line(exc)}") from None
    for path in made:  # deepest first: each is empty once the one below it is gone
        try:
            path.rmdir()
        except OSError:
            break  # made meanwhile by someone else, or not ours to remove: left as it is


class FolderLock:
    """An OS lock (``flock``) on a results folder for the whole of a run, so that two runs never write
    one folder; the kernel releases it when the process ends, however it ends.  Makes the folder (its
    owner's alone) when it does not exist.  :meth:`claim` writes this process's pid into the lock
    file, for the message another run gets.
    """

    def __init__(self, out: Path) -> None:
        if out.exists() and not out.is_dir():
            raise RunError(f"{out}: exists and is not a folder")
        try:
            if not out.exists():
                out.mkdir(parents=True)
                # Its owner's alone: bots of later runs, under uids of their own, cannot read these deals.
                out.chmod(0o700)
            self.fd = os.open(out / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise RunError(f"{out}: cannot write there: {os_error_line(exc)}") from None
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(self.fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            os.close(self.fd)
            raise RunError(_held(out, holder)) from None
        HELD_LOCKS.append(self.fd)

    @staticmethod
    def check(out: Path) -> None:
        """Refuse (:class:`RunError`) at once what taking ``out`` would refuse, before anything is started: a
        file where the folder goes, a place where it cannot be made, another run holding it."""
        if out.exists() and not out.is_dir():
            raise RunError(f"{out}: exists and is not a folder")
        if not out.exists():
            _try_making(out)
        try:
            fd = os.open(out / LOCK_FILE, os.O_RDWR | os.O_CLOEXEC)
        except OSError:
            return  # no lock file yet: nobody has held it
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            raise RunError(_held(out, holder)) from None
        finally:
            os.close(fd)

    @staticmethod
    def held(out: Path) -> bool | None:
        """Whether a run holds ``out`` now; None when that cannot be told (no lock file, a folder this process
        cannot lock: another machine's copy)."""
        try:
            fd = os.open(out / LOCK_FILE, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        except OSError:
            return None
        finally:
            os.close(fd)  # closing it releases a lock it got
        return False

    def claim(self) -> None:
        try:
            os.ftruncate(self.fd, 0)
            os.pwrite(self.fd, f"{os.getpid()}\n".encode(), 0)
        except OSError:
            pass  # the lock holds all the same; only another run's message lacks the pid

    def release(self) -> None:
        if self.fd in HELD_LOCKS:
            HELD_LOCKS.remove(self.fd)
            os.close(self.fd)  # closing the last descriptor releases the lock
