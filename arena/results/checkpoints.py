"""What a run wrote, block by block, so that a resume can trust it without replaying it.

After every chunk of games it stores, the runner appends one line to
``checkpoints.jsonl``: where the records file and ``games.csv`` end now, a
digest of each (chained: a block's digest covers the digest before it and
the block's bytes), how many games the folder holds and the faults of the
chunk.  A resume (:func:`trusted_prefix`) reads both files once, block by
block, and finds the last checkpoint that both still match: every byte
before it is exactly what the run wrote after playing and checking those
games, so only what follows it — the games of an interrupted chunk, lines
added or changed by hand, a folder of an older arena without checkpoints —
is replayed and checked (:mod:`.verify`).  A changed byte anywhere breaks
the chain from its block on, so a damaged or foreign game is never trusted.

Reading a million games' files this way takes about a second (hashing at
disk speed), where replaying their records takes minutes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from arena.results.files import CHECKPOINTS_FILE, TOURNAMENT_FILE

_BLOCK = 1 << 20


def chain(previous: str, data: bytes) -> str:
    """The digest of a block of ``data`` after the block whose digest is ``previous`` (``""`` first)."""
    return hashlib.blake2b(previous.encode("ascii") + data, digest_size=16).hexdigest()


@dataclass
class Checkpoint:
    """Both results files as they were after a chunk was stored."""

    records: int
    records_digest: str
    rows: int
    rows_digest: str
    games: int
    faults: list[dict[str, Any]] = field(default_factory=list)
    #: The digest of the folder's ``tournament.toml`` the games were checked against: another file, and
    #: nothing is trusted (the games are checked against the schedule it makes).
    tournament: str = ""

    def describes(self, records_path: Path, rows_path: Path) -> bool:
        """Whether both files still end where this checkpoint says (for a run that has written nothing since)."""
        try:
            return records_path.stat().st_size == self.records and rows_path.stat().st_size == self.rows
        except OSError:
            return False

    def line(self) -> str:
        return json.dumps({
            "records": self.records, "records_digest": self.records_digest,
            "rows": self.rows, "rows_digest": self.rows_digest, "games": self.games, "faults": self.faults,
            "tournament": self.tournament,
        }, separators=(",", ":")) + "\n"


def read_checkpoints(out: Path) -> list[Checkpoint]:
    """The checkpoints of ``out``, up to the first line that is not one (none when the file is missing)."""
    path = out / CHECKPOINTS_FILE
    found: list[Checkpoint] = []
    tournament = tournament_digest(out)
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                try:
                    value = json.loads(line)
                    point = Checkpoint(int(value["records"]), str(value["records_digest"]), int(value["rows"]),
                                       str(value["rows_digest"]), int(value["games"]), list(value["faults"]),
                                       str(value["tournament"]))
                except (ValueError, KeyError, TypeError):
                    break
                if point.tournament != tournament:
                    break
                if found and (point.records < found[-1].records or point.rows < found[-1].rows):
                    break
                found.append(point)
    except OSError:
        return []
    return found


def tournament_digest(out: Path) -> str:
    """The digest of ``out``'s ``tournament.toml`` (empty when it cannot be read)."""
    try:
        return hashlib.blake2b((out / TOURNAMENT_FILE).read_bytes(), digest_size=16).hexdigest()
    except OSError:
        return ""


def _matching(path: Path, ends: list[tuple[int, str]]) -> int:
    """How many of ``ends`` (``(offset, chained digest)``, offsets rising) the file ``path`` still matches.

    Each block is hashed as it is read, a few megabytes at a time: a block may be the whole file.
    """
    if not ends:
        return 0
    try:
        f = open(path, "rb")
    except OSError:
        return 0
    with f:
        digest: str | None = ""
        at, count = 0, 0
        for end, want in ends:
            digest = _chain_read(f, digest or "", end - at)[1]
            if digest != want:
                break
            at = end
            count += 1
        return count


def _chain_read(f: IO[bytes], previous: str, size: int | None = None) -> tuple[int, str | None]:
    """``(bytes read, digest)``: :func:`chain` of the next ``size`` bytes of ``f`` (None: up to its end) after
    ``previous``, read piece by piece; the digest is None when the file ends before ``size`` bytes."""
    h = hashlib.blake2b(previous.encode("ascii"), digest_size=16)
    read = 0
    while size is None or read < size:
        part = f.read(8 * _BLOCK if size is None else min(size - read, 8 * _BLOCK))
        if not part:
            break
        h.update(part)
        read += len(part)
    return read, (h.hexdigest() if size is None or read == size else None)


def trusted_prefix(out: Path, records_path: Path, rows_path: Path) -> tuple[int, list[Checkpoint]]:
    """``(k, checkpoints)``: the first ``k`` checkpoints are matched by both files, byte for byte."""
    points = read_checkpoints(out)
    if not points:
        return 0, points
    records = _matching(records_path, [(p.records, p.records_digest) for p in points])
    rows = _matching(rows_path, [(p.rows, p.rows_digest) for p in points[:records]])
    return rows, points


class CheckpointWriter:
    """Appends a checkpoint after each chunk the runner stores; the chain goes on from ``last``."""

    def __init__(self, out: Path, last: Checkpoint) -> None:
        self.path = out / CHECKPOINTS_FILE
        self.last = last
        self.file = open(self.path, "a", encoding="utf-8")

    def stored(self, record_bytes: bytes, row_bytes: bytes, games: int, faults: list[dict[str, Any]]) -> None:
        last = self.last
        self.last = Checkpoint(
            last.records + len(record_bytes), chain(last.records_digest, record_bytes),
            last.rows + len(row_bytes), chain(last.rows_digest, row_bytes), last.games + games, faults,
            last.tournament,
        )
        self.file.write(self.last.line())
        self.file.flush()

    def close(self) -> None:
        self.file.close()

    def __enter__(self) -> CheckpointWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _chain_file(path: Path, start: int, previous: str) -> tuple[int, str]:
    """``(size, digest)``: the bytes of ``path`` from ``start`` on as one block after ``previous`` (:func:`chain`)."""
    if not path.exists():
        return start, chain(previous, b"")
    with open(path, "rb") as f:
        f.seek(start)
        read, digest = _chain_read(f, previous)
    return start + read, digest or ""


def after(base: Checkpoint | None, records_path: Path, rows_path: Path, games: int,
          faults: list[dict[str, Any]]) -> Checkpoint:
    """The checkpoint of both files as they are now, chained on ``base`` (None: each file whole, as one block);
    ``games`` and ``faults`` are those of the part after ``base``."""
    records, records_digest = _chain_file(records_path, base.records if base else 0, base.records_digest if base else "")
    rows, rows_digest = _chain_file(rows_path, base.rows if base else 0, base.rows_digest if base else "")
    return Checkpoint(records, records_digest, rows, rows_digest, (base.games if base else 0) + games, faults,
                      tournament_digest(rows_path.parent))


def write_checkpoints(out: Path, points: list[Checkpoint]) -> None:
    """Make ``checkpoints.jsonl`` hold ``points`` (through a temporary file beside it)."""
    from arena.results.files import write_atomically

    def write(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8") as f:
            f.writelines(point.line() for point in points)

    write_atomically(out / CHECKPOINTS_FILE, write)


def faults_of(points: list[Checkpoint]) -> Iterator[dict[str, Any]]:
    for point in points:
        yield from point.faults


def rows_digest_matches(out: Path, rows_path: Path) -> bool:
    """Whether ``games.csv`` is, byte for byte, the file the last checkpoint describes (a finished run's own)."""
    points = read_checkpoints(out)
    if not points:
        return False
    last = points[-1]
    try:
        if rows_path.stat().st_size != last.rows:
            return False
    except OSError:
        return False
    return _matching(rows_path, [(p.rows, p.rows_digest) for p in points]) == len(points)
