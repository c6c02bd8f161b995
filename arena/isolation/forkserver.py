"""Start bots by forking a clean interpreter that has imported nothing but the arena's own code.

A bot start through ``python jail.py … -- python -c <bot host>`` runs two interpreters and imports the
arena twice: about 100 ms of CPU before the bot's own code runs.  The *fork server* is one interpreter a
referee process starts once (:func:`server`), which imports the jail (``jail.py``), its seccomp filter,
the Python bot host (:mod:`arena.wire.bothost`, with its JSON parser ``orjson``) and the built-in bots
(``arena_bots``), and then only forks.  Each child is what ``python jail.py`` was: it puts up the same walls in the same order
(:func:`jail.run <arena.isolation.jail.run>`), then execs the bot's command, or, for a Python bot, runs the
bot host in place, which imports the entrant's module inside the walls.

Why nothing of one bot reaches another: the server is exec'd fresh by the referee (none of the referee's
memory, which holds the game), imports only the arena's code, and never parses a request: a request's
bytes land in one buffer (``recvmsg_into``), are read by the child alone, and are zeroed in the server
after each fork, so no child inherits another's settings (its options, its folders).  Every child is
forked from the server, never from another child.  What the children do share with the server, and so
with each other: the arena's modules as imported, Python's hash seed and the address layout (ASLR) —
none of it about a game.

The server is the parent of the jails it starts and tells the referee how each ended: :class:`Forked`
stands for a jail as :class:`subprocess.Popen` did (``pid``, ``stdin``, ``stdout``, ``poll``, ``wait``).  It dies
with its referee (``PR_SET_PDEATHSIG``), and every jail with it, as each did with the referee.
"""

from __future__ import annotations

import marshal
import os
import select
import socket
import subprocess
import sys
import time
from typing import Any

import arena

#: The folder that holds the referee's own ``arena`` package: the bot host and the fork server import it from there.
ARENA_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(arena.__file__)))
#: The largest request: a jail's settings (its binds, its generated /etc files, its environment).
REQUEST_BYTES = 1 << 20
_FDS = 3


class ForkServerError(OSError):
    """The fork server is gone or refused a start."""


class ForkServer:
    """The referee's end of a fork server."""

    def __init__(self, command: list[str]) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        code = f"import sys; sys.path.insert(0, {ARENA_PARENT!r}); from arena.isolation.forkserver import serve; serve({theirs.fileno()})"
        try:
            self.process = subprocess.Popen(
                [*command, "-c", code], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, pass_fds=(theirs.fileno(),), cwd="/", env={"PATH": "/usr/bin:/bin"},
                close_fds=True)
        finally:
            theirs.close()
        self.socket = ours
        self.owner = os.getpid()
        #: The exit statuses (as :func:`os.waitpid` gives them) of jails that have ended, by pid.
        self.ended: dict[int, int] = {}
        self.closed = False

    def spawn(self, settings: dict[str, Any], command: list[str], host: str | None, stderr: int | None) -> Forked:
        """Start ``command`` in the walls of ``settings`` (``host``: the ref a Python bot host runs in place of
        the command), with pipes on its standard input and output and ``stderr`` (None: nothing)."""
        to_bot, ours_in = os.pipe()
        ours_out, from_bot = os.pipe()
        err = stderr if stderr is not None else os.open(os.devnull, os.O_WRONLY)
        try:
            request = marshal.dumps((settings, command, host))
            if len(request) > REQUEST_BYTES:
                raise ForkServerError(f"a start of {len(request)} bytes is more than the fork server takes")
            self.socket.sendmsg([request], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                             _ints([to_bot, from_bot, err]))])
            pid = self._reply()
        except BaseException:
            os.close(ours_in)
            os.close(ours_out)
            raise
        finally:
            os.close(to_bot)
            os.close(from_bot)
            if stderr is None:
                os.close(err)
        return Forked(self, pid, os.fdopen(ours_in, "wb", buffering=0), os.fdopen(ours_out, "rb", buffering=0))

    def _reply(self) -> int:
        while True:
            message = self._receive(None)
            if message is None:
                raise ForkServerError("the fork server ended")
            if message[0] == "pid":
                return int(message[1])
            if message[0] == "error":
                raise ForkServerError(str(message[1]))

    def _receive(self, timeout: float | None) -> tuple[Any, ...] | None:
        """The next message other than an end (those are kept in :attr:`ended`); None when the server is
        gone or, with a ``timeout``, when none came in time."""
        while True:
            if self.closed:
                return None
            if timeout is not None and not select.select([self.socket], [], [], max(timeout, 0.0))[0]:
                return None
            try:
                data = self.socket.recv(256)
            except OSError:
                data = b""
            if not data:
                self.closed = True
                return None
            message = marshal.loads(data)
            if message[0] != "ended":
                return message  # type: ignore[no-any-return]
            self.ended[message[1]] = message[2]
            if timeout is not None:
                return message  # type: ignore[no-any-return]

    def drain(self, timeout: float = 0.0) -> None:
        """Take what the server has said within ``timeout`` seconds (ends of jails)."""
        deadline = time.monotonic() + timeout
        while self._receive(max(0.0, deadline - time.monotonic())) is not None:
            deadline = time.monotonic()


class Forked:
    """A jail started by the fork server, with the part of :class:`subprocess.Popen` the sandbox uses."""

    def __init__(self, server: ForkServer, pid: int, stdin: Any, stdout: Any) -> None:
        self.server, self.pid, self.stdin, self.stdout = server, pid, stdin, stdout
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.server.drain()
            self._take()
        return self.returncode

    def _take(self) -> None:
        status = self.server.ended.pop(self.pid, None)
        if status is not None:
            self.returncode = os.waitstatus_to_exitcode(status)
        elif self.server.closed:
            self.returncode = -9  # the server died, and every jail with it (their parent-death signal)

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise subprocess.TimeoutExpired("jail", timeout or 0.0)
            self.server.drain(0.05 if left is None else min(left, 0.05))
        assert self.returncode is not None
        return self.returncode


def _ints(fds: list[int]) -> bytes:
    import array

    return array.array("i", fds).tobytes()


_server: ForkServer | None = None


def server() -> ForkServer | None:
    """This process's fork server, started on first use (a process forked from the one that started it
    starts its own); None when none can run here (a kernel without ``pidfd_open``)."""
    global _server
    if not hasattr(os, "pidfd_open"):
        return None
    if _server is not None and _server.owner != os.getpid():
        _server.socket.close()  # our parent's: its server is not ours to use
        _server = None
    if _server is None or _server.closed:
        _server = ForkServer([sys.executable, "-I"])
    return _server


# -- the server -------------------------------------------------------------------------------------------


def serve(fd: int) -> None:
    """The server's loop: a start request forks a jail; each jail's end is reported.  Ends with the referee."""
    import ctypes
    import functools
    import gc
    import signal

    from arena.isolation import jail
    from arena.wire import bothost

    _import_built_in_bots()
    ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG: die with the referee
    if os.getppid() == 1:
        os._exit(0)
    seccomp = jail.load_seccomp()
    # What is imported now is never collected: a child's collector must not write to (and so copy) every page.
    gc.freeze()
    channel = socket.socket(fileno=fd)
    buffer = bytearray(REQUEST_BYTES)
    poller = select.poll()
    poller.register(channel, select.POLLIN)
    jails: dict[int, int] = {}  # pidfd -> pid
    me = os.getpid()
    while True:
        for ready, _ in poller.poll():
            if ready != channel.fileno():
                pid = jails.pop(ready)
                poller.unregister(ready)
                os.close(ready)
                _, status = os.waitpid(pid, 0)
                channel.send(marshal.dumps(("ended", pid, status)))
                continue
            size, ancillary, flags, _ = channel.recvmsg_into([buffer], socket.CMSG_SPACE(_FDS * 4))
            if size == 0:
                os._exit(0)
            fds = [fd for level, kind, data in ancillary if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS
                   for fd in memoryview(data).cast("i")[:len(data) // 4]]
            if len(fds) != _FDS or flags & socket.MSG_TRUNC:
                for each in fds:
                    os.close(each)
                buffer[:size] = bytes(size)
                channel.send(marshal.dumps(("error", "a start request the fork server cannot read")))
                continue
            pid = os.fork()
            if pid == 0:
                _child(buffer, size, fds, me, seccomp, jail, functools.partial(bothost.main))
            for each in fds:
                os.close(each)
            buffer[:size] = bytes(size)  # the next child must not find this one's settings
            ended = os.pidfd_open(pid)
            jails[ended] = pid
            poller.register(ended, select.POLLIN)
            channel.send(marshal.dumps(("pid", pid)))


def _import_built_in_bots() -> None:
    """The arena's own bots (``arena_bots``), so that a start of one imports nothing; never an entrant's."""
    import importlib
    import pkgutil

    try:
        package = importlib.import_module("arena_bots")
    except ImportError:
        return
    for module in pkgutil.iter_modules(package.__path__, "arena_bots."):
        try:
            importlib.import_module(module.name)
        except Exception:  # noqa: BLE001 - one that cannot be imported here is imported (and fails) in its bot's host
            continue


def _child(buffer: bytearray, size: int, fds: list[int], parent: int, seccomp: Any, jail: Any, host_main: Any) -> None:
    """In the forked child: become what ``python jail.py SETTINGS -- COMMAND`` was, with its pipes."""
    try:
        settings, command, host = marshal.loads(bytes(buffer[:size]))
        buffer[:size] = bytes(size)  # the rest is zero already: the server zeroes each request after its fork
        os.setsid()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))  # the server's channel, its pidfds, the received copies
        os.chdir("/")
        settings["parent"] = parent
        sys.argv = ["-c", host] if host is not None else sys.argv
        jail.run(settings, command, seccomp, None if host is None else lambda: host_main([host]))
    finally:
        os._exit(jail.EXIT_JAIL)
