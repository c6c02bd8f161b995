"""The class every Python bot subclasses."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, ClassVar

from arena.api.options import Option, declared_options, defaults

if TYPE_CHECKING:
    from arena.rules import GameSettings, Move, SeatResult, SeatView


class Bot:
    """Base class of every bot.  Subclasses override :meth:`choose`.

    The referee makes a fresh instance for every game, ``MyBot(seat, settings, config, rng)``, calls
    :meth:`choose` each time the seat is to move and :meth:`game_over` once at the end.  The first
    line of the class docstring is the bot's one-line description.
    """

    #: The options this bot accepts, each declared once: ``{"depth": Option(2, min=1, max=5, doc="...")}``.
    options: ClassVar[dict[str, Option]] = {}

    @classmethod
    def check_options(cls, config: dict[str, Any]) -> None:
        """Raise ValueError (its message one line) when the options of ``config`` (every option,
        defaults filled in) do not go together; the default accepts any.  Called before any game starts."""

    def __init__(self, seat: int, settings: GameSettings, config: dict[str, Any], rng: random.Random) -> None:
        #: The seat this bot plays.
        self.seat = seat
        #: The game's settings (players, colors, scoring).
        self.settings = settings
        #: The value of every declared option: the given ones, defaults for the rest.
        self.config: dict[str, Any] = {**defaults(declared_options(type(self))), **config}
        #: The bot's own generator, seeded from the game seed and the seat.
        self.rng = rng

    def choose(self, view: SeatView) -> Move:
        """The move to play: one of ``view.legal``'s moves.

        The referee calls it only when the seat is to move and has a legal move, so ``view.legal``
        is never empty here: a seat without one passes (rule M6) without its bot being asked.
        Returning :data:`~arena.rules.PASS`, or any move not in ``view.legal``, is a fault.
        """
        raise NotImplementedError

    def game_over(self, result: list[SeatResult]) -> None:
        """Called once with the final result; the default does nothing."""
