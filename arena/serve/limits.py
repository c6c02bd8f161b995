"""The walls of ``arena serve``'s connections: a deadline for each request head, and caps on the
connections held, in all and per client address.

uvicorn bounds a head's bytes (h11's ``max_incomplete_event_size``) and how long a kept-alive
connection may sit idle (``timeout_keep_alive``), but not how long a head may take to arrive, nor how
many connections are held: its ``limit_concurrency`` answers 503 to a head once it is whole and never
refuses or closes a connection, so sockets that never finish their head are held until the process
runs out of descriptors (then asyncio stops accepting, and nobody is answered).  The one piece added
is :class:`GuardedH11`, uvicorn's h11 protocol with a timer and a count per connection; everything
else is uvicorn's own settings (:func:`uvicorn_settings`).
"""

from __future__ import annotations

import resource
import time
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.utils import get_remote_addr

#: What a connection refused is told before it is closed (sent before its request is read: a browser
#: shows it, a client that does not read loses nothing).
REFUSED = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
           b"content-length: 21\r\nretry-after: 5\r\nconnection: close\r\n\r\ntoo many connections\n")
#: Descriptors kept for what is not a connection (files read, the listening socket, logs, threads).
RESERVE = 128
#: The listening socket's queue, and the connections asyncio accepts in one turn of its loop.  A batch
#: is accepted in one turn, given transports in the next, counted (``connection_made``) in the third
#: and those refused are closed in the fourth, a batch accepted in each: up to :data:`IN_FLIGHT`
#: sockets not counted yet.  (Measured: 512 connections held and batches of 256 ran a server of 1,024
#: descriptors out of them.)
BACKLOG = 128
IN_FLIGHT = 4 * BACKLOG


@dataclass(frozen=True)
class Limits:
    """How long a request head may take, how many connections are held, and how big a head may be."""

    head_seconds: float = 5.0
    connections: int = 512
    per_client: int = 32
    head_bytes: int = 16 * 1024
    idle_seconds: int = 5

    def fitted(self) -> Limits:
        """These limits with ``connections`` cut to what this process's descriptor limit leaves room for."""
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft == resource.RLIM_INFINITY:
            return self
        room = max(8, soft - RESERVE - IN_FLIGHT)
        return replace(self, connections=min(self.connections, room))


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with the walls of :class:`Limits`: a connection over a cap is refused
    when it is made, and one that has not sent a whole request ``head_seconds`` after it opened (or
    after its last answer, kept alive) is closed.

    uvicorn times only an idle kept-alive connection, and any byte received stops that timer, so a head
    (or a body nobody reads) sent a byte at a time is waited for without end: the deadline here is
    absolute, data does not move it; only a request being answered stops it.  A full server makes room
    by closing the connection that has waited longest for its head (a visitor's head arrives within a
    round trip; one that is still missing is a stalled client's), so clients on many addresses that
    never finish their heads cannot shut a visitor out.
    """

    limits: ClassVar[Limits]
    #: Connections held per client address, shared by the connections of one server.
    held: ClassVar[Counter[str]]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.client_key: str | None = None  # None: refused, or not yet counted
        self.waiting_since: float | None = None
        self.head_timer: Any = None

    def connection_made(self, transport: Any) -> None:  # type: ignore[override]
        remote = get_remote_addr(transport)
        key = remote[0] if remote else ""
        if self.held[key] >= self.limits.per_client or (
                len(self.connections) >= self.limits.connections and not self._make_room()):
            transport.write(REFUSED)
            transport.close()
            return
        self.held[key] += 1
        self.client_key = key
        super().connection_made(transport)
        self._wait_for_head()

    def _make_room(self) -> bool:
        """Close the connection that has waited longest for its head; False when none is waiting."""
        waiting = [c for c in self.connections if isinstance(c, GuardedH11) and c.waiting_since is not None]
        if not waiting:
            return False
        oldest = min(waiting, key=lambda c: c.waiting_since or 0.0)
        oldest.close_unanswered()
        return True

    def close_unanswered(self) -> None:
        """Close this connection, waiting for a head: it no longer counts against the caps."""
        self._stop_waiting()
        self.connections.discard(self)
        self._release()
        self.transport.close()

    def _wait_for_head(self) -> None:
        self._stop_waiting()
        self.waiting_since = time.monotonic()
        self.head_timer = self.loop.call_later(self.limits.head_seconds, self._head_late)

    def _stop_waiting(self) -> None:
        self.waiting_since = None
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None

    def _answering(self) -> bool:
        """Whether a request of this connection is being answered (its head was whole)."""
        return self.cycle is not None and not self.cycle.response_complete

    def _head_late(self) -> None:
        self.head_timer = None
        if not self._answering() and not self.transport.is_closing():
            self.close_unanswered()

    def _release(self) -> None:
        if self.client_key is not None:
            self.held[self.client_key] -= 1
            if self.held[self.client_key] <= 0:
                del self.held[self.client_key]
            self.client_key = None

    def data_received(self, data: bytes) -> None:
        if self.transport is None or self.transport.is_closing():
            return  # refused, or closed for a late head: nothing more is read
        super().data_received(data)
        if self._answering():  # h11 gave a whole head, the app has it
            self._stop_waiting()

    def on_response_complete(self) -> None:
        super().on_response_complete()  # may start answering a pipelined request at once
        if not self.transport.is_closing() and not self._answering():
            self._wait_for_head()  # kept alive: the next request has a deadline of its own

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_waiting()
        self._release()
        if self.transport is None:
            return  # refused in connection_made: uvicorn never saw it
        super().connection_lost(exc)


def protocol(limits: Limits) -> type[GuardedH11]:
    """A :class:`GuardedH11` of ``limits`` with a count of its own (one per server)."""
    return type("GuardedH11", (GuardedH11,), {"limits": limits, "held": Counter()})


def uvicorn_settings(limits: Limits) -> dict[str, Any]:
    """The ``uvicorn.Config`` settings of ``limits``: the guarded protocol, no WebSocket upgrade (the
    app has none, and an upgraded connection would leave the protocol's count), uvicorn's own bounds."""
    return {"http": protocol(limits), "ws": "none", "backlog": BACKLOG,
            "h11_max_incomplete_event_size": limits.head_bytes, "timeout_keep_alive": limits.idle_seconds}
