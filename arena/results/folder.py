"""The owner of a results folder: checked once before anything is written, opened once, appended to, finished.

:meth:`ResultsFolder.check` is the read-only pre-flight a command runs before any bot starts: the
folder lock, the folder (or the update) and the bots, each once (:class:`Preflight`).
:meth:`ResultsFolder.open` then takes the folder for the run, in this order: the lock, ``overwrite``
or the update (:mod:`.update`), the deal key and ``tournament.toml``, the league's table numbers
(:mod:`.league`), the entrants (:mod:`.identity`) and the resume check (:mod:`.recovery`).  The
:class:`OpenFolder` it returns appends the chunks of games the workers send back (:meth:`~OpenFolder.append`:
the record lines first, flushed, then the rows, then a checkpoint), and :meth:`~OpenFolder.finish`
sorts ``games.csv`` in schedule order and leaves one checkpoint for the whole of both files.

A game is *stored* once both its record line and all its rows are on disk (see :mod:`.recovery`).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any

from arena.errors import os_error_line
from arena.plan.config import TournamentConfig
from arena.plan.schedule import Schedule
from arena.results.checkpoints import CheckpointWriter, after, write_checkpoints
from arena.results.checks import check_folder, records_hold_data, stored_rows
from arena.results.dealkey import BEFORE_DEAL_KEYS, before_deal_keys, folder_key, new_folder_key
from arena.results.dropping import drop_games
from arena.results.faults import FaultSummary
from arena.results.files import (
    BOTS_FOLDER,
    GAMES_FILE,
    LIVE_FOLDER,
    OUTPUT_FILES,
    REPLAYS_FOLDER,
    TOURNAMENT_FILE,
    RunError,
    records_file,
)
from arena.results.identity import CheckedBots, check_bots, settle
from arena.results.league import folder_numbering, start_league
from arena.results.lines import count_lines, rewrite_records, rewrite_text, text_lines
from arena.results.lock import FolderLock
from arena.results.recovery import Recovered, recover
from arena.results.rows import header_text
from arena.results.sorting import sort_games_file
from arena.results.tournament_file import write_tournament
from arena.results.update import check_update, update_folder


@dataclass(frozen=True)
class Opening:
    """How a run takes a results folder."""

    #: Go on with the games stored (an interrupted run).
    resume: bool = False
    #: Delete the folder's earlier results first.
    overwrite: bool = False
    #: Bring the folder's tournament up to the one given (a league that grew), then go on as a resume.
    update: bool = False
    #: Write the records gzipped (a resume keeps the kind the folder holds).
    compress: bool = False
    #: Go on when an entrant's bot is not the one that played the stored games.
    allow_changed_bots: bool = False
    #: The tournament file's path (or what stands for it), for messages.
    source: str = ""


@dataclass(frozen=True)
class Preflight:
    """What :meth:`ResultsFolder.check` found, for :meth:`ResultsFolder.open` to take without looking again."""

    #: The folder's tournament before an update (None: no update, or nothing stored yet).
    stored: TournamentConfig | None = None
    #: The entrants' bots as checked (None: not checked here).
    bots: CheckedBots | None = None
    #: The folder was checked (else :meth:`ResultsFolder.open` checks it: a match restores its cap first).
    folder_checked: bool = True

    @property
    def walls(self) -> dict[str, str]:
        """The walls each bot program got, by entrant name."""
        return self.bots.walls if self.bots is not None else {}


class ResultsFolder:
    """A results folder at ``path`` (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def check(self, config: TournamentConfig, opening: Opening, *, bots: bool = True, folder: bool = True) -> Preflight:
        """Refuse (:class:`RunError`, :class:`~arena.plan.config.ConfigError`) what :meth:`open` would refuse,
        writing nothing: another run holding the folder, (with ``folder``) a folder holding other results or
        an update that changes what stored games mean, and (with ``bots``) a bot that cannot start."""
        FolderLock.check(self.path)
        stored = self._check_folder(config, opening) if folder else None
        return Preflight(stored, check_bots(config, opening.source) if bots else None, folder)

    def _check_folder(self, config: TournamentConfig, opening: Opening) -> TournamentConfig | None:
        stored = None
        if opening.update:
            if opening.overwrite:
                raise RunError("--update keeps the stored games it can, --overwrite deletes them all: choose one")
            stored = check_update(config, self.path, opening.source)
        if stored is None:
            check_folder(config, self.path, resume=opening.resume or opening.update, overwrite=opening.overwrite)
        return stored

    def open(self, config: TournamentConfig, text: str, opening: Opening,
             preflight: Preflight | None = None) -> OpenFolder:
        """Take the folder for a run of ``config`` (the file's ``text``): see the module docstring.

        ``preflight`` is what :meth:`check` found (None: checked now, the bots aside).  Close the folder
        returned (it is a context manager) to release the lock.
        """
        if preflight is None:
            preflight = self.check(config, opening, bots=False)
        elif not preflight.folder_checked:
            preflight = replace(preflight, stored=self._check_folder(config, opening), folder_checked=True)
        lock = FolderLock(self.path)
        try:
            opened = self._prepare(config, text, opening, preflight)
            lock.claim()
        except BaseException:
            lock.release()
            raise
        opened.lock = lock
        return opened

    def _prepare(self, config: TournamentConfig, text: str, opening: Opening, preflight: Preflight) -> OpenFolder:
        out = self.path
        known = preflight.bots.known if preflight.bots is not None else None
        notes: list[str] = []
        details: list[str] = []
        if opening.update:
            notes, details = update_folder(config, text, out, opening.source, preflight.stored, known)
        if opening.overwrite:
            _remove_results(out)
        _make_folder(out)
        if not (out / TOURNAMENT_FILE).exists():
            config = new_folder_key(config, out)  # before the tournament: a folder with one always has its key
            write_tournament(out, text)
        elif (older := before_deal_keys(config, out)) is not None:
            config = older  # played before deal keys: public deals, one deal a round
            notes.append(BEFORE_DEAL_KEYS.format(out=out))
        else:
            config = folder_key(config, out)
        start_league(out, config, out / TOURNAMENT_FILE)
        if not os.access(out, os.W_OK):
            raise RunError(f"{out}: cannot write there: permission denied")
        schedule = Schedule(config, folder_numbering(out))  # a league keeps its tables' numbers, so its game ids
        changed = settle(out, config, has_games=bool(stored_rows(out)) or records_hold_data(out),
                         allow_changed=opening.allow_changed_bots, known=known)
        records_path, compressed = records_file(out, opening.compress)
        if (out / GAMES_FILE).exists() or records_path.exists():
            recovered = recover(out, schedule)
        else:
            rewrite_text(out / GAMES_FILE, header_text(), ())
            rewrite_records(records_path, compressed, ())
            start = after(None, records_path, out / GAMES_FILE, 0, [])
            write_checkpoints(out, [start])
            recovered = Recovered(set(), 0, 0, last=start)
        recovered.changed = changed
        return OpenFolder(out, schedule, recovered, records_path, compressed, notes, details)


def _remove_results(out: Path) -> None:
    for name in OUTPUT_FILES:
        try:
            (out / name).unlink(missing_ok=True)
        except OSError as exc:
            raise RunError(f"{out / name}: cannot remove: {os_error_line(exc)}") from None
    shutil.rmtree(out / BOTS_FOLDER, ignore_errors=True)
    shutil.rmtree(out / REPLAYS_FOLDER, ignore_errors=True)
    shutil.rmtree(out / LIVE_FOLDER, ignore_errors=True)


def _make_folder(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / BOTS_FOLDER).mkdir(exist_ok=True)
    except OSError as exc:
        raise RunError(f"{out}: cannot write there: {os_error_line(exc)}") from None


@dataclass
class OpenFolder:
    """A results folder taken for a run (:meth:`ResultsFolder.open`): append games to it, then finish it."""

    path: Path
    #: The schedule of the folder's tournament (its config with the folder's deal key and table numbers).
    schedule: Schedule
    #: What the folder held when it was opened, after the resume check.
    recovered: Recovered
    records_path: Path
    compressed: bool
    #: What an update did, a line each, for the terminal.
    notes: list[str] = field(default_factory=list)
    #: The games an update dropped, a line per reason, for the log.
    details: list[str] = field(default_factory=list)
    #: The faults of every game stored, those stored before this run included.
    faults: FaultSummary = field(default_factory=FaultSummary)
    #: Games appended by this run.
    appended: int = 0
    lock: FolderLock | None = None
    _files: tuple[IO[bytes], IO[bytes], CheckpointWriter] | None = None
    _changed: bool = False

    def __post_init__(self) -> None:
        self.faults.update(self.recovered.faults)

    @property
    def config(self) -> TournamentConfig:
        return self.schedule.config

    @property
    def stored(self) -> int:
        """Games in the folder now."""
        return len(self.recovered.done) + self.appended

    def pending(self) -> Iterator[Any]:
        """The games of the schedule not stored when the folder was opened, in the order a run plays them."""
        return self.schedule.pending(self.recovered.done)

    def rows(self) -> Iterator[str]:
        """The rows of ``games.csv`` (no header), as stored."""
        return text_lines(self.path / GAMES_FILE, skip_header=True)

    def append(self, records: bytes, rows: str, count: int, faults: Sequence[dict[str, Any]] = ()) -> None:
        """Store a chunk of ``count`` games: their record lines (flushed first: a game counts once its rows
        follow, see :mod:`.recovery`), their ``games.csv`` rows and a checkpoint; ``faults`` are the chunk's.

        Compressed, a chunk's records are a gzip member of their own, so the file is whole after every chunk.
        """
        try:
            records_file, games_file, checkpoints = self._open_files()
            records_file.write(records)
            records_file.flush()
            row_bytes = rows.encode("utf-8")
            games_file.write(row_bytes)
            games_file.flush()
            checkpoints.stored(records, row_bytes, count, list(faults))
        except OSError as exc:
            raise RunError(f"{self.path}: cannot write the results: {os_error_line(exc)} "
                           f"(the games stored so far are kept)") from None
        for fault in faults:
            self.faults.add(fault["entrant"], fault["kind"], fault["message"], fault["game_id"])
        self.appended += count

    def _open_files(self) -> tuple[IO[bytes], IO[bytes], CheckpointWriter]:
        if self._files is None:
            last = self.recovered.last or after(None, self.records_path, self.path / GAMES_FILE,
                                                len(self.recovered.done), [])
            self._files = (open(self.records_path, "ab"), open(self.path / GAMES_FILE, "ab"),
                           CheckpointWriter(self.path, last))
        return self._files

    def _close_files(self) -> None:
        if self._files is not None:
            for file in self._files:
                file.close()
            self._files = None

    def drop(self, game_ids: Collection[str]) -> None:
        """Take the games ``game_ids`` out of ``games.csv`` and the records (a match cut to the deals it counted)."""
        if game_ids:
            self._close_files()
            drop_games(self.path, game_ids)
            self._changed = True

    def retitle(self, config: TournamentConfig, text: str) -> None:
        """Make the folder's tournament ``config`` (the file's ``text``): a match keeps the deals it counted."""
        write_tournament(self.path, text)
        self.schedule = Schedule(config, self.schedule.numbering)
        self._changed = True

    def finish(self) -> None:
        """Sort ``games.csv`` in schedule order and leave one checkpoint for the whole of both files as they
        stay, so that a resume of this folder trusts them at once."""
        self._close_files()
        games = self.path / GAMES_FILE
        last = self.recovered.last if not self.appended and not self._changed else None
        if sort_games_file(games) or last is None or not last.describes(self.records_path, games):
            count = max(0, count_lines(games) - 1) // self.config.players
            write_checkpoints(self.path, [after(None, self.records_path, games, count, self.faults.entries())])

    def close(self) -> None:
        """Release the folder (its files and the lock)."""
        self._close_files()
        if self.lock is not None:
            self.lock.release()
            self.lock = None

    def __enter__(self) -> OpenFolder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
