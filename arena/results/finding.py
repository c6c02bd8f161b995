"""One game's record found in a records file (``records.jsonl`` or ``records.jsonl.gz``), read as a stream:
the one reader ``arena replay``, ``arena view`` and ``arena serve`` share.

A results folder keeps no index of where each game is, so the file is read from its start, a block at a
time, gzip member after member (:class:`~.lines.Lines`), until the game is found: memory is a block and a
line, whatever the file's size.  A line is parsed only when it holds the game id's text.  A member cut
short (a run writing the file) or damaged ends the search there, as the end of the file does.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from arena import records
from arena.results.files import RECORDS_FILE, RECORDS_GZ_FILE
from arena.results.lines import Lines

#: The longest record line looked at (a game's record is a few kilobytes).
MAX_LINE = 16 << 20
#: The records files a results folder may hold, in the order they are looked for.
RECORDS_FILES = (RECORDS_FILE, RECORDS_GZ_FILE)


class Found(NamedTuple):
    """What a search for a game's record found: the record (None: none that reads), and when none, what
    the file held instead (a line that names the game but does not read; empty: nothing)."""

    record: dict[str, Any] | None
    why_not: str = ""
    #: The search ended at a gzip member that is damaged or cut short (a run writing it, or a broken file).
    damaged: bool = False


def _lines(found: Lines) -> Iterator[bytes]:
    """The whole lines of the file (a last one without its newline is not one yet), each at most
    :data:`MAX_LINE` bytes: a longer one is passed over."""
    rest = b""
    for block in found.chunks():
        rest += block
        *whole, rest = rest.split(b"\n")
        yield from whole
        if len(rest) > MAX_LINE:
            rest = b""


def find_in_file(path: Path, game_id: str) -> Found:
    """The record of ``game_id`` in the records file ``path`` (gzipped when its name ends ``.gz``).

    :class:`OSError` when the file cannot be read; a damaged gzip member ends the search."""
    needle = json.dumps(game_id).encode("utf-8")
    # Skip lines without the id's text, unless the id is something JSON might write escaped.
    quick = re.fullmatch(r"[A-Za-z0-9_.:+-]+", game_id) is not None
    plain_id = game_id.encode("utf-8", errors="replace")
    unreadable = ""
    lines = Lines(path, path.name.endswith(".gz"))
    for number, line in enumerate(_lines(lines), 1):
        if quick and needle not in line:
            continue
        try:
            record = records.loads(line)
        except records.RecordError as exc:
            # A half-written last line of an interrupted run, or a damaged one.
            if not unreadable and (quick or plain_id in line):
                unreadable = f"line {number} mentions it but is {exc}"
            continue
        if str(record.get("game_id")) == game_id:
            return Found(record)
    return Found(None, unreadable, not lines.clean)


def records_in(folder: Path) -> Path | None:
    """The records file of the results folder ``folder`` (None: it holds none)."""
    return next((folder / name for name in RECORDS_FILES if (folder / name).is_file()), None)


def find_record(folder: Path, game_id: str) -> dict[str, Any] | None:
    """The record of ``game_id`` in ``folder``'s records file, or None when it holds none (yet) that reads,
    or cannot be read."""
    path = records_in(folder)
    if path is None:
        return None
    try:
        return find_in_file(path, game_id).record
    except OSError:
        return None
