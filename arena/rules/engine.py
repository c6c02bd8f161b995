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
from arena.rules.base import BaseGameState, GameSettings
from arena.rules.geometry import CELL_NAMES
from arena.rules.moves import PASS, Move
from arena.rules.tiles import COLORS, TILE_NAMES

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
    _native.set_names(COLORS, TILE_NAMES, CELL_NAMES)

    class GameState(_native.State, BaseGameState):
        """The game state of the native engine (see :class:`arena.rules.state.GameState` for the API)."""

        __slots__ = ()

        def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
            # Pickling and deepcopy: the deal and the parts _set takes, with the tiles played as they are (a
            # state restored from a history that does not tell all keeps its played_tiles).
            colors = self.settings.colors
            parts = (list(self.drawn), list(self.racks), list(self.boards), self.captures, self.to_move, self.passes,
                     list(self.history), self.over, self.played_tiles)
            return _rebuild, (self.settings, {c: self.deals[c] for c in colors}, parts)

        def __repr__(self) -> str:
            return f"<GameState (native) of {self.settings.players} players, move {len(self.history)}>"

    def _rebuild(settings: GameSettings, deals: Mapping[int, Sequence[int]], parts: tuple[Any, ...]) -> GameState:
        """A native state unpickled: set up as :meth:`GameState.restore` sets one up, every part checked."""
        state = GameState(settings, deals)
        state._set(*parts)
        return state

else:
    GameState = _pure.GameState

#: The native engine's MoveSet type (what its ``legal_moves`` returns); None with the pure engine.
NativeMoveSet: Any = _native.MoveSet if ENGINE == "native" else None
#: The mcts bot's tree search in C (bots/mcts.py: PySearch is the same in Python); None with the pure engine.
NativeSearch: Any = _native.Search if ENGINE == "native" else None
#: The bot protocol's turn lines of a native state, built in C (arena/wire/protocol.py: PyTurnWriter
#: writes the same bytes in Python); None with the pure engine.
NativeTurnLine: Any = _native.TurnLine if ENGINE == "native" else None


def _moveset(options: tuple[tuple[int, int, int], ...], open_mask: int | None) -> Any:
    """A native MoveSet rebuilt from its options (how one is unpickled)."""
    return _native.MoveSet(options, open_mask)


def engine_line() -> str:
    """One line for ``arena --version`` and ``arena info``: the engine in use and why."""
    if ENGINE == "native":
        return f"rules engine: native (C extension {_native.__file__})"
    return f"rules engine: pure Python ({WHY})"
