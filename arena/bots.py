"""The Bot API: everything a bot author imports, in one place, and nothing else.

A bot is a class.  The referee makes a fresh instance for every game::

    bot = MyBot(seat, settings, config, rng)

and then calls ``bot.choose(view)`` each time its seat is to move and has a legal move, with
that seat's :class:`SeatView` (and nothing else); :meth:`Bot.choose` says what it returns.  It
may keep state between calls.  When the game is over the referee calls ``bot.game_over(result)``.

Options are declared once each, in :attr:`Bot.options`::

    options = {"depth": Option(2, min=1, max=5, doc="moves to look ahead")}

The type of the default is the type of the option (``int``, ``float``, ``bool``, ``str``);
``min``, ``max`` and ``choices`` say which values are valid, and :meth:`Bot.check_options` may
check them together; all of it is checked when a spec is read, before any game starts.
``self.config`` holds the value of every option in a game.

The names, by what they are for:

* writing a bot: :class:`Bot`, :class:`Option`;
* what a bot is handed and returns: :class:`SeatView`, :class:`TurnClock`, :class:`MoveSet`,
  :class:`Move`, :data:`PASS`, :class:`GameSettings`, :class:`SeatResult`;
* sets of cells and the board's shapes: :class:`Cells`, :data:`BOARD`, :func:`neighbours`,
  :func:`fits`, :func:`groups`, :func:`row`, :func:`column`, :func:`region`, :func:`row_of`,
  :func:`column_of`, :func:`region_of`;
* numbers and names: :data:`CELL_NAMES`, :data:`COLORS`, :data:`REGIONS`, :data:`TILE_NAMES`,
  :data:`WILD`, :func:`cell_index`, :func:`color_index`, :func:`tile_index`;
* looking ahead: :class:`GameState` (what :meth:`SeatView.sample` gives), :class:`IllegalMove`,
  :class:`SplitMix64` (the generator of :meth:`GameState.playout`).

They are defined in :mod:`arena.api` and :mod:`arena.rules`; how bots are found, loaded and
given options (bot specs, entry points) is the arena's business, in :mod:`arena.plugins`.
"""

from arena.api import *  # noqa: F403  (the author's names, the same as arena.api's)
from arena.api import __all__ as __all__
