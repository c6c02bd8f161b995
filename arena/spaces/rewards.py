"""The utility of a finished game for learners and search: zero-sum, from the ranks of the game's scoring."""

from __future__ import annotations

from arena.rules.base import BaseGameState, deciding_rank


def utility(state: BaseGameState) -> list[float]:
    """Per seat: (seats it beats - seats that beat it) / (players - 1), by the ranks of the game's scoring
    (C1-C3).  +1 for a sole winner of two, 0 for a tie; from -1 to +1 with more players; the sum is 0."""
    ranks = [deciding_rank(row, state.settings.scoring) for row in state.result()]
    n = len(ranks)
    return [(sum(r > mine for r in ranks) - sum(r < mine for r in ranks)) / (n - 1) for mine in ranks]
