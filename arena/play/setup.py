"""One game as the referee sets it up before its first move (:class:`GameSetup`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from arena.play.clock import NO_CLOCK, TimeControl

if TYPE_CHECKING:
    from arena.play.prepared import PreparedBot


@dataclass(frozen=True)
class GameSetup:
    """What the referee settled before a game's first move, read by the game, its seats and its outcome.

    ``players`` play the seats in order, named ``names`` in the record; ``seed`` made the deal; ``label``
    names the game in the logs; ``time_limit`` is per move (``math.inf``: none) and ``control`` the
    game clock of every bot seat; ``deal_key`` is the tournament's secret key (None: public deals);
    ``extra`` are the keys the record holds after the referee's own.
    """

    players: Sequence[PreparedBot]
    names: Sequence[str]
    seed: int
    label: str
    time_limit: float
    control: TimeControl = NO_CLOCK
    deal_key: str | None = None
    extra: Mapping[str, Any] | None = None
