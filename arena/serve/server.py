"""Run ``arena serve``'s app under uvicorn: the address chosen, the token made, the address printed.

The socket is bound before the address is printed (port 0: any free port, the one taken printed),
so a program that starts ``arena serve`` (``arena run --serve``) reads the address from its first
line and finds the server listening.  The connections' walls (a deadline for a request head, caps on
connections) are :mod:`arena.serve.limits`'s.
"""

from __future__ import annotations

import secrets
import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from arena.errors import ArenaError

#: Where the app listens unless told: the loopback, where no token is asked.
LOOPBACK = "127.0.0.1"
DEFAULT_PORT = 8111
#: What a missing extra says.
MISSING = "arena serve needs the serve extra: pip install 'uptown-arena[serve]'"


class ServeError(ArenaError):
    """The server cannot start (its extra missing, the address taken); the message is one line."""


def need_extra() -> None:
    """Raise :class:`ServeError` (one line naming the extra) when Starlette or uvicorn is not installed."""
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise ServeError(MISSING) from None


@dataclass
class Address:
    """Where the server listens, the token it asks (None: none) and the address to open, token included."""

    host: str
    port: int
    token: str | None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        shown = "127.0.0.1" if self.host in ("", "0.0.0.0", "::") else host
        return f"http://{shown}:{self.port}/" + (f"?token={self.token}" if self.token else "")


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port``; :class:`ServeError` when it cannot be had."""
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        raise ServeError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock


def serve(folders: list[Path], host: str | None, port: int, say: Callable[[str], None],
          token: str | None = None) -> None:
    """Serve ``folders`` until interrupted: on the loopback without a token, or on ``host`` with one
    (``token``, else a new one), the address to open told to ``say`` first."""
    need_extra()
    import uvicorn

    from arena.serve.app import create_app
    from arena.serve.limits import Limits, uvicorn_settings

    if host is not None and token is None:
        token = secrets.token_urlsafe(18)
    listening = bind(host or LOOPBACK, port)
    address = Address(host or LOOPBACK, listening.getsockname()[1], token if host is not None else None)
    app = create_app(folders, address.token)
    say(f"arena serve: {len(folders)} folder(s) at {address.url}")
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1, lifespan="off",
                            **uvicorn_settings(Limits().fitted()))
    server = uvicorn.Server(config)
    server.run(sockets=[listening])


class Beside:
    """``arena serve FOLDER`` in a process of its own beside a run (``arena run --serve``), on the loopback.

    Its own process, so that the run's storing process never shares its interpreter with the server's
    work; it ends with :meth:`close` (or with the run, should that be killed: it is in its process group).
    """

    #: Seconds to wait for the server's first line.
    START_TIMEOUT = 20.0

    def __init__(self, folder: Path) -> None:
        import os
        import subprocess
        import sys

        need_extra()
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "arena", "serve", str(folder), "--port", "0"], stdout=subprocess.PIPE,
            stdin=subprocess.DEVNULL, text=True, env=env)
        line = self._first_line()
        if not line.startswith("arena serve:"):
            self.close()
            raise ServeError(f"arena serve did not start beside the run: {line.strip() or 'it said nothing'}")
        #: The page of the run's folder: keyed by its name, as ``arena serve`` of the folder above it keys it.
        self.url = line.split()[-1] + f"run/{quote(Path(folder).resolve().name, safe=':')}/"

    def _first_line(self) -> str:
        import select

        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], self.START_TIMEOUT)
        return self.process.stdout.readline() if ready else ""

    def close(self) -> None:
        """Stop the server."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except Exception:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
