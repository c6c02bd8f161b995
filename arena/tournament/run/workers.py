"""Worker processes that play a tournament's games, and the parent's side of them.

Every worker is a process of its own, also when there is only one, and the
process that stores the results runs no bot code.  With isolation
``process`` (the default) a worker runs no bot code either: it keeps bot
programs in the sandbox, a few per entrant, started as they are needed
(never two games of one deal for one process) and kept from game to game,
and talks to them in ``uptown-bot/1``.  A chunk's games are played deal
after deal (:func:`play_order`).  With isolation ``none`` the bots run inside
the worker.

The parent hands each worker chunks of games of the schedule over a pipe of
its own, two at a time (one played, one waiting), sized by :mod:`.chunks`,
and gets the games back as they finish: a message at least every
:data:`~.codec.PART_SECONDS` of play and one at the chunk's end, each with the
record lines and ``games.csv`` rows of the games finished since the last, as
bytes behind a JSON line (:mod:`.codec`) — never a pickle, since a worker may
have run bot code.  So a game is stored within about a second of its end
however long its chunk (a seating's pass of 256 sandboxed games, say).

A worker whose process ends while it plays — an in-process bot called
``os._exit``, closed the worker's pipe, the interpreter crashed, the system
killed it — is replaced, and so is one whose game runs longer than its bots'
time limits allow (:func:`game_bound`: an in-process bot stuck inside C code,
where the in-process clock cannot stop it), which the parent stops.  The game
it was on (each worker names it in a shared slot before it starts a game) is
played again by a worker of its own with every bot in a process of its own,
where the bot is faulted (``crash``, ``timeout``) like any other; the other
games it held and had not handed back are handed out again.  So such a bot
costs some games played twice, never a game lost or stored twice.

A worker ignores Ctrl-C (the parent stops the run) and ends by itself when
the parent is gone; its bot processes die with it.
"""

from __future__ import annotations

import collections
import itertools
import logging
import math
import multiprocessing.connection
import os
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Self

from arena.isolation.cpus import pin_to_cpu
from arena.plan.schedule import Game
from arena.play.entrants import referee_args
from arena.results.files import HELD_LOCKS, LOG_FORMAT
from arena.results.rows import SeatTime, game_rows_text
from arena.timecontrol import TimeControl, as_control
from arena.tournament.run.chunks import LOCAL_CHUNKS, ChunkSizes
from arena.tournament.run.codec import (
    PART_SECONDS,
    Answer,
    Played,
    WorkerError,
    decode_answer,
    encode_answer,
    fault_entry,
)
from arena.tournament.run.settings import WorkerSettings

log = logging.getLogger("arena.tournament")

#: The exit status of a worker whose pipe to the parent a bot closed or replaced.
EXIT_PIPE_LOST = 3
#: Workers that end in a row before they play anything: then something other than a bot is wrong.
MAX_FAILED_STARTS = 3
# How often an idle worker looks whether its parent is still there (seconds).
_PARENT_CHECK = 1.0


# -- the worker side -----------------------------------------------------------

#: Per-process settings, filled by :func:`init_worker`.
_WORKER: dict[str, Any] = {}
# The parent's ends of the workers' pipes.  A forked worker gets copies of them and closes
# them at once, so that only the parent holds them and a worker notices when it is gone.
_PARENT_ENDS: list[Any] = []


def _prepare(referee: Any) -> list[Any]:
    """Every entrant's bot, prepared once by ``referee`` (its bot processes started and kept)."""
    from arena.play.prepared import with_identity
    from arena.results.identity import bot_identity

    entrants = _WORKER["settings"].entrants
    bots = referee.prepare_all([referee_args(e, referee.isolation) for e in entrants])
    return [with_identity(bot, bot_identity(e)) for bot, e in zip(bots, entrants, strict=True)]


def init_worker(settings: WorkerSettings, log_path: str | None = None, level: int = logging.INFO) -> None:
    """Set up a worker process: bots resolved once (their processes started), its log lines appended
    to ``log_path`` (the run's ``arena.log``) by the worker itself."""
    if log_path is not None:
        logger = logging.getLogger("arena")
        for handler in list(logger.handlers):  # the parent's, inherited under fork: not this process's to use
            logger.removeHandler(handler)
        handler = logging.FileHandler(log_path, encoding="utf-8")  # appends: each line one write
        handler.setFormatter(logging.Formatter(LOG_FORMAT))
        logger.addHandler(handler)
        logger.setLevel(level)
        logger.propagate = False
    from arena.play.referee import Referee

    _WORKER.clear()
    _WORKER["settings"] = settings

    def referee(isolation: str) -> Referee:
        """Pinned workers (a CPU each) pin their referees to it; more workers than CPUs pin nothing."""
        return Referee(settings.time, isolation=isolation, logs=settings.logs, hide=settings.hide,
                       pin=settings.pin)

    played = referee(settings.isolation)
    _WORKER["referee"] = played
    # Resolved once per process; the bot itself is made fresh for every game by the referee.
    _WORKER["bots"] = {id(played): _prepare(played)}
    _WORKER["isolated"] = referee("process")


def close_worker() -> None:
    """Stop the bot processes the worker's referees keep, and remove its live file."""
    live = _WORKER.pop("live", None)
    if live is not None:
        live.close()
    for key in ("referee", "isolated"):
        if key in _WORKER:
            _WORKER[key].close()


def play_one(referee: Any, game: Game) -> tuple[bytes, str, list[dict[str, Any]]]:
    """Play one game of the schedule: its record line (with the newline), its ``games.csv`` rows, and
    its faults (:func:`fault_entry`) for the parent to count (the referee has logged each)."""
    game_id, table, deal, rotation, seed, seats = game
    w, given = _WORKER, _WORKER["settings"]
    names = [given.names[i] for i in seats]
    try:
        bots = w["bots"].get(id(referee))
        if bots is None:  # the isolated referee, at its first game
            bots = w["bots"][id(referee)] = _prepare(referee)
        live = w.get("live")
        if live is not None and not live.start(game_id, names, seed, len(seats), given.scoring, given.penalty):
            live = None
        outcome = referee.play(
            [bots[i] for i in seats], seed, scoring=given.scoring, penalty=given.penalty, names=names,
            deal_key=given.deal_key, on_move=None if live is None else live.on_move, extra={
                "game_id": game_id,
                "tournament": {"name": given.tournament, "table": table, "deal": deal, "rotation": rotation},
            },
        )
    except Exception as exc:
        log.exception("%s: the game could not be played", game_id)
        raise WorkerError(f"game {game_id} could not be played: {type(exc).__name__}: {exc}") from None
    if live is not None:
        live.end(outcome.state)
    faults = [fault_entry(game_id, names[f["seat"]], f) for f in outcome.faults]
    rows = game_rows_text(game, names, [given.specs[i] for i in seats], outcome.result, outcome.turns, outcome.faulted,
                          seat_times(outcome), given.scoring)
    return (outcome.record_line() + "\n").encode("ascii"), rows, faults


def seat_times(outcome: Any) -> list[SeatTime]:
    """Each seat's time use in a finished game (a :class:`~arena.play.outcome.GameOutcome`), for its row."""
    return [SeatTime(*figures) for figures in zip(outcome.seconds, outcome.asked, outcome.longest,
                                                  outcome.lost_on_time, outcome.clock_left, strict=True)]


def play_chunk(games: list[Game], isolate: bool = False, mark: Any = None, check: Any = None,
               send: Callable[[Played], None] | None = None) -> Played:
    """Play games under one referee: their record lines, their rows, the seconds it took, their faults.

    ``mark(index)`` is called before each game starts, ``check()`` after each.  With ``send``, the
    games finished are handed to ``send`` as they finish, at least every :data:`~.codec.PART_SECONDS`
    of play, and only those not sent yet are returned.  The faults travel with the games, for the
    parent's fault summary; the referee has logged each, once, as it happened.
    """
    last_sent = time.perf_counter()
    done: list[tuple[int, bytes, str, list[dict[str, Any]]]] = []
    with _WORKER["isolated" if isolate else "referee"] as referee:
        for index in play_order(games):
            if mark is not None:
                mark(index)
            done.append((index, *play_one(referee, games[index])))
            if check is not None:
                check()
            if send is not None and (now := time.perf_counter()) - last_sent >= PART_SECONDS:
                send(Played.of(done, now - last_sent, _WORKER["settings"].compress))
                done, last_sent = [], now
    return Played.of(done, time.perf_counter() - last_sent, _WORKER["settings"].compress)


def play_order(games: list[Game]) -> list[int]:
    """The order to play a chunk's games in (their indices): the first game of every deal, then the
    second of every deal, and so on, each round in the chunk's order.

    A bot process never plays two games of one deal (the referee sees to that); in this order it
    plays every deal of the chunk once before it would meet one again, so few processes are started
    for a chunk that holds a deal's games side by side.  The answer keeps the chunk's order.
    """
    rounds: dict[int, int] = {}
    keyed = []
    for index, game in enumerate(games):
        turn = rounds.get(game.seed, 0)
        rounds[game.seed] = turn + 1
        keyed.append((turn, index))
    return [index for _, index in sorted(keyed)]


def _worker_main(conn: Any, slot: int, playing: Any, init_args: tuple[Any, ...]) -> None:
    """A worker's life: play each chunk the parent sends, answer it, until told to stop or orphaned."""
    # Ctrl-C is the parent's to handle: it stops the workers and keeps what is stored.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for end in _PARENT_ENDS:
        end.close()
    _PARENT_ENDS.clear()
    for fd in HELD_LOCKS:  # the parent's lock on the results folder is the parent's alone
        os.close(fd)
    HELD_LOCKS.clear()
    parent = os.getppid()
    settings: WorkerSettings = init_args[0]
    if settings.pin:
        pin_to_cpu(slot)
    init_worker(*init_args)
    if settings.live:  # the game this worker plays, move by move, for arena serve
        from pathlib import Path

        from arena.results.live import LivePublisher, live_path

        _WORKER["live"] = LivePublisher(live_path(Path(settings.live), slot))
    try:
        _serve_chunks(conn, slot, playing, parent)
    finally:
        close_worker()


def _serve_chunks(conn: Any, slot: int, playing: Any, parent: int) -> None:
    pipe = os.fstat(conn.fileno())

    def check_pipe() -> None:
        """After a game: the pipe to the parent is still the one it was.  An in-process bot may have
        closed the worker's descriptors; then the worker ends while its slot still names that game,
        which the parent plays again with every bot in a process of its own."""
        try:
            now = os.fstat(conn.fileno())
        except OSError:
            os._exit(EXIT_PIPE_LOST)
        if (now.st_dev, now.st_ino) != (pipe.st_dev, pipe.st_ino):
            os._exit(EXIT_PIPE_LOST)

    def answer(data: bytes) -> None:
        try:
            conn.send_bytes(data)
        except OSError:
            # Its slot still names the game: the parent plays it again with every bot in a process of its own.
            os._exit(EXIT_PIPE_LOST)

    while True:
        while not conn.poll(_PARENT_CHECK):
            if os.getppid() != parent:
                return
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        chunk_id, isolate, games = message

        def mark(index: int, chunk_id: int = chunk_id) -> None:
            playing[3 * slot + 1] = index
            playing[3 * slot + 2] = time.monotonic()
            playing[3 * slot] = chunk_id

        def send(played: Played, chunk_id: int = chunk_id) -> None:
            answer(encode_answer(Answer(chunk_id, played, last=False)))

        try:
            last = encode_answer(Answer(chunk_id, play_chunk(games, isolate, mark, check_pipe, send)))
        except WorkerError as exc:
            check_pipe()  # a game broken by a bot that closed the worker's descriptors is that bot's to answer for
            last = encode_answer(Answer(chunk_id, error=str(exc)))
        answer(last)
        playing[3 * slot] = -1.0
        if isolate:
            return  # a worker started for one game in isolation ends with it


# -- the parent side -----------------------------------------------------------


@dataclass
class _Chunk:
    id: int
    games: list[Game]
    isolate: bool = False
    #: The indices of its games handed back so far (its answers come in parts, as games finish).
    received: set[int] = field(default_factory=set)
    #: The seconds its parts took so far.
    seconds: float = 0.0

    def left(self) -> list[Game]:
        """Its games not handed back yet, in its order."""
        return [game for index, game in enumerate(self.games) if index not in self.received]


@dataclass
class _Worker:
    slot: int
    process: Any
    conn: Any
    in_flight: collections.deque[_Chunk] = field(default_factory=collections.deque)
    #: Answers it sent (parts of chunks included).
    answered: int = 0
    #: Started for one game played in isolation, after which it ends.
    one_shot: bool = False


def game_bound(players: int, time: TimeControl | float) -> float:
    """The longest one game can take (seconds) under ``time`` if no call into a bot runs past the limit.

    Every call is bounded: a bot is asked at most once a turn (24 turns a color) and once
    each to start and to hear the result, and may run past the limit by its overage bank,
    once in all (a game clock only ever shortens a turn).  A game still running after this has
    a bot stuck where the in-process clock cannot stop it (inside C code).
    """
    time = as_control(time)
    colors = 4 if players == 2 else players
    return (24 * colors + 2 * players) * time.limit + players * time.overage + _BOUND_MARGIN


# Added to game_bound: the referee's own work, a busy machine.
_BOUND_MARGIN = 30.0


class Workers:
    """``count`` worker processes of ``ctx``; :meth:`play` plays games on them.  Use in a ``with`` block.

    ``bound`` is the longest a game may take (seconds, see :func:`game_bound`): a worker
    still on one game after that is stopped, and the game played again with every bot isolated.
    """

    def __init__(self, ctx: Any, count: int, init_args: tuple[Any, ...], bound: float = math.inf) -> None:
        self.ctx = ctx
        self.count = count
        self.init_args = init_args
        self.bound = bound
        # Per slot: the chunk, the index in it and the start (time.monotonic) of the game its worker
        # plays.  The first `count` slots are the workers'; the others are for games played isolated
        # (at most one per worker at a time).
        self.playing = ctx.RawArray("d", [-1.0] * (3 * 2 * count))
        self.workers: list[_Worker] = []
        self._ids = itertools.count()
        self._started = 0
        self._failed_starts = 0

    def __enter__(self) -> Self:
        for slot in range(self.count):
            self.workers.append(self._start(slot))
        return self

    def __exit__(self, *exc: object) -> None:
        self.close(wait=exc[0] is None)

    def _start(self, slot: int, one_shot: bool = False) -> _Worker:
        self._started += 1
        parent_end, child_end = self.ctx.Pipe()
        _PARENT_ENDS.append(parent_end)
        process = self.ctx.Process(
            target=_worker_main, args=(child_end, slot, self.playing, self.init_args),
            name=f"ArenaWorker-{self._started}", daemon=False,
        )
        self.playing[3 * slot] = -1.0
        process.start()
        child_end.close()
        return _Worker(slot, process, parent_end, one_shot=one_shot)

    def close(self, wait: bool = True) -> None:
        """Stop every worker: told to when ``wait`` (they hold nothing by then), else at once."""
        for worker in self.workers:
            if wait:
                try:
                    worker.conn.send(None)
                except OSError:
                    pass
            else:
                worker.process.kill()
        for worker in self.workers:
            worker.process.join(10 if wait else None)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            self._forget(worker)
        self.workers.clear()

    def _forget(self, worker: _Worker) -> None:
        worker.conn.close()
        _PARENT_ENDS.remove(worker.conn)

    def play(self, games: Iterator[Game], remaining: int, max_chunk: int = LOCAL_CHUNKS.most,
             passes: bool = False) -> Iterator[tuple[int, bytes, str, list[dict[str, Any]]]]:
        """Play ``games`` (``remaining`` of them): ``(how many, record lines, rows, faults)`` as games finish
        (see the module docstring).

        The first two games per worker go one by one, to time them; then chunks
        of :data:`~.chunks.LOCAL_CHUNKS`' size, at most ``max_chunk`` games; with ``passes``, a seating's
        consecutive games a chunk (bots in processes: :mod:`~.chunks`).  ``games`` may run dry
        and fill again (a match hands out games only a few deals ahead of the
        deals it has counted, :mod:`arena.tournament.match.feed`): it is asked again whenever a worker
        is free, and play ends when it is dry and no worker holds a game.  Raises
        :class:`WorkerError` when a game cannot be played, or workers keep ending
        before they play.
        """
        handed_back: collections.deque[_Chunk] = collections.deque()
        to_isolate: collections.deque[_Chunk] = collections.deque()
        sizes = ChunkSizes(LOCAL_CHUNKS, self.count, 2 * self.count, remaining, max_chunk, passes)

        def next_chunk() -> _Chunk | None:
            if handed_back:
                return handed_back.popleft()
            chunk = sizes.take(games)
            return _Chunk(next(self._ids), chunk) if chunk else None

        while True:
            while to_isolate and (slot := self._free_slot()) is not None:
                isolated = self._start(slot, one_shot=True)
                self.workers.append(isolated)
                self._send(isolated, to_isolate.popleft())
            for depth in (1, 2):  # a chunk for every worker before a second one for any
                for worker in self.workers:
                    if not worker.one_shot and len(worker.in_flight) < depth and (chunk := next_chunk()) is not None:
                        self._send(worker, chunk)
            busy = [w for w in self.workers if w.in_flight]
            if not busy:
                return
            ready = multiprocessing.connection.wait(
                [w.conn for w in busy] + [w.process.sentinel for w in busy], timeout=self._next_deadline(busy),
            )
            for worker in busy:
                stuck = self._stuck(worker)
                ended = stuck or worker.process.sentinel in ready
                if worker.conn in ready or ended:
                    try:
                        while worker.in_flight and worker.conn.poll():
                            taken = self._receive(worker, sizes)
                            if taken is not None:
                                yield taken
                    except (EOFError, OSError):
                        ended = True
                if worker.one_shot and not worker.in_flight:
                    worker.process.join()  # it ends after its game
                    self._forget(worker)
                    self.workers.remove(worker)
                elif ended:
                    if not stuck:
                        worker.process.join(5)  # its pipe may close a moment before the process ends
                    worker.process.kill()
                    worker.process.join()
                    for chunk in self._lost(worker, stuck):
                        (to_isolate if chunk.isolate else handed_back).append(chunk)
                    self._forget(worker)
                    if worker.one_shot:
                        self.workers.remove(worker)
                    else:
                        self.workers[self.workers.index(worker)] = self._start(worker.slot)

    def _receive(self, worker: _Worker, sizes: ChunkSizes | None) -> tuple[int, bytes, str, list[dict[str, Any]]] | None:
        """The next answer from ``worker`` (waiting in its pipe): its games, None if it holds none.  ``sizes``
        is told how long the chunk took once its last answer comes."""
        answer = decode_answer(worker.conn.recv_bytes())
        chunk = worker.in_flight[0]
        if chunk.id != answer.chunk:
            raise WorkerError("a worker answered its chunks out of order")
        if answer.played is None:
            raise WorkerError(str(answer.error))
        played = answer.played
        worker.answered += 1
        self._failed_starts = 0
        if not set(played.games) <= set(range(len(chunk.games))) - chunk.received:
            raise WorkerError("a worker answered for games it was not given")
        chunk.received.update(played.games)
        chunk.seconds += played.seconds
        if answer.last:
            if len(chunk.received) != len(chunk.games):
                raise WorkerError("a worker ended a chunk without all of its games")
            worker.in_flight.popleft()
            if sizes is not None and not chunk.isolate:
                sizes.timed(chunk.seconds, len(chunk.games))
        if not played.games:
            return None
        return len(played.games), played.records, played.rows.decode("utf-8"), played.faults

    def drain(self) -> Iterator[tuple[int, bytes, str, list[dict[str, Any]]]]:
        """The games the workers have handed back and :meth:`play` has not yielded: once play has stopped
        (Ctrl-C), so that every game handed back is stored."""
        for worker in self.workers:
            try:
                while worker.in_flight and worker.conn.poll():
                    taken = self._receive(worker, None)
                    if taken is not None:
                        yield taken
            except (EOFError, OSError, WorkerError):
                continue  # a worker that ended, or answered what is no answer: nothing more of its is stored

    def _send(self, worker: _Worker, chunk: _Chunk) -> None:
        worker.in_flight.append(chunk)
        try:
            worker.conn.send((chunk.id, chunk.isolate, chunk.games))
        except OSError:
            pass  # its process has ended: the chunk is handed back when its sentinel is seen

    def _next_deadline(self, busy: list[_Worker]) -> float | None:
        """How long to wait for the workers before looking for a stuck game (None: no bound)."""
        if not math.isfinite(self.bound):
            return None
        now = time.monotonic()
        starts = [self.playing[3 * w.slot + 2] for w in busy if self.playing[3 * w.slot] >= 0]
        # At most a second: a worker may start a game just after this look.
        return min(1.0, max(0.0, min(starts) + self.bound - now) + 0.01) if starts else 1.0

    def _stuck(self, worker: _Worker) -> bool:
        playing = self.playing
        return (math.isfinite(self.bound) and playing[3 * worker.slot] >= 0
                and time.monotonic() - playing[3 * worker.slot + 2] > self.bound)

    def _lost(self, worker: _Worker, stuck: bool = False) -> list[_Chunk]:
        """The chunks a worker held when its process ended, to hand out again.

        The game it was playing comes back alone and marked ``isolate``: a worker of its
        own plays it with every bot in a process of its own.
        """
        base = 3 * worker.slot
        chunk_id, index = int(self.playing[base]), int(self.playing[base + 1])
        code = worker.process.exitcode
        if worker.answered == 0 and not any(chunk.id == chunk_id for chunk in worker.in_flight):
            self._failed_starts += 1
            if self._failed_starts >= MAX_FAILED_STARTS:
                raise WorkerError(f"worker processes end before they play a game (exit code {code})")
        again = []
        for chunk in worker.in_flight:
            left = chunk.left()
            if chunk.id != chunk_id or index in chunk.received:  # ended between games: none to blame
                if left:
                    again.append(_Chunk(next(self._ids), left, chunk.isolate))
                continue
            game = chunk.games[index]
            if chunk.isolate:
                raise WorkerError(f"game {game.game_id} stops its worker even with every bot in a process of "
                                  f"its own (exit code {code})")
            if stuck:
                what = f"still running after {self.bound:.0f} s, longer than its bots' time limits allow: stopped"
            else:
                what = f"the worker process ended while playing it (exit code {code})"
            log.warning("%s: %s; playing it again with every bot in a process of its own", game.game_id, what)
            again.append(_Chunk(next(self._ids), [game], isolate=True))
            others = [other for other in left if other is not game]
            if others:
                again.append(_Chunk(next(self._ids), others))
        worker.in_flight.clear()
        return again

    def _free_slot(self) -> int | None:
        """A slot for a worker that plays a game isolated, None while all are taken."""
        taken = {w.slot for w in self.workers}
        return next((slot for slot in range(self.count, 2 * self.count) if slot not in taken), None)
