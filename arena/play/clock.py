"""The clock each seat of a game keeps under its :class:`~arena.timecontrol.TimeControl`.

Every seat of a game gets a :class:`SeatClock` of its own from the control, which the referee
charges with the wall time of each of its turns (:mod:`arena.play.game`): the rules core never
reads a clock; a bot is only told the numbers (:class:`~arena.rules.view.TurnClock`).

A turn may take at most :meth:`SeatClock.allowed`: the per-move limit plus what is left of the
bank, and never more than is left on the clock.  A bot that takes longer loses on time: its
fault (kind ``timeout``) names the clock or the limit it ran past.
"""

from __future__ import annotations

import math

from arena.faults import Fault, FaultKind
from arena.rules.view import TurnClock
from arena.timecontrol import TimeControl


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
