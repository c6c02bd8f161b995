"""Play a tournament's games in worker processes and append the results as each game finishes.

The parent process never plays (:mod:`.workers` does, also with one worker):
it hands the workers chunks of games of the schedule, shows the progress
bar, and appends what comes back — the record lines and rows of the games
finished since a worker's last answer, within about a quarter of a second of
their end — to the results folder, keeping no record in memory:

* ``records.jsonl`` (or ``records.jsonl.gz``): one ``uptown-game/1`` record
  per line, in the order games finish;
* ``games.csv``: the game's rows, one per seat.

The folder is its owner's (:class:`~arena.results.folder.ResultsFolder`): opened once
(lock, overwrite or update, deal key, league, entrants, the resume check), appended to as
games come back, finished (``games.csv`` in schedule order, so it is the same file for any
number of workers, either start method and any interruptions).  The tables are then the
folder's (:func:`~arena.report.folder_tables.folder_tables`).

Ctrl-C stores the games handed back before it, and never cuts a write short
(:class:`_CtrlC`).  Bots are prepared inside the workers (their programs started there).
Workers append their log lines to ``arena.log`` themselves.

A run given a :class:`Feed` (``arena match``, :mod:`arena.tournament.match`) hands out the
games the feed gives, in its order, and stops when the feed has counted
enough; everything else — workers, sandbox, records, the resume check, the
folder lock, the fault summary — is the same.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Protocol

from arena.errors import os_error_line
from arena.isolation.cpus import usable_cpus
from arena.plan.config import TournamentConfig
from arena.plan.schedule import Game
from arena.results.faults import FaultSummary
from arena.results.files import BOTS_FOLDER, LOG_FILE, LOG_FORMAT, RunError
from arena.results.folder import OpenFolder, Opening, Preflight, ResultsFolder
from arena.results.live import live_path
from arena.rules.engine import engine_line
from arena.tournament.run.settings import worker_settings
from arena.tournament.run.showing import Showing
from arena.tournament.run.workers import WorkerError, Workers, game_bound

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
    #: The tables of the folder (:class:`~arena.report.tables.Tables`), None until they are.
    tables: Any = None
    #: A line for each entrant whose bot changed since the stored games (``allow_changed_bots``).
    changed: list[str] = field(default_factory=list)
    #: The tables were the folder's own, unchanged since they were written (nothing played, nothing dropped).
    reused: bool = False
    #: The folder's tables and where they come from (:class:`~arena.report.folder_tables.FolderTables`).
    found: Any = None
    #: The config the folder holds after the run (a match's: cut to the deals it counted), with its deal key.
    config: TournamentConfig | None = None


class Feed(Protocol):
    """What a run plays and when it stops, instead of the whole schedule (a match: :class:`~arena.tournament.match.feed.MatchFeed`)."""

    #: The most games one chunk sent to a worker may hold.
    max_chunk: int

    def begin(self, folder: OpenFolder) -> tuple[int, int]:
        """Count the games stored already (checked); ``(games the bar counts to, games left to hand out)``."""
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

    def finish(self, folder: OpenFolder) -> None:
        """After the play, before the tables: make the folder hold what was counted (:meth:`OpenFolder.drop`,
        :meth:`OpenFolder.retitle`)."""
        ...


@dataclass(frozen=True)
class RunOptions:
    """How :func:`run_tournament` plays; every field has the default of a plain first run."""

    #: Worker processes (at most one per game left).
    workers: int = 1
    #: How worker processes are started (None: the platform's).
    start_method: str | None = None
    resume: bool = False
    overwrite: bool = False
    #: Write the records gzipped (a resume keeps the kind the folder holds).
    compress: bool = False
    #: Show the progress bar, and the standings above it.
    progress: bool = False
    #: Paths the bot programs must not see, besides the results folder (the tournament file).
    hide: tuple[str, ...] = ()
    #: Told what an update or a resume does, a line each, before any game starts.
    notify: Callable[[str], None] | None = None
    #: Go on with a resume whose entrants' bots changed (see :mod:`arena.results.identity`).
    allow_changed_bots: bool = False
    #: The games to play instead of the schedule, and when to stop (a match).
    feed: Feed | None = None
    #: Play on a Dask cluster (``local[:N]`` or a scheduler's address) instead of local workers.
    cluster: str | None = None
    #: Bring the folder's tournament up to the config first (a league that grew), then go on as a resume.
    update: bool = False
    #: The tournament file's path, for messages.
    source: str = ""
    #: Write the tables and ``report.html`` after every so many games stored.
    report_every: int | None = None
    #: What the command's pre-flight found (:meth:`ResultsFolder.check`): nothing is checked twice.
    preflight: Preflight | None = None

    def opening(self) -> Opening:
        """How the results folder is taken."""
        return Opening(resume=self.resume or self.update, overwrite=self.overwrite, update=self.update,
                       compress=self.compress, allow_changed_bots=self.allow_changed_bots, source=self.source)

    def tell(self, line: str) -> None:
        if self.notify is not None:
            self.notify(line)


#: The names :func:`run_tournament` takes as keywords: the fields of :class:`RunOptions`.
OPTION_NAMES = frozenset(f.name for f in fields(RunOptions))


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


def run_tournament(config: TournamentConfig, text: str, out: Path, options: RunOptions | None = None,
                   **keywords: Any) -> RunSummary:
    """Play every game of ``config`` (the file's ``text``) not yet stored in ``out``, then write its tables;
    see the module docstring.  The options are ``options``, or the same names given as keywords.

    ``notify(line)`` is told what an update or a resume does, one line per reason class (the details go
    to ``arena.log``).  Bot programs never see ``out`` (the results being written) nor the paths in
    ``hide`` (the tournament file, whose master seed says every deal); their standard error goes to
    ``out/bots/ENTRANT.log``.  With a ``feed`` the games are the feed's (see :class:`Feed`).  With
    ``cluster`` the games are played on a Dask cluster instead (:mod:`.cluster`), connected before
    anything is written.  With ``progress`` the standings are shown above the bar as games are
    stored, and with ``report_every`` the tables and ``report.html`` are written after every so many
    games (:mod:`.showing`).

    Raises :class:`RunError` for a folder that cannot be used or games that
    cannot be played, :class:`Interrupted` on Ctrl-C (everything finished is stored).
    """
    options = _options(options, keywords)
    connection = None
    if options.cluster is not None:
        from arena.tournament.run.cluster import Cluster

        connection = Cluster.connect(options.cluster)  # unreachable, no workers, other versions: nothing written yet
    try:
        with ResultsFolder(out).open(config, text, options.opening(), options.preflight) as folder:
            for line in [*folder.notes, *folder.recovered.summary()]:
                options.tell(line)
            summary = _run(folder, options, connection)
            from arena.report.folder_tables import folder_tables  # pandas: imported once the workers are done

            summary.found = folder_tables(out, folder.schedule, write=True, teams=True)
        summary.tables, summary.reused = summary.found.tables, summary.found.reused
        return summary
    finally:
        if connection is not None:
            connection.close()


def _options(options: RunOptions | None, keywords: dict[str, Any]) -> RunOptions:
    unknown = set(keywords) - OPTION_NAMES
    if unknown:
        raise TypeError(f"run_tournament() got unexpected keyword arguments: {', '.join(sorted(unknown))}")
    options = RunOptions(**keywords) if options is None else RunOptions(**{**vars(options), **keywords})
    if options.workers < 1:
        raise RunError(f"--workers must be at least 1, not {options.workers}")
    if options.start_method is not None and options.start_method not in multiprocessing.get_all_start_methods():
        raise RunError(f"start method {options.start_method!r} is not available here")
    return options


def _run(folder: OpenFolder, options: RunOptions, connection: Any) -> RunSummary:
    """Play the games left, then finish the folder; the summary, its tables aside."""
    done = folder.recovered.done
    total = len(folder.schedule)
    remaining = total - len(done)
    if options.feed is not None:
        total, remaining = options.feed.begin(folder)
    ctx = multiprocessing.get_context(options.start_method)
    logs = _LogSetup(folder.path / LOG_FILE)
    start = time.perf_counter()
    played = 0
    try:
        _log_start(folder, options, ctx, connection, (total, remaining))
        if remaining:
            played = _play(folder, options, ctx, logs, connection, (total, remaining))
        if options.feed is not None:
            options.feed.finish(folder)
            total = len(folder.schedule)
        folder.finish()
        log.info("tournament %s: all %d games stored (%d played now), %d fault(s)", folder.config.name, total, played,
                 len(folder.faults))
    finally:
        logs.close()
    return RunSummary(folder.path, total, len(done), played, time.perf_counter() - start, folder.records_path,
                      folder.faults, logs.path, changed=folder.recovered.changed, config=folder.config)


def _log_start(folder: OpenFolder, options: RunOptions, ctx: Any, connection: Any, counts: tuple[int, int]) -> None:
    config, (total, remaining), stored = folder.config, counts, len(folder.recovered.done)
    if connection is None:
        log.info("tournament %s: %d games, %d stored, %d to play with %d worker(s) (%s), isolation %s",
                 config.name, total, stored, remaining, options.workers, ctx.get_start_method(), config.isolation)
    else:
        log.info("tournament %s: %d games, %d stored, %d to play on the Dask cluster %s (%d worker thread(s)), "
                 "isolation %s", config.name, total, stored, remaining, connection.address,
                 connection.threads(), config.isolation)
    # Either engine plays the same records; the log says which one this process used.
    log.info("%s", engine_line())
    if config.isolation == "process":
        from arena.isolation.sandbox import walls_report

        log.info("bot programs run in %s", walls_report())
    recovered = folder.recovered
    for line in [*folder.notes, *recovered.summary()]:
        log.warning("%s", line)
    for line in recovered.details:
        log.warning("resume: dropped %s", line)
    for line in [*folder.details, *recovered.changed]:
        log.warning("%s", line)


def _play(folder: OpenFolder, options: RunOptions, ctx: Any, logs: _LogSetup, connection: Any,
          counts: tuple[int, int]) -> int:
    """Hand the games out and append each chunk that comes back to the folder; the games played."""
    from tqdm import tqdm

    config, feed, (total, remaining) = folder.config, options.feed, counts
    workers = min(options.workers, remaining)
    bar = tqdm(total=total, initial=folder.stored, unit="game", file=sys.stderr, disable=not options.progress,
               dynamic_ncols=True, smoothing=0.05, desc=config.name)
    showing = Showing(folder.schedule, folder.path, total, sys.stderr, bar, options.progress, options.report_every)
    showing.begin(folder.stored)

    def store(count: int, record_lines: bytes, rows: str, found: list[dict[str, Any]]) -> bool:
        """Store games handed back; True once a feed has counted enough."""
        with ctrl_c.held():
            folder.append(record_lines, rows, count, found)  # logged once already, by the worker's referee
        enough = feed is not None and feed.stored(rows)
        if feed is not None:
            bar.set_postfix_str(feed.postfix(), refresh=False)
        bar.update(count)
        showing.stored(rows, folder.stored)
        return enough

    ctrl_c = _CtrlC()
    try:
        with ctrl_c, _pool(connection, ctx, workers, _init_args(folder, options, logs, workers, connection is None),
                           config) as pool:
            chunks = (pool.play(folder.pending(), remaining, passes=config.isolation == "process") if feed is None
                      else pool.play(feed.tasks(folder.recovered.done), remaining, feed.max_chunk))
            try:
                for part in chunks:
                    if store(*part):  # the games still being played are not needed: stopped, never stored
                        pool.close(wait=False)
                        break
            except KeyboardInterrupt:
                with ctrl_c.held():  # a second Ctrl-C stops the run once these are stored
                    for part in pool.drain():  # the games finished before Ctrl-C, handed back but not yet read
                        store(*part)
                raise
    except KeyboardInterrupt:
        log.warning("interrupted by the user with %d of %d games stored", folder.stored, total)
        raise Interrupted(folder.stored, total) from None
    except WorkerError as exc:
        raise RunError(f"{exc} (the {folder.stored} games stored so far are kept; fix it and run again with "
                       f"--resume)") from None
    except OSError as exc:
        raise RunError(f"{folder.path}: cannot write the results: {os_error_line(exc)} (the games stored so far "
                       f"are kept)") from None
    finally:
        showing.close()
        bar.close()
        # No game is being played any more: files of games in play would show the folder as still playing.
        shutil.rmtree(live_path(folder.path, 0).parent, ignore_errors=True)
    return folder.appended


class _CtrlC:
    """While a run plays: Ctrl-C raises KeyboardInterrupt as usual, except inside :meth:`held`, which it
    leaves to end first (games being stored are written whole), raising it after.  Only where Ctrl-C is
    Python's own (the main thread, the default handler); elsewhere it changes nothing."""

    def __init__(self) -> None:
        self.holding = False
        self.pending = False
        self.saved: Any = None

    def __enter__(self) -> _CtrlC:
        if (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
            self.saved = signal.signal(signal.SIGINT, self._on_signal)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.saved is not None:
            signal.signal(signal.SIGINT, self.saved)
            self.saved = None

    def _on_signal(self, signum: int, frame: Any) -> None:
        if self.holding:
            self.pending = True
        else:
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        was, self.holding = self.holding, True
        try:
            yield
        finally:
            self.holding = was
        if self.pending and not was:
            self.pending = False
            raise KeyboardInterrupt


def _init_args(folder: OpenFolder, options: RunOptions, logs: _LogSetup, workers: int, local: bool) -> tuple[Any, ...]:
    """What every worker starts with: the settings of its games, its log file and level.  A ``local``
    worker also writes the game it plays into the folder's ``live/`` (:mod:`arena.results.live`)."""
    config = folder.config
    settings = replace(
        worker_settings(config, str(folder.path / BOTS_FOLDER), (str(folder.path), *options.hide)),
        compress=folder.compressed, live=str(folder.path) if local else None,
        # With bots in processes of their own and a CPU for every worker, each worker keeps to one CPU.
        pin=config.isolation == "process" and 0 < workers <= usable_cpus(),
    )
    return (settings, str(logs.path), logging.INFO)


def _pool(connection: Any, ctx: Any, count: int, init_args: tuple[Any, ...], config: TournamentConfig) -> Any:
    """The local worker processes, or with a cluster connection its Dask workers (the same ``play``)."""
    bound = game_bound(config.players, config.time)
    if connection is None:
        return Workers(ctx, count, init_args, bound)
    from arena.tournament.run.cluster import DaskWorkers

    return DaskWorkers(connection, init_args, bound)


__all__ = ["Feed", "Interrupted", "RunError", "RunOptions", "RunSummary", "run_tournament"]
