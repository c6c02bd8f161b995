"""Playing a tournament's games on a Dask cluster (``arena run --cluster``).

The parent connects to a Dask scheduler (``tcp://HOST:PORT``) or starts a
``distributed.LocalCluster`` (``local[:N]``) before it writes anything, checks
that every worker runs the same arena version, and then hands out chunks of
games as Dask tasks.  A task (:func:`play_task`) plays its games with the same
code the local worker processes use (:func:`~.workers.play_chunk`): the
worker's bots and referees are prepared once per Dask worker process and
kept for every task of the same run.  It hands its games back as a local
worker does (:mod:`.codec`: plain bytes — a JSON line, then the record lines
and the ``games.csv`` rows) with the log lines the games wrote: as they
finish, through a Dask queue of the run's (so a task of a whole seating's
pass has its games stored as it goes), and the rest as its result; the
parent alone writes the results and ``arena.log``, so a run on a cluster
stores the same files as one with ``--workers 1``.  Tasks are sized by the local workers' rule
with numbers of their own (:data:`~.chunks.DASK_CHUNKS`).

Faults:

* A Dask worker that dies while it plays (killed, out of memory) has its task
  played again by the scheduler (its ``allowed-failures``).
* A task whose workers keep dying (the scheduler gives up on it: a bot that
  ends the worker process, or a game still running after
  :func:`~.workers.game_bound`, which the worker's watchdog process ends) has its
  games played again one by one, each with every bot in a process of its own,
  where the bot is faulted like any other; if such a game still ends its
  worker, the run stops with one line, as a local run does.
* A game's results are stored once: the parent drops from an answer the games
  it has stored already (a task played again after its worker died answers
  again for the games it handed back before).

Bots given as ``file.py:Name`` (relative to the tournament file) travel with
the settings and are written on a worker that does not see the file;
entry-point bots must be installed on the workers.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import hashlib
import itertools
import logging
import mmap
import os
import pickle
import re
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import warnings
from collections.abc import Iterator
from typing import Any

from arena.inputfiles import read_input
from arena.isolation.cpus import pin_to_cpu, usable_cpus
from arena.plan.schedule import Game
from arena.results.files import LOG_FORMAT, RunError
from arena.tournament.run.chunks import DASK_CHUNKS, ChunkSizes
from arena.tournament.run.codec import Answer, Played, WorkerError, decode_answer, encode_answer
from arena.tournament.run.settings import WorkerSettings
from arena.tournament.run.workers import close_worker, init_worker, play_chunk

log = logging.getLogger("arena.tournament")

#: How long to wait for a scheduler to answer, and for its first worker (seconds).
CONNECT_TIMEOUT = 5.0
#: How long a ``tcp://`` address whose host refuses the connection (nothing listens on that port) is
#: tried before the run gives up (seconds): a scheduler just started, not yet listening, is waited for.
REFUSED_GRACE = 1.0
#: Times a local cluster's scheduler plays a task again after the worker running it died (a scheduler
#: of one's own has its own ``distributed.scheduler.allowed-failures``, 3 by default).
ALLOWED_FAILURES = 2

#: The largest ``file.py`` bot shipped to the workers with the run's settings.
SHIPPED_MB = 16

_LOCAL = re.compile(r"local(?::(\d+))?")
_ADDRESS = re.compile(r"(tcp|tls|inproc|ucx|ws|wss)://\S+")
INSTALL_HINT = "--cluster needs Dask: install the dask extra (pip install 'uptown-arena[dask]')"


def parse_cluster(value: str) -> tuple[str, int | str]:
    """``("local", N)`` for ``local[:N]`` (N: the CPUs this process may use), ``("address", A)``
    for a scheduler address ``tcp://HOST:PORT``; :class:`RunError` for anything else."""
    if match := _LOCAL.fullmatch(value):
        if match.group(1) is None:
            return "local", usable_cpus()
        n = int(match.group(1))
        if n < 1:
            raise RunError(f"--cluster {value}: a local cluster needs at least 1 worker")
        return "local", n
    if _ADDRESS.fullmatch(value):
        return "address", value
    raise RunError(f"--cluster {value!r}: give local, local:N or a scheduler address such as tcp://HOST:8786")


def arena_version() -> str:
    """The arena version this process runs (compared between the parent and every worker)."""
    import arena

    return str(getattr(arena, "__version__", "unknown"))


def worker_version() -> str:
    """On a worker: the arena version it runs (sent by name, so the worker's own module answers)."""
    return arena_version()


class Cluster:
    """A connection to a Dask scheduler (and the local cluster started for it); :meth:`close` ends both."""

    def __init__(self, client: Any, local: Any, address: str) -> None:
        self.client = client
        self.local = local
        self.address = address

    @classmethod
    def connect(cls, value: str) -> Cluster:
        """Connect as ``--cluster value`` says; :class:`RunError` (one line) when that fails."""
        kind, where = parse_cluster(value)
        try:
            import dask
            import distributed
        except ImportError:
            raise RunError(INSTALL_HINT) from None
        # Dask's own messages (a worker lost, a task retried) are for arena.log, not the terminal.
        for name in ("distributed", "tornado"):
            logging.getLogger(name).setLevel(logging.ERROR)
        dask.config.set({"distributed.scheduler.allowed-failures": ALLOWED_FAILURES})
        local = None
        try:
            if kind == "local":
                with warnings.catch_warnings():  # "port 8787 in use": its HTTP server, which the run does not use
                    warnings.simplefilter("ignore", UserWarning)
                    local = distributed.LocalCluster(
                        n_workers=int(where), processes=True, threads_per_worker=1, dashboard_address=None,
                        silence_logs=logging.ERROR,
                    )
                address = str(local.scheduler_address)
                client = distributed.Client(local, timeout=CONNECT_TIMEOUT)
            else:
                address = str(where)
                if _refused(address):
                    raise OSError(f"connection refused for {REFUSED_GRACE:g} s: nothing listens there")
                client = distributed.Client(address, timeout=CONNECT_TIMEOUT)
        except Exception as exc:  # unreachable, no port, TLS without its configuration: one line for each
            if local is not None:
                local.close()
            raise RunError(f"--cluster {where}: cannot reach the scheduler: {_one_line(exc)}") from None
        self = cls(client, local, address)
        try:
            try:
                client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
            except (OSError, TimeoutError):
                raise RunError(f"--cluster {address}: the scheduler has no worker "
                               f"(none came in {CONNECT_TIMEOUT:.0f} s)") from None
            versions = client.run(worker_version)
            mine = arena_version()
            other = {addr: v for addr, v in versions.items() if v != mine}
            if other:
                addr, version = sorted(other.items())[0]
                raise RunError(f"--cluster {address}: worker {addr} runs arena {version}, this is arena {mine}: "
                               f"install the same version on every worker ({len(other)} differ)")
        except BaseException:
            self.close()
            raise
        return self

    def threads(self) -> int:
        """Tasks the cluster runs at once (its workers' threads)."""
        return max(1, sum(self.client.nthreads().values()))

    def close(self) -> None:
        try:
            self.client.close()
        finally:
            if self.local is not None:
                self.local.close()


def _refused(address: str) -> bool:
    """Whether the host of a ``tcp://`` scheduler address refuses connections: nothing listens there.

    Dask's client tries a refused connection again until its timeout; a mistyped port need not wait that
    long.  Dask's connect is tried for :data:`REFUSED_GRACE` (a connection made is closed after its
    handshake, which the scheduler does not log, as it would a bare socket's); when that fails, one bare
    connection says whether the host refuses (Dask reports only its last attempt, cut short at the end).
    Anything else (no answer, a name that does not resolve, a malformed address) is left to the client.
    """
    if not address.startswith("tcp://"):
        return False
    from distributed.comm import connect
    from distributed.comm.addressing import parse_host_port

    async def attempt() -> None:
        comm = await connect(address, timeout=REFUSED_GRACE)
        await comm.close()

    # In a thread of its own: the caller may run an event loop already.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        try:
            pool.submit(asyncio.run, attempt()).result()
            return False
        except Exception:  # noqa: BLE001 - the bare connection below tells a refusal apart
            pass
    try:
        with socket.create_connection(parse_host_port(address.removeprefix("tcp://")), timeout=REFUSED_GRACE):
            return False
    except ConnectionRefusedError:
        return True
    except (OSError, ValueError):
        return False


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text


# -- the worker side -----------------------------------------------------------

# The run whose bots this Dask worker process holds (the digest of its settings).
_HELD: dict[str, Any] = {"key": None}
# One task at a time per process: the prepared bots and referees are not for two threads at once.
_TASK_LOCK = threading.Lock()


def settings_key(settings: WorkerSettings) -> str:
    """The digest a worker keys its prepared bots by."""
    return hashlib.sha256(pickle.dumps(settings)).hexdigest()[:16]


def ship_bot_files(settings: WorkerSettings) -> WorkerSettings:
    """``settings`` with the text of every relative ``file.py:Name`` bot file (``files``) for the workers."""
    files: dict[int, tuple[str, str]] = {}
    for index, entrant in enumerate(settings.entrants):
        ref, loaded = entrant.bot_file_ref()
        if ref != loaded:
            where = ref.rpartition(":")[0]
            data = read_input(loaded.rpartition(":")[0], "a bot's file shipped to the workers", SHIPPED_MB << 20)
            files[index] = (where, data.decode("utf-8"))
    return dataclasses.replace(settings, files=tuple(files.items()))


def _place_bot_files(settings: WorkerSettings, key: str) -> WorkerSettings:
    """On a worker: the entrants of shipped bot files that this machine does not hold as they are
    read from a folder of the worker's own where the files are written."""
    entrants = list(settings.entrants)
    for index, (where, text) in settings.files:
        entrant = entrants[index]
        path = entrant.bot_file_ref()[1].rpartition(":")[0]
        try:
            with open(path, encoding="utf-8") as handle:
                if handle.read() == text:
                    continue
        except OSError:
            pass
        base = os.path.join(tempfile.gettempdir(), f"arena-bots-{key}")
        target = os.path.join(base, where)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8") as handle:
            handle.write(text)
        entrants[index] = dataclasses.replace(entrant, base=base)
    logs = settings.logs
    if logs is not None and not os.path.isdir(os.path.dirname(logs)):
        # The results folder is the parent's: a worker on another machine keeps the bots' logs here.
        logs = os.path.join(tempfile.gettempdir(), f"arena-logs-{key}")
    return dataclasses.replace(settings, entrants=tuple(entrants), logs=logs)


def _worker_address() -> str:
    import distributed

    try:
        return str(distributed.get_worker().address)
    except ValueError:  # not in a Dask worker
        return "(this process)"


def _pin_thread() -> None:
    """Keep this task thread (and the bot programs it starts) to a CPU of its own: the local cluster's
    worker ``i`` takes the ``i``-th CPU, as the local workers do."""
    import distributed

    name = distributed.get_worker().name
    if isinstance(name, int) and hasattr(os, "sched_setaffinity"):
        pin_to_cpu(name)


# The watchdog: a small process of the worker's own that ends the worker when one game has run past
# its bound.  It has to be a process: a bot stuck inside C code holds the worker's interpreter, so no
# thread of the worker could run.  The worker writes the game's start (time.monotonic(), the same
# clock in every process) into a page they share; 0 while it plays nothing.
_WATCHDOG_CODE = """
import mmap, os, struct, sys, time
fd, worker, bound = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
page = mmap.mmap(fd, 8)
while os.getppid() == worker:
    time.sleep(0.5)
    started = struct.unpack("d", page[:8])[0]
    if started > 0 and time.monotonic() - started > bound:
        os.kill(worker, 9)
        break
"""


class _Watchdog:
    def __init__(self, bound: float) -> None:
        self.bound = bound
        fd, path = tempfile.mkstemp(prefix="arena-watchdog-")
        os.unlink(path)
        os.ftruncate(fd, 8)
        self.page = mmap.mmap(fd, 8)
        self.process = subprocess.Popen([sys.executable, "-c", _WATCHDOG_CODE, str(fd), str(os.getpid()), str(bound)],
                                        pass_fds=(fd,), stdin=subprocess.DEVNULL)
        os.close(fd)

    def started(self, index: int = 0) -> None:
        """A game starts now."""
        self.page[:8] = struct.pack("d", time.monotonic())

    def idle(self) -> None:
        self.page[:8] = struct.pack("d", 0.0)

    def close(self) -> None:
        self.process.kill()
        self.process.wait()
        self.page.close()


def _watchdog(bound: float) -> _Watchdog:
    """This worker's watchdog for games of at most ``bound`` seconds (one kept per bound)."""
    held = _HELD.get("watchdog")
    if held is None or held.bound != bound or held.process.poll() is not None:
        if held is not None:
            held.close()
        held = _HELD["watchdog"] = _Watchdog(bound)
    return held


class _Capture(logging.Handler):
    """The log lines of one task, formatted as arena.log has them."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []
        self.setFormatter(logging.Formatter(LOG_FORMAT))

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))

    def take(self) -> list[str]:
        """The lines captured since the last call."""
        lines, self.lines = self.lines, []
        return lines


def play_task(key: str, settings: WorkerSettings, games: list[Game], isolate: bool, bound: float, task: int = 0,
              parts: str | None = None) -> bytes:
    """A Dask task: play ``games`` on this worker; the :class:`~.codec.Answer` to chunk ``task``, with the log
    lines the games wrote, as bytes.

    With ``parts`` (the name of a Dask queue) the games finished go there as they finish, answers of
    their own (:func:`~.workers.play_chunk`), and the answer returned holds only the others.  ``bound``
    is the longest one game may take (seconds): past it the worker process ends, and the parent plays
    the task's games it has not stored again, each with every bot in a process of its own.
    """
    with _TASK_LOCK:
        logger = logging.getLogger("arena")
        capture = _Capture()
        saved = (logger.level, logger.propagate)
        logger.addHandler(capture)
        logger.setLevel(logging.INFO)
        logger.propagate = False
        watchdog = _watchdog(bound)
        try:
            if _HELD["key"] != key:
                close_worker()
                _HELD["key"] = None
                if settings.pin:
                    _pin_thread()
                try:
                    init_worker(_place_bot_files(settings, key))
                except Exception as exc:
                    raise WorkerError(f"Dask worker {_worker_address()} cannot load a bot: {_one_line(exc)} "
                                      f"(install the bot there, at the same version)") from None
                _HELD["key"] = key
            send = None
            if parts is not None:
                import distributed

                queue = distributed.Queue(parts)

                def send(played: Played) -> None:
                    queue.put(encode_answer(Answer(task, played, last=False, log=capture.take())))

            answer = Answer(task, play_chunk(games, isolate, watchdog.started, send=send))
        except WorkerError as exc:
            answer = Answer(task, error=str(exc))
        finally:
            watchdog.idle()
            logger.removeHandler(capture)
            logger.setLevel(saved[0])
            logger.propagate = saved[1]
        return encode_answer(dataclasses.replace(answer, log=capture.take()))


# -- the parent side -----------------------------------------------------------


@dataclasses.dataclass
class _Task:
    id: int
    games: list[Game]
    isolate: bool = False
    #: The indices of its games stored so far (from its parts, of any of its attempts).
    stored: set[int] = dataclasses.field(default_factory=set)
    #: The seconds its parts took.
    seconds: float = 0.0

    def left(self) -> list[Game]:
        """Its games not stored yet, in its order."""
        return [game for index, game in enumerate(self.games) if index not in self.stored]


#: How long the parent waits for a task to end before it looks for games finished (seconds).
PART_WAIT = 0.25


class DaskWorkers:
    """The games of a run played on ``cluster``: the same :meth:`play` as :class:`~.workers.Workers`."""

    def __init__(self, cluster: Cluster, init_args: tuple[Any, ...], bound: float) -> None:
        self.cluster = cluster
        settings = ship_bot_files(init_args[0])
        # As locally: with bots in processes of their own and a CPU for every worker of a local
        # cluster, each worker keeps to one CPU; a remote worker's CPUs are its own to place.
        settings = dataclasses.replace(settings, pin=settings.isolation == "process" and cluster.local is not None
                                       and cluster.threads() <= usable_cpus())
        self.settings = settings
        self.key = settings_key(settings)
        self.log_path: str | None = init_args[1] if len(init_args) > 1 else None
        self.bound = bound
        self.pending: dict[Any, _Task] = {}
        #: The tasks not yet ended, by id: a part names its task.
        self.tasks: dict[int, _Task] = {}
        self._ids = itertools.count()
        self.parts: Any = None

    def __enter__(self) -> DaskWorkers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close(wait=exc[0] is None)

    def close(self, wait: bool = True) -> None:
        """Cancel the tasks still out (their games not handed back are not stored)."""
        if self.pending:
            self.cluster.client.cancel(list(self.pending))
            self.pending.clear()
        if self.parts is not None:
            self.parts.close()
            self.parts = None

    def _submit(self, task: _Task) -> None:
        # The settings go with every task (a few kB): scattered data dies with the worker that holds it.
        future = self.cluster.client.submit(play_task, self.key, self.settings, task.games, task.isolate, self.bound,
                                            task.id, self.parts.name, pure=False)
        self.pending[future] = task
        self.tasks[task.id] = task

    def _write_log(self, lines: list[str]) -> None:
        if self.log_path is not None and lines:
            with open(self.log_path, "a", encoding="utf-8") as handle:
                handle.write("".join(line + "\n" for line in lines))

    def _take(self, answer: Answer) -> tuple[int, bytes, str, list[dict[str, Any]]] | None:
        """The games of an answer (a part or a task's last) not stored yet, marked stored; None if none."""
        self._write_log(answer.log)
        if answer.played is None:
            raise WorkerError(str(answer.error))
        task = self.tasks.get(answer.chunk)
        if task is None:
            return None  # a late part of a task ended already: its games are stored, or handed out again
        if not set(answer.played.games) <= set(range(len(task.games))):
            raise WorkerError("a Dask worker answered for games it was not given")
        new = set(answer.played.games) - task.stored  # an attempt played again after its worker died sends some twice
        played = answer.played.only(new, self.settings.compress)
        task.stored |= new
        task.seconds += played.seconds
        if not played.games:
            return None
        return len(played.games), played.records, played.rows.decode("utf-8"), played.faults

    def _drain(self) -> Iterator[tuple[int, bytes, str, list[dict[str, Any]]]]:
        """The games of the parts waiting in the queue, stored once each."""
        for data in self.parts.get(batch=True):
            taken = self._take(decode_answer(data, "a Dask worker", "task"))
            if taken is not None:
                yield taken

    def drain(self) -> Iterator[tuple[int, bytes, str, list[dict[str, Any]]]]:
        """The games handed back that :meth:`play` has not yielded: once play has stopped (Ctrl-C)."""
        if self.parts is None:
            return
        try:
            yield from self._drain()
        except Exception:  # noqa: BLE001 - a cluster gone or an answer that is none: nothing more is stored
            return

    def play(self, games: Iterator[Game], remaining: int, max_chunk: int = DASK_CHUNKS.most,
             passes: bool = False) -> Iterator[tuple[int, bytes, str, list[dict[str, Any]]]]:
        """Play ``games``: ``(how many, record lines, rows, faults)`` as games finish (see the module docstring).

        The first task per worker thread holds one game, to time them; then tasks of
        :data:`~.chunks.DASK_CHUNKS`' size, at most ``max_chunk`` games; with ``passes``, a seating's
        consecutive games a task (bots in processes: :mod:`~.chunks`).  A task hands its games back
        through a Dask queue as they finish (:func:`play_task`), so a long one's are stored as it goes.
        """
        import distributed

        threads = self.cluster.threads()
        sizes = ChunkSizes(DASK_CHUNKS, threads, threads, remaining, max_chunk, passes)
        ahead = 2 * threads
        self.parts = distributed.Queue(f"arena-parts-{uuid.uuid4().hex}", client=self.cluster.client)

        def top_up() -> None:
            while sum(1 for t in self.pending.values() if not t.isolate) < ahead:
                chunk = sizes.take(games)
                if not chunk:
                    return
                self._submit(_Task(next(self._ids), chunk))

        top_up()
        drained = time.monotonic()
        while self.pending:
            try:
                done, _ = distributed.wait(list(self.pending), timeout=PART_WAIT, return_when="FIRST_COMPLETED")
            except TimeoutError:
                done = set()
            ended = [self._ended(future) for future in done]
            # A task's parts reach the queue before it ends, so after the wait they are all there: taken at
            # least every PART_WAIT, and before a task that handed back games as parts is settled.
            if time.monotonic() - drained >= PART_WAIT or any(
                    answer is None or answer.played is None or len(task.stored) + len(answer.played.games) < len(task.games)
                    for task, answer in ended):
                drained = time.monotonic()
                yield from self._drain()
            for task, answer in ended:
                if answer is None:  # its workers kept dying: its games not stored are played again, isolated
                    del self.tasks[task.id]
                    if task.isolate:
                        raise WorkerError(f"game {task.games[0].game_id} stops its Dask worker even with every bot "
                                          f"in a process of its own") from None
                    for game in task.left():
                        log.warning("%s: its Dask worker died while playing it; playing it again with every bot in "
                                    "a process of its own", game.game_id)
                        self._submit(_Task(next(self._ids), [game], isolate=True))
                    continue
                taken = self._take(answer)
                del self.tasks[task.id]
                if len(task.stored) != len(task.games):
                    raise WorkerError("a Dask task ended without all of its games")
                if not task.isolate:
                    sizes.timed(task.seconds, len(task.games))
                if taken is not None:
                    yield taken
            top_up()

    def _ended(self, future: Any) -> tuple[_Task, Answer | None]:
        """A task that ended and its last answer (None: the scheduler gave up on it, its workers kept dying)."""
        import distributed

        task = self.pending.pop(future)
        try:
            data = future.result()
        except distributed.KilledWorker:
            return task, None
        except Exception as exc:
            raise WorkerError(f"a Dask task failed: {type(exc).__name__}: {_one_line(exc)}") from None
        return task, decode_answer(data, "a Dask worker", "task")

__all__ = ["Cluster", "DaskWorkers", "parse_cluster", "play_task"]
