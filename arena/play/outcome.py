"""A finished game (:class:`GameOutcome`): its state, result, faults, and its record made when asked for."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from arena import records
from arena.faults import FaultKind
from arena.play.prepared import bot_entry, declared_name
from arena.rules import GameState, SeatResult, winners

if TYPE_CHECKING:
    from arena.play.setup import GameSetup


@dataclass(frozen=True)
class SeatTimes:
    """How each seat's bot used its time in one game (not in the record: it differs run to run)."""

    #: Thinking time used, in seconds.
    seconds: list[float]
    #: The longest turn, in seconds.
    longest: list[float]
    #: The turns its bot was asked, and of those the turns it answered with a legal move.
    asked: list[int]
    answered: list[int]
    #: The seconds left on the seat's game clock at the end (None: no clock with a base).
    clock_left: list[float | None]


class GameOutcome:
    """A finished game: its record, final state, result and the faults of its bots.

    The record is made on first use (:attr:`record`), or written straight to
    its JSON line (:meth:`record_line`), from the final state.
    """

    def __init__(
        self,
        state: GameState,
        setup: GameSetup,
        result: list[SeatResult],
        faults: list[dict[str, Any]],
        faulted: set[int],
        times: SeatTimes,
        clock: Mapping[str, Any] | None = None,
    ) -> None:
        """The game ``setup`` made, ended in ``state`` with ``result``; ``faults``, ``faulted`` and
        ``clock`` as its attributes are, and each seat's ``times``."""
        self.state = state
        #: Both scorings for every seat.
        self.result = result
        #: One dict per fault: ``seat``, ``move`` (0-based index into the record's moves), ``kind``, ``message``.
        self.faults = faults
        #: The seats whose bot faulted.
        self.faulted = faulted
        #: Thinking time each seat's bot used, in seconds (not in the record: it differs run to run).
        self.seconds = times.seconds
        #: Each seat's longest turn (seconds), the turns its bot was asked, and of those the turns it
        #: answered with a legal move (not in the record either).
        self.longest = times.longest
        self.asked = times.asked
        self.answered = times.answered
        #: The seconds left on each seat's game clock at the end (None: no clock with a base).
        self.clock_left = times.clock_left
        self._names = list(setup.names)
        self._seed = setup.seed
        self._bots = list(setup.players)
        self._time_limit = setup.time.record_limit
        self._extra = dict(setup.extra or {})
        #: The record's ``clock`` key: the time control and every move's time and clocks (None: no clock).
        self.clock = None if clock is None else dict(clock)
        self._record: dict[str, Any] | None = None

    def __repr__(self) -> str:
        return f"<GameOutcome of seed {self._seed}: {len(self.state.history)} moves, {len(self.faults)} fault(s)>"

    @property
    def extra(self) -> dict[str, Any]:
        """The record's keys after the standard ones: ``bots``, ``time_limit``, ``clock`` (in a game with
        a clock), ``faults``, then the caller's."""
        clock = {} if self.clock is None else {"clock": self.clock}
        return {
            "bots": [{"seat": seat, **bot_entry(bot.text, bot.options, bot.identity, declared_name(bot))}
                     for seat, bot in enumerate(self._bots)],
            "time_limit": self._time_limit,
            **clock,
            "faults": self.faults,
            **self._extra,
        }

    @property
    def record(self) -> dict[str, Any]:
        """The ``uptown-game/1`` record, with the referee's keys ``bots``, ``time_limit`` and ``faults``."""
        if self._record is None:
            self._record = records.build_record(
                self.state, self._names, seed=self._seed, extra=self.extra, result=self.result,
            )
        return self._record

    def record_line(self) -> str:
        """:func:`arena.records.dumps_line` of :attr:`record` (made without building it, unless it was)."""
        if self._record is not None:
            return records.dumps_line(self._record)
        # Each bot's entry was written once, when it was prepared.
        members = records.referee_members(
            [bot.entry_tail for bot in self._bots], self._time_limit, self.faults, self._extra, self.clock,
        )
        return records.record_line(self.state, self._names, seed=self._seed, result=self.result, members=members)

    @property
    def lost_on_time(self) -> list[bool]:
        """Whether each seat's fault was a timeout (past the time limit, or out of clock)."""
        timed_out = {fault["seat"] for fault in self.faults if fault["kind"] == FaultKind.TIMEOUT}
        return [seat in timed_out for seat in range(len(self.seconds))]

    @property
    def turns(self) -> list[int]:
        """How many turns each seat took, passes included."""
        state = self.state
        seat_colors = state.settings.seat_colors
        played = state.played
        if sum(played) == len(state.history):  # no pass: a seat's turns are its colors' placements
            return [sum(played[c] for c in colors) for colors in seat_colors]
        seats = records.turn_seats(state)
        return [seats.count(seat) for seat in range(len(seat_colors))]

    @property
    def winners(self) -> list[int]:
        """The seats of rank 1 under the game's scoring (C3)."""
        return winners(self.result, self.state.settings.scoring)
