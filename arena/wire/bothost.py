"""Run a Python bot as a bot program: ``python -m arena.wire.bothost REF``.

The referee starts it isolated (``python -I``, see :func:`arena.play.botprocess.host_command`), so
that no folder of the user's can stand in for the arena it imports.

``REF`` is an entry-point name, ``package.module:Name`` or
``path/to/file.py:Name``, as in a bot spec; the options it plays with come in
each ``game`` message.  The options given to it (``key=value,...`` in the
environment variable ``ARENA_BOT_OPTIONS``) are checked against the class's
declarations (its ranges and its ``check_options``) before it answers
``hello``, so bad ones stop it before any game.  The bot is loaded here, in a fresh interpreter
inside the sandbox, never in the referee; this module speaks
``uptown-bot/1`` for it (``docs/reference/protocol.md``) and hands it the same
:class:`~arena.rules.view.SeatView` it would get in-process, rebuilt from
each ``turn`` message.  A bot that plays the same in-process and here gives
the same game record.

The bot's ``print`` goes to standard error (the bot's log): standard output
carries only protocol lines.
"""

from __future__ import annotations

import fcntl
import gc
import json
import os
import random
import signal
import struct
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from typing import Any

from arena.api import Bot
from arena.api.options import declared_options, defaults
from arena.faults import Fault, FaultKind, describe_failure, fault_of, show_value
from arena.plugins import BotError, check_given, description, load_bot, split_bot_spec
from arena.plugins.loading import import_class
from arena.rules import Move, SeatResult, SeatView
from arena.wire import protocol

#: The environment variable with the options a bot is given, for its host to check before its handshake.
OPTIONS_VARIABLE = "ARENA_BOT_OPTIONS"

_encode = json.JSONEncoder(ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode

_fast_loads: Callable[[bytes], Any]
try:
    # orjson reads a turn line in about half the time of json.loads (docs/explanation/speed.md).
    from orjson import loads as _fast_loads
except ImportError:  # an optional speed-up: the standard library reads the same lines
    _fast_loads = json.loads

#: How the referee starts a turn line.
_TURN = b'{"type":"turn",'
#: Bytes asked of standard input at a time: a turn line (2-3 KB, a few tens at most) fits many times over.
_READ = 1 << 16


def parse(line: bytes) -> Any:
    """A line from the referee as Python values, the same as ``json.loads`` gives."""
    try:
        return _fast_loads(line)
    except ValueError:
        # What orjson refuses and the standard library reads (an integer past 64 bits in a bot's options).
        return json.loads(line)


class TurnLines:
    """Reads a game's turn lines, each history entry once.

    A turn line repeats the whole history, which grows by an entry a move, and it is about half the
    line by the end of a game.  What was read of it is kept as the referee wrote it: when a line's
    history starts with those bytes, only the rest is parsed.  Any other line is parsed whole.
    """

    _START, _END = b'"history":[', b'],"passes":'

    def __init__(self, reader: protocol.ViewReader) -> None:
        self.reader = reader
        #: The history as the last line wrote it, all of it in the reader (None: not known).
        self.known: bytes | None = b""

    def view(self, line: bytes) -> SeatView:
        """The seat's view in a turn line."""
        start = line.find(self._START) + len(self._START)
        end = line.find(self._END, start)
        if start < len(self._START) or end < 0:
            self.known = None
            return self.reader.view(parse(line))
        known = self.known
        new = b"" if known is None else line[start + len(known):end]
        if known is None or not line.startswith(known, start) or (known and new and not new.startswith(b",")):
            self.known = line[start:end]
            return self.reader.view(parse(line))
        self.known = line[start:end]
        if known:
            new = new[1:]
        return self.reader.view(parse(line[:start] + line[end:]), parse(b"[" + new + b"]") if new else ())


class Input:
    """The referee's lines on a descriptor, read in large pieces.

    Between turns the host sleeps in ``sigwaitinfo`` for the ``SIGIO`` its pipe raises when the referee
    writes (``O_ASYNC``), not in ``read``: the cgroup freezer stops a task asleep in ``sigwaitinfo`` where
    it sleeps, while one asleep in ``read`` is woken to be frozen and woken again once thawed.  The
    signal is sent to the thread that makes the Input alone, so no other thread (the bot's own, a
    library's) can take it.  Where that cannot be set up, it reads as any program does.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.signalled = _signal_on_input(fd)

    def lines(self) -> Iterator[bytes]:
        """Each line, its newline included, until the referee closes the pipe (a last line without one too)."""
        pending = b""
        while True:
            end = pending.find(b"\n")
            while end >= 0:
                yield pending[:end + 1]
                pending = pending[end + 1:]
                end = pending.find(b"\n")
            chunk = self.read()
            if not chunk:
                if pending:
                    yield pending
                return
            pending += chunk

    def read(self) -> bytes:
        """What the pipe holds, once it holds something; empty at its end."""
        if not self.signalled:
            return os.read(self.fd, _READ)
        while True:
            try:
                return os.read(self.fd, _READ)
            except BlockingIOError:
                # Whatever reaches the pipe after this read (a line, its end) raises SIGIO, kept pending
                # (blocked) until taken here.  The pipe is always read before a wait: signals that came
                # together are one.
                signal.sigwaitinfo(_SIGIO)


_SIGIO = {signal.SIGIO}
#: fcntl's F_SETOWN_EX and its owner kind F_OWNER_TID (Linux's numbers; Python's fcntl names neither).
_F_SETOWN_EX, _F_OWNER_TID = 15, 0


def _signal_on_input(fd: int) -> bool:
    """Make ``fd`` raise SIGIO in this thread when it can be read, blocked (so that it stays pending for
    ``sigwaitinfo``) and ignored (a bot's code that unblocks it is not killed by it), and never block a read;
    False, with ``fd`` as it was, where the system does not allow it."""
    try:
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    except OSError:
        return False
    handler = signal.getsignal(signal.SIGIO)
    try:
        signal.signal(signal.SIGIO, signal.SIG_IGN)  # Linux keeps an ignored signal pending while it is blocked
        signal.pthread_sigmask(signal.SIG_BLOCK, _SIGIO)
        # To this thread, not the process: the kernel hands a signal sent to the process to a thread that
        # does not block it, and this one blocks it but while it waits.  A thread of the bot's that took
        # it would drop it (ignored), and this one would sleep on with a line in the pipe.
        fcntl.fcntl(fd, _F_SETOWN_EX, struct.pack("ii", _F_OWNER_TID, threading.get_native_id()))
        fcntl.fcntl(fd, fcntl.F_SETFL, flags | os.O_ASYNC | os.O_NONBLOCK)
    except (OSError, ValueError):
        fcntl.fcntl(fd, fcntl.F_SETFL, flags)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGIO)
        signal.signal(signal.SIGIO, handler)
        return False
    return True


class _Host:
    def __init__(self, ref: str, out: int, given: str = "") -> None:
        self.ref = ref
        self.out = out
        self.cls: type[Bot] | None = None
        self.problem = ""
        try:
            split_ref, inline = split_bot_spec(ref)
            if inline:
                raise BotError(ref, "give the bot without options: they come with each game")
            cls = _load_class(split_ref)
            # Also with nothing given: the defaults go through check_options, which may refuse the bot
            # outright (a missing extra), before its handshake rather than at its first game.
            check_given(cls, split_ref, split_bot_spec(f"{split_ref}:{given}")[1] if given else {})
            self.cls = cls
        except BotError as exc:
            # The reason alone: the referee names the bot as its user wrote it.
            self.problem = exc.reason
        self.bot: Bot | None = None
        self.failed: Fault | None = None
        self.reader: TurnLines | None = None

    def write(self, data: bytes) -> None:
        while data:
            data = data[os.write(self.out, data):]

    def send(self, message: dict[str, Any]) -> None:
        self.write((_encode(message) + "\n").encode())

    def send_move(self, text: str) -> None:
        """The answer to a turn, written out: a move's text needs no escaping."""
        self.write(b'{"type":"move","move":"' + text.encode() + b'"}\n')

    def hello(self) -> None:
        if self.cls is None:
            self.send({"type": "error", "message": self.problem})
            return
        # Its ref as the user wrote it, shortened to the file's name when the path is too long to declare.
        name = self.ref if len(self.ref) <= protocol.MAX_DECLARED else os.path.basename(self.ref)
        self.send({
            "type": "hello", "protocol": protocol.PROTOCOL, "name": name[:protocol.MAX_DECLARED],
            "description": description(self.cls)[:protocol.MAX_DECLARED],
            **protocol.hello_options(declared_options(self.cls)),
        })

    def game(self, message: dict[str, Any]) -> None:
        start = protocol.read_game(message)
        self.reader = TurnLines(protocol.ViewReader(start))
        self.bot, self.failed = None, None
        assert self.cls is not None
        try:
            bot = self.cls(start.seat, start.settings, {**defaults(declared_options(self.cls)), **start.options},
                           random.Random(start.seed))
        except BaseException as exc:  # noqa: BLE001 - a bot may fail in any way
            self.failed = fault_of(exc, "while starting: ", sys.stderr)
            return
        if not isinstance(bot, Bot):
            self.failed = Fault(FaultKind.INVALID, f"while starting: making the bot gave {type(bot).__name__}, not a Bot")
        else:
            self.bot = bot

    def turn(self, line: bytes) -> None:
        if self.bot is None or self.reader is None:
            kind, text = self.failed or Fault(FaultKind.EXCEPTION, "a turn came before its game")
            self.send({"type": "error", "kind": kind, "message": text})
            return
        view = self.reader.view(line)
        try:
            value = self.bot.choose(view)
        except BaseException as exc:  # noqa: BLE001
            # The whole traceback goes to the bot's log (its standard error); the fault's message is one line.
            kind, text = fault_of(exc, log=sys.stderr)
            self.send({"type": "error", "kind": kind, "message": text})
            self.bot = None
            return
        if type(value) is Move and all(type(part) is int for part in value) and (value.color < 0 or (
                0 <= value.color < 5 and 0 <= value.tile < 28 and 0 <= value.cell < 81)):
            self.send_move(str(value))
        else:
            self.send({"type": "error", "kind": FaultKind.INVALID, "message": f"returned {show_value(value)}, not a Move"})
            self.bot = None

    def over(self, message: dict[str, Any]) -> None:
        if self.bot is None or type(self.bot).game_over is Bot.game_over:
            return
        try:
            rows = [SeatResult(**row) for row in message["result"]]
            self.bot.game_over(rows)
        except BaseException as exc:  # noqa: BLE001
            print(f"game_over failed: {describe_failure(exc)}", file=sys.stderr)
        self.bot = None


def _load_class(ref: str) -> type[Bot]:
    """The bot class of ``ref``.  A ``module:Class`` is imported straight away: the referee has already
    turned an entry point's name into one (:func:`~arena.bots.resolve_ref`), and reading every installed
    distribution's metadata again would be a good part of the host's start.  Anything else, or any
    failure, goes through :func:`~arena.bots.load_bot`, with its diagnosis."""
    try:
        found = import_class(ref)
    except BotError:
        found = None
    return found if found is not None else load_bot(ref)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m arena.wire.bothost REF", file=sys.stderr)
        return 2
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the referee's to handle
    # Standard output is the protocol's alone: anything the bot prints goes to standard error.
    out = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    # The bot's log is for its author: show what their code does that is deprecated (Python hides it).
    warnings.simplefilter("default", DeprecationWarning)
    # The pipe's signal is set up before the bot is imported: what the host waits with is in place before
    # any of the bot's code runs, and every thread that code starts is born with SIGIO blocked.
    source = Input(0)
    host = _Host(argv[0], out, os.environ.pop(OPTIONS_VARIABLE, ""))
    # Each turn parses a few thousand small objects: collect less often than Python's default.
    gc.freeze()
    gc.set_threshold(20000, 20, 20)
    handlers = {"hello": lambda m: host.hello(), "game": host.game, "over": host.over}
    for line in source.lines():
        if line.startswith(_TURN):  # read by the view, a history entry once (TurnLines)
            host.turn(line)
            continue
        message = parse(line)
        kind = message.get("type")
        if kind == "quit":
            break
        if kind == "turn":
            host.turn(line)
            continue
        handler = handlers.get(kind)
        if handler is not None:
            handler(message)
    return 0


if __name__ == "__main__":
    sys.exit(main())
