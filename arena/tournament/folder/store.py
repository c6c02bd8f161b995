"""A tournament's results folder: what is in it, getting it ready, and making it whole after an interruption.

A game is *stored* once both its record line (``records.jsonl`` or
``records.jsonl.gz``) and all its rows (``games.csv``) are on disk; the runner
writes and flushes the record first, then the rows.  :func:`recover` reads
both files as streams (memory grows with the number of games only by their
ids and a digest of their rows), cuts a half-written last line, removes lines
that belong to no game of the tournament, replays every record with the rules
engine and checks it and its rows (:mod:`.verify`), and drops every game that
is not complete in both or fails a check, so it is played again.

Every file is rewritten through a temporary file beside it
(:func:`write_atomically`): a write that fails leaves the file as it was and
no temporary file behind, and is a one-line :class:`RunError`.

The folder is never emptied silently: :func:`prepare_folder` refuses a folder
that holds another tournament, or this one's games without ``resume`` or
``overwrite``.
"""

from __future__ import annotations

import collections
import csv
import fcntl
import gzip
import itertools
import json
import os
import shutil
import zlib
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from arena.tournament.folder.faults import FaultSummary
from arena.tournament.folder.files import (
    BOTS_FOLDER,
    GAMES_FILE,
    HELD_LOCKS,
    LOCK_FILE,
    OUTPUT_FILES,
    RECORDS_FILE,
    RECORDS_GZ_FILE,
    REPLAYS_FOLDER,
    TOURNAMENT_FILE,
    RunError,
    records_file,
    write_atomically,
)
from arena.tournament.folder.identity import settle
from arena.tournament.folder.rows import COLUMNS, header_text
from arena.tournament.folder.verify import (
    REASONS,
    GameCheckError,
    digest_of,
    expected_rows,
    first_difference,
    rows_digest,
)
from arena.tournament.plan.config import ConfigError, TournamentConfig, parse_config
from arena.tournament.plan.schedule import Game, schedule

_BLOCK = 1 << 20


@dataclass
class Recovered:
    """The games already stored in a results folder, after making it whole."""

    done: set[str]
    #: Games found in one file only, incomplete, or failing a check, and removed from both.
    dropped: int
    #: Bytes of half-written last lines cut off.
    cut_bytes: int
    #: The dropped games by reason class (a key of :data:`~.verify.REASONS`).
    reasons: collections.Counter[str] = field(default_factory=collections.Counter)
    #: Lines that belong to no game of this tournament (garbage, unknown game ids), removed.
    unreadable: int = 0
    #: One line per dropped game or removed line, for ``arena.log``.
    details: list[str] = field(default_factory=list)
    #: The faults of the games kept.
    faults: FaultSummary = field(default_factory=FaultSummary)

    def summary(self) -> list[str]:
        """What the resume removed, one line per reason class (empty when nothing was)."""
        lines = [f"resume: dropped {n} game(s) to play again: {REASONS[reason]}"
                 for reason, n in sorted(self.reasons.items(), key=lambda item: list(REASONS).index(item[0]))]
        if self.unreadable:
            lines.append(f"resume: removed {self.unreadable} line(s) that belong to no game of this tournament")
        if self.cut_bytes:
            lines.append(f"resume: cut {self.cut_bytes} byte(s) of half-written last lines")
        return lines
    #: A line for each entrant whose bot changed since the stored games (``--allow-changed-bots``).
    changed: list[str] = field(default_factory=list)


class _Lines:
    """The complete lines of a file, read as a stream; afterwards ``cut`` and ``clean`` tell how it ended."""

    def __init__(self, path: Path, compressed: bool) -> None:
        self.path = path
        self.compressed = compressed
        #: Bytes after the last newline (a half-written line).
        self.cut = 0
        #: False when a gzip member was cut short (the file must be rewritten before appending to it).
        self.clean = True

    def _chunks(self) -> Iterator[bytes]:
        with open(self.path, "rb") as f:
            blocks = iter(lambda: f.read(_BLOCK), b"")
            if not self.compressed:
                yield from blocks
                return
            # A run killed while writing leaves its last gzip member cut short;
            # what that member held up to its last flush can still be read.
            d = zlib.decompressobj(wbits=31)
            started = False
            for block in blocks:
                while block:
                    started = True
                    try:
                        yield d.decompress(block)
                    except zlib.error:
                        self.clean = False
                        return
                    if not d.eof:
                        break
                    block = d.unused_data
                    d = zlib.decompressobj(wbits=31)
                    started = False
            if started:
                self.clean = False
                yield d.flush()

    def __iter__(self) -> Iterator[bytes]:
        tail = b""
        for chunk in self._chunks():
            if not chunk:
                continue
            lines = (tail + chunk).split(b"\n")
            tail = lines.pop()
            for line in lines:
                yield line + b"\n"
        self.cut = len(tail)


def _short(line: bytes | str) -> str:
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    return repr(text.rstrip("\r\n")[:60])


def _row_key(line: str) -> tuple[str, int, int] | None:
    """A games.csv row's game id, seat and number of fields; None for a line that is not a row."""
    try:
        row = next(csv.reader([line]))
        return row[0], int(row[5]), len(row)
    except (StopIteration, IndexError, ValueError, csv.Error):
        return None


@dataclass
class _RowsScan:
    """What ``games.csv`` holds, read as a stream: per game its number of rows and their digest."""

    header_ok: bool = False
    cut: int = 0
    rows: dict[str, tuple[int, bytes]] = field(default_factory=dict)
    #: Games with a row of the wrong width or seats out of order: why.
    malformed: dict[str, str] = field(default_factory=dict)
    #: Lines that are no row of a game of this tournament, one detail each.
    unreadable: list[str] = field(default_factory=list)


def _scan_rows(path: Path, games: Mapping[str, Game]) -> _RowsScan:
    scan = _RowsScan()
    if not path.exists():
        return scan
    header = header_text()
    width = len(COLUMNS)
    lines = _Lines(path, False)
    numbered = enumerate(lines, start=1)
    first = next(numbered, None)
    if first is not None:
        if first[1].decode("utf-8", errors="replace") != header:
            raise RunError(f"{path}: not a games table of this arena (its header differs)")
        scan.header_ok = True
        for number, raw in numbered:
            text = raw.decode("utf-8", errors="replace")
            key = _row_key(text)
            if key is None or key[0] not in games:
                scan.unreadable.append(f"{path.name} line {number}: not a row of a game of this tournament: "
                                       f"{_short(text)}")
                continue
            game_id, seat, fields = key
            count, digest = scan.rows.get(game_id, (0, b""))
            if fields != width:
                scan.malformed.setdefault(game_id, f"{path.name} line {number}: a row of {fields} fields, not {width}")
            elif seat != count:
                scan.malformed.setdefault(game_id, f"{path.name} line {number}: seat {seat} where seat {count} "
                                                   f"comes next")
            scan.rows[game_id] = (count + 1, rows_digest(digest, text))
    scan.cut = lines.cut
    return scan


@dataclass
class _RecordsScan:
    """What the records file holds, every record that has all its rows checked (see :mod:`.verify`)."""

    cut: int = 0
    clean: bool = True
    seen: set[str] = field(default_factory=set)
    twice: set[str] = field(default_factory=set)
    #: Records that passed every check, rows included.
    verified: set[str] = field(default_factory=set)
    failed: dict[str, GameCheckError] = field(default_factory=dict)
    #: The rows the record implies, for games whose stored rows differ (to say where).
    expected: dict[str, str] = field(default_factory=dict)
    #: The game id of every line (None: no game of this tournament), to rewrite the file without reading it again.
    order: list[str | None] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)
    faults: dict[str, FaultSummary] = field(default_factory=dict)


def _scan_records(path: Path, compressed: bool, games: Mapping[str, Game], config: TournamentConfig,
                  rows: _RowsScan) -> _RecordsScan:
    scan = _RecordsScan()
    if not path.exists():
        return scan
    lines = _Lines(path, compressed)
    for number, line in enumerate(lines, start=1):
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            record = None
        game_id = record.get("game_id") if isinstance(record, dict) else None
        if not isinstance(game_id, str) or game_id not in games:
            scan.order.append(None)
            scan.unreadable.append(f"{path.name} line {number}: not a record of a game of this tournament: "
                                   f"{_short(line)}")
            continue
        scan.order.append(game_id)
        if game_id in scan.seen:
            scan.twice.add(game_id)
            continue
        scan.seen.add(game_id)
        stored = rows.rows.get(game_id)
        if stored is None or stored[0] != config.players or game_id in rows.malformed:
            continue  # dropped whatever the record holds: no need to replay it
        try:
            expected = expected_rows(record, games[game_id], config)
        except GameCheckError as exc:
            scan.failed[game_id] = exc
            continue
        if digest_of(expected.splitlines(keepends=True)) != stored[1]:
            scan.failed[game_id] = GameCheckError("rows", "")  # said where when the rows are read again
            scan.expected[game_id] = expected
            continue
        scan.verified.add(game_id)
        if record.get("faults"):
            scan.faults[game_id] = FaultSummary()
            scan.faults[game_id].add_record(record, game_id)
    scan.cut, scan.clean = lines.cut, lines.clean
    return scan


def _why(game_id: str, rows: _RowsScan, records: _RecordsScan, players: int) -> tuple[str, str]:
    """Why a game is dropped: its reason class and one line of detail."""
    if game_id in records.twice:
        return "twice", f"{game_id}: its record is stored more than once"
    if game_id in records.failed:
        exc = records.failed[game_id]
        return exc.reason, f"{game_id}: {exc.reason}: {exc}"
    if game_id in rows.malformed:
        return "rows", f"{game_id}: rows: {rows.malformed[game_id]}"
    count = rows.rows.get(game_id, (0, b""))[0]
    have = "a record" if game_id in records.seen else "no record"
    return "incomplete", f"{game_id}: incomplete: {have} and {count} of {players} rows"


def recover(out: Path, config: TournamentConfig) -> Recovered:
    """Make ``out``'s results whole and say which games are stored.

    Half-written last lines are cut off, and lines that belong to no game of
    the schedule removed.  Every record is replayed with the rules engine and
    checked against the schedule, and the rows it implies against the stored
    rows (timing apart).  A game whose record or rows are missing, incomplete,
    there twice or fail a check is dropped from both files (it will be played
    again); :attr:`Recovered.reasons` and :attr:`Recovered.details` say why.
    """
    games = {game.game_id: game for game in schedule(config)}
    games_path = out / GAMES_FILE
    records_path, compressed = records_file(out)
    rows = _scan_rows(games_path, games)
    records = _scan_records(records_path, compressed, games, config, rows)

    # A game counts only when its record and all its rows are there, once, and pass every check.
    done = records.verified - records.twice
    dropped = sorted((records.seen | set(rows.rows)) - done)
    why = {game_id: _why(game_id, rows, records, config.players) for game_id in dropped}

    if not rows.header_ok or rows.cut or set(rows.rows) != done or rows.unreadable:
        differing: dict[str, list[str]] = {game_id: [] for game_id in records.expected}

        def kept_rows() -> Iterator[str]:
            for line in _text_lines(games_path, skip_header=True):
                game_id = line.split(",", 1)[0]
                if game_id in done:
                    yield line
                elif game_id in differing:
                    differing[game_id].append(line)

        _rewrite_text(games_path, header_text(), kept_rows() if rows.header_ok else iter(()))
        for game_id, stored in differing.items():
            where = first_difference(stored, records.expected[game_id].splitlines(keepends=True))
            why[game_id] = ("rows", f"{game_id}: rows: {where}")
    if (not records_path.exists() or records.cut or not records.clean or records.unreadable
            or records.seen != done):
        order = records.order
        kept_records = (
            line for index, line in enumerate(_Lines(records_path, compressed))
            if index < len(order) and order[index] in done
        ) if records_path.exists() else iter(())
        _rewrite_records(records_path, compressed, kept_records)

    faults = FaultSummary()
    for game_id, found in records.faults.items():
        if game_id in done:
            faults.update(found)
    return Recovered(
        done, len(dropped), rows.cut + records.cut,
        reasons=collections.Counter(reason for reason, _ in why.values()),
        unreadable=len(rows.unreadable) + len(records.unreadable),
        details=[detail for _, detail in why.values()] + rows.unreadable + records.unreadable,
        faults=faults,
    )


def _text_lines(path: Path, skip_header: bool) -> Iterator[str]:
    lines = iter(_Lines(path, False))
    if skip_header:
        next(lines, None)
    for raw in lines:
        yield raw.decode("utf-8", errors="replace")


def _rewrite_text(path: Path, header: str, lines: Iterable[str]) -> None:
    def write(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            f.write(header)
            f.writelines(lines)

    write_atomically(path, write)


def _rewrite_records(path: Path, compressed: bool, lines: Iterable[bytes]) -> None:
    def write(tmp: Path) -> None:
        with gzip.open(tmp, "wb") if compressed else open(tmp, "wb") as f:
            f.writelines(lines)

    write_atomically(path, write)


def _stored_rows(out: Path) -> int:
    """How many data rows ``games.csv`` holds (for messages)."""
    path = out / GAMES_FILE
    if not path.exists():
        return 0
    with open(path, "rb") as f:
        return max(0, sum(1 for _ in f) - 1)


def _records_hold_data(out: Path) -> bool:
    """Whether the records file holds anything (an empty one is what a start before the first game leaves)."""
    path, compressed = records_file(out)
    if not path.exists():
        return False
    if not compressed:
        return path.stat().st_size > 0
    return any(_Lines(path, True)._chunks())


def _differences(a: TournamentConfig, b: TournamentConfig) -> str:
    keys = [k for k in ("name", "players", "deals", "seed", "scoring", "penalty", "time_limit", "clock", "seating", "format",
                        "challengers", "pool", "max_tables", "entrants")
            if getattr(a, k) != getattr(b, k)]
    return ", ".join(keys) or "content"


def _held(out: Path, holder: str) -> str:
    return (f"{out} is being written by another run (pid {holder}); wait for it to end, "
            f"or choose another folder with --out")


class FolderLock:
    """An OS lock (``flock``) on a results folder for the whole of a run, so that two runs never write
    one folder; the kernel releases it when the process ends, however it ends.  Makes the folder (its
    owner's alone) when it does not exist.  :meth:`claim` writes this process's pid into the lock
    file, for the message another run gets.
    """

    def __init__(self, out: Path) -> None:
        if out.exists() and not out.is_dir():
            raise RunError(f"{out}: exists and is not a folder")
        try:
            if not out.exists():
                out.mkdir(parents=True)
                # Its owner's alone: bots of later runs, under uids of their own, cannot read these deals.
                out.chmod(0o700)
            self.fd = os.open(out / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise RunError(f"{out}: cannot write there: {exc.strerror or exc}") from None
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(self.fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            os.close(self.fd)
            raise RunError(_held(out, holder)) from None
        HELD_LOCKS.append(self.fd)

    @staticmethod
    def check(out: Path) -> None:
        """Refuse (:class:`RunError`) at once when another run holds ``out``, before anything is started."""
        try:
            fd = os.open(out / LOCK_FILE, os.O_RDWR | os.O_CLOEXEC)
        except OSError:
            return  # no lock file yet: nobody has held it
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            raise RunError(_held(out, holder)) from None
        finally:
            os.close(fd)

    def claim(self) -> None:
        try:
            os.ftruncate(self.fd, 0)
            os.pwrite(self.fd, f"{os.getpid()}\n".encode(), 0)
        except OSError:
            pass  # the lock holds all the same; only another run's message lacks the pid

    def release(self) -> None:
        if self.fd in HELD_LOCKS:
            HELD_LOCKS.remove(self.fd)
            os.close(self.fd)  # closing the last descriptor releases the lock


def prepare_folder(
    config: TournamentConfig, text: str, out: Path, *, resume: bool, overwrite: bool, compress: bool,
    allow_changed_bots: bool = False,
) -> tuple[Recovered, Path, bool]:
    """Check ``out`` and get it ready: ``(the games stored already, records path, compressed)``.

    Refuses (:class:`RunError`) rather than lose data: a folder holding another
    tournament (its ``tournament.toml`` describes other games; comments and
    layout do not count), or this one's games without ``resume`` or ``overwrite``, or games
    played by other bots than the entrants of now without ``allow_changed_bots`` (:mod:`.identity`).
    """
    if resume and overwrite:
        raise RunError("--resume and --overwrite exclude each other: continue the run, or start it again")
    if out.exists() and not out.is_dir():
        raise RunError(f"{out}: exists and is not a folder")
    existing = out / TOURNAMENT_FILE
    ours = [name for name in OUTPUT_FILES if (out / name).exists()]
    if overwrite:
        for name in ours:
            try:
                (out / name).unlink()
            except OSError as exc:
                raise RunError(f"{out / name}: cannot remove: {exc.strerror or exc}") from None
        shutil.rmtree(out / BOTS_FOLDER, ignore_errors=True)
        shutil.rmtree(out / REPLAYS_FOLDER, ignore_errors=True)
        ours = []
    if existing.exists():
        try:
            previous = parse_config(existing.read_text(encoding="utf-8"), str(existing), default_name=config.name)
        except (ConfigError, OSError, UnicodeDecodeError):
            previous = None
        if previous != config:
            what = f"differs in {_differences(previous, config)}" if previous is not None else "cannot be read"
            raise RunError(
                f"{out} already holds a different tournament ({existing} {what}); "
                f"choose another folder with --out, or start again with --overwrite"
            )
        stored = _stored_rows(out)
        if not resume and (stored or _records_hold_data(out)):
            raise RunError(
                f"{out} already holds {stored // config.players} games of this tournament; "
                f"add --resume to play only the missing ones, or --overwrite to start again"
            )
    elif any(name in ours for name in (GAMES_FILE, RECORDS_FILE, RECORDS_GZ_FILE)):
        raise RunError(f"{out} holds results without a {TOURNAMENT_FILE}; choose another folder with --out")

    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / BOTS_FOLDER).mkdir(exist_ok=True)
    except OSError as exc:
        raise RunError(f"{out}: cannot write there: {exc.strerror or exc}") from None
    if not existing.exists():
        write_atomically(existing, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    if not os.access(out, os.W_OK):
        raise RunError(f"{out}: cannot write there: permission denied")

    changed = settle(out, config, has_games=bool(_stored_rows(out)) or _records_hold_data(out),
                     allow_changed=allow_changed_bots)
    records_path, compressed = records_file(out, compress)
    if (out / GAMES_FILE).exists() or records_path.exists():
        recovered = recover(out, config)
        recovered.changed = changed
        return recovered, records_path, compressed
    _rewrite_text(out / GAMES_FILE, header_text(), ())
    _rewrite_records(records_path, compressed, ())
    return Recovered(set(), 0, 0), records_path, compressed


def drop_games(out: Path, game_ids: Collection[str]) -> None:
    """Remove the games ``game_ids`` from ``games.csv`` and the records file, both rewritten atomically.

    For a match cut to the deals its test counted (:mod:`arena.tournament.match.feed`): the games of later deals that
    finished early leave the folder, so it holds what the test counted.
    """
    drop = set(game_ids)
    if not drop:
        return
    games_path = out / GAMES_FILE
    _rewrite_text(games_path, header_text(),
                  (line for line in _text_lines(games_path, skip_header=True) if line.split(",", 1)[0] not in drop))
    records_path, compressed = records_file(out)

    def kept(line: bytes) -> bool:
        try:
            record = json.loads(line)
        except ValueError:
            return True  # not a record: the resume check's to judge
        return not (isinstance(record, dict) and record.get("game_id") in drop)

    _rewrite_records(records_path, compressed, (line for line in _Lines(records_path, compressed) if kept(line)))


def sort_games_file(path: Path) -> None:
    """Rewrite ``games.csv`` in schedule order: table, deal, rotation, seat.

    Plain text order is that order: a line starts with the game id, whose
    zero-padded fields have widths fixed by the tournament, and the seat
    (one digit) is the first field after it that differs within a game.
    """
    with open(path, encoding="utf-8", newline="") as f:
        header = f.readline()
        lines = f.readlines()
    if any(a > b for a, b in zip(lines, itertools.islice(lines, 1, None))):
        lines.sort()
        _rewrite_text(path, header, lines)


def read_tournament(folder: Path) -> tuple[TournamentConfig, str]:
    """The tournament a results folder holds, from its ``tournament.toml``."""
    path = folder / TOURNAMENT_FILE
    if not folder.is_dir():
        raise RunError(f"{folder}: no such results folder")
    if not path.exists():
        raise RunError(f"{folder}: not a results folder (no {TOURNAMENT_FILE})")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RunError(f"{path}: cannot read: {exc}") from None
    try:
        return parse_config(text, str(path), default_name=folder.name), text
    except ConfigError as exc:
        raise RunError(str(exc)) from None
