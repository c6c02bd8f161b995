"""The referee: plays games between bots and contains every kind of bot failure.

:meth:`Referee.play` deals a game from its seed, makes a fresh bot for every
seat, hands each seat only its own :class:`~arena.rules.view.SeatView`, and
returns the finished game, whose ``uptown-game/1`` record is made when first
asked for (or written straight to its JSON line, as a tournament does).  A
:class:`Referee` plays one game after another under one guard (a tournament
worker keeps one); :func:`play_game` plays a single game.

What the referee guarantees (in-process mode, the default):

* **Faults never stop the game.**  A bot that raises, calls ``sys.exit``,
  raises ``KeyboardInterrupt`` itself, returns something that is not a
  :class:`~arena.rules.Move`, returns an illegal move (a pass while moves
  exist included), or runs past the per-move time limit is *faulted*: the
  fault (seat, 0-based move index, kind, message) goes into the record's
  ``faults`` list, and from that move on the seat's moves are drawn uniformly
  from the legal moves by a generator seeded from the game seed and the seat
  (``derived_random("uptown-fallback/1", seed, seat)``).  The bot is not asked
  again, nor told the result.  The record stays a valid game.
* **Time limits are enforced** on every call into a bot (making it,
  ``choose``, ``game_over``).  In the main thread a ``SIGALRM`` interval timer
  raises :class:`BotTimeout` inside the bot's code when its time is up, so a
  pure-Python endless loop, or a ``time.sleep``, is stopped at the limit (and
  again every 50 ms if the bot swallows the exception).  In other threads a
  watchdog thread raises it asynchronously, which stops Python code but not a
  sleep.  Code blocked inside C (a long C call, a deadlock) is only stopped
  when it returns, and is then faulted for being late; ``isolate=True`` runs
  every bot in its own process, killed at the limit, and contains even that.
  The per-move cost of the in-process guard is two clock reads and two
  attribute stores: the timer is armed once per Referee and re-armed lazily.
* **Bots cannot disturb the referee.**  ``sys.stdout`` is a sink while a
  game is played (it is put back for ``on_move`` and when the game ends, and
  set again before every call in case a bot replaced it), so ``print`` in a
  bot never reaches the referee's output (writes straight to file descriptor
  1 do, except with ``isolate=True``).  Views hold only immutable values and
  copies: changing one changes nothing in the game, and the referee checks
  moves against its own copy of the legal moves.  A
  ``KeyboardInterrupt`` from a real Ctrl-C still stops the run; one raised by
  the bot itself is a fault when the two can be told apart (the default SIGINT
  handler, an ignored SIGINT, or a thread other than the main one).
  ``os._exit`` or a crash of the interpreter cannot be contained in-process.
* **Determinism.** Same seed, same bots and options: the same record, byte
  for byte, as long as no bot runs into the time limit.  Timing stays out of
  the record (it is in :attr:`GameOutcome.seconds`).

A seat with no legal move passes (M6) without its bot being asked.
"""

from __future__ import annotations

import _signal
import ctypes
import functools
import logging
import math
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from time import perf_counter
from typing import Any, NamedTuple, Self

from . import records
from .bots import Bot, BotSpec, bot_options, load_bot, parse_bot_spec
from .rules import PASS, GameSettings, GameState, Move, MoveSet, SeatResult, deal, derived_random
from .rules.tiles import FITS
from .rules.view import SeatView

log = logging.getLogger("arena.referee")

#: The per-move time limit, in seconds, when none is given.
DEFAULT_TIME_LIMIT = 10.0
#: The stream of a bot's own generator: ``derived_random(BOT_STREAM, seed, seat)``.
BOT_STREAM = "uptown-bot/1"
#: The stream of the random fallback that plays for a faulted seat.
FALLBACK_STREAM = "uptown-fallback/1"
#: What a fault can be: the bot raised an exception; called ``sys.exit``; raised
#: ``KeyboardInterrupt`` itself; returned something that is not a Move; returned
#: a Move that is not legal now (a pass while moves exist included); ran past
#: the time limit; or (with ``isolate=True``) its process ended.
FAULT_KINDS = ("exception", "exit", "interrupt", "invalid", "illegal", "timeout", "crash")
#: The extra keys the referee writes into every record.
RECORD_KEYS = ("bots", "time_limit", "faults")
# After a timeout, raise again this often while the bot keeps running.
_RETRY = 0.05
# setitimer(0) disarms the timer: never arm it for less than this.
_MIN_ARM = 0.001
# Extra time a bot's process gets to start, on top of the time limit.
_STARTUP = 10.0

Fault = tuple[str, str]


class BotTimeout(BaseException):
    """Raised inside a bot's code when its time is up.

    A BaseException, so that ``except Exception`` in a bot does not swallow it.
    """


class GameOutcome:
    """A finished game: its record, final state, result and the faults of its bots.

    The record is made on first use (:attr:`record`), or written straight to
    its JSON line (:meth:`record_line`), from the final state.
    """

    def __init__(
        self,
        state: GameState,
        result: list[SeatResult],
        faults: list[dict[str, Any]],
        seconds: list[float],
        faulted: set[int],
        names: Sequence[str],
        seed: int,
        bots: Sequence[PreparedBot],
        time_limit: float,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        self.state = state
        #: Both scorings for every seat.
        self.result = result
        #: One dict per fault: ``seat``, ``move`` (0-based index into the record's moves), ``kind``, ``message``.
        self.faults = faults
        #: Thinking time each seat's bot used, in seconds (not in the record: it differs run to run).
        self.seconds = seconds
        #: The seats whose bot faulted.
        self.faulted = faulted
        self._names = list(names)
        self._seed = seed
        self._bots = list(bots)
        self._time_limit = time_limit if math.isfinite(time_limit) else None
        self._extra = dict(extra or {})
        self._record: dict[str, Any] | None = None

    def __repr__(self) -> str:
        return f"<GameOutcome of seed {self._seed}: {len(self.state.history)} moves, {len(self.faults)} fault(s)>"

    @property
    def extra(self) -> dict[str, Any]:
        """The record's keys after the standard ones: ``bots``, ``time_limit``, ``faults``, then the caller's."""
        return {
            "bots": [{"seat": seat, "spec": bot.text, "options": bot.options} for seat, bot in enumerate(self._bots)],
            "time_limit": self._time_limit,
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
        # The extra keys as JSON text: each bot's entry was written once, when it was prepared.
        members = "".join((
            '"bots":[', ",".join([f'{{"seat":{seat},{bot.entry_tail}' for seat, bot in enumerate(self._bots)]),
            '],"time_limit":', "null" if self._time_limit is None else repr(self._time_limit),
            ',"faults":', records.dumps_line(self.faults) if self.faults else "[]",
            "," + records.dumps_line(self._extra)[1:-1] if self._extra else "",
        ))
        return records.record_line(self.state, self._names, seed=self._seed, result=self.result, members=members)

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
        """The seats of rank 1 under the game's scoring."""
        key = "uptown_rank" if self.state.settings.scoring == "uptown" else "blockers_rank"
        return [row.seat for row in self.result if getattr(row, key) == 1]


# -- calling a bot under the clock ----------------------------------------------


class _Sink:
    """Stands in for ``sys.stdout`` while a bot runs: swallows everything."""

    encoding = "utf-8"
    errors = "strict"

    def write(self, text: str) -> int:
        return len(text)

    def writelines(self, lines: Any) -> None:
        pass

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        raise OSError("a bot's stdout is not a file")


_SINK = _Sink()


def _describe(exc: BaseException) -> str:
    """One line: the exception and where in the bot it was raised."""
    text = " ".join(str(exc).split())
    if len(text) > 200:
        text = text[:197] + "..."
    where = ""
    tb = exc.__traceback__
    if tb is not None:
        while tb.tb_next is not None:
            tb = tb.tb_next
        code = tb.tb_frame.f_code
        where = f" (at {os.path.basename(code.co_filename)}:{tb.tb_lineno} in {code.co_name})"
    return f"{type(exc).__name__}: {text}{where}" if text else f"{type(exc).__name__}{where}"


class _Guard:
    """Calls into bots with stdout silenced, the clock running and faults classified.

    Main-thread version: one ``ITIMER_REAL`` timer is armed for the whole
    game.  When it fires, the handler raises :class:`BotTimeout` if a bot call
    has passed its deadline, and otherwise re-arms itself for the running
    call's deadline (or a full limit when no bot is running).  So the timer
    never fires later than the deadline of the call in progress, and a move
    costs no system call.
    """

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self.timeout_message = f"no move within the time limit of {limit:g} s"
        #: When the running bot call started (``perf_counter``); 0.0 while no bot runs.
        self.started = 0.0
        #: Set when a real Ctrl-C arrived, so the KeyboardInterrupt is not taken for a bot's.
        self.user_interrupt = False
        #: Whether a KeyboardInterrupt raised by a bot can be told from the user's.
        self.tells_interrupts = False
        self.closed = False
        self._saved: list[tuple[Callable[[], None]]] = []

    # The game's lifetime -------------------------------------------------------

    def __enter__(self) -> _Guard:
        # _signal is what the signal module wraps: the same calls, without turning
        # handlers into enums on the way (which costs more than a whole move).
        if math.isfinite(self.limit):
            old_handler = _signal.signal(_signal.SIGALRM, self._on_alarm)
            old_delay, old_interval = _signal.setitimer(_signal.ITIMER_REAL, max(self.limit, _MIN_ARM))
            armed = perf_counter()

            def restore_timer() -> None:
                _signal.setitimer(_signal.ITIMER_REAL, 0)
                _signal.signal(_signal.SIGALRM, old_handler)
                if old_delay > 0:  # give back the caller's timer, minus the time spent here
                    left = max(old_delay - (perf_counter() - armed), _MIN_ARM)
                    _signal.setitimer(_signal.ITIMER_REAL, left, old_interval)

            self._saved.append((restore_timer,))
        old_int = _signal.getsignal(_signal.SIGINT)
        if old_int is _signal.default_int_handler:
            _signal.signal(_signal.SIGINT, self._on_sigint)
            self._saved.append((lambda: _signal.signal(_signal.SIGINT, old_int),))
            self.tells_interrupts = True
        elif old_int == _signal.SIG_IGN:
            self.tells_interrupts = True
        return self

    def __exit__(self, *exc: object) -> None:
        self.closed = True  # an alarm still on its way must not arm the timer again
        while self._saved:
            (undo,) = self._saved.pop()
            undo()

    def _on_alarm(self, signum: int, frame: Any) -> None:
        if self.closed:
            return
        if self.started:
            remaining = self.started + self.limit - perf_counter()
            if remaining <= 0:
                _signal.setitimer(_signal.ITIMER_REAL, _RETRY)
                raise BotTimeout(self.timeout_message)
            _signal.setitimer(_signal.ITIMER_REAL, max(remaining, _MIN_ARM))
        else:
            _signal.setitimer(_signal.ITIMER_REAL, max(self.limit, _MIN_ARM))

    def _on_sigint(self, signum: int, frame: Any) -> None:
        self.user_interrupt = True
        raise KeyboardInterrupt

    # One call --------------------------------------------------------------

    def call(self, fn: Callable[[Any], Any], arg: Any) -> tuple[Any, float, Fault | None]:
        """``fn(arg)`` under the clock: (its value, seconds taken, None) or (None, seconds, fault)."""
        saved = sys.stdout
        sys.stdout = _SINK
        start = perf_counter()
        try:
            try:
                self.started = start
                value = fn(arg)
                self._settle()
                elapsed = perf_counter() - start
                if elapsed > self.limit:
                    return None, elapsed, ("timeout", self.timeout_message)
                return value, elapsed, None
            except BaseException as exc:
                self._settle()
                return None, perf_counter() - start, self._fault(exc)
        except BotTimeout:  # the alarm landed in the handler above
            self._settle()
            return None, perf_counter() - start, ("timeout", self.timeout_message)
        finally:
            sys.stdout = saved

    def _settle(self) -> None:
        """The call has returned: a late alarm must no longer fire into the referee."""
        self.started = 0.0

    def _fault(self, exc: BaseException) -> Fault:
        if isinstance(exc, BotTimeout):
            return "timeout", self.timeout_message
        if isinstance(exc, KeyboardInterrupt):
            if self.user_interrupt or not self.tells_interrupts:
                raise exc
            return "interrupt", "raised KeyboardInterrupt"
        if isinstance(exc, SystemExit):
            return "exit", f"called sys.exit({exc.code!r})"
        return "exception", _describe(exc)


class _ThreadGuard(_Guard):
    """The guard for threads other than the main one, where signals cannot be used.

    A watchdog thread checks the running call every few milliseconds and
    raises :class:`BotTimeout` in the referee's thread with
    ``PyThreadState_SetAsyncExc``: that stops Python code, not a blocking call.
    """

    def __init__(self, limit: float) -> None:
        super().__init__(limit)
        self.tells_interrupts = True  # Ctrl-C only ever reaches the main thread
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread_id = threading.get_ident()
        self._raised_at = 0.0

    def __enter__(self) -> _ThreadGuard:
        if math.isfinite(self.limit):
            poll = min(max(self.limit / 20, 0.002), 0.05)
            watchdog = threading.Thread(target=self._watch, args=(poll,), name="arena-referee-watchdog", daemon=True)
            watchdog.start()
            self._saved.append((lambda: (self._stop.set(), watchdog.join()),))
        return self

    def _watch(self, poll: float) -> None:
        while not self._stop.wait(poll):
            with self._lock:
                now = perf_counter()
                started = self.started
                if started and now - started > self.limit and now - self._raised_at > _RETRY:
                    self._raised_at = now
                    self._async_raise(BotTimeout)

    def _async_raise(self, exc: type[BaseException] | None) -> None:
        ctypes.pythonapi.PyThreadState_SetAsyncExc(
            ctypes.c_ulong(self._thread_id), ctypes.py_object(exc) if exc is not None else None
        )

    def _settle(self) -> None:
        with self._lock:
            self.started = 0.0
            if self._raised_at:  # a timeout may still be pending: drop it
                self._raised_at = 0.0
                self._async_raise(None)


# -- the seats ---------------------------------------------------------------------


class _Seat:
    """A bot played in the referee's own process."""

    def __init__(self, guard: _Guard, cls: type[Bot], seat: int, settings: GameSettings,
                 options: dict[str, Any], seed: int) -> None:
        self.guard = guard
        self.cls = cls
        self.seat = seat
        self.settings = settings
        self.options = options
        self.seed = seed
        self.bot: Bot | None = None

    def start(self) -> tuple[float, Fault | None]:
        rng = derived_random(BOT_STREAM, self.seed, self.seat)
        make = functools.partial(self.cls, self.seat, self.settings, dict(self.options))
        bot, elapsed, fault = self.guard.call(make, rng)
        if fault is None and not isinstance(bot, Bot):
            fault = ("invalid", f"making the bot gave {type(bot).__name__}, not a Bot")
        self.bot = bot if fault is None else None
        if self.bot is not None:
            # Bound once: asking for a move is then one C-level call into the guard.
            self.ask = functools.partial(self.guard.call, self.bot.choose)  # type: ignore[method-assign]
        return elapsed, fault

    def ask(self, view: SeatView) -> tuple[Any, float, Fault | None]:
        return self.guard.call(self.bot.choose, view)  # type: ignore[union-attr]

    def listens(self) -> bool:
        """Whether the bot has a game_over of its own (the base one does nothing: skip the call)."""
        return type(self.bot).game_over is not Bot.game_over

    def tell(self, result: list[SeatResult]) -> tuple[float, Fault | None]:
        _, elapsed, fault = self.guard.call(self.bot.game_over, result)  # type: ignore[union-attr]
        return elapsed, fault

    def close(self) -> None:
        self.bot = None


def _serve(conn: Any, spec: BotSpec, seat: int, settings: GameSettings, options: dict[str, Any], seed: int) -> None:
    """The loop of a bot's own process (``isolate=True``): make the bot, then answer the referee."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the referee's to handle
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    sys.stdout = _SINK
    guard = _Guard(math.inf)
    guard.tells_interrupts = True

    def reply(value: Any, fault: Fault | None) -> None:
        if fault is not None:
            conn.send(("fault", fault))
        elif type(value) is Move:
            try:
                conn.send(("move", tuple(value)))
            except Exception as exc:  # noqa: BLE001 - fields that do not pickle
                conn.send(("fault", ("invalid", f"returned a Move that cannot be sent: {_describe(exc)}")))
        else:
            conn.send(("value", _show_value(value)))

    try:
        cls = load_bot(spec)
        make = functools.partial(cls, seat, settings, dict(options))
        bot, _, fault = guard.call(make, derived_random(BOT_STREAM, seed, seat))
    except Exception as exc:  # noqa: BLE001
        bot, fault = None, ("exception", _describe(exc))
    conn.send(("ready", fault))
    if fault is not None:
        return
    while True:
        try:
            what, payload = conn.recv()
        except EOFError:
            return
        if what == "choose":
            value, _, fault = guard.call(bot.choose, payload)
            reply(value, fault)
        else:
            _, _, fault = guard.call(bot.game_over, payload)
            conn.send(("done", fault))
            return


class _IsolatedSeat:
    """A bot played in a process of its own, killed when it runs past the limit."""

    def __init__(self, spec: BotSpec, seat: int, settings: GameSettings, options: dict[str, Any],
                 seed: int, limit: float) -> None:
        self.limit = limit
        ctx = multiprocessing.get_context()
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(
            target=_serve, args=(child, spec, seat, settings, options, seed), name=f"arena-bot-{seat}", daemon=True
        )
        self.process.start()
        child.close()
        self.started = perf_counter()

    def _wait(self, seconds: float) -> tuple[Any, Fault | None]:
        """The process's next message, or a fault when it is late or gone (then it is killed)."""
        try:
            if self.conn.poll(seconds):
                return self.conn.recv(), None
        except (EOFError, OSError):
            self.process.join(1.0)
            return None, ("crash", f"the bot's process ended (exit code {self.process.exitcode})")
        self.close()
        return None, ("timeout", f"no move within the time limit of {self.limit:g} s")

    def start(self) -> tuple[float, Fault | None]:
        message, fault = self._wait(max(self.started + self.limit + _STARTUP - perf_counter(), 0.0))
        elapsed = perf_counter() - self.started
        if fault is None:
            _, fault = message
        return elapsed, fault

    def _send(self, message: tuple[str, Any]) -> Fault | None:
        try:
            self.conn.send(message)
        except OSError:  # the process is gone
            self.process.join(1.0)
            return "crash", f"the bot's process ended (exit code {self.process.exitcode})"
        return None

    def ask(self, view: SeatView) -> tuple[Any, float, Fault | None]:
        start = perf_counter()
        fault = self._send(("choose", view))
        if fault is not None:
            return None, perf_counter() - start, fault
        message, fault = self._wait(self.limit)
        elapsed = perf_counter() - start
        if fault is not None:
            return None, elapsed, fault
        what, payload = message
        if what == "fault":
            return None, elapsed, tuple(payload)  # type: ignore[return-value]
        if what == "value":
            return None, elapsed, ("invalid", f"returned {payload}, not a Move")
        return Move(*payload), elapsed, None

    def listens(self) -> bool:
        return True

    def tell(self, result: list[SeatResult]) -> tuple[float, Fault | None]:
        start = perf_counter()
        fault = self._send(("over", result))
        if fault is None:
            message, fault = self._wait(self.limit)
            if fault is None:
                _, fault = message
        return perf_counter() - start, fault

    def close(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.conn.close()


# -- one game ----------------------------------------------------------------------


def _show_value(value: Any) -> str:
    """A returned value for a fault message, without running any of the bot's code."""
    if value is None or type(value) in (bool, int, float, str):
        text = repr(value)
        return text if len(text) <= 40 else text[:37] + "..."
    return f"a {type(value).__name__}"


def _show_move(move: Move) -> str:
    color, tile, cell = move
    if type(color) is int and type(tile) is int and type(cell) is int:
        try:
            return str(move)
        except IndexError:
            pass
    return f"Move({_show_value(color)}, {_show_value(tile)}, {_show_value(cell)})"


_tuple_new = tuple.__new__

# A tournament plays each deal once per seat rotation, one after the other: a deal is
# made once per seed.  The cache holds only tuples, so no game can change another's deal.
_KEPT_DEALS = 32
_deals: dict[tuple[Any, ...], dict[int, tuple[int, ...]]] = {}


def _deal(seed: int, settings: GameSettings) -> dict[int, tuple[int, ...]]:
    """``deal(seed, settings)``, from the cache when the same seed was dealt lately."""
    key = (seed, settings.seat_colors, deal)  # the function too: tests replace it
    found = _deals.get(key)
    if found is None:
        if len(_deals) >= _KEPT_DEALS:
            _deals.clear()
        found = _deals[key] = {color: tuple(tiles) for color, tiles in deal(seed, settings).items()}
    return dict(found)


@functools.lru_cache(maxsize=64)
def _settings(players: int, scoring: str, penalty: str) -> GameSettings:
    """The standard settings, made once: they are frozen, and checking them costs more than a move."""
    return GameSettings.for_players(players, scoring, penalty)


def _legal_or_none(value: Any, legal: tuple[tuple[int, int, int], ...]) -> Move | None:
    """``value`` when it is one of the ``legal`` moves, else None; no code of the bot runs here."""
    if type(value) is not Move:
        return None
    color, tile, cell = value
    if type(cell) is int and type(tile) is int and type(color) is int and 0 <= cell < 81:
        for c, t, cells in legal:
            if t == tile and c == color:
                return value if cells >> cell & 1 else None
    return None


def _wrong_move(value: Any, legal: tuple[tuple[int, int, int], ...]) -> Fault:
    """The fault of a bot that answered ``value``, which is not one of the ``legal`` moves."""
    if type(value) is not Move:
        return "invalid", f"returned {_show_value(value)}, not a Move"
    if type(value.color) is int and value.color < 0:
        return "illegal", f"passed while {len(MoveSet(legal))} moves were legal"
    return "illegal", f"returned {_show_move(value)}, not a legal move"


class PreparedBot(NamedTuple):
    """A bot spec resolved once, to be made into a fresh bot game after game (see :func:`prepare_bot`)."""

    spec: BotSpec
    cls: type[Bot]
    #: Every option the bot plays with, its defaults filled in.
    options: dict[str, Any]
    #: ``str(spec)``: the spec as the record writes it.
    text: str
    #: The JSON text of the bot's entry in the record's ``bots`` list after its ``"seat"`` member.
    entry_tail: str

    def __str__(self) -> str:
        return self.text


def prepare_bot(bot: PreparedBot | BotSpec | str) -> PreparedBot:
    """Load and check the bot of a spec (text or :class:`BotSpec`) once; a :class:`PreparedBot` is kept as it is.

    Raises :class:`~arena.bots.BotError` for a bot that cannot be loaded or options it does not take.
    """
    if isinstance(bot, PreparedBot):
        return bot
    spec = bot if isinstance(bot, BotSpec) else parse_bot_spec(bot)
    options = bot_options(spec)
    text = str(spec)
    tail = records.dumps_line({"spec": text, "options": options})[1:]
    return PreparedBot(spec, load_bot(spec), options, text, tail)


class Referee:
    """Plays games one after another under one guard: its clock, its stdout sink and its Ctrl-C handling.

    ::

        with Referee(time_limit=2.0) as referee:
            outcome = referee.play(["greedy", "random", "random"], seed=7)

    ``time_limit`` is per call into a bot, in seconds (``math.inf`` for none).
    The timer and signal handlers are set when the block is entered and given
    back when it is left, so a tournament worker sets them once for many
    games.  With ``isolate=True`` every bot runs in its own process (see the
    module docstring); that cannot be used inside a daemonic process such as
    a pool worker.  :func:`play_game` plays a single game in a Referee of its own.
    """

    def __init__(self, time_limit: float = DEFAULT_TIME_LIMIT, *, isolate: bool = False) -> None:
        if not (isinstance(time_limit, (int, float)) and not isinstance(time_limit, bool) and time_limit > 0):
            raise ValueError(f"the time limit must be a positive number of seconds, not {time_limit!r}")
        self.time_limit = float(time_limit)
        self.isolate = isolate
        self._guard: _Guard | None = None
        self._inline = False

    def __enter__(self) -> Self:
        if self._guard is not None:
            raise RuntimeError("this Referee is already in use")
        in_main = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
        guard = _Guard(self.time_limit) if in_main else _ThreadGuard(self.time_limit)
        guard.__enter__()
        self._guard = guard
        # In the main thread, with bots in this process, the guard's call is written out in
        # the game loop: a function call and a tuple per move are a good part of its cost.
        self._inline = in_main and not self.isolate
        return self

    def __exit__(self, *exc: object) -> None:
        guard, self._guard = self._guard, None
        if guard is not None:
            guard.__exit__(*exc)

    def play(
        self,
        bots: Sequence[PreparedBot | BotSpec | str],
        seed: int,
        *,
        scoring: str = "uptown",
        penalty: str = "color",
        names: Sequence[str] | None = None,
        extra: Mapping[str, Any] | None = None,
        on_move: Callable[[GameState, Move], None] | None = None,
    ) -> GameOutcome:
        """Play one game: seat ``i`` is played by a fresh bot made from ``bots[i]``.

        The deal comes from ``seed`` (:func:`arena.rules.deal`); each bot gets
        ``derived_random("uptown-bot/1", seed, seat)`` as its generator.
        ``names`` are the players' names in the record (default: the spec texts);
        ``extra`` keys are added to the record after the referee's own.
        ``on_move(state, move)`` is called after every move, passes included.

        Raises ValueError for a bad number of bots, settings, names or seed,
        and :class:`~arena.bots.BotError` for a bot that cannot be loaded.
        """
        guard = self._guard
        if guard is None:
            raise RuntimeError("a Referee plays games inside its with block")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"a seed is an integer, not {seed!r}")
        settings = _settings(len(bots), scoring, penalty)
        players = [prepare_bot(bot) for bot in bots]
        names = [p.text for p in players] if names is None else [str(name) for name in names]
        if len(names) != len(players):
            raise ValueError(f"{len(players)} bots need {len(players)} names, not {len(names)}")
        clash = set(extra or ()) & set(RECORD_KEYS)
        if clash:
            raise ValueError(f"extra key(s) {', '.join(sorted(clash))} are written by the referee")

        state = GameState(settings, _deal(seed, settings))
        time_limit = self.time_limit
        isolate = self.isolate
        inline = self._inline
        n = len(players)
        seats: list[Any] = []
        # chooses[seat] is the bot's choose, for the written-out call (in process, main thread);
        # asks[seat] otherwise answers a view with (value, seconds, fault).  Both are None
        # until the seat's bot is made at its first turn, and again once it has faulted.
        asks: list[Any] = [None] * n
        chooses: list[Any] = [None] * n
        started = [False] * n
        faulted = [False] * n
        fallback: list[Any] = [None] * n
        seconds = [0.0] * n
        faults: list[dict[str, Any]] = []

        def fault(seat: int, index: int, kind: str, message: str) -> None:
            faults.append({"seat": seat, "move": index, "kind": kind, "message": message})
            faulted[seat] = True
            asks[seat] = chooses[seat] = None
            fallback[seat] = derived_random(FALLBACK_STREAM, seed, seat)
            log.info("seat %d (%s) faulted at move %d: %s: %s", seat, names[seat], index, kind, message)
            seats[seat].close()

        def make(seat: int, index: int) -> None:
            """Make the seat's bot at its first turn (and fault the seat when that fails)."""
            started[seat] = True
            elapsed, problem = seats[seat].start()
            seconds[seat] += elapsed
            if problem is not None:
                fault(seat, index, problem[0], "while starting: " + problem[1])
                return
            if inline:
                chooses[seat] = seats[seat].bot.choose
            else:
                asks[seat] = seats[seat].ask

        # sys.stdout is the sink from a bot's first call to the end of the game (put back
        # around on_move), and set again before every call in case a bot changed it.
        stdout = sys.stdout
        try:
            for seat, player in enumerate(players):
                if isolate:
                    seats.append(_IsolatedSeat(player.spec, seat, settings, player.options, seed, time_limit))
                else:
                    seats.append(_Seat(guard, player.cls, seat, settings, player.options, seed))

            # The parts of the views.  The state's lists change in place and are copied into
            # tuples for every view; the captures change only with a capture, so their copy
            # is made again only then (and after every move when on_move may change the state).
            history = state.history
            boards = state.boards
            racks = state.racks
            drawn = state.drawn
            played_tiles = state.played_tiles
            captures = state.captures
            seat_colors = settings.seat_colors
            # With one color a seat (3-5 players) a move is checked against that color's rack
            # and the cells open to the seat; with two, against the legal moves one by one.
            rack_color = [colors[0] for colors in seat_colors] if len(seat_colors[0]) == 1 else None
            legal_moves = state.legal_moves
            push = state.push
            timeout = ("timeout", guard.timeout_message)
            captures_seen = tuple(map(tuple, captures))

            while not state.over:
                seat = state.to_move
                moves = legal_moves()
                legal = moves.options  # the referee's own: the bot may change the MoveSet it is given
                choose = chooses[seat]
                if not legal:
                    move = PASS  # M6, without asking the bot
                elif choose is not None:
                    # The seat's view, and _Guard.call written out.
                    if rack_color is not None:
                        mine = rack_color[seat]
                        own = {mine: tuple(racks[mine])}
                        # Read before the bot could change it; legal_moves always sets it.
                        open_cells: int = moves.open_cells  # type: ignore[assignment]
                    else:
                        own = {c: tuple(racks[c]) for c in seat_colors[seat]}
                    view = _tuple_new(SeatView, (
                        settings, seat, seat, False, tuple(boards), own, tuple(drawn), tuple(played_tiles),
                        captures_seen, tuple(history), state.passes, moves,
                    ))
                    if sys.stdout is not _SINK:
                        sys.stdout = _SINK
                    start = perf_counter()
                    try:
                        try:
                            guard.started = start
                            value = choose(view)
                            guard.started = 0.0
                            elapsed = perf_counter() - start
                            problem = None if elapsed <= time_limit else timeout
                        except BaseException as exc:
                            guard.started = 0.0
                            elapsed = perf_counter() - start
                            value, problem = None, guard._fault(exc)
                    except BotTimeout:  # the alarm landed in the handler above
                        guard.started = 0.0
                        elapsed = perf_counter() - start
                        value, problem = None, timeout
                    seconds[seat] += elapsed
                    # Is it legal?  Only exact ints are compared, so no code of the bot runs
                    # here, and the immutable move can be played as it is.
                    move = None
                    if problem is None and type(value) is Move:
                        color, tile, cell = value
                        if type(cell) is int and type(tile) is int and type(color) is int and cell >= 0:
                            if rack_color is not None:
                                # A tile of the seat's rack, onto a cell open to the seat that it fits.
                                if color == mine and tile in racks[mine] and (FITS[tile] & open_cells) >> cell & 1:
                                    move = value
                            else:
                                for c, t, cells in legal:
                                    if t == tile and c == color:
                                        if cells >> cell & 1:
                                            move = value
                                        break
                    if move is None:
                        fault(seat, len(history), *(problem or _wrong_move(value, legal)))
                        move = MoveSet(legal).choice(fallback[seat])
                elif not started[seat]:
                    make(seat, len(history))
                    continue  # the same turn again, with the bot made (or the seat faulted)
                elif faulted[seat]:
                    move = moves.choice(fallback[seat])
                else:
                    # A bot in a process of its own, or a guard in another thread.
                    value, elapsed, problem = asks[seat](SeatView.of(state, seat, moves))
                    seconds[seat] += elapsed
                    move = _legal_or_none(value, legal) if problem is None else None
                    if move is None:
                        fault(seat, len(history), *(problem or _wrong_move(value, legal)))
                        move = MoveSet(legal).choice(fallback[seat])
                if push(move) >= 0 or on_move is not None:
                    captures_seen = tuple(map(tuple, captures))
                    if on_move is not None:
                        sys.stdout = stdout
                        on_move(state, move)
                        stdout = sys.stdout

            result = state.result()
            for seat in range(n):
                if started[seat] and not faulted[seat] and seats[seat].listens():
                    # Each bot gets its own copy of the result: one cannot change another's.
                    elapsed, problem = seats[seat].tell(state.result())
                    seconds[seat] += elapsed
                    if problem is not None:
                        log.warning("seat %d (%s) failed in game_over (ignored): %s: %s", seat, names[seat], *problem)
        finally:
            sys.stdout = stdout
            for player in seats:
                player.close()

        return GameOutcome(
            state, result, faults, seconds, {seat for seat in range(n) if faulted[seat]}, names, seed,
            players, time_limit, extra,
        )


def play_game(
    specs: Sequence[PreparedBot | BotSpec | str],
    seed: int,
    *,
    scoring: str = "uptown",
    penalty: str = "color",
    time_limit: float = DEFAULT_TIME_LIMIT,
    names: Sequence[str] | None = None,
    extra: Mapping[str, Any] | None = None,
    on_move: Callable[[GameState, Move], None] | None = None,
    isolate: bool = False,
) -> GameOutcome:
    """Play one game in a :class:`Referee` of its own; the arguments are those of :meth:`Referee.play`.

    Raises ValueError for a bad number of bots, settings, names, seed or time
    limit, and :class:`~arena.bots.BotError` for a bot that cannot be loaded.
    """
    with Referee(time_limit, isolate=isolate) as referee:
        return referee.play(specs, seed, scoring=scoring, penalty=penalty, names=names, extra=extra, on_move=on_move)
