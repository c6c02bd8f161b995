"""The rows of ``games.csv``: one per seat per game, made in the worker that played the game.

Kept apart from the tables so that a worker process never imports pandas.
"""

from __future__ import annotations

import csv
import functools
import io
import re
from collections.abc import Collection, Iterable, Sequence
from typing import Any

from ..rules import COLORS, SeatResult

COLUMNS: tuple[str, ...] = (
    "game_id", "table", "deal", "rotation", "seed", "seat", "entrant", "bot", "groups",
    *(f"captures_{color}" for color in COLORS),
    "captured_total", "blockers_penalty", "blockers_score", "uptown_rank", "blockers_rank",
    "won", "faulted", "moves", "seconds",
)
#: Columns that depend on the machine's speed, not on the games.
TIMING_COLUMNS = ("seconds",)


def tournament_ranks(ranks: Sequence[int], faulted: Sequence[bool]) -> list[int]:
    """The ranks of one game's seats with every faulted seat behind every other."""
    keys = [(bool(f), r) for r, f in zip(ranks, faulted)]
    return [1 + sum(other < key for other in keys) for key in keys]


def game_rows(
    game_id: str, table: int, deal: int, rotation: int, seed: int,
    entrants: Sequence[str], bots: Sequence[str], record: dict[str, Any],
    faulted: Iterable[int], seconds: Sequence[float], scoring: str,
) -> list[list[Any]]:
    """The ``games.csv`` rows of one finished game, in :data:`COLUMNS` order."""
    result = record["result"]
    faulted = set(faulted)
    flags = [seat in faulted for seat in range(len(result))]
    deciding = tournament_ranks([row[f"{scoring}_rank"] for row in result], flags)
    turns = [0] * len(result)
    for move in record["moves"]:
        turns[move["seat"]] += 1
    rows = []
    for seat, row in enumerate(result):
        captures = row["captures"]
        rows.append([
            game_id, table, deal, rotation, seed, seat, entrants[seat], bots[seat], row["groups"],
            *(captures.get(color, 0) for color in COLORS),
            row["captured_total"], row["blockers_penalty"], row["blockers_score"],
            row["uptown_rank"], row["blockers_rank"],
            int(deciding[seat] == 1), int(flags[seat]), turns[seat], f"{float(seconds[seat]):.6f}",
        ])
    return rows


def game_rows_text(
    game_id: str, table: int, deal: int, rotation: int, seed: int,
    entrants: Sequence[str], bots: Sequence[str], result: Sequence[SeatResult], turns: Sequence[int],
    faulted: Collection[int], seconds: Sequence[float], scoring: str,
) -> str:
    """``rows_text(game_rows(...))`` of one finished game, made from its result (one row per seat)."""
    key = "uptown_rank" if scoring == "uptown" else "blockers_rank"
    if faulted:
        flags = [int(seat in faulted) for seat in range(len(result))]
        won = [int(rank == 1) for rank in tournament_ranks([getattr(row, key) for row in result], flags)]
    else:  # without faults the tournament ranks are the game's own
        flags = [0] * len(result)
        won = [int(getattr(row, key) == 1) for row in result]
    head = f"{_field(game_id)},{table},{deal},{rotation},{seed},"
    lines = []
    for seat, row in enumerate(result):
        caps = row.captures
        lines.append(
            f"{head}{seat},{_field(entrants[seat])},{_field(bots[seat])},{row.groups},"
            f"{caps.get(_C0, 0)},{caps.get(_C1, 0)},{caps.get(_C2, 0)},{caps.get(_C3, 0)},{caps.get(_C4, 0)},"
            f"{row.captured_total},{row.blockers_penalty},{row.blockers_score},{row.uptown_rank},{row.blockers_rank},"
            f"{won[seat]},{flags[seat]},{turns[seat]},{seconds[seat]:.6f}\n"
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


def header_text() -> str:
    return rows_text([COLUMNS])
