"""Play a tournament's games in worker processes and append the results as each game finishes.

With more than one worker the parent process never plays: it hands the
workers chunks of games of the schedule (small tuples: game id, seed,
seating), shows the progress bar, and appends what comes back — a chunk's
record lines and rows at once — to the results folder, keeping no record in
memory (with one worker it plays the games itself).  Games are written as
they finish, or, when they finish faster than that, gathered for at most a
quarter of a second or 64 games:

* ``records.jsonl`` (or ``records.jsonl.gz``): one ``uptown-game/1`` record
  per line, in the order games finish;
* ``games.csv``: the game's rows, one per seat.

A game is *stored* once both are on disk: its record line is written and
flushed first, then its rows.  With ``resume``, :func:`~.store.recover` drops
a half-written last line and any game that is not complete in both files, so
an interrupted run — Ctrl-C or the process killed outright — is continued
with only the missing games.  When every game is stored, ``games.csv`` is
rewritten in schedule order (table, deal, rotation, seat), so it is the same
file for any number of workers, either start method and any interruptions.

Bots are built inside the worker from their spec strings.  Worker log
messages reach ``arena.log`` through multiprocessing-logging under ``fork``,
and through a queue from the ``spawn`` context otherwise.
"""

from __future__ import annotations

import contextlib
import gzip
import itertools
import logging
import logging.handlers
import multiprocessing
import multiprocessing.pool
import signal
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from .config import TournamentConfig
from .rows import game_rows_text
from .schedule import Game, count_games, schedule
from .store import GAMES_FILE, LOG_FILE, RunError, prepare_folder, sort_games_file

log = logging.getLogger("arena.tournament")

START_METHODS = ("fork", "spawn", "forkserver")


class Interrupted(Exception):
    """The run was stopped (Ctrl-C); every game finished so far is stored."""

    def __init__(self, stored: int, total: int) -> None:
        super().__init__(f"interrupted with {stored} of {total} games stored")
        self.stored = stored
        self.total = total


@dataclass
class RunSummary:
    """What a run did."""

    out: Path
    total: int
    already: int
    played: int
    seconds: float
    records: Path = field(default_factory=Path)


# -- the worker side -----------------------------------------------------------

#: Per-process settings, filled by :func:`init_worker` (the parent's own copy is used with one worker).
_WORKER: dict[str, Any] = {}


def worker_settings(config: TournamentConfig) -> dict[str, Any]:
    """What every worker needs to play any game: plain values only, so it pickles under spawn."""
    return {
        "tournament": config.name,
        "names": list(config.names),
        "specs": [e.spec for e in config.entrants],
        "scoring": config.scoring,
        "penalty": config.penalty,
        "time_limit": config.time_limit,
    }


def init_worker(settings: dict[str, Any], log_queue: Any = None, level: int = logging.INFO, child: bool = True) -> None:
    """Set up one worker process (also called in the parent when it plays by itself)."""
    if child:
        # Ctrl-C is the parent's to handle: it stops the pool and keeps what is stored.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    if log_queue is not None:
        logger = logging.getLogger("arena")
        for handler in list(logger.handlers):
            logger.removeHandler(handler)
        logger.addHandler(logging.handlers.QueueHandler(log_queue))
        logger.setLevel(level)
        logger.propagate = False
    from ..bots import parse_bot_spec
    from ..referee import Referee, prepare_bot

    _WORKER.clear()
    _WORKER.update(settings)
    # Resolved once per process; the bot itself is made fresh for every game by the referee.
    _WORKER["bots"] = [prepare_bot(parse_bot_spec(spec)) for spec in settings["specs"]]
    _WORKER["referee"] = Referee(settings["time_limit"])


def _play_one(referee: Any, task: Game) -> tuple[str, bytes, str, float]:
    started = time.perf_counter()
    game_id, table, deal, rotation, seed, seats = task
    w = _WORKER
    names = [w["names"][i] for i in seats]
    try:
        outcome = referee.play(
            [w["bots"][i] for i in seats], seed, scoring=w["scoring"], penalty=w["penalty"], names=names,
            extra={
                "game_id": game_id,
                "tournament": {"name": w["tournament"], "table": table, "deal": deal, "rotation": rotation},
            },
        )
    except Exception as exc:
        log.exception("%s: the game could not be played", game_id)
        raise RuntimeError(f"game {game_id} could not be played: {type(exc).__name__}: {exc}") from None
    for fault in outcome.faults:
        log.warning(
            "%s: seat %s (%s) fault at move %s: %s: %s",
            game_id, fault["seat"], names[fault["seat"]], fault["move"], fault["kind"], fault["message"],
        )
    rows = game_rows_text(
        game_id, table, deal, rotation, seed, names, [w["specs"][i] for i in seats], outcome.result,
        outcome.turns, outcome.faulted, outcome.seconds, w["scoring"],
    )
    # Encoded here, in parallel, so the parent only writes.
    return game_id, (outcome.record_line() + "\n").encode("ascii"), rows, time.perf_counter() - started


def play_task(task: Game) -> tuple[str, bytes, str, float]:
    """Play one game: ``(game id, record line with its newline, games.csv rows, seconds it took)``."""
    with _WORKER["referee"] as referee:
        return _play_one(referee, task)


def play_tasks(tasks: list[Game]) -> tuple[int, bytes, str, float]:
    """Play a chunk of games: ``(how many, their record lines, their games.csv rows, seconds it took)``.

    One referee (timer and signal handlers set once), one message back per chunk, and two writes in the parent.
    """
    started = time.perf_counter()
    lines = []
    rows = []
    with _WORKER["referee"] as referee:
        for task in tasks:
            _, line, text, _ = _play_one(referee, task)
            lines.append(line)
            rows.append(text)
    return len(tasks), b"".join(lines), "".join(rows), time.perf_counter() - started


# -- logging -------------------------------------------------------------------


class _LogSetup:
    """``arena.log`` for the parent and its workers; undone by :meth:`close`."""

    def __init__(self, path: Path, ctx: Any, workers: int) -> None:
        self.logger = logging.getLogger("arena")
        self.saved = (list(self.logger.handlers), self.logger.level, self.logger.propagate)
        for handler in self.saved[0]:
            self.logger.removeHandler(handler)
        self.file_handler = logging.FileHandler(path, encoding="utf-8")
        self.file_handler.setFormatter(logging.Formatter("%(asctime)s %(processName)s %(levelname)s %(message)s"))
        self.logger.addHandler(self.file_handler)
        self.logger.setLevel(logging.INFO)
        self.logger.propagate = False
        self.queue = None
        self.listener: logging.handlers.QueueListener | None = None
        if workers <= 1:
            return
        if ctx.get_start_method() == "fork" and multiprocessing.get_start_method() == "fork":
            import multiprocessing_logging

            # Forked workers inherit the wrapped handler and send their records to the parent's thread.
            multiprocessing_logging.install_mp_handler(self.logger)
        else:
            # multiprocessing-logging needs fork; spawned workers get a queue of the same context instead.
            self.queue = ctx.Queue(-1)
            self.listener = logging.handlers.QueueListener(self.queue, self.file_handler, respect_handler_level=True)
            self.listener.start()

    def close(self) -> None:
        if self.listener is not None:
            self.listener.stop()
        for handler in list(self.logger.handlers):
            self.logger.removeHandler(handler)
            handler.close()
        self.file_handler.close()
        handlers, level, propagate = self.saved
        for handler in handlers:
            self.logger.addHandler(handler)
        self.logger.setLevel(level)
        self.logger.propagate = propagate


# -- the run ----------------------------------------------------------------------


class _Pool(multiprocessing.pool.Pool):
    """A pool whose worker-keeping thread wakes when a worker ends or the pool changes, not for every result.

    The standard pool also wakes that thread whenever bytes wait in the result
    pipe: with results of hundreds of kilobytes (a chunk of records) it spins
    for as long as each transfer lasts, taking the parent's CPU, and the GIL,
    from the thread that reads them.
    """

    def _get_sentinels(self) -> list[Any]:
        return [self._change_notifier._reader]  # type: ignore[attr-defined]


#: Work a chunk of games sent to a worker at once should take (seconds): big enough to save
#: inter-process traffic on fast games, small enough to keep the progress bar moving on slow ones.
CHUNK_SECONDS = 0.25
MAX_CHUNK = 64


def _chunksize(games: int, workers: int, seconds_per_game: float) -> int:
    by_time = int(CHUNK_SECONDS / seconds_per_game) if seconds_per_game > 0 else MAX_CHUNK
    # ...and at least eight chunks per worker, so that all of them stay busy until near the end.
    return max(1, min(MAX_CHUNK, by_time, games // (workers * 8)))


def _pooled_results(
    pool: Any, tasks: Iterator[Any], workers: int, remaining: int,
) -> Iterator[tuple[int, bytes, str, float]]:
    """Results from the pool: a first few games one by one to time them, then the rest in chunks."""
    probe = list(itertools.islice(tasks, 2 * workers))
    took = []
    for result in pool.imap_unordered(play_tasks, [[task] for task in probe]):
        took.append(result[3])
        yield result
    seconds_per_game = sum(took) / max(1, len(took))
    rest = remaining - len(probe)
    if rest > 0:
        size = _chunksize(rest, workers, seconds_per_game)
        chunks = iter(lambda: list(itertools.islice(tasks, size)), [])
        yield from pool.imap_unordered(play_tasks, chunks)


def _tasks(config: TournamentConfig, done: set[str]) -> Iterator[Game]:
    return (game for game in schedule(config) if game.game_id not in done)


def run_tournament(
    config: TournamentConfig,
    text: str,
    out: Path,
    *,
    workers: int = 1,
    start_method: str | None = None,
    resume: bool = False,
    overwrite: bool = False,
    compress: bool = False,
    progress: bool = False,
) -> RunSummary:
    """Play every game of ``config`` not yet stored in ``out``; see the module docstring.

    With ``workers == 1`` the games are played in this process.  Raises
    :class:`RunError` for a folder that cannot be used, :class:`Interrupted`
    on Ctrl-C (everything finished is stored).
    """
    if workers < 1:
        raise RunError(f"--workers must be at least 1, not {workers}")
    if start_method is not None and start_method not in multiprocessing.get_all_start_methods():
        raise RunError(f"start method {start_method!r} is not available here")
    recovered, records_path, compressed = prepare_folder(
        config, text, out, resume=resume, overwrite=overwrite, compress=compress,
    )
    done = recovered.done
    total = count_games(config)
    remaining = total - len(done)
    ctx = multiprocessing.get_context(start_method)
    logs = _LogSetup(out / LOG_FILE, ctx, workers if remaining > 1 else 1)
    start = time.perf_counter()
    played = 0
    try:
        log.info(
            "tournament %s: %d games, %d stored, %d to play with %d worker(s) (%s)",
            config.name, total, len(done), remaining, workers, ctx.get_start_method() if workers > 1 else "in process",
        )
        if recovered.dropped or recovered.cut_bytes:
            log.info(
                "resume: dropped %d incomplete game(s) and %d byte(s) of half-written lines",
                recovered.dropped, recovered.cut_bytes,
            )
        if remaining:
            played = _play(config, done, remaining, total, out, records_path, compressed, workers, ctx, logs, progress)
        sort_games_file(out / GAMES_FILE)
        log.info("tournament %s: all %d games stored (%d played now)", config.name, total, played)
    finally:
        logs.close()
    return RunSummary(out, total, len(done), played, time.perf_counter() - start, records_path)


#: Games that finish within this many seconds of the last write are written together...
STORE_SECONDS = 0.25
#: ...up to this many.
STORE_GAMES = 64


class _Appender:
    """Appends finished games to the two files: at once when games are slow, gathered when they are
    fast (for up to :data:`STORE_SECONDS` and :data:`STORE_GAMES`: a kill then costs at most that much
    play, which a resume plays again)."""

    def __init__(self, records: IO[bytes], games: IO[str]) -> None:
        self.records = records
        self.games = games
        #: Games on disk.
        self.stored = 0
        self._count = 0
        self._lines: list[bytes] = []
        self._rows: list[str] = []
        self._since = time.perf_counter()
        self._failed = False

    def add(self, count: int, record_lines: bytes, rows: str) -> None:
        self._count += count
        self._lines.append(record_lines)
        self._rows.append(rows)
        if self._count >= STORE_GAMES or time.perf_counter() - self._since >= STORE_SECONDS:
            self.flush()

    def flush(self) -> int:
        """Write what is gathered; the number of games stored."""
        if self._count and not self._failed:
            self._failed = True  # a write that fails is not tried again on the way out
            # The records first: a game counts once its rows follow it (see recover()).
            self.records.writelines(self._lines)
            self.records.flush()
            self.games.writelines(self._rows)
            self.games.flush()
            self._failed = False
            self.stored += self._count
            self._count = 0
            self._lines.clear()
            self._rows.clear()
        self._since = time.perf_counter()
        return self.stored


def _open_records(path: Path, compressed: bool) -> IO[bytes]:
    if compressed:
        return gzip.open(path, "ab")
    return open(path, "ab")


def _play(
    config: TournamentConfig, done: set[str], remaining: int, total: int, out: Path,
    records_path: Path, compressed: bool, workers: int, ctx: Any, logs: _LogSetup, progress: bool,
) -> int:
    from tqdm import tqdm

    settings = worker_settings(config)
    tasks = _tasks(config, done)
    stored = len(done)
    played = 0
    pool = None
    bar = tqdm(
        total=total, initial=stored, unit="game", file=sys.stderr, disable=not progress,
        dynamic_ncols=True, smoothing=0.05, desc=config.name,
    )
    try:
        with contextlib.ExitStack() as stack:
            records = stack.enter_context(_open_records(records_path, compressed))
            games = stack.enter_context(open(out / GAMES_FILE, "a", encoding="utf-8", newline=""))
            if workers == 1 or remaining == 1:
                init_worker(settings, child=False)
                # Game by game, under one referee (its timer and signal handlers set once).
                referee = stack.enter_context(_WORKER["referee"])
                results: Iterable[tuple[int, bytes, str, float]] = (
                    (1, line, rows, seconds) for _, line, rows, seconds in (_play_one(referee, t) for t in tasks)
                )
            else:
                pool = _Pool(
                    min(workers, remaining), initializer=init_worker,
                    initargs=(settings, logs.queue, logging.INFO, True), context=ctx,
                )
                results = _pooled_results(pool, tasks, workers, remaining)
            store = _Appender(records, games)
            try:
                for done_now, record_lines, rows, _seconds in results:
                    store.add(done_now, record_lines, rows)
                    bar.update(done_now)
            finally:
                # Whatever ends the run (Ctrl-C included), every game played is stored.
                played = store.flush()
            if pool is not None:
                pool.close()
                pool.join()
                pool = None
    except KeyboardInterrupt:
        if pool is not None:
            pool.terminate()
            pool.join()
            pool = None
        log.warning("interrupted by the user with %d of %d games stored", stored + played, total)
        raise Interrupted(stored + played, total) from None
    except RuntimeError as exc:
        raise RunError(f"{exc} (the {stored + played} games stored so far are kept; fix it and run again with --resume)") from None
    except OSError as exc:
        raise RunError(f"{out}: cannot write the results: {exc.strerror or exc} (the games stored so far are kept)") from None
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
        bar.close()
    return played


__all__ = [
    "Interrupted", "RunError", "RunSummary", "init_worker", "play_task", "play_tasks", "run_tournament",
    "worker_settings",
]
