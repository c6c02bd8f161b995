"""How many games a chunk handed to a worker holds: one rule for the local workers and for Dask.

A run's first games go one by one, to time them; then every chunk holds about
the rule's ``seconds`` of play for the mean time a game took, and never so
many games that some worker would run out of chunks long before the end
(:class:`ChunkSizes`).  The local workers and Dask differ only in the numbers
(:data:`LOCAL_CHUNKS`, :data:`DASK_CHUNKS`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

from arena.tournament.plan.schedule import Game


@dataclass(frozen=True)
class ChunkRule:
    """Games per chunk: about ``seconds`` of play, at most ``most`` games, and at least ``per_worker``
    chunks per worker (so that all of them stay busy until near the end)."""

    seconds: float
    most: int
    per_worker: int

    def size(self, games: int, workers: int, seconds_per_game: float) -> int:
        """Games per chunk for ``games`` left to hand out to ``workers`` at ``seconds_per_game`` each."""
        by_time = int(self.seconds / seconds_per_game) if seconds_per_game > 0 else self.most
        return max(1, min(self.most, by_time, games // (workers * self.per_worker)))


#: A local worker's chunk: big enough to save inter-process traffic on fast games, small enough to
#: keep the progress bar moving on slow ones.
LOCAL_CHUNKS = ChunkRule(seconds=0.25, most=64, per_worker=8)
#: A Dask task: Dask's guidance is tasks of at least ~100 ms, and a task costs the parent and the
#: scheduler about a millisecond or two (see benchmarks/cluster.py).
DASK_CHUNKS = ChunkRule(seconds=0.5, most=256, per_worker=4)


class ChunkSizes:
    """The chunks of one run: the first ``probe`` games one by one (timed by :meth:`timed`), then chunks
    of ``rule``'s size for ``workers`` workers and the mean time of those games, at most ``most`` games."""

    def __init__(self, rule: ChunkRule, workers: int, probe: int, remaining: int, most: int) -> None:
        self.rule = rule
        self.workers = workers
        self.probe = probe
        self.remaining = remaining
        self.most = most
        self.size = 1
        self.given = 0
        self._seconds: list[float] = []

    def take(self, games: Iterator[Game]) -> list[Game]:
        """The next chunk of ``games`` (empty when it is dry for now)."""
        chunk = list(itertools.islice(games, 1 if self.given < self.probe else self.size))
        self.given += len(chunk)
        return chunk

    def timed(self, seconds: float, games: int) -> None:
        """A chunk of ``games`` (not played in isolation) took ``seconds``: the first ``probe`` set the size."""
        if len(self._seconds) < self.probe:
            self._seconds.append(seconds / games)
            if len(self._seconds) == self.probe:
                mean = sum(self._seconds) / len(self._seconds)
                self.size = min(self.most, self.rule.size(self.remaining - self.given, self.workers, mean))
