"""What a worker sends back for a chunk of games, as bytes: written once here for the local workers and Dask.

A chunk's games come back in parts, as they finish (:data:`PART_SECONDS`), the
last part marked ``last``.  An answer is one JSON line — the chunk's id, then
either an ``error`` (one line, the chunk's last answer) or the sizes of what
follows (``lines``, ``rows``), the ``seconds`` its games took, its ``faults``,
which games of the chunk it holds (``games``, their indices) and the bytes of
each game's record line and rows (``sizes``, uncompressed); and the ``log``
lines the games wrote where the worker cannot append them to ``arena.log``
itself (a Dask worker) — followed by the part's record lines and its
``games.csv`` rows::

    {"chunk": 7, "last": true, "lines": 1834, "rows": 412, "seconds": 0.21, "faults": [],
     "games": [0, 1], "sizes": [[900, 200], [934, 212]], "log": []}\\n
    <record lines><rows>

Never a pickle: a worker may have run bot code (isolation ``none``), and the
parent loads nothing such a process made but checked plain data
(:func:`decode_answer`).
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from arena.errors import ArenaError
from arena.results.files import pack

#: A worker hands a chunk's finished games back at least this often (seconds of play), so that a game is
#: stored about this long after it ends however long its chunk; a game that takes longer comes back alone.
PART_SECONDS = 0.25

#: The keys of a fault as a worker hands it to the parent, and their types.
FAULT_KEYS = {"game_id": str, "seat": int, "entrant": str, "move": int, "kind": str, "message": str}


class WorkerError(ArenaError, RuntimeError):
    """The games cannot be played: the message is one line."""


def fault_entry(game_id: str, entrant: str, fault: dict[str, Any]) -> dict[str, Any]:
    """One fault of a game as the parent counts it: the record's entry with the game and the entrant."""
    return {"game_id": game_id, "seat": fault["seat"], "entrant": entrant, "move": fault["move"],
            "kind": fault["kind"], "message": fault["message"]}


def _is_fault(value: Any) -> bool:
    return (isinstance(value, dict) and set(value) == set(FAULT_KEYS)
            and all(type(value[key]) is kind for key, kind in FAULT_KEYS.items()))


class Played(NamedTuple):
    """A chunk's games as a worker played them, in the chunk's order, as they go into the results files."""

    #: Their record lines (``uptown-game/1``, each with its newline).
    records: bytes
    #: Their ``games.csv`` rows (UTF-8).
    rows: bytes
    #: How long the chunk took (seconds), to size the chunks that follow.
    seconds: float
    #: Their faults (:func:`fault_entry`), for the parent's fault summary.
    faults: list[dict[str, Any]]
    #: Which games of the chunk they are (their indices in it), in the order of the bytes.
    games: tuple[int, ...] = ()
    #: The bytes of each game's record line and rows, uncompressed.
    sizes: tuple[tuple[int, int], ...] = ()

    @classmethod
    def of(cls, done: list[tuple[int, bytes, str, list[dict[str, Any]]]], seconds: float, compress: bool) -> Played:
        """Finished games (each its index in the chunk, record line, rows and faults), in the chunk's order,
        played in ``seconds``; the records gzipped with ``compress``."""
        done = sorted(done, key=lambda game: game[0])
        lines = b"".join(line for _, line, _, _ in done)
        rows = [text.encode("utf-8") for _, _, text, _ in done]
        return cls(pack(lines) if compress else lines, b"".join(rows), seconds,
                   [fault for _, _, _, found in done for fault in found], tuple(index for index, _, _, _ in done),
                   tuple((len(line), len(text)) for (_, line, _, _), text in zip(done, rows, strict=True)))

    def only(self, wanted: Collection[int], compressed: bool) -> Played:
        """The part of these games whose indices are in ``wanted`` (records gzipped: ``compressed``)."""
        keep = [index in wanted for index in self.games]
        if all(keep):
            return self
        records = gzip.decompress(self.records) if compressed else self.records
        ends = [0, 0]
        kept_records, kept_rows = [], []
        for (record_size, rows_size), kept in zip(self.sizes, keep, strict=True):
            if kept:
                kept_records.append(records[ends[0]:ends[0] + record_size])
                kept_rows.append(self.rows[ends[1]:ends[1] + rows_size])
            ends = [ends[0] + record_size, ends[1] + rows_size]
        lines = b"".join(kept_records)
        games = [index for index, kept in zip(self.games, keep, strict=True) if kept]
        ids = {json.loads(line)["game_id"] for line in kept_records}
        return Played(pack(lines) if compressed else lines, b"".join(kept_rows), self.seconds,
                      [f for f in self.faults if f["game_id"] in ids], tuple(games),
                      tuple(size for size, kept in zip(self.sizes, keep, strict=True) if kept))


@dataclass(frozen=True)
class Answer:
    """A worker's answer to chunk ``chunk``: the games it played, or the one-line ``error`` that stopped them."""

    chunk: int
    played: Played | None = None
    error: str | None = None
    #: The chunk's last answer (an error always is).
    last: bool = True
    #: The log lines of the chunk's games, for a parent that writes them (a Dask worker's).
    log: list[str] = field(default_factory=list)


def encode_answer(answer: Answer) -> bytes:
    """``answer`` as bytes: one JSON line, then the record lines and the rows (see the module docstring)."""
    head: dict[str, Any] = {"chunk": answer.chunk, "last": answer.last or answer.played is None}
    played = answer.played
    if played is None:
        head["error"] = answer.error or "the worker gave no reason"
        body = b""
    else:
        head.update(lines=len(played.records), rows=len(played.rows), seconds=played.seconds, faults=played.faults,
                    games=list(played.games), sizes=[list(size) for size in played.sizes])
        body = played.records + played.rows
    head["log"] = answer.log
    return b"".join((json.dumps(head).encode(), b"\n", body))


def decode_answer(data: Any, who: str = "a worker", unit: str = "chunk") -> Answer:
    """The :class:`Answer` :func:`encode_answer` wrote, checked; :class:`WorkerError` (saying ``who`` answered
    what is not an answer to a ``unit``) for anything else."""
    try:
        if not isinstance(data, bytes):
            raise TypeError("not bytes")
        head_text, _, body = data.partition(b"\n")
        head = json.loads(head_text)
        chunk_id, logs, last = head["chunk"], head["log"], head["last"]
        if type(chunk_id) is not int or type(last) is not bool:
            raise ValueError("chunk")
        if not isinstance(logs, list) or not all(isinstance(line, str) for line in logs):
            raise ValueError("log")
        if "error" in head:
            return Answer(chunk_id, error=str(head["error"]), log=logs)  # always the chunk's last
        n_lines, n_rows, seconds, faults = head["lines"], head["rows"], float(head["seconds"]), head["faults"]
        games, sizes = head["games"], head["sizes"]
        if (type(n_lines) is not int or type(n_rows) is not int or n_lines < 0 or n_rows < 0
                or n_lines + n_rows != len(body) or not isinstance(faults, list)
                or not all(_is_fault(f) for f in faults)):
            raise ValueError("sizes")
        if (not isinstance(games, list) or not all(type(g) is int and g >= 0 for g in games)
                or len(set(games)) != len(games) or not isinstance(sizes, list) or len(sizes) != len(games)
                or not all(isinstance(s, list) and len(s) == 2 and all(type(n) is int and n >= 0 for n in s)
                           for s in sizes)
                or sum(s[1] for s in sizes) != n_rows):
            raise ValueError("games")
        body[n_lines:].decode("utf-8")  # rows the parent cannot write as text are no answer
        played = Played(body[:n_lines], body[n_lines:], seconds, list(faults), tuple(games),
                        tuple((s[0], s[1]) for s in sizes))
        return Answer(chunk_id, played, last=last, log=logs)
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise WorkerError(f"{who} answered with data that is not an answer to a {unit}") from None
