"""The seats of one game: an in-process bot under the guard, or a bot program spoken to in the protocol.

Both answer the referee's loop the same way: ``start()`` at the seat's
first turn, ``tell(result)`` at the end, ``close(healthy)``; each returns the
seconds it took and a fault or None.  For a move, a program seat answers
``ask(state, moves)``; an in-process seat's ``bot.choose`` is called by the
game's loop itself (:meth:`arena.play.game.Game.turns`), under the guard's
one timed call (:meth:`arena.play.guard.Guard.call`), with the view the loop
keeps up to date.
"""

from __future__ import annotations

import functools
from time import perf_counter
from typing import TYPE_CHECKING, Any

from arena.api import Bot
from arena.faults import Fault, FaultKind
from arena.isolation import sandbox
from arena.play.botprocess import QUIT_SECONDS, BotProcess, BotProcessError, Ended, Late
from arena.play.guard import Guard
from arena.rules import GameSettings, GameState, MoveSet, SeatResult
from arena.wire import protocol
from arena.wire.protocol import ProtocolError, TurnWriter

if TYPE_CHECKING:
    from arena.play.clock import SeatClock
    from arena.play.pool import BotPool
    from arena.play.prepared import PreparedBot
    from arena.play.setup import GameSetup


class InProcessSeat:
    """A bot played in the referee's own process."""

    def __init__(self, guard: Guard, cls: type[Bot], seat: int, settings: GameSettings,
                 options: dict[str, Any], seed: int, err: Any = None, key: str | None = None) -> None:
        self.guard = guard
        #: The tournament's deal key (None: public deals), which the bot's generator is keyed with too.
        self.key = key
        #: Where the bot's ``sys.stderr`` goes while it runs (its log), or None: left alone.
        self.err = err
        self.cls = cls
        self.seat = seat
        self.settings = settings
        self.options = options
        self.seed = seed
        self.bot: Bot | None = None

    def start(self) -> tuple[float, Fault | None]:
        rng = protocol.bot_random(self.seed, self.seat, self.key)
        make = functools.partial(self.cls, self.seat, self.settings, dict(self.options))
        bot, elapsed, fault = self.guard.call(make, rng, self.err)
        if fault is None and not isinstance(bot, Bot):
            fault = Fault(FaultKind.INVALID, f"making the bot gave {type(bot).__name__}, not a Bot")
        self.bot = bot if fault is None else None
        return elapsed, fault

    def listens(self) -> bool:
        """Whether the bot has a game_over of its own (the base one does nothing: skip the call)."""
        return self.bot is not None and type(self.bot).game_over is not Bot.game_over

    def tell(self, result: list[SeatResult]) -> tuple[float, Fault | None]:
        _, elapsed, fault = self.guard.call(self.bot.game_over, result, self.err)  # type: ignore[union-attr]
        return elapsed, fault

    def close(self, healthy: bool = True) -> None:
        self.bot = None


class ProgramSeat:
    """A bot program (a process of its own, :mod:`arena.play.botprocess`) playing one seat of one game.

    The process comes from the referee's pool (:class:`~arena.play.pool.BotPool`: one that never
    played this game's deal, or a fresh one: :meth:`reserve`, before the game's first turn) and goes
    back to it after the game, unless it faulted: then it is killed, and another plays its next game.
    The game's ``setup`` gives its seed, its label and the time limit of a turn; :attr:`clock` is the
    seat's game clock, when the game has one.
    """

    def __init__(self, pool: BotPool, player: PreparedBot, seat: int, settings: GameSettings,
                 writer: TurnWriter, setup: GameSetup) -> None:
        self.pool = pool
        #: The tournament's deal key (None: public deals): the ``seed`` the bot is sent is keyed with it.
        self.key = setup.deal_key
        self.player = player
        self.seat = seat
        self.settings = settings
        self.seed = setup.seed
        self.writer = writer
        self.label = setup.label
        self.limit = setup.time.limit
        self.timeout = Fault(FaultKind.TIMEOUT, f"no move within the time limit of {self.limit:g} s")
        self.process: BotProcess | None = None
        #: The seat's game clock (None: none), set by the game.
        self.clock: SeatClock | None = None
        #: The per-move limit of the last turn asked (the first has :data:`~arena.wire.protocol.FIRST_TURN_LIMITS`).
        self.turn_limit = self.limit
        self._first: bytes = b""
        self._problem = ""
        self._seconds = 0.0

    def reserve(self) -> None:
        """Take a process for this game from the pool; a fresh one is only launched here (its
        handshake is :meth:`ready`'s), so that every seat's new process starts at once."""
        started = perf_counter()
        try:
            self.process = self.pool.borrow(self.player, self.seed)
        except BotProcessError as exc:
            self._problem = str(exc)
        self._seconds += perf_counter() - started

    def ready(self) -> None:
        """Finish starting a process :meth:`reserve` launched (its handshake), before any turn of the game."""
        process = self.process
        if process is None or process.declared is not None:
            return
        started = perf_counter()
        try:
            self.pool.handshake(self.player, process)
        except BotProcessError as exc:
            self.process, self._problem = None, str(exc)
        self._seconds += perf_counter() - started

    def start(self) -> tuple[float, Fault | None]:
        if self.process is None:
            return self._seconds, Fault(FaultKind.CRASH, self._problem or "no process to play")
        self.process.note(f"{self.label}, seat {self.seat}")
        self.process.label = f"seat {self.seat}"
        # Sent with the first turn, so that a new game costs no round trip of its own.
        self._first = protocol.game_line(
            self.settings, self.seat, self.player.options, self.limit, protocol.bot_seed(self.seed, self.seat, self.key),
        )
        return self._seconds, None

    def ask(self, state: GameState, moves: MoveSet) -> tuple[Any, float, Fault | None]:
        process = self.process
        assert process is not None
        first, self._first = self._first, b""
        limit = self.turn_limit = self.limit * (protocol.FIRST_TURN_LIMITS if first else 1)
        clock = self.clock
        if clock is None:
            data = first + self.writer.line(self.seat, moves, limit)
        else:
            data = first + self.writer.line(self.seat, moves, clock.allowed(limit), clock.view(limit))
            limit = clock.allowed(limit)
        # Every other bot stops before this one thinks (the wait is no one's time); the clock runs from the
        # start of the write: a turn the bot does not take in time is late too.
        sandbox.settle()
        start = perf_counter()
        try:
            answer = protocol.read_turn_answer(process.ask(data, start + limit))
            if process.pending():
                # Written with the answer (a line written later is read, and refused, in its place next turn).
                raise ProtocolError("wrote more than one answer to a turn")
        except Late:
            return None, perf_counter() - start, self.timeout
        except Ended:
            return None, perf_counter() - start, Fault(FaultKind.CRASH, f"the bot's process ended: {process.ended_text()}")
        except ProtocolError as exc:
            return None, perf_counter() - start, Fault(FaultKind.PROTOCOL, f"{exc}{process.log_hint()}")
        elapsed = perf_counter() - start
        if type(answer) is Fault:  # not a Move (a tuple too): an error message
            return None, elapsed, answer
        return answer, elapsed, None

    def listens(self) -> bool:
        return True

    def tell(self, result: list[SeatResult]) -> tuple[float, Fault | None]:
        process = self.process
        if process is not None:
            try:
                process.tell(protocol.over_line(result))
            except Late:
                process.kill()  # a fresh process plays its next game
                return 0.0, Fault(FaultKind.TIMEOUT, f"did not take the over message within {QUIT_SECONDS:g} s: killed")
            except Ended:
                return 0.0, Fault(FaultKind.CRASH, f"the bot's process ended: {process.ended_text()}")
        return 0.0, None

    def close(self, healthy: bool = True) -> None:
        process, self.process = self.process, None
        if process is not None:
            self.pool.give_back(self.player, process, healthy)
