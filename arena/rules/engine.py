"""Which rules engine is in use: the C extension ``arena.rules._native`` when it was built, else the pure one.

Both engines are the same game: the same legal moves in the same order, the
same errors, the same draws from a generator, so a record is the same bytes
whichever played it (tests/unit/test_native.py holds them to that).  The pure
engine (:mod:`arena.rules.state`) is the reference and the fallback: a machine
without a C compiler installs and plays everything, only slower.  Set
``ARENA_PURE=1`` to use it although the extension is there.

:data:`ENGINE` is ``"native"`` or ``"pure"``; :data:`WHY` says why the pure
engine is in use ("" with the native one).  :data:`GameState` is the engine's
game state: with the native engine a C type under the shared
:class:`~arena.rules.base.BaseGameState`, whose contract both engines keep
(checked :meth:`~GameState.push` and trusted ``push_unchecked``, read-only
attributes, positions set up with :meth:`GameState.restore`).
"""

from __future__ import annotations

import importlib.util
import os
import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from arena.rules import state as _pure
from arena.rules.base import BaseGameState, GameSettings, tiles_played
from arena.rules.moves import PASS, Move
from arena.rules.tiles import COLORS

ENGINE = "pure"
WHY = ""
_native: Any = None

if os.environ.get("ARENA_PURE", "") not in ("", "0"):
    WHY = "ARENA_PURE is set"
else:
    try:
        from arena.rules import _native
    except ImportError as exc:
        # A missing extension reads as a circular import from inside the package; say it plainly.
        if importlib.util.find_spec(f"{__package__}._native") is None:
            WHY = "the C extension is not built"
        else:
            WHY = f"the C extension does not load ({exc})"
    else:
        ENGINE = "native"


def _randrange_is_getrandbits() -> bool:
    """Whether ``random.Random().randrange(n)`` draws ``getrandbits(n.bit_length())`` until it is below n.

    Then the native MoveSet.choice draws that way itself (the same numbers, without the Python
    frames); otherwise it calls ``rng.randrange``.  Checked on this interpreter's own random module.
    """
    for n in (1, 2, 3, 5, 7, 100, 1000):
        a, b = random.Random(n), random.Random(n)
        for _ in range(50):
            k = n.bit_length()
            r = b.getrandbits(k)
            while r >= n:
                r = b.getrandbits(k)
            if a.randrange(n) != r:
                return False
    return True


if TYPE_CHECKING:
    from arena.rules.state import GameState as GameState
elif ENGINE == "native":
    _native.bind(Move, PASS, random.Random, _randrange_is_getrandbits())

    class GameState(_native.State, BaseGameState):
        """The game state of the native engine (see :class:`arena.rules.state.GameState` for the API)."""

        __slots__ = ()

        @classmethod
        def restore(
            cls,
            settings: GameSettings,
            deals: Mapping[int, Sequence[int]],
            drawn: Mapping[int, int],
            racks: Mapping[int, Sequence[int]],
            boards: Sequence[int],
            captures: Sequence[Sequence[int]],
            to_move: int,
            passes: int,
            history: Sequence[tuple[Move, int]],
            over: bool = False,
        ) -> GameState:
            """A mid-game state from its parts, as :meth:`arena.rules.state.GameState.restore` makes it."""
            state = cls(settings, deals)
            history = list(history)
            drawn_by_color = [0] * len(COLORS)
            racks_by_color: list[Sequence[int]] = [()] * len(COLORS)
            counts = [0] * len(COLORS)
            for color in settings.colors:
                rack = tuple(racks[color])
                drawn_by_color[color] = drawn[color]
                racks_by_color[color] = rack
                counts[color] = max(drawn[color] - len(rack), 0)  # a wrong count is refused by _set
            played_tiles = tiles_played(settings.colors, state.deals, counts, history)
            state._set(drawn_by_color, racks_by_color, list(boards), captures, to_move, passes, history, bool(over),
                       played_tiles)
            return state

        def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
            # Pickling and deepcopy: the parts restore() takes, and the tiles played as they are (a
            # state restored from a history that does not tell all keeps its played_tiles).
            colors = self.settings.colors
            return _rebuild, (self.settings, {c: self.deals[c] for c in colors}, self.drawn, self.racks, self.boards,
                              self.captures, self.to_move, self.passes, list(self.history), self.over,
                              self.played_tiles)

        def __repr__(self) -> str:
            return f"<GameState (native) of {self.settings.players} players, move {len(self.history)}>"

    def _rebuild(settings: GameSettings, deals: Mapping[int, Sequence[int]], drawn: Sequence[int],
                 racks: Sequence[Sequence[int]], boards: Sequence[int], captures: Sequence[Sequence[int]],
                 to_move: int, passes: int, history: list[tuple[Move, int]], over: bool,
                 played_tiles: Sequence[Sequence[int]]) -> GameState:
        """A native state unpickled: set up as :meth:`GameState.restore` sets one up, every part checked."""
        state = GameState(settings, deals)
        state._set(list(drawn), list(racks), list(boards), captures, to_move, passes, history, over,
                   list(played_tiles))
        return state

else:
    GameState = _pure.GameState

#: The native engine's MoveSet type (what its ``legal_moves`` returns); None with the pure engine.
NativeMoveSet: Any = _native.MoveSet if ENGINE == "native" else None
#: The mcts bot's tree search in C (bots/mcts.py: PySearch is the same in Python); None with the pure engine.
NativeSearch: Any = _native.Search if ENGINE == "native" else None


def _moveset(options: tuple[tuple[int, int, int], ...], open_mask: int | None) -> Any:
    """A native MoveSet rebuilt from its options (how one is unpickled)."""
    return _native.MoveSet(options, open_mask)


def engine_line() -> str:
    """One line for ``arena --version`` and ``arena info``: the engine in use and why."""
    if ENGINE == "native":
        return f"rules engine: native (C extension {_native.__file__})"
    return f"rules engine: pure Python ({WHY})"
