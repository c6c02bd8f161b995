"""Game clocks: a time control (``60+0.5``, ``40/120+0``, an overage bank) and the clock each seat keeps.

A :class:`TimeControl` is what a tournament file, ``arena play``, ``arena run`` and ``arena match``
give: a base time for the game plus an increment per move (``clock = "60+0.5"``), optionally
renewed every so many moves (``"24/60+0"``: 60 s for each 24 moves), and an overage bank in
Kaggle's style (``overage = 10``: seconds a bot may spend past its per-move limit over the whole
game).  Every seat of a game gets a :class:`SeatClock` of its own from the control, which the
referee charges with the wall time of each of its turns (:mod:`arena.play.game`): the rules core
never reads a clock; a bot is only told the numbers (:class:`~arena.rules.view.TurnClock`).

A turn may take at most :meth:`SeatClock.allowed`: the per-move limit plus what is left of the
bank, and never more than is left on the clock.  A bot that takes longer loses on time: its
fault (kind ``timeout``) names the clock or the limit it ran past.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from arena.faults import Fault, FaultKind
from arena.play.ranges import MAX_TIME_LIMIT, LimitError, shown
from arena.rules.view import TurnClock

#: The longest base time, and the largest bank: a day.
MAX_CLOCK = 86400.0
#: The most moves a period may have: more than any seat plays in a game.
MAX_PERIOD_MOVES = 1000

_CONTROL = re.compile(r"\s*(?:(?P<moves>\d+)\s*/\s*)?(?P<base>[0-9.eE+-]+?)\s*(?:\+\s*(?P<increment>[0-9.eE+-]+))?\s*")


def _seconds(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _number(value: float) -> str:
    """A number of seconds as the control's text writes it: ``60``, ``0.5``."""
    return f"{value:g}" if float(f"{value:g}") == value else repr(value)


@dataclass(frozen=True)
class TimeControl:
    """A game's time control, the same for every seat: ``base`` seconds (None: no game clock) plus
    ``increment`` seconds after each move, the base added again every ``moves`` moves (None: once for
    the game), and an ``overage`` bank of seconds past the per-move limit (0: none)."""

    base: float | None = None
    increment: float = 0.0
    moves: int | None = None
    overage: float = 0.0

    @property
    def clock_text(self) -> str | None:
        """The clock as written (``24/60+0.5``), or None when there is no game clock."""
        if self.base is None:
            return None
        period = f"{self.moves}/" if self.moves else ""
        return f"{period}{_number(self.base)}+{_number(self.increment)}"

    def __str__(self) -> str:
        parts = [] if self.base is None else [f"clock {self.clock_text}"]
        if self.overage:
            parts.append(f"overage {_number(self.overage)} s")
        return ", ".join(parts) or "no clock"

    def __bool__(self) -> bool:
        return self.base is not None or self.overage > 0

    def record(self) -> dict[str, Any]:
        """The control as a record's ``clock`` key writes it."""
        return {"control": self.clock_text, "overage": self.overage or None}

    def seat_clock(self) -> SeatClock:
        """A fresh clock for one seat of a game."""
        return SeatClock(self)


def parse_clock(value: Any) -> tuple[float, float, int | None]:
    """``"[MOVES/]BASE[+INCREMENT]"`` as (base, increment, moves); :class:`~arena.play.ranges.LimitError`
    (one line, without the key's name) for anything else."""
    if not isinstance(value, str):
        raise LimitError(f'must be a text such as "60+0.5" (base+increment seconds), not {shown(value)}')
    found = _CONTROL.fullmatch(value)
    base = _seconds(found["base"]) if found else None
    increment = 0.0 if found and found["increment"] is None else _seconds(found["increment"]) if found else None
    if found is None or base is None or increment is None:
        raise LimitError(f'{shown(value)} is not a clock: write BASE+INCREMENT in seconds ("60+0.5"), '
                         f'optionally MOVES/ first ("24/60+0")')
    if not 0 < base <= MAX_CLOCK:
        raise LimitError(f"the base time must be above 0 and at most {MAX_CLOCK:g} seconds, not {base:g}")
    if not 0 <= increment <= MAX_TIME_LIMIT:
        raise LimitError(f"the increment must be from 0 to {MAX_TIME_LIMIT:g} seconds, not {increment:g}")
    moves = None if found["moves"] is None else int(found["moves"])
    if moves is not None and not 1 <= moves <= MAX_PERIOD_MOVES:
        raise LimitError(f"the moves per period must be from 1 to {MAX_PERIOD_MOVES}, not {moves}")
    return base, increment, moves


def parse_overage(value: Any) -> float:
    """An overage bank: a number of seconds above 0 and at most :data:`MAX_CLOCK` (LimitError otherwise)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = float(value) if abs(value) < 1e300 else math.inf
        if math.isfinite(seconds) and 0 < seconds <= MAX_CLOCK:
            return seconds
    raise LimitError(f"must be a number of seconds above 0 and at most {MAX_CLOCK:g}, not {shown(value)}")


def time_control(clock: Any = None, overage: Any = None) -> TimeControl:
    """The control of a ``clock`` text and an ``overage`` (either None: not given); LimitError names
    neither key: the caller does."""
    base, increment, moves = (None, 0.0, None) if clock is None else parse_clock(clock)
    return TimeControl(base, increment, moves, 0.0 if overage is None else parse_overage(overage))


NO_CLOCK = TimeControl()


class SeatClock:
    """The clock of one seat in one game: the time left on it, the bank left, the moves made.

    ``allowed(limit)`` is how long the seat's next turn may take, ``charge(seconds, limit)`` takes a
    turn's time off (and adds the increment); both leave the per-move ``limit`` of the turn to the
    caller (a game's first turn under process isolation has more).
    """

    __slots__ = ("bank", "control", "moves", "remaining")

    def __init__(self, control: TimeControl) -> None:
        self.control = control
        #: Seconds left on the game clock (infinite: no game clock).
        self.remaining = math.inf if control.base is None else control.base
        #: Seconds left in the overage bank.
        self.bank = control.overage
        #: Turns the seat has answered.
        self.moves = 0

    def allowed(self, limit: float) -> float:
        """How long the next turn may take: the limit plus the bank, at most what the clock has left."""
        return min(limit + self.bank, self.remaining)

    def moves_to_go(self) -> int | None:
        """Turns left in the period before the base is added again (None: no periods)."""
        period = self.control.moves
        return None if period is None else period - self.moves % period

    def view(self, limit: float) -> TurnClock:
        """What the seat's bot is told at a turn whose per-move limit is ``limit``."""
        control = self.control
        return TurnClock(
            self.allowed(limit),
            None if control.base is None else self.remaining,
            control.increment,
            self.bank if control.overage else None,
            self.moves_to_go(),
        )

    def spend(self, seconds: float) -> None:
        """Take ``seconds`` off the clock, with no increment (the time a bot took to be made)."""
        self.remaining -= seconds

    def charge(self, seconds: float, limit: float) -> Fault | None:
        """Charge one answered turn of ``seconds`` whose per-move limit was ``limit``: the ``timeout``
        fault of a turn past the clock or past the limit and the bank, else None (increment added)."""
        over = seconds - limit
        control = self.control
        if seconds > self.remaining:
            left = max(self.remaining, 0.0)
            self.remaining = 0.0
            self.bank = max(self.bank - max(over, 0.0), 0.0)
            return Fault(FaultKind.TIMEOUT, f"lost on time: {seconds:.3f} s with {left:.3f} s left on its clock "
                                            f"({control.clock_text})")
        self.remaining -= seconds
        if over > self.bank:
            self.bank = 0.0
            bank = f" and its overage bank ({control.overage:g} s in all) spent" if control.overage else ""
            return Fault(FaultKind.TIMEOUT, f"no move within the time limit of {limit:g} s{bank}")
        if over > 0:
            self.bank -= over
        self.moves += 1
        self.remaining += control.increment
        if control.moves is not None and self.moves % control.moves == 0 and control.base is not None:
            self.remaining += control.base
        return None
