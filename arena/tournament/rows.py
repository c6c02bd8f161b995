"""The rows of ``games.csv``: one per seat per game, made in the worker that played the game.

Kept apart from the tables so that a worker process never imports pandas.
"""

from __future__ import annotations

import csv
import functools
import io
import re
from collections.abc import Iterable, Sequence
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
    faulted: Iterable[int], seconds: Sequence[float], scoring: str,
) -> str:
    """``rows_text(game_rows(...))`` of one finished game, made from its result (one row per seat)."""
    n = len(result)
    flags = [seat in faulted for seat in range(n)]
    ranks = [row.uptown_rank for row in result] if scoring == "uptown" else [row.blockers_rank for row in result]
    # Without faults the tournament ranks are the game's own.
    deciding = tournament_ranks(ranks, flags) if any(flags) else ranks
    head = f"{_field(game_id)},{table},{deal},{rotation},{seed},"
    return "".join([
        f"{head}{seat},{_field(entrants[seat])},{_field(bots[seat])},{row.groups},"
        f"{','.join(map(str, map(row.captures.get, COLORS, _ZEROS)))},"
        f"{row.captured_total},{row.blockers_penalty},{row.blockers_score},{row.uptown_rank},{row.blockers_rank},"
        f"{int(deciding[seat] == 1)},{int(flags[seat])},{turns[seat]},{float(seconds[seat]):.6f}\n"
        for seat, row in enumerate(result)
    ])


_ZEROS = (0,) * len(COLORS)


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
