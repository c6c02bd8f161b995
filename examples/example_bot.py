"""An example bot: play next to your own tiles, so they join up into few groups.

    arena play examples/example_bot.py:ExampleBot random random random
    arena play examples/example_bot.py:ExampleBot:captures=false greedy
"""

from typing import ClassVar

from arena.bots import Bot, Move, Option, SeatView, neighbours


class ExampleBot(Bot):
    """Plays a tile touching its own color when it can, otherwise any legal move."""

    options: ClassVar[dict[str, Option]] = {
        "captures": Option(True, doc="may it play onto an opponent's tile?"),
    }

    def choose(self, view: SeatView) -> Move:
        empty = view.empty
        moves = [m for m in view.legal if self.config["captures"] or m.cell in empty]
        touching = [m for m in moves if neighbours(m.cell) & view.cells_of(m.color)]
        return self.rng.choice(touching or moves or list(view.legal))
