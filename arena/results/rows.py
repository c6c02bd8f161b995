"""The rows of ``games.csv``: one per seat per game, made in the worker that played the game.

What the columns are, in every version, and how rows are read is :mod:`.games_table`; this module writes
them, in the order of its :data:`~.games_table.COLUMNS`.  Kept apart from the tables so that a worker
process never imports pandas.
"""

from __future__ import annotations

import csv
import functools
import io
import re
from collections.abc import Collection, Iterable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from arena.results.games_table import COLUMNS, SEAT_TIME_COLUMNS, header_text
from arena.rules import COLORS, SeatResult, winners
from arena.rules.state import deciding_rank

if TYPE_CHECKING:
    from arena.plan.schedule import Game

class SeatTime(NamedTuple):
    """One seat's time use in one game, for the last columns of its row (see :data:`SEAT_TIME_COLUMNS`)."""

    seconds: float
    asked: int = 0
    longest: float = 0.0
    lost_on_time: bool = False
    clock_left: float | None = None

    def fields(self) -> str:
        left = "" if self.clock_left is None else f"{self.clock_left:.3f}"
        return f"{self.seconds:.6f},{self.asked},{self.longest:.6f},{int(self.lost_on_time)},{left}"


def tournament_ranks(ranks: Sequence[int], faulted: Sequence[bool]) -> list[int]:
    """The ranks of one game's seats with every faulted seat behind every other."""
    keys = [(bool(f), r) for r, f in zip(ranks, faulted)]
    return [1 + sum(other < key for other in keys) for key in keys]


def game_rows_text(
    game: Game, entrants: Sequence[str], bots: Sequence[str], result: Sequence[SeatResult], turns: Sequence[int],
    faulted: Collection[int], times: Sequence[SeatTime], scoring: str,
) -> str:
    """The ``games.csv`` rows of one finished ``game`` of the schedule (its id, table, deal, rotation and seed)
    as CSV text, one per seat in :data:`COLUMNS` order, quoted as :func:`rows_text` quotes them.  ``won`` is
    rank 1 under ``scoring`` (C3), with every faulted seat ranked behind the others; ``times`` give each
    seat's time-use columns."""
    if faulted:
        flags = [int(seat in faulted) for seat in range(len(result))]
        ranks = tournament_ranks([deciding_rank(row, scoring) for row in result], [bool(f) for f in flags])
        won = [int(rank == 1) for rank in ranks]
    else:  # without faults the tournament's winners are the game's own (C3)
        flags = [0] * len(result)
        won = [0] * len(result)
        for seat in winners(result, scoring):
            won[seat] = 1
    head = f"{_field(game.game_id)},{game.table},{game.deal},{game.rotation},{game.seed},"
    lines = []
    for seat, row in enumerate(result):
        caps = row.captures
        lines.append(
            f"{head}{seat},{_field(entrants[seat])},{_field(bots[seat])},{row.groups},"
            f"{caps.get(_C0, 0)},{caps.get(_C1, 0)},{caps.get(_C2, 0)},{caps.get(_C3, 0)},{caps.get(_C4, 0)},"
            f"{row.captured_total},{row.blockers_penalty},{row.blockers_score},{row.uptown_rank},{row.blockers_rank},"
            f"{won[seat]},{flags[seat]},{turns[seat]},{times[seat].fields()}\n"
        )
    return "".join(lines)


# The capture columns, one per color, written out in the row above.
_C0, _C1, _C2, _C3, _C4 = COLORS


_PLAIN = re.compile(r"[A-Za-z0-9_.+@#:=/ -]*")


@functools.lru_cache(maxsize=1024)
def _field(text: str) -> str:
    """``text`` as one field of a CSV row, quoted as the csv module quotes it."""
    if _PLAIN.fullmatch(text):
        return text
    return rows_text([["", text]])[1:-1]


def rows_text(rows: Iterable[Sequence[Any]]) -> str:
    """CSV text of ``rows`` (with the newline after the last row)."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue()


# The writer above puts the time-use fields last, in this order.
assert COLUMNS[-len(SEAT_TIME_COLUMNS):] == SEAT_TIME_COLUMNS
__all__ = ["COLUMNS", "SeatTime", "game_rows_text", "header_text", "rows_text", "tournament_ranks"]
