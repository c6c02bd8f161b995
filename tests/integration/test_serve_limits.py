"""arena serve's walls against hostile visitors: a real ``arena serve --host`` process under slowloris
(connections that never finish their request head), a deadline for each head, the per-address cap,
the token checked before any folder is read, and no file handed out through a symbolic link."""

from __future__ import annotations

import http.client
import os
import re
import resource
import select
import socket
import subprocess
import sys
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the serve extra is not installed (pip install 'uptown-arena[serve]')")
pytest.importorskip("uvicorn", reason="the serve extra is not installed (pip install 'uptown-arena[serve]')")

from arena.serve.folders import open_no_links  # noqa: E402
from arena.serve.limits import Limits  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
LIMITS = Limits()
#: The descriptors the server is started with: the usual soft limit, which 1,100 stalled connections
#: used to exhaust.
SERVER_FILES = 1024
#: The stalled connections of the slowloris test.
STALLED = 1100
SECRET = b"0123456789abcdef-the-deal-key"


def png() -> bytes:
    """A real PNG of one white pixel: what the server may hand out."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(kind + data).to_bytes(4, "big")

    header = (1).to_bytes(4, "big") * 2 + bytes([8, 2, 0, 0, 0])
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00\xff\xff\xff"))
            + chunk(b"IEND", b""))


PNG = png()


@dataclass
class Server:
    """A running ``arena serve --host`` process, where it listens and its token."""

    process: subprocess.Popen[str]
    host: str
    port: int
    token: str
    errors: Path

    def said(self) -> str:
        """What the server wrote to its standard error so far."""
        return self.errors.read_text(errors="replace")

    def get(self, path: str, source: str = "127.0.0.1", token: bool = True, timeout: float = 60.0) -> tuple[int, bytes]:
        """GET ``path`` from ``source`` (with the token unless told): the status and the body."""
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout, source_address=(source, 0))
        try:
            sep = "&" if "?" in path else "?"
            conn.request("GET", path + (f"{sep}token={self.token}" if token else ""))
            answer = conn.getresponse()
            return answer.status, answer.read()
        finally:
            conn.close()


def results(where: Path) -> Path:
    """A folder of results folders: ``one`` with its deal key and a plot."""
    one = where / "one"
    one.mkdir(parents=True)
    (one / "tournament.toml").write_text('name = "one"\n')
    (one / "deal.key").write_bytes(SECRET)
    (one / "win_share.png").write_bytes(PNG)
    return where


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """``arena serve FOLDER --host 127.0.0.1 --port 0`` with :data:`SERVER_FILES` descriptors."""
    folder = results(tmp_path / "res")

    def few_files() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (SERVER_FILES, SERVER_FILES))

    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    errors = tmp_path / "serve.err"
    with open(errors, "wb") as err:
        process = subprocess.Popen([sys.executable, "-m", "arena", "serve", str(folder), "--host", "127.0.0.1",
                                    "--port", "0"], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, stderr=err,
                                   text=True, env=env, cwd=tmp_path, preexec_fn=few_files)
    try:
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], 120)
        line = process.stdout.readline() if ready else ""
        found = re.search(r"http://([0-9.]+):([0-9]+)/\?token=(\S+)", line)
        assert found, f"arena serve printed no address: {line!r}"
        yield Server(process, found.group(1), int(found.group(2)), found.group(3), errors)
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()


@pytest.fixture
def many_files() -> None:
    """This process's descriptors raised to what the stalled connections need (skips where it cannot)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = STALLED + 256
    if soft != resource.RLIM_INFINITY and soft < want:
        if hard != resource.RLIM_INFINITY and hard < want:
            pytest.skip(f"{STALLED} connections need {want} descriptors; the hard limit is {hard}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


def source(n: int) -> str:
    """The n-th client address of the loopback network (Linux answers all of 127.0.0.0/8)."""
    return f"127.0.1.{2 + n}"


def stall(server: Server, count: int, sources: int = 1, first: int = 0) -> list[socket.socket]:
    """``count`` connections from ``sources`` addresses, each of which sends a part of a request head and
    nothing more."""
    held = []
    for i in range(count):
        sock = socket.socket()
        try:
            sock.bind((source(first + i % sources), 0))
        except OSError as exc:
            sock.close()
            pytest.skip(f"no loopback address {source(first + i % sources)} to connect from: {exc}")
        sock.settimeout(30)
        try:
            sock.connect((server.host, server.port))
            sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow")
        except OSError:
            pass  # refused (reset) by a full server: it holds one fewer
        held.append(sock)
    return held


def state(sock: socket.socket) -> str:
    """What the server did with a stalled connection: ``held`` (nothing yet), ``refused`` (told 503 at
    once) or ``closed``."""
    sock.setblocking(False)
    try:
        data = sock.recv(4096, socket.MSG_PEEK)
    except BlockingIOError:
        return "held"
    except OSError:
        return "closed"
    return "refused" if data.startswith(b"HTTP/1.1 503") else "closed"


def close_all(socks: list[socket.socket]) -> None:
    for sock in socks:
        sock.close()


def wait_closed(socks: list[socket.socket], seconds: float) -> list[socket.socket]:
    """The connections of ``socks`` still held after up to ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        held = [s for s in socks if state(s) == "held"]
        if not held or time.monotonic() > deadline:
            return held
        time.sleep(0.2)


@pytest.mark.slow
def test_a_request_with_the_token_is_answered_while_1100_connections_stall_their_heads(server, many_files):
    # From 40 addresses, each under its own cap: together they fill the server's connections.
    stalled = stall(server, STALLED, sources=40)
    try:
        started = time.monotonic()
        status, body = server.get("/", timeout=30)
        took = time.monotonic() - started
        assert status == 200 and b"one" in body
        print(f"answered in {took:.3f} s beside {STALLED} stalled connections")
        # Every stalled head is let go at its deadline; the server stays up and answers.
        assert wait_closed(stalled, LIMITS.head_seconds + 60) == []
        assert server.process.poll() is None
        assert server.get("/run/0:one/file/win_share.png")[0] == 200
        # Never out of descriptors (asyncio then stops accepting anyone for a while).
        assert "Too many open files" not in server.said()
    finally:
        close_all(stalled)


@pytest.mark.slow
def test_one_address_holds_at_most_its_share_of_connections(server, many_files):
    # Measured, not assumed: an attempt counts only when all of it came before the first head's deadline.
    for _ in range(5):
        started = time.monotonic()
        held = stall(server, LIMITS.per_client, first=50)
        extra = stall(server, 1, first=50)
        time.sleep(0.5)
        states = [state(s) for s in held], state(extra[0])
        in_time = time.monotonic() - started < LIMITS.head_seconds
        close_all(held + extra)
        if in_time:
            break
        time.sleep(LIMITS.head_seconds)
    else:
        pytest.skip("the machine never opened the connections within a head's deadline")
    assert states == (["held"] * LIMITS.per_client, "refused")
    # Another address is answered all the same.
    assert server.get("/")[0] == 200


@pytest.mark.slow
def test_a_head_sent_a_byte_at_a_time_is_cut_off_at_its_deadline(server):
    def trickle(sock: socket.socket, head: bytes) -> float:
        """Seconds until the server closed ``sock``, a byte of ``head`` sent every 0.25 s."""
        started = time.monotonic()
        for byte in head * 1000:
            try:
                sock.sendall(bytes([byte]))
            except OSError:
                break
            if state(sock) == "closed" or time.monotonic() - started > LIMITS.head_seconds + 60:
                break
            time.sleep(0.25)
        assert state(sock) == "closed"
        return time.monotonic() - started

    head = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
    fresh = socket.create_connection((server.host, server.port), timeout=30)
    assert trickle(fresh, head) >= LIMITS.head_seconds - 0.5
    fresh.close()
    # A kept-alive connection's next head has a deadline of its own.
    kept = socket.create_connection((server.host, server.port), timeout=30)
    kept.sendall(f"GET /?token={server.token} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    assert kept.recv(12) == b"HTTP/1.1 200"
    time.sleep(0.5)
    kept.setblocking(False)
    while True:  # the rest of the answer
        try:
            if not kept.recv(65536):
                break
        except BlockingIOError:
            break
    assert trickle(kept, head) >= LIMITS.head_seconds - 0.5
    kept.close()


@pytest.mark.slow
def test_no_file_is_handed_out_through_a_symbolic_link(server, tmp_path):
    one = tmp_path / "res" / "one"
    assert server.get("/run/0:one/file/win_share.png") == (200, PNG)
    (one / "x.png").symlink_to("deal.key")
    (one / "rating.png").symlink_to("deal.key")  # a plot's name
    (one / "seats.png").symlink_to("win_share.png")  # a link to a real picture
    (one / "order.png").write_bytes(SECRET)  # a plot's name, not a PNG
    for name in ("x.png", "rating.png", "seats.png", "order.png", "deal.key"):
        status, body = server.get(f"/run/0:one/file/{name}")
        assert status in (403, 404) and SECRET not in body, name
    (tmp_path / "res" / "two").symlink_to("one")  # a link to a results folder of the folders given
    assert server.get("/run/0:two/")[0] == 404
    assert server.get("/run/0:two/file/win_share.png")[0] == 404
    assert b"0:two" not in server.get("/")[1]
    # A folder in which a file the server reads is a link is not served at all.
    (one / "games.csv").symlink_to("deal.key")
    assert server.get("/run/0:one/file/win_share.png")[0] == 404
    assert server.get("/run/0:one/games")[0] == 404
    assert b"0:one" not in server.get("/")[1]


def test_a_link_anywhere_in_a_path_fails_its_open(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "plot.png").write_bytes(PNG)
    (tmp_path / "linked").symlink_to("real")
    (tmp_path / "real" / "link.png").symlink_to("plot.png")
    os.close(open_no_links(tmp_path / "real" / "plot.png"))
    for path in (tmp_path / "linked" / "plot.png", tmp_path / "real" / "link.png"):
        with pytest.raises(OSError):
            os.close(open_no_links(path))


def test_a_request_without_the_token_reads_no_folder(tmp_path):
    pytest.importorskip("httpx2", reason="Starlette's TestClient needs httpx2")
    from starlette.testclient import TestClient

    from arena.serve.app import create_app

    folder = results(tmp_path / "res")
    reads: list[str] = []
    watching = [False]

    def audit(event: str, args: tuple) -> None:
        if watching[0] and event in ("open", "os.listdir", "os.scandir") and args and str(tmp_path) in str(args[0]):
            reads.append(f"{event} {args[0]}")

    sys.addaudithook(audit)
    client = TestClient(create_app([folder], token="s3cret"), base_url="http://127.0.0.1")
    paths = ["/", "/run/0:one/", "/run/0:one/games", "/run/0:one/events", "/run/0:one/file/win_share.png",
             "/run/0:one/game/g1", "/run/0:one/live/0", "/run/0:one/live/0/events"]
    watching[0] = True
    try:
        for path in paths:
            assert client.get(path).status_code == 403, path
            assert client.get(path + "?token=wrong").status_code == 403, path
        assert client.post("/run/0:one/").status_code == 403
        assert reads == []
        # The same request with the token reads the folder: the hook sees what the server reads.
        answer = client.get("/run/0:one/file/win_share.png?token=s3cret")
        assert answer.status_code == 200 and answer.content == PNG
        assert reads
    finally:
        watching[0] = False
