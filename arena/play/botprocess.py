"""The referee's side of a bot program: start it in the sandbox, talk ``uptown-bot/1``, keep the clock.

A :class:`BotProcess` is one running program.  The referee writes a line
and reads the answer with its own deadline (wall time, from the start of
writing the question to reading the whole answer); it reads only JSON from
the program, at most :data:`~arena.wire.protocol.MAX_LINE` bytes a line, and
never anything else.  It never waits on the program without a deadline:
its end of the program's standard input does not block, and a write the
program does not take in time is late like an answer that does not come.
A program that is late, ends, or breaks the protocol is killed with
everything it started (:meth:`BotProcess.kill`).

Between its turns a program is frozen (:meth:`~arena.isolation.sandbox.Sandboxed.freeze`):
it runs from the moment its turn is written until its answer is read.
"""

from __future__ import annotations

import math
import os
import re
import select
import shlex
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any, TextIO

from arena.errors import ArenaError
from arena.isolation import sandbox
from arena.isolation.forkserver import ARENA_PARENT
from arena.isolation.named import unshown_folders
from arena.play import logshares
from arena.plugins.specs import EXEC_PREFIX
from arena.wire import protocol
from arena.wire.protocol import MAX_LINE, Declared, ProtocolError

# Bytes asked of the pipe at a time: a turn's answer fits many times over, and asking for
# MAX_LINE would make (and zero) a 1 MiB buffer on every read.
_READ = 1 << 16
#: How long a program may take to start and answer ``hello``, on top of the time limit.
STARTUP_SECONDS = 10.0
#: The most one entrant's log may grow to in a run, whatever number of processes wrote it, at once or
#: one after another (each process writes at most its ``Limits.log_mb``, reserved when it starts:
#: :mod:`~arena.play.logshares`): a bot that floods standard error and crashes in every game would
#: otherwise get a fresh share with each new process.
ENTRANT_LOG_MB = 64
#: The most all the logs of one folder (a run's) may hold together.
RUN_LOG_MB = 1024
#: Room in the log for the lines a process's jail adds to its standard error: the line that says the rest
#: is dropped, or the jail's own line on why it could not start the program.
JAIL_LINES = 8 << 10
#: What the log says of a process that finds its entrant's share or the folder's spent.
LOG_FULL = ("--- arena: no room left in this log's share ({mb} MiB a log, {run} MiB the folder's logs): "
            "the standard error of this process is dropped ---\n")
#: How long a program that was told to quit gets before it is killed; also how long it has to take
#: the ``over`` and ``quit`` lines into its input.
QUIT_SECONDS = 0.2


#: A line of a program's standard error that says what went wrong (``Error: Cannot find module ...``,
#: ``ValueError: ...``, ``thread 'main' panicked``, ``error[E0425]``).
_ERROR_LINE = re.compile(r"\b\w*(?:Error|Exception)\b|\berror\b|\bpanicked\b", re.IGNORECASE)
#: Words of a program that ran out of memory (the JVM's "insufficient memory", C's ENOMEM, Python's MemoryError,
#: Go's "out of memory", Node's "heap out of memory").
_MEMORY_WORDS = re.compile(r"memory|cannot allocate|\bENOMEM\b", re.IGNORECASE)
#: How much of a program's standard output a failed start shows (its first lines), and how long the referee
#: waits for them.
SHOWN_OUTPUT = 400
OUTPUT_SECONDS = 1.0


class BotProcessError(ArenaError, RuntimeError):
    """A program that cannot be used as a bot; the message is one line."""


class Late(Exception):
    """No answer within the time."""


class Ended(Exception):
    """The program's output ended: it exited or was killed."""


@dataclass(frozen=True)
class Program:
    """How to start one bot program: its command, the folder it starts in, what it adds to the
    environment, and its limits.  Plain data, checked once."""

    command: tuple[str, ...]
    cwd: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    limits: sandbox.Limits = field(default_factory=sandbox.Limits)
    #: How it is shown in messages, when not as its command.
    shown: str = field(default="", compare=False)
    #: Its own files that its command does not name (a module bot's, from the working folder).
    files: tuple[str, ...] = ()
    #: The bot's ref, when the command is the Python bot host's (:func:`host_command`).
    host: str | None = None

    @property
    def text(self) -> str:
        """The program as one line: its command as shell words, unless it has a shorter name."""
        return self.shown or shlex.join(self.command)




def host_command(ref: str) -> tuple[str, ...]:
    """The command of the bot host for ``ref``: this interpreter, isolated (``-I``: neither the working
    folder, ``PYTHONPATH`` nor the user's site-packages on its import path), importing the arena the
    referee runs (the same code, and the same compiled engine) from :data:`ARENA_PARENT`."""
    code = (f"import sys; sys.path.insert(0, {ARENA_PARENT!r}); "
            "from arena.wire.bothost import main; sys.exit(main())")
    return (sys.executable, "-I", "-c", code, ref)


def python_program(ref: str, limits: sandbox.Limits | None = None) -> Program:
    """The program that runs the Python bot ``ref`` (an entry point, ``module:Name`` or ``file.py:Name``)
    in a fresh interpreter under the bot host (:func:`host_command`).

    A ``file.py:Name`` is named by its absolute path and starts in the file's folder; a
    ``module:Name`` starts in the current folder, where its host finds the module after
    everything installed, as the referee does (:mod:`arena.plugins.loading`); an entry point starts in its
    private home.
    """
    where, colon, attr = ref.rpartition(":")
    cwd: str | None = None
    files: tuple[str, ...] = ()
    if colon and where.endswith(".py"):
        where = os.path.abspath(where)
        ref = f"{where}:{attr}"
        cwd = os.path.dirname(where) if os.path.isdir(os.path.dirname(where)) else None
    elif colon:
        cwd = os.getcwd()
        # A module of the working folder (not installed): its host is shown that module or package.
        top = where.partition(".")[0]
        files = tuple(path for path in (os.path.join(cwd, top + ".py"), os.path.join(cwd, top))
                      if os.path.exists(path))
    return Program(host_command(ref), cwd=cwd, limits=limits or sandbox.Limits(), shown=f"arena.wire.bothost {ref}",
                   files=files, host=ref)


def exec_program(ref: str, limits: sandbox.Limits | None = None) -> Program:
    """The program of an ``exec:COMMAND`` ref; a relative command path is taken from the current folder."""
    try:
        words = shlex.split(ref[len(EXEC_PREFIX):])
    except ValueError as exc:
        raise BotProcessError(f"bot {ref!r}: the command cannot be read: {exc}") from None
    if not words:
        raise BotProcessError(f"bot {ref!r}: no command after {EXEC_PREFIX}")
    return Program(tuple(words), cwd=os.getcwd(), limits=limits or sandbox.Limits())


def _check_command(program: Program) -> None:
    """A one-line error for a command that cannot run at all, before a sandbox is made for it."""
    name = program.command[0]
    cwd = program.cwd or os.getcwd()
    if "/" in name:
        path = os.path.join(cwd, name)
        if not os.path.exists(path):
            raise BotProcessError(f"{program.text}: {name} does not exist (read from the folder {cwd})")
        if os.path.isdir(path) or not os.access(path, os.X_OK):
            raise BotProcessError(f"{program.text}: {name} is not an executable file")
    elif shutil.which(name, path=dict(program.env).get("PATH", sandbox.PATH)) is None:
        raise BotProcessError(f"{program.text}: no program {name!r} on the bots' PATH ({sandbox.PATH})")


class BotProcess:
    """A running bot program.  ``log`` is the file its standard error is appended to (None: discarded);
    ``hide`` are paths it must not see."""

    def __init__(self, program: Program, *, log: str | None = None, hide: tuple[str, ...] = (),
                 transcript: TextIO | None = None, cpu: int | None = None) -> None:
        self.program = program
        #: The CPU it runs on (None: any).
        self.cpu = cpu
        self.log = log
        #: Where every line to and from the program is copied (``> `` sent, ``< `` read), or None.
        self.transcript = transcript
        #: Who the program is in the transcript: its command, then the seat it plays.
        self.label = program.text
        self.hide = hide
        self.declared: Declared | None = None
        #: The seeds of the deals it has played (a process never plays two games of one deal).
        self.deals: set[int] = set()
        self._box: sandbox.Sandboxed | None = None
        self._buffer = bytearray()
        self._poll: Any = None
        self._write_poll: Any = None
        self._in = self._out = -1
        self._log_start = 0
        self._reserved: logshares.Reservation | None = None
        self._launched = 0.0

    @property
    def walls(self) -> str:
        return self._box.walls if self._box is not None else "not started"

    @property
    def alive(self) -> bool:
        """Started, not killed, and its process still running."""
        return self._box is not None and self._box.process.poll() is None

    def start(self, time_limit: float) -> Declared:
        """Start the program and shake hands; :class:`BotProcessError` (one line) if it cannot be used."""
        self.launch()
        return self.handshake(time_limit)

    def launch(self) -> None:
        """Start the program and say hello, without waiting for the answer (see :meth:`handshake`),
        so that several programs can start at once."""
        program = self.program
        _check_command(program)
        log_fd, left = self._open_log()
        try:
            self._box = sandbox.start(
                list(program.command),
                sandbox.StartOptions(cwd=program.cwd, env=dict(program.env), limits=program.limits, hide=self.hide,
                                     stderr=log_fd, cpu=self.cpu, show=program.files, log_bytes=left,
                                     host=program.host),
            )
        except sandbox.SandboxError as exc:
            self._give_back()
            raise BotProcessError(f"{program.text}: {exc}") from None
        except BaseException:
            self._give_back()
            raise
        finally:
            if log_fd is not None:
                os.close(log_fd)
        process = self._box.process
        assert process.stdin is not None and process.stdout is not None
        self._in, self._out = process.stdin.fileno(), process.stdout.fileno()
        # Never blocked by a program that does not read: a write takes what the pipe has room for.
        os.set_blocking(self._in, False)
        self._poll = select.poll()
        self._poll.register(self._out, select.POLLIN)
        self._write_poll = select.poll()
        self._write_poll.register(self._in, select.POLLOUT)
        self._buffer.clear()
        self._launched = perf_counter()
        try:
            self.send(protocol.HELLO_LINE, self._launched + STARTUP_SECONDS)
        except (Ended, Late):
            pass  # seen by the handshake: no answer comes

    def handshake(self, time_limit: float) -> Declared:
        """Read the answer to hello (within :data:`STARTUP_SECONDS` plus the limit of the launch);
        the program is frozen once it has answered."""
        program = self.program
        limit = min(time_limit, STARTUP_SECONDS)
        line, parsed = b"", False
        try:
            line = self.read_line(self._launched + STARTUP_SECONDS + limit)
            self.freeze()
            hello = protocol.parse_line(line)
            parsed = True
            self.declared = protocol.read_hello(hello)
        except Late:
            walls = self.walls
            self.kill()
            tail = self.stderr_tail()
            said = f"; its last words: {tail}{self.log_path_hint()}" if tail else "; it wrote nothing to its standard error"
            raise BotProcessError(f"{program.text}: no answer to hello within {STARTUP_SECONDS + limit:g} s"
                                  f"{said}{self._start_notes(tail, walls)}") from None
        except Ended:
            walls = self.walls
            why = self.ended_text(whole_path=True)
            self.kill()
            # Its own words, unless the kernel already said it ran out of its memory.
            words = self.stderr_tail() if "memory limit" not in why else ""
            raise BotProcessError(f"{program.text}: ended before answering hello: {why}"
                                  f"{self._start_notes(words, walls)}") from None
        except protocol.Refused as exc:
            self.kill()
            raise BotProcessError(str(exc)) from None
        except ProtocolError as exc:
            if parsed:  # a JSON object, but not a hello the protocol takes
                self.kill()
                raise BotProcessError(f"{program.text}: {exc}") from None
            # Not the protocol at all: a runtime that failed to start says why on standard output too (the
            # JVM's "There is insufficient memory ..."), so its first lines are shown, with its standard error.
            walls, began = self.walls, self._first_output(line)
            self.kill()
            tail = self.stderr_tail()
            said = f"; its standard output began: {began}" if began else ""
            said += f"; its last words: {tail}{self.log_path_hint()}" if tail else "; it wrote nothing to its standard error"
            raise BotProcessError(f"{program.text}: {exc}{said}{self._start_notes(began + tail, walls)}") from None
        return self.declared

    def _first_output(self, line: bytes) -> str:
        """The first lines the program wrote to its standard output, from ``line`` on: what it has written by
        the time it ends, :data:`SHOWN_OUTPUT` bytes come or :data:`OUTPUT_SECONDS` pass (it runs meanwhile)."""
        data = bytearray(line + self._buffer)
        self._buffer.clear()
        self.thaw()
        deadline = perf_counter() + OUTPUT_SECONDS
        while len(data) < SHOWN_OUTPUT and (left := deadline - perf_counter()) > 0:
            if not self._poll.poll(left * 1000.0 + 0.5):
                break
            try:
                chunk = os.read(self._out, _READ)
            except OSError:
                break
            if not chunk:
                break
            data += chunk
        text = bytes(data[:SHOWN_OUTPUT]).decode("utf-8", "replace")
        lines = [protocol.bot_text(found, SHOWN_OUTPUT) for found in text.splitlines() if found.strip()]
        return protocol.bot_text(" | ".join(lines), SHOWN_OUTPUT)

    def _start_notes(self, words: str, walls: str) -> str:
        """What a failed start's message adds to the program's own ``words`` (what it wrote): its memory limit
        when they speak of memory, and, in a fresh root (``walls``), the folders its command names that it was
        not shown."""
        program, said = self.program, ""
        if _MEMORY_WORDS.search(words):
            said += f"; its memory limit is {program.limits.memory_mb} MiB (memory_mb in a tournament file)"
        if walls.startswith(("jail", "userns")):
            for path, why in unshown_folders(list(program.command), program.cwd):
                said += f"; its command names the folder {path}, which it is not shown ({why}: a bot sees only " \
                        "the files its command names there): "
                said += (f"run from {os.path.dirname(path)} and name the folder {os.path.basename(path)}, or name "
                         "its files") if os.path.basename(path) else "name its files"
        return said

    def freeze(self) -> None:
        """Stop the program until :meth:`thaw`: nothing it runs takes CPU from a bot that thinks."""
        if self._box is not None:
            self._box.freeze()

    def thaw(self) -> None:
        if self._box is not None:
            self._box.thaw()

    def ask(self, data: bytes, deadline: float) -> bytes:
        """One round trip: thaw the program, write ``data`` and read its answer line, both before
        ``deadline``, and freeze it again.  :class:`Late`, :class:`Ended` or a :class:`ProtocolError`."""
        self.thaw()
        self.send(data, deadline)
        line = self.read_line(deadline)
        self.freeze()
        return line

    def tell(self, data: bytes) -> None:
        """Write ``data``, which needs no answer, within :data:`QUIT_SECONDS`; the program is frozen
        again afterwards.  :class:`Late` or :class:`Ended`."""
        self.thaw()
        self.send(data, perf_counter() + QUIT_SECONDS)
        self.freeze()

    def send(self, data: bytes, deadline: float) -> None:
        """Write ``data`` (whole lines) before ``deadline`` (``perf_counter``): :class:`Late` when the
        program has not taken all of it by then, :class:`Ended` when it no longer reads."""
        if self.transcript is not None:
            for line in data.decode().splitlines():
                self.transcript.write(f"[{self.label}] > {line}\n")
        view = memoryview(data)
        while True:
            try:
                view = view[os.write(self._in, view):]
            except BlockingIOError:
                pass  # the pipe is full: wait below for the program to read
            except OSError:
                raise Ended from None
            if not view:
                return
            left = deadline - perf_counter()
            if left <= 0:
                raise Late
            self._write_poll.poll(None if left == math.inf else left * 1000.0 + 0.5)

    def read_line(self, deadline: float) -> bytes:
        """The next whole line before ``deadline`` (``perf_counter``)."""
        buffer = self._buffer
        while True:
            end = buffer.find(b"\n")
            if end >= 0:
                line = bytes(buffer[:end + 1])
                del buffer[:end + 1]
                if self.transcript is not None:
                    self.transcript.write(f"[{self.label}] < {line.decode('utf-8', 'replace').rstrip()}\n")
                return line
            if len(buffer) >= MAX_LINE:
                raise ProtocolError(f"wrote a line longer than {MAX_LINE} bytes")
            left = deadline - perf_counter()
            if left <= 0:
                raise Late
            if not self._poll.poll(None if left == math.inf else left * 1000.0 + 0.5):
                continue
            try:
                chunk = os.read(self._out, _READ)
            except OSError:
                chunk = b""
            if not chunk:
                raise Ended
            buffer += chunk
            if len(buffer) > MAX_LINE and buffer.find(b"\n", 0, MAX_LINE) < 0:
                raise ProtocolError(f"wrote a line longer than {MAX_LINE} bytes")

    def pending(self) -> bool:
        """Whether the program wrote more than it was asked for, in what has been read so far."""
        return bool(self._buffer)

    def note(self, text: str) -> None:
        """A line of the referee's in the program's log (which game follows)."""
        if self.log is not None:
            try:
                logshares.append(self.log, f"--- arena: {text} ---\n".encode(), log_shares())
            except OSError:
                pass

    def ended_text(self, whole_path: bool = False) -> str:
        """How the program ended and the last lines of its standard error, for a fault message (with
        ``whole_path``, before any game, the log's whole path rather than its name)."""
        box = self._box
        if box is None:
            return "not running"
        box.wait(1.0)
        text = box.exit_text()
        tail = self.stderr_tail()
        if tail:
            text += f"; its last words: {tail}"
        return text + (self.log_path_hint() if whole_path else self.log_hint())

    def log_hint(self) -> str:
        """`` (log: NAME.log)`` for a fault message: the file's name only, so records do not depend on folders."""
        return f" (log: {os.path.basename(self.log)})" if self.log is not None else ""

    def log_path_hint(self) -> str:
        """`` (its standard error: PATH)`` for an error before any game, where the log's whole path helps."""
        return f" (its standard error: {os.path.abspath(self.log)})" if self.log is not None else ""

    def stderr_tail(self, lines: int = 3) -> str:
        """The last lines the program wrote to its standard error since it started."""
        if self.log is None:
            return ""
        try:
            with open(self.log, "rb") as log:
                size = log.seek(0, os.SEEK_END)
                start = max(self._log_start, size - 4096)
                log.seek(start)
                data = log.read()
        except OSError:
            return ""
        found = [line.strip() for line in data.decode("utf-8", "replace").splitlines() if line.strip()]
        found = [line for line in found if not line.startswith("--- arena:")]
        last = found[-lines:]
        # A runtime that ends with its own epilogue (Node.js: the error object's fields, then its version)
        # pushes the line that says what went wrong out of the tail: that line comes first.
        errors = [line for line in found[:-lines] if _ERROR_LINE.search(line)]
        shown = [errors[-1], "...", *last] if errors else last
        return " | ".join(protocol.bot_text(line, 160) for line in shown)

    def _open_log(self) -> tuple[int | None, int | None]:
        """The log open for the program's standard error and the bytes it may write there, reserved from
        the shares (:func:`log_shares`); (None, None) without a log, (None, 0) when its share is spent."""
        if self.log is None:
            return None, None
        try:
            self._log_start = os.path.getsize(self.log)
        except OSError:
            self._log_start = 0
        self._reserved = logshares.reserve(self.log, self.program.limits.log_mb << 20, log_shares(), JAIL_LINES)
        if self._reserved.bytes <= 0:  # a line a process while it fits, as the referee's own notes
            logshares.append(self.log, LOG_FULL.format(mb=ENTRANT_LOG_MB, run=RUN_LOG_MB).encode(), log_shares())
            return None, 0
        try:
            return os.open(self.log, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600), self._reserved.bytes
        except BaseException:
            self._give_back()
            raise

    def _give_back(self) -> None:
        """End the process's grant in its log: what it wrote is counted in the log's size from now on."""
        reserved, self._reserved = self._reserved, None
        if reserved is not None:
            reserved.give_back()

    def stop(self) -> None:
        """Ask the program to quit, then kill what is left of it (within about :data:`QUIT_SECONDS`)."""
        stop_all([self])

    def _quit(self, deadline: float) -> bool:
        """Thaw the program and write ``quit`` before ``deadline``; whether it was written."""
        if self._box is None:
            return False
        self._box.thaw()
        try:
            self.send(protocol.QUIT_LINE, deadline)
        except (Ended, Late):
            return False
        return True

    def kill(self) -> None:
        """Kill the program and everything it started."""
        box, self._box = self._box, None
        if box is not None:
            box.kill()
        self._buffer.clear()
        self._give_back()


def log_shares() -> logshares.Shares:
    """The shares of a log and of its folder, read when used (:data:`ENTRANT_LOG_MB`, :data:`RUN_LOG_MB`)."""
    return logshares.Shares(ENTRANT_LOG_MB << 20, RUN_LOG_MB << 20)


def stop_all(processes: Sequence[BotProcess]) -> None:
    """:meth:`BotProcess.stop` for many at once: every one told to quit, then all given the same
    :data:`QUIT_SECONDS` to end, then what is left of them killed."""
    deadline = perf_counter() + QUIT_SECONDS
    told = [process for process in processes if process._quit(deadline)]
    for process in told:
        if process._box is not None:
            process._box.wait(max(0.0, deadline - perf_counter()))
    for process in processes:
        process.kill()
