"""How many games a chunk handed to a worker holds: one rule for the local workers and for Dask.

A run's first games go one by one, to time them; then every chunk holds about
the rule's ``seconds`` of play for the mean time a game took, and never so
many games that some worker would run out of chunks long before the end
(:class:`ChunkSizes`).  The local workers and Dask differ only in the numbers
(:data:`LOCAL_CHUNKS`, :data:`DASK_CHUNKS`).

With bots in processes of their own (isolation ``process``) a chunk is instead a
**pass**: the consecutive games of one seating (a run lists each window of the
schedule seating by seating, every game of a pass of another deal), at most
:data:`PASS_MOST` games.  A bot process never plays two games of one deal, so
it can play every game of a pass and must be replaced when the next pass
brings the same deals again: a worker that plays whole passes starts as few
processes as one worker does for the whole run, where chunks cut across
passes and dealt out in turn would give each worker half of a pass's deals
twice and make it start twice as many processes (each a second of a core to
start in the sandbox).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

from arena.plan.schedule import Game


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


#: The most games a pass-chunk holds (about ten seconds of sandboxed play).
PASS_MOST = 256


class ChunkSizes:
    """The chunks of one run: the first ``probe`` games one by one (timed by :meth:`timed`), then chunks
    of ``rule``'s size for ``workers`` workers and the mean time of those games, at most ``most`` games.
    With ``passes`` every chunk is a pass instead (the module docstring), no longer than leaves two
    chunks a worker of what is left, so that no worker idles long at the end."""

    def __init__(self, rule: ChunkRule, workers: int, probe: int, remaining: int, most: int,
                 passes: bool = False) -> None:
        self.rule = rule
        self.workers = workers
        self.probe = 0 if passes else probe
        self.remaining = remaining
        self.most = most
        self.passes = passes
        self.size = 1
        self.given = 0
        self._seconds: list[float] = []
        self._held: Game | None = None  # the first game of the next pass, read ahead

    def take(self, games: Iterator[Game]) -> list[Game]:
        """The next chunk of ``games`` (empty when it is dry for now)."""
        if self.passes:
            chunk = self._pass(games)
        else:
            chunk = list(itertools.islice(games, 1 if self.given < self.probe else self.size))
        self.given += len(chunk)
        return chunk

    def _pass(self, games: Iterator[Game]) -> list[Game]:
        most = max(1, min(PASS_MOST, (self.remaining - self.given) // (2 * self.workers)))
        chunk: list[Game] = []
        while len(chunk) < most:
            game = self._held if self._held is not None else next(games, None)
            self._held = None
            if game is None:
                break
            if chunk and game.rotation != chunk[0].rotation:
                self._held = game
                break
            chunk.append(game)
        return chunk

    def timed(self, seconds: float, games: int) -> None:
        """A chunk of ``games`` (not played in isolation) took ``seconds``: the first ``probe`` set the size."""
        if len(self._seconds) < self.probe:
            self._seconds.append(seconds / games)
            if len(self._seconds) == self.probe:
                mean = sum(self._seconds) / len(self._seconds)
                self.size = min(self.most, self.rule.size(self.remaining - self.given, self.workers, mean))
