"""The ranges of the settings a user gives the arena, one definition each.

The command line (:mod:`arena.commands`) and the tournament files
(:mod:`arena.plan.config`) both check their values here, so the two
accept the same values and say the same reason for refusing one.  The
maximums keep every value within what the clocks, timers and tables below
can hold: ``setitimer`` and ``poll`` overflow long before ``1e300`` seconds.
"""

from __future__ import annotations

import math
from typing import Any

from arena.errors import ArenaError, shorten

#: How a referee may run bots: each a program in the sandbox, or Python bots in its own process.
ISOLATIONS = ("process", "none")
#: The per-move time limit (seconds) when none is given, on the command line or in a tournament file.
DEFAULT_TIME_LIMIT = 10.0
#: The longest per-move time limit (seconds): an hour.  Timers and polls take it, and a game's
#: bound (every call of every seat at the limit) stays within what they can wait for.
MAX_TIME_LIMIT = 3600.0
#: The most deals per table a tournament may have: the schedule's ids are held in memory.
MAX_DEALS = 100_000
#: The memory limit of a bot process (MiB): at least what an interpreter needs, at most 1 TiB.
MIN_MEMORY_MB = 16
MAX_MEMORY_MB = 1 << 20


class LimitError(ArenaError, ValueError):
    """A number out of its range; the message is the reason, one line, without the name of the setting."""


def shown(value: Any) -> str:
    """A setting's value as an error message shows it (:func:`arena.errors.shorten`): never thousands of characters."""
    return shorten(value, 40)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def time_limit(value: Any) -> float:
    """A per-move time limit in seconds: a finite number above 0 and at most :data:`MAX_TIME_LIMIT`."""
    if _is_number(value):
        try:
            seconds = float(value)
        except OverflowError:  # an int too large for a float
            seconds = math.inf
        if math.isfinite(seconds) and 0 < seconds <= MAX_TIME_LIMIT:
            return seconds
    raise LimitError(f"must be a number of seconds above 0 and at most {MAX_TIME_LIMIT:g}, not {shown(value)}")


def deals(value: Any) -> int:
    """Deals per table: a whole number from 1 to :data:`MAX_DEALS`."""
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_DEALS:
        return value
    raise LimitError(f"must be a whole number of at least 1 and at most {MAX_DEALS}, not {shown(value)}")


def master_seed(value: Any) -> int:
    """A tournament's master seed: a whole number of at least 0 (of any size: it is hashed as text)."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    raise LimitError(f"must be a whole number of at least 0, not {shown(value)}")


def memory_mb(value: Any) -> int:
    """A bot process's memory limit: a whole number of MiB from :data:`MIN_MEMORY_MB` to :data:`MAX_MEMORY_MB`."""
    if isinstance(value, int) and not isinstance(value, bool) and MIN_MEMORY_MB <= value <= MAX_MEMORY_MB:
        return value
    raise LimitError(
        f"must be a whole number of MiB from {MIN_MEMORY_MB} to {MAX_MEMORY_MB}, not {shown(value)}"
    )


__all__ = [
    "DEFAULT_TIME_LIMIT", "ISOLATIONS", "MAX_DEALS", "MAX_MEMORY_MB", "MAX_TIME_LIMIT", "MIN_MEMORY_MB", "LimitError",
    "deals", "master_seed", "memory_mb", "shown", "time_limit",
]
