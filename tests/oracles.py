"""Slow, plain reference versions of the arena's fast paths, for the tests to check them against."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from arena.results.rows import tournament_ranks
from arena.rules import COLORS


def game_rows(
    game_id: str, table: int, deal: int, rotation: int, seed: int,
    entrants: Sequence[str], bots: Sequence[str], record: dict[str, Any],
    faulted: Iterable[int], times: Sequence[Any], scoring: str,
) -> list[list[Any]]:
    """The ``games.csv`` rows of one finished game, in ``COLUMNS`` order, read from its record (the
    time-use columns from ``times``, a :class:`~arena.results.rows.SeatTime` per seat): what
    :func:`arena.results.rows.game_rows_text` writes as text."""
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
            int(deciding[seat] == 1), int(flags[seat]), turns[seat], f"{float(times[seat].seconds):.6f}",
            times[seat].asked, f"{times[seat].longest:.6f}", int(times[seat].lost_on_time),
            "" if times[seat].clock_left is None else f"{times[seat].clock_left:.3f}",
        ])
    return rows
