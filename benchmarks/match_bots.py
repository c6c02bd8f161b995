"""Bots of known relative strength for calibrating ``arena match`` on real games (not built-in bots).

``MixedBot`` plays greedy's move with probability ``p`` and a uniformly random
legal move otherwise.  Its choices come from a generator of its own, seeded
from the bot's generator (the game seed and the seat) and its ``salt``: two
copies with the same ``p`` and different salts are equally strong but do not
play the same moves.  Two copies of one deterministic bot with the same salt
would replay each other's game from the other seat, so every pair of a deal
would be one win and one loss: a test of equal bots must give them different
salts.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from arena_bots.greedy import move_costs

from arena.api import Bot, Move, Option, SeatView


class MixedBot(Bot):
    """Greedy's move with probability p, else a random legal move; salt changes its choices, not its strength."""

    options: ClassVar[dict[str, Option]] = {
        "p": Option(0.5, min=0.0, max=1.0, doc="how often it plays greedy's move"),
        "salt": Option(0, min=0, doc="changes its choices, not its strength"),
    }

    def __init__(self, seat: int, settings: Any, config: dict[str, Any], rng: random.Random) -> None:
        super().__init__(seat, settings, config, rng)
        self.own = random.Random(f"{self.config['salt']}:{rng.getrandbits(64)}")

    def choose(self, view: SeatView) -> Move:
        if self.own.random() >= self.config["p"]:
            return view.legal.choice(self.own)
        costs = move_costs(view)
        low = min(cost for cost, _ in costs)
        best = [move for cost, move in costs if cost < low + 1e-9]
        return best[self.own.randrange(len(best))]
