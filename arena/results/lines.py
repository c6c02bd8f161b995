"""A results folder's line files read as streams, counted, and rewritten whole or from a byte on.

``games.csv`` and the records file (plain or one gzip member per chunk) are only ever read a block
at a time (:class:`Lines`), so memory does not grow with the folder.  Every rewrite goes through a
temporary file: a write that fails leaves the file as it was and is a one-line
:class:`~.files.RunError`.
"""

from __future__ import annotations

import shutil
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from arena.errors import os_error_line, shorten
from arena.results.files import RECORDS_LEVEL, RunError, write_atomically

#: Bytes read at a time.
BLOCK = 1 << 20


class Lines:
    """The complete lines of a file, read as a stream; afterwards ``cut`` and ``clean`` tell how it ended."""

    def __init__(self, path: Path, compressed: bool, start: int = 0) -> None:
        self.path = path
        self.compressed = compressed
        #: Where to start reading (a gzip member's first byte when compressed).
        self.start = start
        #: Bytes after the last newline (a half-written line).
        self.cut = 0
        #: False when a gzip member was cut short (the file must be rewritten before appending to it).
        self.clean = True

    def chunks(self) -> Iterator[bytes]:
        """The file's bytes from ``start`` on, decompressed, a block at a time."""
        with open(self.path, "rb") as f:
            f.seek(self.start)
            blocks = iter(lambda: f.read(BLOCK), b"")
            if not self.compressed:
                yield from blocks
                return
            yield from self._members(blocks)

    def _members(self, blocks: Iterator[bytes]) -> Iterator[bytes]:
        # A run killed while writing leaves its last gzip member cut short;
        # what that member held up to its last flush can still be read.
        d = zlib.decompressobj(wbits=31)
        started = False
        for block in blocks:
            while block:
                started = True
                try:
                    yield d.decompress(block)
                except zlib.error:
                    self.clean = False
                    return
                if not d.eof:
                    break
                block = d.unused_data
                d = zlib.decompressobj(wbits=31)
                started = False
        if started:
            self.clean = False
            yield d.flush()

    def __iter__(self) -> Iterator[bytes]:
        tail = b""
        for chunk in self.chunks():
            if not chunk:
                continue
            lines = (tail + chunk).split(b"\n")
            tail = lines.pop()
            for line in lines:
                yield line + b"\n"
        self.cut = len(tail)


def shown_line(line: bytes | str) -> str:
    """A line as a message shows it: without its newline, shortened."""
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    return shorten(text.rstrip("\r\n"))


def count_lines(path: Path, *, partial: bool = False) -> int:
    """The newlines in ``path`` (0 when it does not exist); with ``partial`` a half-written last line counts too."""
    if not path.exists():
        return 0
    with open(path, "rb") as f:
        lines = sum(block.count(b"\n") for block in iter(lambda: f.read(8 * BLOCK), b""))
        size = f.tell()
        if partial and size:
            f.seek(size - 1)
            lines += f.read(1) != b"\n"
    return lines


def text_lines(path: Path, skip_header: bool, start: int = 0) -> Iterator[str]:
    """The lines of the text file ``path`` from byte ``start`` on, the first left out with ``skip_header``."""
    lines = iter(Lines(path, False, start))
    if skip_header:
        next(lines, None)
    for raw in lines:
        yield raw.decode("utf-8", errors="replace")


def write_lines(f: IO[bytes], lines: Iterable[bytes], compressed: bool) -> None:
    """Write ``lines`` to ``f``: as they are, or as one gzip member when ``compressed`` (nothing for no lines)."""
    if not compressed:
        f.writelines(lines)
        return
    packer = zlib.compressobj(RECORDS_LEVEL, zlib.DEFLATED, 31)
    wrote = False
    for line in lines:
        f.write(packer.compress(line))
        wrote = True
    if wrote:
        f.write(packer.flush())


def rewrite_text(path: Path, header: str, lines: Iterable[str]) -> None:
    """Make the text file ``path`` hold ``header`` and ``lines`` (atomically)."""
    def write(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            f.write(header)
            f.writelines(lines)

    write_atomically(path, write)


def rewrite_records(path: Path, compressed: bool, lines: Iterable[bytes]) -> None:
    """Make the records file ``path`` hold ``lines`` (atomically; one gzip member when ``compressed``)."""
    def write(tmp: Path) -> None:
        with open(tmp, "wb") as f:
            write_lines(f, lines, compressed)

    write_atomically(path, write)


def replace_tail(path: Path, start: int, lines: Iterable[bytes], compressed: bool) -> None:
    """Make everything of ``path`` after byte ``start`` (kept as it is) be ``lines`` (one gzip member when compressed).

    The new tail is written to a temporary file first: a write that fails there leaves ``path`` as it was.
    """
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "wb") as f:
            write_lines(f, lines, compressed)
        with open(path, "r+b") as f, open(tmp, "rb") as tail:
            f.truncate(start)
            f.seek(start)
            shutil.copyfileobj(tail, f, BLOCK)
    except OSError as exc:
        raise RunError(f"{path}: cannot write: {os_error_line(exc)} (it is left as it was)") from None
    finally:
        try:
            tmp.unlink()
        except OSError:
            pass
