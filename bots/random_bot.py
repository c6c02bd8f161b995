"""The ``random`` bot."""

from __future__ import annotations

from arena.bots import Bot
from arena.rules import Move
from arena.rules.view import SeatView


class RandomBot(Bot):
    """Plays a legal move chosen uniformly at random."""

    def choose(self, view: SeatView) -> Move:
        return view.legal.choice(self.rng)
