"""The time a bot may take, as one value: a per-move limit, a game clock (``60+0.5``, ``40/120+0``)
and an overage bank.

A :class:`TimeControl` is what a tournament file (``time_limit``, ``clock``, ``overage``), ``arena
play``, ``arena run`` and ``arena match`` give, and it travels whole from there to the referee: the
plan, the workers' settings, the referee and each game hold this one value.  The per-move
``limit`` is what a call into a bot may take (``math.inf``: none); the game clock is a base time
for the game plus an increment per move, optionally renewed every so many moves (``"24/60+0"``:
60 s for each 24 moves); the overage bank, in Kaggle's style, is seconds a bot may spend past its
per-move limit over the whole game.  Each seat's clock under a control is
:class:`arena.play.clock.SeatClock`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Any

from arena.ranges import DEFAULT_TIME_LIMIT, MAX_TIME_LIMIT, LimitError, shown

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
    """The time every seat of a game gets: ``base`` seconds (None: no game clock) plus ``increment``
    seconds after each move, the base added again every ``moves`` moves (None: once for the game), an
    ``overage`` bank of seconds past the per-move limit (0: none), and the per-move ``limit``
    (``math.inf``: none)."""

    base: float | None = None
    increment: float = 0.0
    moves: int | None = None
    overage: float = 0.0
    limit: float = DEFAULT_TIME_LIMIT

    def __post_init__(self) -> None:
        limit = self.limit
        if not (isinstance(limit, (int, float)) and not isinstance(limit, bool) and limit > 0):
            raise ValueError(f"the time limit must be a positive number of seconds, not {limit!r}")
        object.__setattr__(self, "limit", float(limit))

    @property
    def clocked(self) -> bool:
        """Whether seats keep a clock: a game clock, or an overage bank."""
        return self.base is not None or self.overage > 0

    @property
    def clock_text(self) -> str | None:
        """The clock as written (``24/60+0.5``), or None when there is no game clock."""
        if self.base is None:
            return None
        period = f"{self.moves}/" if self.moves else ""
        return f"{period}{_number(self.base)}+{_number(self.increment)}"

    @property
    def record_limit(self) -> float | None:
        """The per-move limit as a record's ``time_limit`` key writes it (None: no limit)."""
        return self.limit if math.isfinite(self.limit) else None

    def __str__(self) -> str:
        """The clock and the bank, as a run's heading shows them (``clock 60+0.5, overage 10 s``)."""
        parts = [] if self.base is None else [f"clock {self.clock_text}"]
        if self.overage:
            parts.append(f"overage {_number(self.overage)} s")
        return ", ".join(parts) or "no clock"

    def record(self) -> dict[str, Any]:
        """The clock and bank as a record's ``clock`` key writes them."""
        return {"control": self.clock_text, "overage": self.overage or None}

    def file_keys(self) -> dict[str, Any]:
        """The control as a tournament file's keys ``time_limit``, ``clock`` and ``overage`` (None: left out)."""
        return {"time_limit": self.limit, "clock": self.clock_text, "overage": self.overage or None}

    def with_limit(self, limit: float) -> TimeControl:
        """The same clock and bank with another per-move limit."""
        return replace(self, limit=limit)


def as_control(time: TimeControl | float) -> TimeControl:
    """A control as given, or a per-move limit in seconds as the control of that limit alone."""
    return time if isinstance(time, TimeControl) else TimeControl(limit=time)


def parse_clock(value: Any) -> tuple[float, float, int | None]:
    """``"[MOVES/]BASE[+INCREMENT]"`` as (base, increment, moves); :class:`~arena.ranges.LimitError`
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


def time_control(clock: Any = None, overage: Any = None, limit: float = DEFAULT_TIME_LIMIT) -> TimeControl:
    """The control of a ``clock`` text, an ``overage`` (either None: not given) and a per-move
    ``limit``; LimitError names neither key: the caller does."""
    base, increment, moves = (None, 0.0, None) if clock is None else parse_clock(clock)
    return TimeControl(base, increment, moves, 0.0 if overage is None else parse_overage(overage), limit)


#: The default control: the default per-move limit, no game clock and no bank.
DEFAULT_CONTROL = TimeControl()
