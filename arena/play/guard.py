"""Calling a bot in the referee's own process under the clock (isolation ``none``).

:class:`Guard` (the main thread: an interval timer) and :class:`ThreadGuard`
(other threads: a watchdog) run a bot's call with ``sys.stdout`` silenced,
raise :class:`BotTimeout` inside it when its time is up, and classify what
went wrong as a fault.  :class:`Tripwire` is the audit hook that notices an
in-process bot forking, starting a program or sending a signal.  Bot
programs (isolation ``process``) need none of this: the referee's own wall
clock and the sandbox contain them.
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # what the signal module wraps; typeshed has no stub
import ctypes
import math
import sys
import threading
from collections.abc import Callable
from time import perf_counter
from typing import Any, ClassVar

from arena.faults import Fault, FaultKind, fault_of

# After a timeout, raise again this often while the bot keeps running.
_RETRY = 0.05
# setitimer(0) disarms the timer: never arm it for less than this.
_MIN_ARM = 0.001

class BotTimeout(BaseException):
    """Raised inside a bot's code when its time is up.

    A BaseException, so that ``except Exception`` in a bot does not swallow it.
    """


class Sink:
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


SINK = Sink()


class Guard:
    """Calls into bots with stdout silenced, the clock running and faults classified.

    Main-thread version: one ``ITIMER_REAL`` timer is armed for the whole
    game.  When it fires, the handler raises :class:`BotTimeout` if a bot call
    has passed its deadline, and otherwise re-arms itself for the running
    call's deadline (or a full limit when no bot is running).  So the timer
    never fires later than the deadline of the call in progress, and a move
    costs no system call.
    """

    def __init__(self, limit: float, clocked: bool = False) -> None:
        self.limit = limit
        #: Whether calls may be given limits of their own (a game clock): the timer is then always set up.
        self.clocked = clocked
        #: The limit of the running call (a call under a game clock may have less, or more, than ``limit``).
        self.call_limit = limit
        # Whether a call settles under a lock (ThreadGuard); an attribute of the instance, the quickest read.
        self._threaded = False
        self.timeout_message = f"no move within the time limit of {limit:g} s"
        #: The fault of a call that ran past the limit.
        self.timeout = Fault(FaultKind.TIMEOUT, self.timeout_message)
        #: When the running bot call started (``perf_counter``); 0.0 while no bot runs.
        self.started = 0.0
        #: Set when a real Ctrl-C arrived, so the KeyboardInterrupt is not taken for a bot's.
        self.user_interrupt = False
        #: Whether a KeyboardInterrupt raised by a bot can be told from the user's.
        self.tells_interrupts = False
        self.closed = False
        self._saved: list[tuple[Callable[[], None]]] = []

    # The game's lifetime -------------------------------------------------------

    def __enter__(self) -> Guard:
        # _signal is what the signal module wraps: the same calls, without turning
        # handlers into enums on the way (which costs more than a whole move).
        if math.isfinite(self.limit) or self.clocked:
            old_handler = _signal.signal(_signal.SIGALRM, self._on_alarm)
            first = max(self.limit, _MIN_ARM) if math.isfinite(self.limit) else 0
            old_delay, old_interval = _signal.setitimer(_signal.ITIMER_REAL, first)
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
            remaining = self.started + self.call_limit - perf_counter()
            if remaining <= 0:
                _signal.setitimer(_signal.ITIMER_REAL, _RETRY)
                raise BotTimeout(self.timeout_message)
            if math.isfinite(remaining):
                _signal.setitimer(_signal.ITIMER_REAL, max(remaining, _MIN_ARM))
        elif math.isfinite(self.limit):
            _signal.setitimer(_signal.ITIMER_REAL, max(self.limit, _MIN_ARM))

    def _on_sigint(self, signum: int, frame: Any) -> None:
        self.user_interrupt = True
        raise KeyboardInterrupt

    # One call --------------------------------------------------------------

    def call(self, fn: Callable[[Any], Any], arg: Any, err: Any = None,
             limit: float | None = None) -> tuple[Any, float, Fault | None]:
        """``fn(arg)`` under the clock: (its value, seconds taken, None) or (None, seconds, fault).

        The one timed call into a bot in this process: the game's loop makes every move of an
        in-process bot with it, the in-process seat makes the bot and tells it the result.
        ``sys.stdout`` is the sink from the call on, set again before every call in case a bot
        changed it, and left so between the calls of a game: the game puts it back when it ends
        (and around ``on_move``), for two stores a call are a good part of a move's cost.
        ``err``, when given, stands in for ``sys.stderr`` during the call (the bot's log).
        ``limit``, when given, is this call's own limit in place of the guard's (a turn under a game
        clock: the guard must be ``clocked``).
        """
        if sys.stdout is not SINK:
            sys.stdout = SINK
        if err is not None:
            saved_err = sys.stderr
            sys.stderr = err
        call_limit = self.call_limit = self.limit if limit is None else limit
        if call_limit < self.limit and not self._threaded:
            # The timer is set for the guard's limit: a shorter call needs it sooner (one system call).
            _signal.setitimer(_signal.ITIMER_REAL, max(call_limit, _MIN_ARM))
        start = perf_counter()
        try:
            try:
                self.started = start
                value = fn(arg)
                if self._threaded:
                    self._settle()
                else:  # _settle written out: the call is every in-process move's
                    self.started = 0.0
                elapsed = perf_counter() - start
                if elapsed > call_limit:
                    return None, elapsed, self.timeout
                return value, elapsed, None
            except BaseException as exc:
                self._settle()
                return None, perf_counter() - start, self._fault(exc, err)
        except BotTimeout:  # the alarm landed in the handler above
            self._settle()
            return None, perf_counter() - start, self.timeout
        finally:
            if err is not None:
                sys.stderr = saved_err

    def _settle(self) -> None:
        """The call has returned: a late alarm must no longer fire into the referee."""
        self.started = 0.0

    def _fault(self, exc: BaseException, err: Any = None) -> Fault:
        """The fault an exception from a bot is; its traceback goes to ``err`` (the bot's log) when given."""
        if isinstance(exc, BotTimeout):
            return self.timeout
        if isinstance(exc, KeyboardInterrupt) and (self.user_interrupt or not self.tells_interrupts):
            raise exc
        return fault_of(exc, log=err)


class ThreadGuard(Guard):
    """The guard for threads other than the main one, where signals cannot be used.

    A watchdog thread checks the running call every few milliseconds and
    raises :class:`BotTimeout` in the referee's thread with
    ``PyThreadState_SetAsyncExc``: that stops Python code, not a blocking call.
    """

    def __init__(self, limit: float, clocked: bool = False) -> None:
        super().__init__(limit, clocked)
        self._threaded = True
        self.tells_interrupts = True  # Ctrl-C only ever reaches the main thread
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread_id = threading.get_ident()
        self._raised_at = 0.0

    def __enter__(self) -> ThreadGuard:
        if math.isfinite(self.limit) or self.clocked:
            poll = min(max(self.limit / 20, 0.002), 0.05)
            watchdog = threading.Thread(target=self._watch, args=(poll,), name="arena-referee-watchdog", daemon=True)
            watchdog.start()

            def stop_watchdog() -> None:
                self._stop.set()
                watchdog.join()

            self._saved.append((stop_watchdog,))
        return self

    def _watch(self, poll: float) -> None:
        while not self._stop.wait(poll):
            with self._lock:
                now = perf_counter()
                started = self.started
                if started and now - started > self.call_limit and now - self._raised_at > _RETRY:
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


class Tripped(BaseException):
    """Raised inside an in-process bot that does what only a process of its own may do."""


class Tripwire:
    """For in-process bots (``isolation="none"``): an audit hook that stops a bot's call that forks,
    starts a program or sends a signal, and marks the game to be played again isolated.

    A tripwire, not a wall: code that goes around Python's audit events (ctypes, a C
    extension) is not seen.  Isolation ``process`` is the wall.
    """

    EVENTS: ClassVar[frozenset[str]] = frozenset({
        "os.fork", "os.forkpty", "os.kill", "os.killpg", "os.posix_spawn", "os.spawn", "os.exec", "os.system",
        "subprocess.Popen",
    })
    #: The guard whose bot calls are watched (None: none).
    guard: ClassVar[Guard | None] = None
    #: The first event a bot tripped in the game being played.
    tripped: ClassVar[str] = ""
    _installed: ClassVar[bool] = False

    @classmethod
    def install(cls) -> None:
        if not cls._installed:
            sys.addaudithook(cls._hook)
            cls._installed = True

    @staticmethod
    def _hook(event: str, args: tuple[Any, ...]) -> None:
        guard = Tripwire.guard
        if guard is not None and guard.started and event in Tripwire.EVENTS:
            Tripwire.tripped = Tripwire.tripped or event
            raise Tripped(f"{event} is not allowed in process")
