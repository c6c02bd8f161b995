"""``games.csv`` put in schedule order, in memory that grows by a few dozen bytes a row, never by the file.

Workers finish their chunks in any order, so a run appends rows out of order and sorts the file once at
its end.  Plain text order is schedule order: a line starts with the game id, whose zero-padded fields
have widths fixed by the tournament, and the seat (one digit) is the first field after it that differs
within a game.  A game's rows are stored together in seat order, so a stable sort of the lines by game id
sorts the text.

The file is read twice, a block at a time: once to note each line's place and game id (numpy arrays:
its bytes are never held whole), and, when that order is not the schedule's, once more to copy its lines
in order into the new file, every run of lines that are already consecutive read in one piece.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import numpy as np

from arena.results.files import write_atomically

#: Bytes read at a time; a block ends at a line's end.
_BLOCK = 8 << 20


def _block_lines(data: bytes, base: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(starts, ends, keys)`` of the whole lines of ``data`` (found at offset ``base`` of the file): each
    line's offsets and its first field, up to its first comma (or its end), as a fixed-width byte string."""
    body = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(body == ord("\n")) + 1
    starts = np.concatenate(([0], ends[:-1]))
    commas = np.flatnonzero(body == ord(","))
    firsts = commas[np.minimum(np.searchsorted(commas, starts), len(commas) - 1)] if len(commas) else ends
    firsts = np.where((firsts >= starts) & (firsts < ends), firsts, ends - 1)
    width = max(int((firsts - starts).max()), 1)
    table = np.zeros((len(starts), width), dtype=np.uint8)
    for column in range(width):
        at = starts + column
        table[:, column] = np.where(at < firsts, body[np.minimum(at, len(body) - 1)], 0)
    return starts + base, ends + base, table.view(f"S{width}").ravel()


def line_blocks(f: IO[bytes], start: int, end: int | None = None) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The whole lines of the file ``f`` from byte ``start`` (a line's start) up to ``end`` (None: its end), a
    block at a time: ``(starts, ends, keys)`` of :func:`_block_lines` for each.  A last line without its
    newline is not among them: it ends where the last block's lines end."""
    f.seek(start)
    at, tail = start, b""
    while True:
        block = f.read(_BLOCK if end is None else max(0, min(_BLOCK, end - at - len(tail))))
        data = tail + block
        cut = data.rfind(b"\n") + 1
        if cut:
            yield _block_lines(data[:cut], at)
        at += cut
        tail = data[cut:]
        if not block:
            return


def game_ids(path: Path, end: int) -> set[str]:
    """The game ids of ``games.csv``'s rows before byte ``end`` (rows a run wrote itself: plain ids)."""
    ids: set[str] = set()
    with open(path, "rb") as f:
        start = len(f.readline())
        for _, _, keys in line_blocks(f, start, end):
            # a game's rows are together: one id a game to decode (a Python string costs more than its row)
            first = keys[np.r_[True, keys[1:] != keys[:-1]]]
            ids.update(key.decode("utf-8") for key in first.tolist())
    return ids


def sort_games_file(path: Path) -> bool:
    """Rewrite ``games.csv`` in schedule order: table, deal, rotation, seat; True when it was not in that order.

    The header stays first; a last line without its newline (a run cut short) is kept last, as it is.
    """
    starts: list[np.ndarray] = []
    ends: list[np.ndarray] = []
    keys: list[np.ndarray] = []
    with open(path, "rb") as f:
        header_end = len(f.readline())
        for s, e, k in line_blocks(f, header_end):
            starts.append(s)
            ends.append(e)
            keys.append(k)
        size = f.seek(0, os.SEEK_END)
    at = int(ends[-1][-1]) if ends else header_end
    lines = sum(len(k) for k in keys)
    if lines <= 1:
        return False
    width = max(k.dtype.itemsize for k in keys)
    key = np.concatenate([k.astype(f"S{width}") for k in keys])
    del keys
    if not (key[1:] < key[:-1]).any():
        return False
    order = np.argsort(key, kind="stable")
    del key
    first = np.concatenate(starts)[order]
    last = np.concatenate(ends)[order]
    del starts, ends, order
    # Lines already next to each other in the file are copied in one read: a run of a chunk's games is one.
    breaks = np.flatnonzero(first[1:] != last[:-1]) + 1
    pieces = zip(first[np.concatenate(([0], breaks))].tolist(), last[np.concatenate((breaks - 1, [len(last) - 1]))].tolist())

    def write(tmp: Path) -> None:
        with open(path, "rb") as source, open(tmp, "wb") as target:
            fd = source.fileno()
            _copy(fd, target, 0, header_end)
            for a, b in pieces:
                _copy(fd, target, a, b)
            _copy(fd, target, at, size)

    write_atomically(path, write)
    return True


def _copy(fd: int, target: IO[bytes], start: int, end: int) -> None:
    """Copy the bytes ``start:end`` of the file ``fd`` to ``target``, a block at a time."""
    while start < end:
        part = os.pread(fd, min(end - start, _BLOCK), start)
        if not part:
            raise OSError(f"the file ended at byte {start} while being sorted")
        target.write(part)
        start += len(part)
