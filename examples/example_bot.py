"""An example bot: play next to your own tiles, so they join up into few groups.

    arena play examples/example_bot.py:ExampleBot random random random
    arena play examples/example_bot.py:ExampleBot:captures=false greedy
"""

from arena.bots import Bot
from arena.rules import Move
from arena.rules.geometry import NEIGHBOURS
from arena.rules.view import SeatView


class ExampleBot(Bot):
    """Plays a tile touching its own color when it can, otherwise any legal move."""

    options = {"captures": True}  # may it play onto an opponent's tile?

    def choose(self, view: SeatView) -> Move:
        occupied = 0
        for board in view.boards:
            occupied |= board
        moves = [m for m in view.legal if self.config["captures"] or not occupied >> m.cell & 1]
        touching = [m for m in moves if NEIGHBOURS[m.cell] & view.boards[m.color]]
        return self.rng.choice(touching or moves or list(view.legal))
