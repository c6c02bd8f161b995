"""Play a tournament's games in worker processes and append the results as each game finishes.

The parent process never plays (:mod:`.workers` does, also with one worker):
it hands the workers chunks of games of the schedule, shows the progress
bar, and appends what comes back — a chunk's record lines and rows at once —
to the results folder, keeping no record in memory:

* ``records.jsonl`` (or ``records.jsonl.gz``): one ``uptown-game/1`` record
  per line, in the order games finish;
* ``games.csv``: the game's rows, one per seat.

A game is *stored* once both are on disk: its record line is written and
flushed first, then its rows.  With ``resume``, :func:`~.store.recover` drops
a half-written last line and any game that is not complete in both files, so
an interrupted run — Ctrl-C or the process killed outright — is continued
with only the missing games.  When every game is stored, ``games.csv`` is
rewritten in schedule order (table, deal, rotation, seat), so it is the same
file for any number of workers, either start method and any interruptions,
and the tables are written from it (:func:`~arena.report.tables.write_folder_tables`).

Bots are prepared inside the workers (their programs started there).
Workers append their log lines to ``arena.log`` themselves.

A run given a :class:`Feed` (``arena match``, :mod:`arena.tournament.match`) hands out the
games the feed gives, in its order, and stops when the feed has counted
enough; everything else — workers, sandbox, records, the resume check, the
folder lock, the fault summary — is the same.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from arena.plan.config import TournamentConfig
from arena.plan.schedule import Game, by_seating, count_games, schedule
from arena.results.checkpoints import Checkpoint, CheckpointWriter, after, write_checkpoints
from arena.results.faults import FaultSummary
from arena.results.files import BOTS_FOLDER, GAMES_FILE, LOG_FILE, LOG_FORMAT, RunError
from arena.results.league import numbered
from arena.results.sorting import sort_games_file
from arena.results.store import FolderLock, Recovered, prepare_folder, stored_games
from arena.rules.engine import engine_line
from arena.tournament.run.showing import Showing
from arena.tournament.run.workers import WorkerError, Workers, game_bound, worker_settings

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
    #: The faults of every game stored, those stored before a resume included.
    faults: FaultSummary = field(default_factory=FaultSummary)
    #: The run's log (``arena.log``).
    log: Path = field(default_factory=Path)
    #: The tables written into the folder (:class:`~arena.report.tables.Tables`), None until they are.
    tables: Any = None
    #: A line for each entrant whose bot changed since the stored games (``allow_changed_bots``).
    changed: list[str] = field(default_factory=list)
    #: The tables were the folder's own, unchanged since they were written (nothing played, nothing dropped).
    reused: bool = False


class Feed(Protocol):
    """What a run plays and when it stops, instead of the whole schedule (a match: :class:`~arena.tournament.match.feed.MatchFeed`)."""

    #: The most games one chunk sent to a worker may hold.
    max_chunk: int

    def begin(self, out: Path, done: set[str]) -> tuple[int, int]:
        """Count the games stored already (``done``, checked); ``(games the bar counts to, games left to hand out)``."""
        ...

    def tasks(self, done: set[str]) -> Iterator[Game]:
        """The games to hand out, in order; it may run dry and fill again as games are stored."""
        ...

    def stored(self, rows: str) -> bool:
        """Count the ``games.csv`` rows of games just stored; True once no more games are needed."""
        ...

    def postfix(self) -> str:
        """What the progress bar shows after its counts."""
        ...

    def finish(self, out: Path) -> TournamentConfig:
        """After the play, before the tables: make the folder hold what was counted; the config it now holds."""
        ...


# -- logging -------------------------------------------------------------------


class _LogSetup:
    """``arena.log`` for the parent; undone by :meth:`close`.

    The workers append their own lines to the same file (see :func:`~.workers.init_worker`):
    nothing they log travels through the parent, which so unpickles nothing from them, and a
    worker that is killed loses no line it has written.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.logger = logging.getLogger("arena")
        self.saved = (list(self.logger.handlers), self.logger.level, self.logger.propagate)
        for handler in self.saved[0]:
            self.logger.removeHandler(handler)
        self.file_handler = logging.FileHandler(path, encoding="utf-8")
        self.file_handler.setFormatter(logging.Formatter(LOG_FORMAT))
        self.logger.addHandler(self.file_handler)
        self.logger.setLevel(logging.INFO)
        self.logger.propagate = False

    def close(self) -> None:
        self.logger.removeHandler(self.file_handler)
        self.file_handler.close()
        handlers, level, propagate = self.saved
        for handler in handlers:
            self.logger.addHandler(handler)
        self.logger.setLevel(level)
        self.logger.propagate = propagate


# -- the run ----------------------------------------------------------------------


def _tasks(config: TournamentConfig, done: set[str]) -> Iterator[Game]:
    return by_seating(game for game in schedule(config) if game.game_id not in done)


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
    hide: tuple[str, ...] = (),
    notify: Callable[[str], None] | None = None,
    allow_changed_bots: bool = False,
    feed: Feed | None = None,
    cluster: str | None = None,
    update: bool = False,
    source: str = "",
    report_every: int | None = None,
) -> RunSummary:
    """Play every game of ``config`` not yet stored in ``out``, then write its tables; see the module docstring.

    ``notify(line)`` is told what a resume dropped, one line per reason class (the details go to
    ``arena.log``).

    Bot programs never see ``out`` (the results being written) nor the paths in ``hide``
    (the tournament file, whose master seed says every deal); their standard error goes
    to ``out/bots/ENTRANT.log``.  With ``allow_changed_bots`` a resume goes on when an entrant's
    bot is not the one that played the stored games (see :mod:`.identity`), and the log says so.
    With a ``feed`` the games are the feed's (see :class:`Feed`), and the tables are those of the
    config :meth:`Feed.finish` returns.  With ``cluster`` (``local[:N]`` or a scheduler address) the
    games are played on a Dask cluster instead (:mod:`.cluster`), connected before anything is written.
    With ``update`` the folder's tournament is first brought up to ``config`` (the file ``source``), a league
    that grew (:mod:`~arena.results.update`): ``notify`` is told what it keeps, drops and adds
    before any game starts, and the run goes on as a resume.  With ``progress`` the standings are shown
    above the bar as games are stored, and with ``report_every`` the tables and ``report.html`` are
    written after every so many games (:mod:`.showing`).

    Raises :class:`RunError` for a folder that cannot be used or games that
    cannot be played, :class:`Interrupted` on Ctrl-C (everything finished is stored).
    """
    if workers < 1:
        raise RunError(f"--workers must be at least 1, not {workers}")
    if start_method is not None and start_method not in multiprocessing.get_all_start_methods():
        raise RunError(f"start method {start_method!r} is not available here")
    connection = None
    if cluster is not None:
        from arena.tournament.run.cluster import Cluster

        connection = Cluster.connect(cluster)  # unreachable, no workers, other versions: nothing written yet
    lock = FolderLock(out)
    try:
        notes: list[str] = []
        if update:
            from arena.results.update import update_folder

            lines, notes = update_folder(config, text, out, source)
            for line in lines:
                if notify is not None:
                    notify(line)
            notes = lines + notes
        config = numbered(config, out)  # a league keeps its tables' numbers, so its game ids
        # The config from here on holds the folder's deal key, for the workers to seed games with.
        recovered, records_path, compressed, config = prepare_folder(
            config, text, out, resume=resume or update, overwrite=overwrite, compress=compress,
            allow_changed_bots=allow_changed_bots,
        )
        lock.claim()
        for line in recovered.summary():
            if notify is not None:
                notify(line)
        summary, config = _run(config, out, recovered, records_path, compressed, workers, start_method, progress,
                               hide, feed, connection, notes, report_every)
        from arena.report.stamp import cached_tables  # pandas: imported once the workers are done
        from arena.report.tables import Tables, write_folder_tables

        cached = cached_tables(out, config.scoring) if not summary.played and feed is None else None
        if cached is not None:  # nothing played and the folder's tables are still its own: kept as they are
            summary.tables, summary.reused = Tables(scoring=config.scoring, **cached[0]), True
        else:
            summary.tables = write_folder_tables(out, config)
        return summary
    finally:
        lock.release()
        if connection is not None:
            connection.close()


def _run(config: TournamentConfig, out: Path, recovered: Recovered, records_path: Path, compressed: bool, workers: int,
         start_method: str | None, progress: bool, hide: tuple[str, ...],
         feed: Feed | None, connection: Any = None, notes: list[str] | None = None,
         report_every: int | None = None) -> tuple[RunSummary, TournamentConfig]:
    done = recovered.done
    total = count_games(config)
    remaining = total - len(done)
    if feed is not None:
        total, remaining = feed.begin(out, done)
    ctx = multiprocessing.get_context(start_method)
    logs = _LogSetup(out / LOG_FILE)
    start = time.perf_counter()
    played = 0
    try:
        if connection is None:
            log.info(
                "tournament %s: %d games, %d stored, %d to play with %d worker(s) (%s), isolation %s",
                config.name, total, len(done), remaining, workers, ctx.get_start_method(), config.isolation,
            )
        else:
            log.info("tournament %s: %d games, %d stored, %d to play on the Dask cluster %s (%d worker thread(s)), "
                     "isolation %s", config.name, total, len(done), remaining, connection.address,
                     connection.threads(), config.isolation)
        # Either engine plays the same records; the log says which one this process used.
        log.info("%s", engine_line())
        if config.isolation == "process":
            from arena.isolation.sandbox import walls_report

            log.info("bot programs run in %s", walls_report())
        for line in notes or ():
            log.warning("%s", line)
        for line in recovered.summary():
            log.warning("%s", line)
        for line in recovered.details:
            log.warning("resume: dropped %s", line)
        faults = FaultSummary()
        faults.update(recovered.faults)
        for line in recovered.changed:
            log.warning("%s", line)
        if remaining:
            places = (str(out / BOTS_FOLDER), (str(out), *hide))
            played = _play(config, done, remaining, total, out, records_path, compressed, workers, ctx, logs, progress,
                           places, faults, feed, connection, recovered.last, report_every)
        if feed is not None:
            config = feed.finish(out)
            total = count_games(config)
        last = recovered.last if not played and feed is None else None
        if sort_games_file(out / GAMES_FILE) or last is None or not last.describes(records_path, out / GAMES_FILE):
            # One checkpoint for the whole of both files as they stay: a resume of this folder trusts them at once.
            write_checkpoints(out, [after(None, records_path, out / GAMES_FILE, stored_games(out / GAMES_FILE, config.players), faults.entries())])
        log.info("tournament %s: all %d games stored (%d played now), %d fault(s)", config.name, total, played,
                 len(faults))
    finally:
        logs.close()
    return RunSummary(out, total, len(done), played, time.perf_counter() - start, records_path, faults, logs.path,
                      changed=recovered.changed), config


def _play(
    config: TournamentConfig, done: set[str], remaining: int, total: int, out: Path,
    records_path: Path, compressed: bool, workers: int, ctx: Any, logs: _LogSetup, progress: bool,
    places: tuple[str, tuple[str, ...]], faults: FaultSummary, feed: Feed | None = None, connection: Any = None,
    last: Checkpoint | None = None,
    report_every: int | None = None,
) -> int:
    from tqdm import tqdm

    settings = worker_settings(config, *places)
    settings["compress"] = compressed
    # With bots in processes of their own and a CPU for every worker, each worker keeps to one CPU.
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 0
    settings["pin"] = config.isolation == "process" and 0 < min(workers, remaining) <= cpus
    init_args = (settings, str(logs.path), logging.INFO)
    bound = game_bound(config.players, config.time_limit, config.clock.overage)
    stored = len(done)
    played = 0
    bar = tqdm(
        total=total, initial=stored, unit="game", file=sys.stderr, disable=not progress,
        dynamic_ncols=True, smoothing=0.05, desc=config.name,
    )
    showing = Showing(config, out, total, sys.stderr, bar, progress, report_every)
    showing.begin(stored)
    try:
        with open(records_path, "ab") as records, open(out / GAMES_FILE, "ab") as games, \
                CheckpointWriter(out, last or after(None, records_path, out / GAMES_FILE, len(done), [])) as checkpoints, \
                _pool(connection, ctx, min(workers, remaining), init_args, bound) as pool:
            chunks = (pool.play(_tasks(config, done), remaining, passes=config.isolation == "process") if feed is None
                      else pool.play(feed.tasks(done), remaining, feed.max_chunk))
            for count, record_lines, rows, found in chunks:
                # The records first: a game counts once its rows follow it (see recover()).  Compressed,
                # a chunk's records are a gzip member of their own (the worker's), so the file is whole
                # after every chunk.
                records.write(record_lines)
                records.flush()
                row_bytes = rows.encode("utf-8")
                games.write(row_bytes)
                games.flush()
                checkpoints.stored(record_lines, row_bytes, count, found)
                for fault in found:  # logged once already, by the worker's referee as it happened
                    faults.add(fault["entrant"], fault["kind"], fault["message"], fault["game_id"])
                played += count
                enough = feed is not None and feed.stored(rows)
                if feed is not None:
                    bar.set_postfix_str(feed.postfix(), refresh=False)
                bar.update(count)
                showing.stored(rows, stored + played)
                if enough:  # the games still being played are not needed: stopped, never stored
                    pool.close(wait=False)
                    break
    except KeyboardInterrupt:
        log.warning("interrupted by the user with %d of %d games stored", stored + played, total)
        raise Interrupted(stored + played, total) from None
    except WorkerError as exc:
        raise RunError(f"{exc} (the {stored + played} games stored so far are kept; fix it and run again with --resume)") from None
    except OSError as exc:
        raise RunError(f"{out}: cannot write the results: {exc.strerror or exc} (the games stored so far are kept)") from None
    finally:
        showing.close()
        bar.close()
    return played


def _pool(connection: Any, ctx: Any, count: int, init_args: tuple[Any, ...], bound: float) -> Any:
    """The local worker processes, or with a cluster connection its Dask workers (the same ``play``)."""
    if connection is None:
        return Workers(ctx, count, init_args, bound)
    from arena.tournament.run.cluster import DaskWorkers

    return DaskWorkers(connection, init_args, bound)


__all__ = ["Feed", "Interrupted", "RunError", "RunSummary", "run_tournament"]
