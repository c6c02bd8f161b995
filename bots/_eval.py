"""Position features shared by the built-in bots: groups, frontiers, merges, the Blockers! penalty.

Everything here works on bitboards (one 81-bit int per color, see
:mod:`arena.rules.geometry`) and reads only what a seat may see.
"""

from __future__ import annotations

from arena.rules.geometry import flood, spread
from arena.rules.view import SeatView

__all__ = ["bridges", "components", "penalty_raisers", "spread"]


def components(board: int) -> list[int]:
    """The groups of ``board``, one bitboard each."""
    groups = []
    while board:
        group = flood(board & -board, board)
        groups.append(group)
        board &= ~group
    return groups


def bridges(groups: list[int], cells: int) -> int:
    """The cells of ``cells`` that touch two or more of ``groups``: where one tile merges groups."""
    seen = 0
    twice = 0
    for g in groups:
        around = spread(g) & cells
        twice |= seen & around
        seen |= around
    return twice


def penalty_raisers(view: SeatView) -> int:
    """The colors (a bit each) whose capture now would raise the seat's Blockers! penalty (C2, C4)."""
    settings = view.settings
    captures = view.captures[view.seat]
    mask = 0
    if settings.penalty == "opponent":
        sums = {s: sum(captures[c] for c in cs) for s, cs in enumerate(settings.seat_colors) if s != view.seat}
        top = max(sums.values(), default=0)
        for s, total in sums.items():
            if total + 1 > top:
                for c in settings.seat_colors[s]:
                    mask |= 1 << c
    else:
        top = max(captures)
        for c in settings.colors:
            if captures[c] + 1 > top:
                mask |= 1 << c
    return mask
