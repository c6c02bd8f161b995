"""The ``random`` bot."""

from __future__ import annotations

from arena.api import Bot, Move, SeatView


class RandomBot(Bot):
    """Plays a legal move chosen uniformly at random."""

    def choose(self, view: SeatView) -> Move:
        return view.legal.choice(self.rng)
