"""The standings while a tournament plays: counted as games are stored, rated now and then.

:class:`LiveStandings` is fed the ``games.csv`` rows of the games just stored (by the run that plays
them, or read from the folder by ``arena report DIR --watch``).  Games, wins and faults are counted
as the rows come, at no cost worth measuring; the rating and its interval are those of the tables
(:func:`arena.report.tables.ratings`, the same fit), refitted in a process of their own so that the
process storing the games never waits for a fit (a thread would not do: the fit would hold the
interpreter's lock that the storing thread needs at every chunk, and slowed a run by a third).  A fit starts at most every :data:`RATE_EVERY`
seconds, and never sooner after the last than :data:`DUTY` times the CPU time that one took (the first after
:data:`FIRST_FIT` seconds): a fit of
many games, which costs more, is made less often, and the fits take at most about 1/``DUTY`` of one CPU.
"""

from __future__ import annotations

import collections
import multiprocessing
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import TextIO

from arena.display.terminal import Column, fit_table
from arena.plan.config import TournamentConfig
from arena.results.games_table import GameRow, header_text, parse_rows

#: Seconds between two fits of the rating, at least.
RATE_EVERY = 5.0
#: Seconds before the first fit: a short run is not worth the fitting process's start (about a second of CPU).
FIRST_FIT = 15.0
#: A fit starts no sooner after the last than this many times the CPU time it took.
DUTY = 50.0


def fit_rows(data: bytes, players: int, scoring: str, names: Sequence[str]) -> tuple[dict[str, tuple[float, float, float]], float]:
    """The rating of every entrant (rating, low, high) from ``games.csv`` text, and the CPU seconds it took:
    :func:`arena.report.tables.ratings`, the tables' own fit."""
    from arena.report.tables import games_frame, ratings

    started = time.process_time()
    try:
        table = ratings(games_frame(data, players=players), scoring, list(names))
    except ValueError:
        return {}, time.process_time() - started
    found = {str(name): (float(row.rating), float(row.rating_low), float(row.rating_high))
             for name, row in table.iterrows()}
    return found, time.process_time() - started


class LiveStandings:
    """Standings of ``config``'s games so far; see the module docstring."""

    def __init__(self, config: TournamentConfig, clock: Callable[[], float] = time.monotonic) -> None:
        self.names = config.names
        self.players = config.players
        self.scoring = config.scoring
        self.clock = clock
        self.games: collections.Counter[str] = collections.Counter()
        self.wins: collections.Counter[str] = collections.Counter()
        self.faults: collections.Counter[str] = collections.Counter()
        #: Games complete, and their rows' text (header first), which the fits read.
        self.stored = 0
        self._text: list[str] = [header_text()]
        self._pending: dict[str, list[tuple[GameRow, str]]] = {}
        #: The last fit: entrant -> (rating, low, high), and how many games it saw.
        self.rating: dict[str, tuple[float, float, float]] = {}
        self.rated = 0
        self._pool: ProcessPoolExecutor | None = None
        self._future: tuple[int, Future[tuple[dict[str, tuple[float, float, float]], float]]] | None = None
        self._next_fit = clock() + FIRST_FIT

    # -- counting -------------------------------------------------------------------------

    def add(self, rows: str) -> None:
        """Count the games whose rows (``games.csv`` text, no header) are in ``rows``; a game counts once
        all its seats' rows have come, whatever call brings them."""
        lines = rows.splitlines(keepends=True)
        for line, row in zip(lines, parse_rows(lines), strict=True):
            if row is None or not line.endswith("\n"):
                continue
            seats = self._pending.setdefault(row.game_id, [])
            seats.append((row, line))
            if len(seats) == self.players:
                del self._pending[row.game_id]
                self._count(seats)

    def _count(self, seats: Sequence[tuple[GameRow, str]]) -> None:
        for row, line in seats:
            self.games[row.entrant] += 1
            self.wins[row.entrant] += row.won == 1
            self.faults[row.entrant] += row.faulted == 1
            self._text.append(line)
        self.stored += 1

    # -- rating -----------------------------------------------------------------------------

    def rate(self, wait: bool = False) -> None:
        """Start a fit of the games so far when one is due and none is running (``wait``: fit now, here)."""
        self._collect()
        if wait:
            if self.stored:
                self._take(self.stored, *fit_rows(self._data(), self.players, self.scoring, self.names))
            return
        now = self.clock()
        if self.stored == self.rated or now < self._next_fit or self._future is not None:
            return
        if self._pool is None:
            # A process of its own: a fit in a thread would hold the GIL the storing thread needs at every chunk.
            self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
        self._next_fit = now + RATE_EVERY  # until the fit says what it cost
        self._future = (self.stored, self._pool.submit(fit_rows, self._data(), self.players, self.scoring, self.names))

    def _data(self) -> bytes:
        return "".join(self._text).encode("utf-8")

    def _collect(self) -> None:
        if self._future is None or not self._future[1].done():
            return
        count, future = self._future
        self._future = None
        try:
            found, cost = future.result()
        except Exception:  # a fit that failed (its process gone) leaves the last figures; the next may succeed
            return
        self._take(count, found, cost)

    def _take(self, count: int, found: dict[str, tuple[float, float, float]], cost: float) -> None:
        if count >= self.rated:
            self.rating, self.rated = found, count
        self._next_fit = self.clock() + max(RATE_EVERY, DUTY * cost)

    def close(self) -> None:
        """Stop the fitting process (a fit under way is dropped)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
            self._future = None

    # -- showing ----------------------------------------------------------------------------

    def lines(self, width: int | None = None, total: int | None = None) -> list[str]:
        """The standings as text lines: a title, then a table ordered by rating, then by win share."""
        from arena.report.text import _elo, _percent  # pandas: once there is something to show

        self._collect()
        rating, rated = self.rating, self.rated

        def share(name: str) -> float:
            return self.wins[name] / self.games[name] if self.games[name] else -1.0

        def key(name: str) -> tuple[float, float, str]:
            value = rating.get(name, (float("nan"),) * 3)[0]
            return (-(value if value == value else -1e9), -share(name), name)

        order = sorted(self.names, key=key)
        got = [rating.get(name) for name in order]
        columns = [
            Column("#", [str(i + 1) for i in range(len(order))]),
            Column("entrant", list(order), left=True, shrink=True),
            Column("rating", [_elo(r[0]) if r else "-" for r in got]),
            Column("95% CI", [f"[{_elo(r[1])}, {_elo(r[2])}]" if r and r[1] == r[1] else "-" for r in got],
                   left=True, drop=1),
            Column(f"wins ({self.scoring})", [_percent(share(n)) if self.games[n] else "-" for n in order],
                   short="wins"),
            Column("games", [str(self.games[n]) for n in order]),
            Column("faults", [str(self.faults[n]) for n in order], drop=0),
        ]
        of = f" of {total}" if total is not None else ""
        title = f"standings after {self.stored}{of} games"
        if rated < self.stored:  # the ratings lag the counts: say of which games they are, or when they come
            title += f" (ratings: first {rated})" if rated else f" (ratings from {FIRST_FIT:g} s on)"
        return [title, *fit_table(columns, width).lines]


class GamesFollower:
    """The rows a ``games.csv`` gains, read as they come: each :meth:`read` gives the complete lines
    written since the last (the header left out).  A file replaced or cut (a resume that made it whole,
    the sorting at the end of a run, an update) is read again from its start, and :meth:`read` says so."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self.inode: int | None = None

    def read(self) -> tuple[str, bool]:
        """``(new rows, started again)``; ``("", False)`` while the file does not exist or holds nothing new."""
        try:
            with open(self.path, "rb") as f:
                stat = os.fstat(f.fileno())
                again = self.inode is not None and (stat.st_ino != self.inode or stat.st_size < self.offset)
                if again or self.inode is None:
                    self.offset, self.inode = 0, stat.st_ino
                f.seek(self.offset)
                data = f.read()
        except OSError:
            return "", False
        data = data[: data.rfind(b"\n") + 1]
        start = 0
        if self.offset == 0 and data:
            start = data.find(b"\n") + 1  # the header
        self.offset += len(data)
        return data[start:].decode("utf-8", errors="replace"), again


def watch(out: Path, config: TournamentConfig, total: int, stream: TextIO, live: bool, every: float,
          running: Callable[[], bool | None], sleep: Callable[[float], None] = time.sleep) -> int:
    """Follow the results folder ``out`` of ``config`` until its ``total`` games are stored, or no run holds
    it any more; returns the games stored.

    On a terminal (``live``) the standings are drawn in place every ``every`` seconds; else they are
    printed as plain text (no control sequence) each time more games are stored, at most every
    ``every`` seconds, and once more at the end.
    """
    from arena.display.live import LiveBlock
    from arena.display.terminal import output_width
    from arena.results.files import GAMES_FILE

    follower = GamesFollower(out / GAMES_FILE)
    standings = LiveStandings(config)
    block = LiveBlock(stream) if live else None
    printed = -1
    while True:
        rows, again = follower.read()
        if again:
            standings.close()
            standings = LiveStandings(config)
        standings.add(rows)
        holder = running()
        done = standings.stored >= total or (holder is False and not rows)
        if done:
            standings.close()
            standings.rate(wait=True)
        else:
            standings.rate()
        if block is not None:
            state = "complete" if standings.stored >= total else (
                "no run is writing it" if holder is False else "following it (Ctrl-C to stop)")
            block.draw([*standings.lines(block.size()[0] - 1, total), f"{out}: {state}"])
        elif standings.stored != printed or done:
            printed = standings.stored
            stream.write("\n".join(standings.lines(output_width(stream), total)) + "\n\n")
            stream.flush()
        if done:
            return standings.stored
        sleep(every)
