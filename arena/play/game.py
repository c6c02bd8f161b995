"""One game as the referee plays it: its seats, its turns, its faults, and the fallback of a faulted seat.

:meth:`arena.play.referee.Referee.play` checks a game's bots, names and seed
and deals it; a :class:`Game` plays it: it seats every player
(:meth:`Game.seat`), starts the bot programs side by side
(:meth:`Game.start_programs`), plays the turns (:meth:`Game.turns`, one
bot call and one move check per turn), makes a seat's bot at its first turn
(:meth:`Game.start`), records a fault and hands the seat to its fallback
(:meth:`Game.fault`), and tells the bots the result (:meth:`Game.tell`).
"""

from __future__ import annotations

import copy
import logging
import math
import sys
from collections.abc import Callable
from typing import Any

from arena.faults import Fault, FaultKind, show_value
from arena.play.clock import SeatClock
from arena.play.guard import Guard
from arena.play.human import HUMAN, HumanSeat, Terminal
from arena.play.logs import BotLogs
from arena.play.outcome import SeatTimes
from arena.play.pool import BotPool
from arena.play.seats import InProcessSeat, ProgramSeat
from arena.play.setup import GameSetup
from arena.rules import COLORS, PASS, GameState, IllegalMove, Move, MoveSet, SeatResult, derived_random
from arena.rules.geometry import N_CELLS
from arena.rules.state import legal_in
from arena.rules.tiles import N_TILES
from arena.rules.view import turn_view
from arena.wire import protocol
from arena.wire.protocol import TurnWriter

# The referee's log: a game's faults are the referee's to tell.
log = logging.getLogger("arena.play.referee")

#: The stream of the random fallback that plays for a faulted seat.
FALLBACK_STREAM = "uptown-fallback/1"
#: The longest fault message (a bot's words in it are cut shorter: :data:`~arena.wire.protocol.MAX_SHOWN`).
MAX_FAULT = 1000


def show_move(move: Move) -> str:
    """A bot's move as text: ``red:ring@B2`` or ``pass`` when it is one, else its fields as they are."""
    color, tile, cell = move
    if type(color) is int and type(tile) is int and type(cell) is int:
        if color < 0:
            return "pass"
        if color < len(COLORS) and 0 <= tile < N_TILES and 0 <= cell < N_CELLS:
            return str(move)
    return f"Move({show_value(color)}, {show_value(tile)}, {show_value(cell)})"


def wrong_move(value: Any, state: GameState) -> Fault:
    """The fault of a bot that answered ``value``, which is not one of the legal moves of ``state``:
    the rule it breaks, from :meth:`GameState.check` (no code of the bot runs there)."""
    if type(value) is not Move:
        return Fault(FaultKind.INVALID, f"returned {show_value(value)}, not a Move")
    shown = show_move(value)
    try:
        state.check(value)
    except IllegalMove as exc:
        return Fault(FaultKind.ILLEGAL, f"returned {shown}, not a legal move: {exc}")
    # check() passes exactly the legal moves (tests/unit/test_check.py); should the two ever part,
    # the bot is faulted all the same rather than the game stopped.
    return Fault(FaultKind.ILLEGAL, f"returned {shown}, not a legal move")


class Game:
    """One game set up by ``setup`` (:class:`~arena.play.setup.GameSetup`) from the dealt ``state``,
    played once by :meth:`play`.

    ``guard`` times the calls into bots in this process, ``pool`` lends the bot programs their
    processes, ``logs`` are the bots' logs and ``terminal`` the seat ``human``'s.  The setup's
    ``control`` gives every bot seat a game clock (:mod:`arena.play.clock`), charged with the wall
    time of each of its turns.
    """

    def __init__(self, state: GameState, setup: GameSetup, *, guard: Guard, pool: BotPool, logs: BotLogs,
                 terminal: Terminal | None) -> None:
        n = len(setup.players)
        self.setup = setup
        #: The tournament's deal key (None: public deals): every bot's seed is keyed with it.
        self.deal_key = setup.deal_key
        self.state = state
        self.players = setup.players
        self.names = list(setup.names)
        self.seed = setup.seed
        self.label = setup.label
        self.guard = guard
        self.pool = pool
        self.logs = logs
        self.terminal = terminal
        self.seats: list[Any] = []
        # chooses[seat] is the choose of a bot in this process, called under the guard with the view the
        # loop makes; asks[seat] otherwise (a program, the human) answers (state, moves) with (value,
        # seconds, fault).  Both are None until the seat's bot is made at its first turn, and again
        # once it has faulted.
        self.chooses: list[Any] = [None] * n
        self.asks: list[Any] = [None] * n
        self.started = [False] * n
        self.faulted = [False] * n
        self.fallback: list[Any] = [None] * n
        #: The seconds each seat's bot took; the longest of its turns; the turns it was asked, and of
        #: those the turns it answered with a legal move.
        self.seconds = [0.0] * n
        self.longest = [0.0] * n
        self.asked = [0] * n
        self.answered = [0] * n
        #: The time control, each bot seat's clock under it (None: no clock; None for the human's), and
        #: for every move of the game: the seconds the seat's bot took (None: it was not asked), and
        #: the seat's clock and bank after it.
        self.time = setup.time
        self.clocks: list[SeatClock | None] | None = None
        self.times: list[tuple[float | None, float, float]] = []
        #: One dict per fault, as the record's ``faults`` holds them: seat, move, kind, message.
        self.faults: list[dict[str, Any]] = []
        # What sys.stdout and sys.stderr are outside the bots' calls (see play).
        self.stdout: Any = None
        self.stderr: Any = None

    def play(self, on_move: Callable[[GameState, Move], None] | None = None) -> list[SeatResult]:
        """Play the game to its end and tell the bots the result; ``on_move(state, move)`` after every move.

        ``sys.stdout`` is the sink from a bot's first call to the end of the game (put back around
        ``on_move``), ``sys.stderr`` the bot's log during each of its calls when there are logs; both
        are put back, and every seat closed, however the game ends.
        """
        self.stdout, self.stderr = sys.stdout, sys.stderr
        try:
            self.seat()
            self.start_programs()
            self.turns(on_move)
            result = self.state.result()
            self.tell()
        finally:
            sys.stdout, sys.stderr = self.stdout, self.stderr
            for seat in self.seats:
                seat.close()
        return result

    def seat(self) -> None:
        """A seat for every player: the human at the terminal, a bot program, or a bot in this process."""
        state = self.state
        settings = state.settings
        writer = TurnWriter(state) if any(p.program is not None for p in self.players) else None
        for seat, player in enumerate(self.players):
            if player.spec.ref == HUMAN and player.program is None:
                self.seats.append(HumanSeat(self.terminal or Terminal(), seat, settings, self.names))
            elif player.program is not None:
                assert writer is not None
                self.seats.append(ProgramSeat(self.pool, player, seat, settings, writer, self.setup))
            else:
                assert player.cls is not None  # prepared in process: it has its class
                # A copy of its own: a bot that changes its settings changes nothing outside.
                self.seats.append(InProcessSeat(self.guard, player.cls, seat, copy.copy(settings), player.options,
                                                self.seed, self.logs.stream(player.name or player.spec.ref),
                                                key=self.deal_key))
        if self.time.clocked:
            # Every bot's clock; the human plays without one (nor any time limit).
            self.clocks = [None if isinstance(s, HumanSeat) else SeatClock(self.time) for s in self.seats]
            for program_seat, clock in zip(self.seats, self.clocks, strict=True):
                if isinstance(program_seat, ProgramSeat):
                    program_seat.clock = clock

    def start_programs(self) -> None:
        """Every seat's process for this game, the new ones started side by side before the first turn."""
        programs = [s for s in self.seats if isinstance(s, ProgramSeat)]
        for program_seat in programs:
            program_seat.reserve()
        for program_seat in programs:
            program_seat.ready()

    def turns(self, on_move: Callable[[GameState, Move], None] | None) -> None:
        """Play every turn: a seat with no legal move passes (M6) without its bot being asked, a
        faulted seat's fallback plays, any other seat's bot is asked and its answer checked."""
        state = self.state
        settings = state.settings
        seat_settings = [getattr(s, "settings", settings) for s in self.seats]
        errs = [getattr(s, "err", None) for s in self.seats]
        chooses, asks, started = self.chooses, self.asks, self.started
        fallback, seconds, longest = self.fallback, self.seconds, self.longest
        asked, answered = self.asked, self.answered
        call = self.guard.call
        # The captures change only with a capture, so the views' copy of them is made again
        # only then (and after every move when on_move may change the state).
        history = state.history  # the live list with either engine; captures are read afresh (a copy natively)
        legal_moves = state.legal_moves
        push = state.push
        captures_seen = tuple(map(tuple, state.captures))
        move: Move | None
        clocks = self.clocks
        time_limit = self.time.limit
        times = self.times
        used: float | None

        while not state.over:
            seat = state.to_move
            moves = legal_moves()
            legal = moves.options  # the referee's own: the bot may change the MoveSet it is given
            choose = chooses[seat]
            used = None
            if not legal:
                move = PASS  # M6, without asking the bot
            elif choose is not None or asks[seat] is not None:
                clock = None if clocks is None else clocks[seat]
                if choose is not None:  # a bot in this process: its view, and the guard's timed call
                    if clock is None:
                        value, elapsed, problem = call(
                            choose, turn_view(state, seat, moves, seat_settings[seat], captures_seen), errs[seat])
                    else:
                        view = turn_view(state, seat, moves, seat_settings[seat], captures_seen, clock.view(time_limit))
                        value, elapsed, problem = call(choose, view, errs[seat], clock.allowed(time_limit))
                else:  # a bot program (its seat knows its clock), or the human
                    value, elapsed, problem = asks[seat](state, moves)
                seconds[seat] += elapsed
                asked[seat] += 1
                if elapsed > longest[seat]:
                    longest[seat] = elapsed
                if clock is not None:
                    used = elapsed
                    problem = self.charge(seat, clock, elapsed, problem)
                # Checked against the referee's own options, not the MoveSet the bot was given.
                move = legal_in(legal, value) if problem is None else None
                if move is None:
                    self.fault(seat, len(history), problem or wrong_move(value, state))
                    move = MoveSet(legal).choice(fallback[seat])
                else:
                    answered[seat] += 1
            elif not started[seat]:
                self.start(seat, len(history))
                continue  # the same turn again, with the bot made (or the seat faulted)
            else:
                move = moves.choice(fallback[seat])
            if clocks is not None:
                seat_clock = clocks[seat]
                times.append((used, *((seat_clock.remaining, seat_clock.bank) if seat_clock else (math.inf, 0.0))))
            if push(move) >= 0 or on_move is not None:
                captures_seen = tuple(map(tuple, state.captures))
                if on_move is not None:
                    sys.stdout = self.stdout
                    on_move(state, move)
                    self.stdout = sys.stdout

    def start(self, seat: int, index: int) -> None:
        """Make the seat's bot at its first turn (move ``index``), and fault the seat when that fails."""
        self.started[seat] = True
        player = self.seats[seat]
        elapsed, problem = player.start()
        self.seconds[seat] += elapsed
        clock = None if self.clocks is None else self.clocks[seat]
        if clock is not None and isinstance(player, InProcessSeat):
            # Making the bot is on its clock, as it is in a bot program's first turn.
            clock.spend(elapsed)
            if problem is None and clock.remaining <= 0:
                problem = Fault(FaultKind.TIMEOUT, f"lost on time: {elapsed:.3f} s to be made, more than its clock "
                                                   f"({self.time.clock_text})")
        if problem is not None:
            self.fault(seat, index, Fault(problem.kind, "while starting: " + problem.message))
        elif isinstance(player, InProcessSeat):
            self.chooses[seat] = player.bot.choose  # type: ignore[union-attr]
        else:
            self.asks[seat] = player.ask

    def charge(self, seat: int, clock: SeatClock, elapsed: float, problem: Fault | None) -> Fault | None:
        """Charge the seat's clock with a turn of ``elapsed`` seconds: the turn's fault (a timeout says
        which clock ran out), or None."""
        seat_player = self.seats[seat]
        limit = seat_player.turn_limit if isinstance(seat_player, ProgramSeat) else self.time.limit
        if problem is None or problem.kind == FaultKind.TIMEOUT:
            return clock.charge(elapsed, limit) or problem
        clock.spend(elapsed)
        return problem

    def clock_record(self) -> dict[str, Any] | None:
        """The record's ``clock`` key: the control, and every move's time and clocks (None: no clock)."""
        if self.clocks is None:
            return None
        control = self.time
        entry = control.record()
        entry["used"] = [None if used is None else round(used, 3) for used, _, _ in self.times]
        if control.base is not None:
            entry["left"] = [None if math.isinf(left) else round(max(left, 0.0), 3) for _, left, _ in self.times]
        if control.overage:
            entry["bank"] = [round(max(bank, 0.0), 3) for _, _, bank in self.times]
        return entry

    def seat_times(self) -> SeatTimes:
        """How each seat used its time, for the game's outcome."""
        return SeatTimes(self.seconds, self.longest, self.asked, self.answered, self.clocks_left())

    def clocks_left(self) -> list[float | None]:
        """The seconds left on each seat's game clock at the end (None: no clock, or a bank alone)."""
        if self.clocks is None:
            return [None] * len(self.seats)
        return [None if c is None or math.isinf(c.remaining) else max(c.remaining, 0.0) for c in self.clocks]

    def fault(self, seat: int, index: int, fault: Fault) -> None:
        """Record the seat's fault at move ``index``, log it, and hand the seat to its fallback for good."""
        kind, message = fault
        # Whatever of the bot's own words the message holds reaches records and logs escaped.
        message = protocol.bot_text(message, MAX_FAULT)
        self.faults.append({"seat": seat, "move": index, "kind": kind, "message": message})
        self.faulted[seat] = True
        self.asks[seat] = self.chooses[seat] = None
        self.fallback[seat] = derived_random(FALLBACK_STREAM, self.seed, seat)
        player = self.players[seat]
        bot_log = self.logs.path(player.name or player.spec.ref)
        log.info("%s: seat %d (%s) fault at move %d: %s: %s%s", self.label, seat, self.names[seat], index, kind,
                 message, f" (the bot's log, with any traceback: {bot_log})" if bot_log else "")
        self.seats[seat].close(False)

    def tell(self) -> None:
        """The result to every bot that started, did not fault and listens; a failure there is only logged."""
        state = self.state
        for seat, player in enumerate(self.seats):
            if self.started[seat] and not self.faulted[seat] and player.listens():
                # Each bot gets its own copy of the result: one cannot change another's.
                elapsed, problem = player.tell(state.result())
                self.seconds[seat] += elapsed
                if problem is not None:
                    log.warning("seat %d (%s) failed in game_over (ignored): %s: %s", seat, self.names[seat],
                                problem.kind, protocol.bot_text(problem.message, MAX_FAULT))

    def faulted_seats(self) -> set[int]:
        """The seats whose bot faulted."""
        return {seat for seat, faulted in enumerate(self.faulted) if faulted}
