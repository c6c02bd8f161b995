"""The files the arena is given to read (a tournament file, a deals file, a record, a bot's own files):
regular files of bounded size, opened without blocking.

A path can name a FIFO (a read waits for a writer that never comes), a device (``/dev/zero`` never
ends), a folder or a file larger than its format could need.  :func:`open_input` opens it with
``O_NONBLOCK`` and checks what the descriptor is before a byte is read, and :func:`read_input` reads no
more than the format's cap even from a file that grows meanwhile; either refuses in one line
(:class:`InputFileError`) that names the file and why.  :func:`special_kind` tells, without opening, a
path a bot's command names that it could not read as a file.
"""

from __future__ import annotations

import os
import stat

from arena.errors import ArenaError, os_error_line

__all__ = ["InputFileError", "open_input", "read_input", "size_text", "special_kind"]

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


class InputFileError(ArenaError, ValueError):
    """A file that is not a regular file of bounded size, or cannot be read; the message is one line."""


def size_text(size: int) -> str:
    """A number of bytes as a person reads it: ``512 bytes``, ``40 KiB``, ``16 MiB``, ``2.6 GiB``."""
    if size < 1024:
        return f"{size} bytes"
    value = float(size)
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        value /= 1024
        if value < 1024 or unit == "TiB":
            break
    text = f"{value:.1f}" if value < 10 else f"{value:.0f}"
    return f"{text.removesuffix('.0')} {unit}"


def special_kind(path: str | os.PathLike[str]) -> str | None:
    """What ``path`` is (``a FIFO``, ``a character device``) when it names something other than a regular
    file or a folder, looked at without opening it; None otherwise (or when it names nothing)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return _kind(mode)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "a special file")


def open_input(path: str | os.PathLike[str], what: str, cap: int | None, shown: object = None) -> int:
    """``path`` open for reading (a descriptor, blocking again once checked), when it is a regular file of at
    most ``cap`` bytes (None: any size).  ``what`` names the file in the message (``a deals file``),
    ``shown`` is how the path is shown (default: as given).  :class:`FileNotFoundError` passes on, for the
    caller to say where it looked; anything else is an :class:`InputFileError`."""
    shown = path if shown is None else shown
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise
    except IsADirectoryError:
        raise InputFileError(f"{shown}: is a folder, not a regular file") from None
    except OSError as exc:
        raise InputFileError(f"{shown}: cannot read: {os_error_line(exc)}") from None
    try:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode):
            raise InputFileError(f"{shown}: is {_kind(found.st_mode)}, not a regular file")
        if cap is not None and found.st_size > cap:
            raise InputFileError(f"{shown}: is {size_text(found.st_size)}, more than the {size_text(cap)} "
                                 f"{what} may be")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_input(path: str | os.PathLike[str], what: str, cap: int, shown: object = None) -> bytes:
    """The bytes of ``path`` (:func:`open_input`), at most ``cap`` of them, read whole."""
    shown = path if shown is None else shown
    fd = open_input(path, what, cap, shown)
    try:
        with open(fd, "rb", closefd=False) as file:
            data = file.read(cap + 1)
    except OSError as exc:
        raise InputFileError(f"{shown}: cannot read: {os_error_line(exc)}") from None
    finally:
        os.close(fd)
    if len(data) > cap:  # it grew after it was looked at
        raise InputFileError(f"{shown}: is more than the {size_text(cap)} {what} may be")
    return data
