"""One game as the referee sets it up before its first move (:class:`GameSetup`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from arena.timecontrol import DEFAULT_CONTROL, TimeControl

if TYPE_CHECKING:
    from arena.play.prepared import PreparedBot


@dataclass(frozen=True)
class GameSetup:
    """What the referee settled before a game's first move, read by the game, its seats and its outcome.

    ``players`` play the seats in order, named ``names`` in the record; ``seed`` made the deal; ``label``
    names the game in the logs; ``time`` is every bot seat's per-move limit, game clock and bank;
    ``deal_key`` is the tournament's secret key (None: public deals); ``extra`` are the keys the record holds after the referee's own.
    """

    players: Sequence[PreparedBot]
    names: Sequence[str]
    seed: int
    label: str
    time: TimeControl = DEFAULT_CONTROL
    deal_key: str | None = None
    extra: Mapping[str, Any] | None = None
