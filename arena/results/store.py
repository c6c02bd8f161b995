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
import json
import os
import shutil
import zlib
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO

from arena.plan.config import ConfigError, TournamentConfig, parse_config, with_deals
from arena.plan.schedule import Game, schedule
from arena.results.checkpoints import (
    Checkpoint,
    after,
    faults_of,
    read_checkpoints,
    trusted_prefix,
    write_checkpoints,
)
from arena.results.dealkey import check_folder_key, folder_key, new_folder_key, read_key
from arena.results.faults import FaultSummary
from arena.results.files import (
    BOTS_FOLDER,
    DEAL_KEY_FILE,
    GAMES_FILE,
    HELD_LOCKS,
    LOCK_FILE,
    OUTPUT_FILES,
    RECORDS_FILE,
    RECORDS_GZ_FILE,
    RECORDS_LEVEL,
    REPLAYS_FOLDER,
    RETIRED_FILE,
    TOURNAMENT_FILE,
    RunError,
    records_file,
    write_atomically,
)
from arena.results.identity import settle
from arena.results.league import numbered, start_league
from arena.results.rows import COLUMNS, header_text
from arena.results.sorting import game_ids
from arena.results.verify import (
    REASONS,
    GameCheckError,
    digest_of,
    expected_rows,
    first_difference,
    rows_digest,
)

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
    #: The checkpoint both files match now (None: none yet), for the run to chain its own on.
    last: Checkpoint | None = None

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

    def __init__(self, path: Path, compressed: bool, start: int = 0) -> None:
        self.path = path
        self.compressed = compressed
        #: Where to start reading (a gzip member's first byte when compressed).
        self.start = start
        #: Bytes after the last newline (a half-written line).
        self.cut = 0
        #: False when a gzip member was cut short (the file must be rewritten before appending to it).
        self.clean = True

    def _chunks(self) -> Iterator[bytes]:
        with open(self.path, "rb") as f:
            f.seek(self.start)
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


def _scan_rows(path: Path, games: Mapping[str, Game], start: int = 0) -> _RowsScan:
    """``games.csv`` from byte ``start`` on (a line's first byte; past the header when not 0)."""
    scan = _RowsScan()
    if not path.exists():
        return scan
    header = header_text()
    width = len(COLUMNS)
    lines = _Lines(path, False, start)
    numbered = enumerate(lines, start=1)
    first = next(numbered, None) if not start else (0, header.encode("utf-8"))
    if start:
        scan.header_ok = True
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
                  rows: _RowsScan, start: int = 0) -> _RecordsScan:
    scan = _RecordsScan()
    if not path.exists():
        return scan
    lines = _Lines(path, compressed, start)
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

    What the run's checkpoints still vouch for, byte for byte, is kept as it is
    (:mod:`.checkpoints`); everything after it is checked: half-written last
    lines are cut off, and lines that belong to no game of the schedule
    removed.  Every such record is replayed with the rules engine and checked
    against the schedule, and the rows it implies against the stored rows
    (timing apart).  A game whose record or rows are missing, incomplete,
    there twice or fail a check is dropped from both files (it will be played
    again); :attr:`Recovered.reasons` and :attr:`Recovered.details` say why.
    """
    if not config.public_deals and config.deal_key is None:
        config = folder_key(config, out)  # the stored games are checked against the seeds of the folder's key
    games_path = out / GAMES_FILE
    records_path, compressed = records_file(out)
    count, points = trusted_prefix(out, records_path, games_path)
    base = points[count - 1] if count else None
    trusted: set[str] = set()
    faults = FaultSummary()
    if base is not None:
        trusted = game_ids(games_path, base.rows)
        for entry in faults_of(points[:count]):
            faults.add_entry(entry)
        if (count == len(points) and _size(games_path) == base.rows and _size(records_path) == base.records):
            return Recovered(trusted, 0, 0, faults=faults, last=base)
    recovered = _recover_after(out, config, games_path, records_path, compressed, base, trusted)
    recovered.faults.update(faults)
    recovered.done |= trusted
    return recovered


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return -1


def _tail_ids(games_path: Path, records_path: Path, compressed: bool, base: Checkpoint | None) -> set[str] | None:
    """The game ids named after the trusted part (None: all of the files are to be checked)."""
    if base is None:
        return None
    ids: set[str] = set()
    for raw in _Lines(games_path, False, base.rows):
        ids.add(raw.split(b",", 1)[0].decode("utf-8", "replace").strip('"'))
    if records_path.exists():
        for line in _Lines(records_path, compressed, base.records):
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(record, dict) and isinstance(record.get("game_id"), str):
                ids.add(record["game_id"])
    return ids


def _scheduled(config: TournamentConfig, wanted: set[str] | None, trusted: set[str]) -> dict[str, Game]:
    """The games of the schedule by id: those named in ``wanted`` (all for None) and not ``trusted``.

    The schedule is listed only as far as the last of ``wanted`` (a resume after a kill names a chunk's
    games or none, and a million games take seconds to list).
    """
    games: dict[str, Game] = {}
    if wanted is not None:
        wanted = wanted - trusted
        if not wanted:
            return games
    for game in schedule(config):
        if wanted is None:
            if game.game_id not in trusted:
                games[game.game_id] = game
        elif game.game_id in wanted:
            games[game.game_id] = game
            if len(games) == len(wanted):
                break
    return games


def _recover_after(out: Path, config: TournamentConfig, games_path: Path, records_path: Path, compressed: bool,
                   base: Checkpoint | None, trusted: set[str]) -> Recovered:
    """Check what follows the trusted part (``base``; None: both files whole) and make it whole."""
    wanted = _tail_ids(games_path, records_path, compressed, base)
    games = _scheduled(config, wanted, trusted)
    rows_start = base.rows if base is not None else 0
    records_start = base.records if base is not None else 0
    rows = _scan_rows(games_path, games, rows_start)
    records = _scan_records(records_path, compressed, games, config, rows, records_start)

    # A game counts only when its record and all its rows are there, once, and pass every check.
    done = records.verified - records.twice
    dropped = sorted((records.seen | set(rows.rows)) - done)
    why = {game_id: _why(game_id, rows, records, config.players) for game_id in dropped}

    if not rows.header_ok or rows.cut or set(rows.rows) != done or rows.unreadable:
        differing: dict[str, list[str]] = {game_id: [] for game_id in records.expected}

        def kept_rows() -> Iterator[str]:
            for line in _text_lines(games_path, skip_header=not rows_start, start=rows_start):
                game_id = line.split(",", 1)[0]
                if game_id in done:
                    yield line
                elif game_id in differing:
                    differing[game_id].append(line)

        if rows_start:
            _replace_tail(games_path, rows_start, (line.encode("utf-8") for line in kept_rows()), False)
        else:
            _rewrite_text(games_path, header_text(), kept_rows() if rows.header_ok else iter(()))
        for game_id, stored in differing.items():
            where = first_difference(stored, records.expected[game_id].splitlines(keepends=True))
            why[game_id] = ("rows", f"{game_id}: rows: {where}")
    if (not records_path.exists() or records.cut or not records.clean or records.unreadable
            or records.seen != done):
        order = records.order
        kept_records = (
            line for index, line in enumerate(_Lines(records_path, compressed, records_start))
            if index < len(order) and order[index] in done
        ) if records_path.exists() else iter(())
        if records_start:
            _replace_tail(records_path, records_start, kept_records, compressed)
        else:
            _rewrite_records(records_path, compressed, kept_records)

    faults = FaultSummary()
    for game_id, found in records.faults.items():
        if game_id in done:
            faults.update(found)
    # One checkpoint for what was checked now: the next resume trusts it too.
    head = [] if base is None else read_checkpoints(out)[: _index_of(out, base)]
    last = after(base, records_path, games_path, len(done), faults.entries())
    write_checkpoints(out, [*head, last])
    return Recovered(
        done, len(dropped), rows.cut + records.cut,
        reasons=collections.Counter(reason for reason, _ in why.values()),
        unreadable=len(rows.unreadable) + len(records.unreadable),
        details=[detail for _, detail in why.values()] + rows.unreadable + records.unreadable,
        faults=faults, last=last,
    )


def _index_of(out: Path, base: Checkpoint) -> int:
    """How many checkpoints lead up to ``base`` (it included)."""
    points = read_checkpoints(out)
    return next(i + 1 for i, point in enumerate(points) if point == base)


def _replace_tail(path: Path, start: int, lines: Iterable[bytes], compressed: bool) -> None:
    """Make everything of ``path`` after byte ``start`` (kept as it is) be ``lines`` (one gzip member when compressed).

    The new tail is written to a temporary file first: a write that fails there leaves ``path`` as it was.
    """
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "wb") as f:
            write_lines(f, lines, compressed)
        with open(path, "r+b") as f, open(tmp, "rb") as tail:
            f.truncate(start)
            f.seek(start)
            shutil.copyfileobj(tail, f, _BLOCK)
    except OSError as exc:
        raise RunError(f"{path}: cannot write: {exc.strerror or exc} (it is left as it was)") from None
    finally:
        try:
            tmp.unlink()
        except OSError:
            pass


def write_lines(f: IO[bytes], lines: Iterable[bytes], compressed: bool) -> None:
    """Write ``lines`` to ``f``: as they are, or as one gzip member when ``compressed`` (nothing for no lines)."""
    if not compressed:
        f.writelines(lines)
        return
    packer = zlib.compressobj(RECORDS_LEVEL, zlib.DEFLATED, 31)
    wrote = False
    for line in lines:
        f.write(packer.compress(line))
        wrote = True
    if wrote:
        f.write(packer.flush())


def _text_lines(path: Path, skip_header: bool, start: int = 0) -> Iterator[str]:
    lines = iter(_Lines(path, False, start))
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
        with open(tmp, "wb") as f:
            write_lines(f, lines, compressed)

    write_atomically(path, write)


def stored_games(path: Path, players: int) -> int:
    """How many games the rows of ``games.csv`` (complete games, as a run leaves it) make."""
    lines = 0
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(8 * _BLOCK), b""):
            lines += block.count(b"\n")
    return max(0, lines - 1) // players


def _stored_rows(out: Path) -> int:
    """How many data rows ``games.csv`` holds (for messages)."""
    path = out / GAMES_FILE
    if not path.exists():
        return 0
    with open(path, "rb") as f:
        lines = sum(block.count(b"\n") for block in iter(lambda: f.read(8 * _BLOCK), b""))
        size = f.tell()
        if size:
            f.seek(size - 1)
            lines += f.read(1) != b"\n"  # a half-written last line counts too
    return max(0, lines - 1)


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
                        "challengers", "pool", "max_tables", "duplicate", "public_deals", "entrants")
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

    @staticmethod
    def held(out: Path) -> bool | None:
        """Whether a run holds ``out`` now; None when that cannot be told (no lock file, a folder this process
        cannot lock: another machine's copy)."""
        try:
            fd = os.open(out / LOCK_FILE, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        except OSError:
            return None
        finally:
            os.close(fd)  # closing it releases a lock it got
        return False

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


def check_folder(config: TournamentConfig, out: Path, *, resume: bool, overwrite: bool) -> None:
    """Refuse (:class:`RunError`) a results folder ``out`` that :func:`prepare_folder` would refuse, reading
    it only: a run calls it before any bot starts, so that a folder holding results costs no bot a start."""
    if resume and overwrite:
        raise RunError("--resume and --overwrite exclude each other: continue the run, or start it again")
    if out.exists() and not out.is_dir():
        raise RunError(f"{out}: exists and is not a folder")
    if overwrite:
        return
    existing = out / TOURNAMENT_FILE
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
        check_folder_key(config, out)
    elif any((out / name).exists() for name in (GAMES_FILE, RECORDS_FILE, RECORDS_GZ_FILE)):
        raise RunError(f"{out} holds results without a {TOURNAMENT_FILE}; choose another folder with --out")


def prepare_folder(
    config: TournamentConfig, text: str, out: Path, *, resume: bool, overwrite: bool, compress: bool = True,
    allow_changed_bots: bool = False,
) -> tuple[Recovered, Path, bool, TournamentConfig]:
    """Check ``out`` and get it ready: ``(the games stored already, records path, compressed, config)``,
    the config with the folder's deal key (:mod:`.dealkey`: made now for a new folder, else read).

    Refuses (:class:`RunError`) rather than lose data: a folder holding another
    tournament (its ``tournament.toml`` describes other games; comments and
    layout do not count), or this one's games without ``resume`` or ``overwrite``, or games
    played by other bots than the entrants of now without ``allow_changed_bots`` (:mod:`.identity`).
    """
    check_folder(config, out, resume=resume, overwrite=overwrite)
    existing = out / TOURNAMENT_FILE
    if overwrite:
        for name in OUTPUT_FILES:
            try:
                (out / name).unlink(missing_ok=True)
            except OSError as exc:
                raise RunError(f"{out / name}: cannot remove: {exc.strerror or exc}") from None
        shutil.rmtree(out / BOTS_FOLDER, ignore_errors=True)
        shutil.rmtree(out / REPLAYS_FOLDER, ignore_errors=True)

    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / BOTS_FOLDER).mkdir(exist_ok=True)
    except OSError as exc:
        raise RunError(f"{out}: cannot write there: {exc.strerror or exc}") from None
    if not existing.exists():
        config = new_folder_key(config, out)  # before the tournament: a folder with one always has its key
        write_atomically(existing, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    else:
        config = folder_key(config, out)
    start_league(out, config, existing)
    if not os.access(out, os.W_OK):
        raise RunError(f"{out}: cannot write there: permission denied")

    changed = settle(out, config, has_games=bool(_stored_rows(out)) or _records_hold_data(out),
                     allow_changed=allow_changed_bots)
    records_path, compressed = records_file(out, compress)
    if (out / GAMES_FILE).exists() or records_path.exists():
        recovered = recover(out, config)
        recovered.changed = changed
        return recovered, records_path, compressed, config
    _rewrite_text(out / GAMES_FILE, header_text(), ())
    _rewrite_records(records_path, compressed, ())
    start = after(None, records_path, out / GAMES_FILE, 0, [])
    write_checkpoints(out, [start])
    return Recovered(set(), 0, 0, last=start), records_path, compressed, config


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


def retire_games(out: Path, game_ids: Collection[str]) -> None:
    """Move the games ``game_ids`` out of the results: their record lines are appended to ``retired.jsonl``
    (kept, never lost), then :func:`drop_games` removes them from ``games.csv`` and the records file."""
    drop = set(game_ids)
    if not drop:
        return
    records_path, compressed = records_file(out)
    if records_path.exists():
        try:
            with open(out / RETIRED_FILE, "ab") as retired:
                for line in _Lines(records_path, compressed):
                    try:
                        record = json.loads(line)
                    except ValueError:
                        continue
                    if isinstance(record, dict) and record.get("game_id") in drop:
                        retired.write(line)
        except OSError as exc:
            raise RunError(f"{out / RETIRED_FILE}: cannot write: {exc.strerror or exc} (nothing was dropped)") from None
    drop_games(out, drop)


def read_tournament(folder: Path, deal_key: str | None = None) -> tuple[TournamentConfig, str]:
    """The tournament a results folder holds, from its ``tournament.toml``, with the folder's deal key when it
    keeps one (or ``deal_key``, given: it must be the folder's); without either its seeds cannot be listed
    (:class:`~arena.plan.schedule.DealKeyMissing`)."""
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
        config = numbered(parse_config(text, str(path), default_name=folder.name), folder)
    except ConfigError as exc:
        raise RunError(str(exc)) from None
    try:
        config = with_deals(config, deal_key=deal_key)
    except ConfigError as exc:
        raise RunError(str(exc)) from None
    if not config.public_deals and (folder / DEAL_KEY_FILE).exists():
        check_folder_key(config, folder)
        config = replace(config, deal_key=read_key(folder))
    return config, text
