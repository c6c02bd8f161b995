"""``arena serve``'s web app (Starlette): the routes (:mod:`arena.serve.routes`), all read-only, over the folders given.

    /                                  the folders (:meth:`Folders.listing`)
    /run/KEY/                          a folder's page;  /run/KEY/events  its section as it changes (SSE)
    /run/KEY/games?page=&sort=&desc=&q=   a page of its games list (JSON)
    /run/KEY/file/NAME                 one of its pictures
    /run/KEY/game/ID                   a stored game's replay
    /run/KEY/live/N                    the game worker N is playing;  /run/KEY/live/N/events  its moves (SSE)

Only GET (and HEAD) is answered; nothing changes a file.  With a ``token`` (``arena serve --host``),
every request must carry it, as the query parameter ``token`` (which sets a cookie of it) or that
cookie; it is checked before anything else is done (no folder is looked at for a request without it).  Without one the server listens on the loopback only, and answers only requests addressed to
it by that name (a page of another site cannot reach it by rebinding a name of its own).
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response

from arena.serve import pages, routes
from arena.serve.folders import Folders

#: The cookie that carries the token.
COOKIE = "arena_token"
#: The names a server on the loopback answers to.
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")

#: The policy every answer carries (one a page's own <meta> cannot give: no other site may frame it).
_HEADER_POLICY = (pages.POLICY + "; frame-ancestors 'none'").encode()

Scope = MutableMapping[str, Any]
ASGI = Callable[[Scope, Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Awaitable[None]]


class Guard:
    """The app's outer layer: GET and HEAD only, the token, the host, and the headers of every answer."""

    def __init__(self, app: ASGI, token: str | None, hosts: tuple[str, ...] | None) -> None:
        self.app = app
        self.token = token
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Callable[[], Awaitable[Any]],
                       send: Callable[[Any], Awaitable[None]]) -> None:
        if scope["type"] != "http":
            if scope["type"] == "lifespan":
                await self.app(scope, receive, send)
            return
        request = Request(scope)
        refused = self._refused(request)
        set_cookie = self.token is not None and request.query_params.get("token") is not None and refused is None

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [(b"content-security-policy", _HEADER_POLICY), (b"x-content-type-options", b"nosniff"),
                            (b"referrer-policy", b"no-referrer"), (b"x-frame-options", b"DENY"),
                            (b"cache-control", b"no-store")]
                if set_cookie:
                    headers.append((b"set-cookie", f"{COOKIE}={self.token}; HttpOnly; SameSite=Strict; Path=/".encode()))
                message = {**message, "headers": headers}
            await send(message)

        if refused is not None:
            await refused(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)

    def _refused(self, request: Request) -> Response | None:
        """The answer to a request refused, or None; the token first, before any other work."""
        if self.token is not None:
            given = request.query_params.get("token") or request.cookies.get(COOKIE) or ""
            if not hmac.compare_digest(given.encode("utf-8", "replace"), self.token.encode()):
                return Response("a token is needed: open the address arena serve printed (…?token=…)\n", 403,
                                media_type="text/plain")
        if self.hosts is not None and _host_name(request.headers.get("host", "")) not in self.hosts:
            return Response("unknown host\n", 421, media_type="text/plain")
        if request.method not in ("GET", "HEAD"):
            return Response("read-only: only GET is answered\n", 405, headers={"Allow": "GET, HEAD"},
                            media_type="text/plain")
        return None


def create_app(roots: list[Path], token: str | None = None, hosts: tuple[str, ...] | None = LOOPBACK_HOSTS) -> Guard:
    """The app over the folders ``roots``; ``token`` (None: none asked) and ``hosts`` (the names it answers
    to, None: any) as the module docstring says."""
    app = Starlette(routes=routes.ROUTES, exception_handlers={routes.NotFound: routes.not_found, 404: routes.not_found})
    app.state.folders = Folders(roots)
    app.state.views = {}
    return Guard(app, token, None if token is not None else hosts)


def _host_name(host: str) -> str:
    """The name of a Host header, without its port: ``127.0.0.1``, ``localhost``, ``[::1]``."""
    if host.startswith("["):
        return host[: host.find("]") + 1]
    return host.partition(":")[0]
