"""One game's record out of a results folder's records file, read as a stream.

``records.jsonl.gz`` is a series of gzip members, one per chunk of games stored; a results folder
keeps no index of where each game is, so the file is read from its start, a block at a time, member
after member, until the game is found: memory is a block and a line, whatever the file's size.
A line is parsed only when it holds the game id's text.  A member cut short (a run writing the file)
or damaged ends the search there, as the end of the file does.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from arena import records
from arena.results.files import RECORDS_FILE, RECORDS_GZ_FILE

#: Bytes read from the file at a time.
BLOCK = 1 << 20
#: The longest record line looked at (a game's record is a few kilobytes).
MAX_LINE = 16 << 20


def _gzip_blocks(path: Path) -> Iterator[bytes]:
    """The text of every gzip member of ``path``, in pieces, until the file or a whole member ends."""
    with open(path, "rb") as f:
        unpack = zlib.decompressobj(31)
        while block := f.read(BLOCK):
            while block:
                try:
                    yield unpack.decompress(block)
                except zlib.error:
                    return
                if not unpack.eof:
                    break  # the member goes on in the next block
                block = unpack.unused_data  # the next member starts here
                unpack = zlib.decompressobj(31)


def _plain_blocks(path: Path) -> Iterator[bytes]:
    with open(path, "rb") as f:
        while block := f.read(BLOCK):
            yield block


def _lines(blocks: Iterator[bytes]) -> Iterator[bytes]:
    """The whole lines of ``blocks`` (a last one without its newline is not one yet)."""
    rest = b""
    for block in blocks:
        rest += block
        *whole, rest = rest.split(b"\n")
        yield from whole
        if len(rest) > MAX_LINE:
            rest = b""


def find_record(folder: Path, game_id: str) -> dict[str, Any] | None:
    """The record of ``game_id`` in ``folder``'s records file, or None when it holds none (yet) that reads."""
    needle = json.dumps(game_id).encode("ascii")
    for name, blocks in ((RECORDS_GZ_FILE, _gzip_blocks), (RECORDS_FILE, _plain_blocks)):
        path = folder / name
        if not path.is_file():
            continue
        try:
            for line in _lines(blocks(path)):
                if needle not in line:
                    continue
                try:
                    record = records.loads(line)
                except records.RecordError:
                    continue
                if record.get("game_id") == game_id:
                    return record
        except OSError:
            return None
    return None
