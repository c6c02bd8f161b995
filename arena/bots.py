"""The Bot API.

A bot is a class.  The referee makes a fresh instance for every game::

    bot = MyBot(seat, settings, options, rng)

and then calls ``bot.choose(view)`` each time its seat is to move, with that
seat's :class:`~arena.rules.view.SeatView` (and nothing else).  The bot
returns one of ``view.legal``'s moves, or :data:`~arena.rules.PASS` when
``view.legal`` is empty.  It may keep state between calls.  When the game is
over the referee calls ``bot.game_over(result)``.

Options are declared in :attr:`Bot.options` as ``{name: default}``; the type
of the default is the type of the option (``int``, ``float``, ``bool``, ``str``).
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from .rules import GameSettings, Move, SeatResult
from .rules.view import SeatView


class Bot:
    """Base class of every bot.  Subclasses override :meth:`choose`.

    The first line of the class docstring is the bot's one-line description.
    """

    #: The options this bot accepts, with their defaults.
    options: ClassVar[dict[str, Any]] = {}

    def __init__(self, seat: int, settings: GameSettings, options: dict[str, Any], rng: random.Random) -> None:
        #: The seat this bot plays.
        self.seat = seat
        #: The game's settings (players, colors, scoring).
        self.settings = settings
        #: Every declared option, defaults filled in.
        self.config: dict[str, Any] = {**self.options, **options}
        #: The bot's own generator, seeded from the game seed and the seat.
        self.rng = rng

    def choose(self, view: SeatView) -> Move:
        """The move to play, one of ``view.legal`` (or PASS when it is empty)."""
        raise NotImplementedError

    def game_over(self, result: list[SeatResult]) -> None:
        """Called once with the final result; the default does nothing."""
