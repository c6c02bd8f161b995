"""A tournament's results folder: what is in it, getting it ready, and making it whole after an interruption.

A game is *stored* once both its record line (``records.jsonl`` or
``records.jsonl.gz``) and all its rows (``games.csv``) are on disk; the runner
writes and flushes the record first, then the rows.  :func:`recover` reads
both files as streams (memory grows with the number of games only by their
ids), cuts a half-written last line, and drops every game that is not
complete in both, so it is played again.

The folder is never emptied silently: :func:`prepare_folder` refuses a folder
that holds another tournament, or this one's games without ``resume`` or
``overwrite``.
"""

from __future__ import annotations

import csv
import fcntl
import gzip
import itertools
import json
import os
import shutil
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .config import ConfigError, TournamentConfig, parse_config
from .identity import IDENTITY_FILE, settle
from .rows import header_text
from .schedule import schedule

TOURNAMENT_FILE = "tournament.toml"
#: How every line of ``arena.log`` is written, by the parent and by the workers.
LOG_FORMAT = "%(asctime)s %(processName)s %(levelname)s %(message)s"
#: The folder of the bots' logs (their standard error), one file per entrant.
BOTS_FOLDER = "bots"
#: The file a run holds an OS lock on for as long as it writes the folder.
LOCK_FILE = ".arena.lock"
#: The descriptors of the locks this process holds (a forked worker closes its copies).
HELD_LOCKS: list[int] = []
GAMES_FILE = "games.csv"
RECORDS_FILE = "records.jsonl"
RECORDS_GZ_FILE = "records.jsonl.gz"
LOG_FILE = "arena.log"
TABLE_FILES = ("standings.csv", "head_to_head.csv", "seats.csv")
#: Every file a run writes; ``overwrite`` removes these and nothing else.
OUTPUT_FILES = (TOURNAMENT_FILE, IDENTITY_FILE, GAMES_FILE, RECORDS_FILE, RECORDS_GZ_FILE, LOG_FILE, *TABLE_FILES)
_BLOCK = 1 << 20


@dataclass
class Recovered:
    """The games already stored in a results folder, after making it whole."""

    done: set[str]
    #: Games found in one file only, or incomplete, and removed from both.
    dropped: int
    #: Bytes of half-written last lines cut off.
    cut_bytes: int
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


def records_file(out: Path, compress: bool | None = None) -> tuple[Path, bool]:
    """The records file of ``out`` and whether it is gzipped: the one that exists, else as ``compress`` says."""
    plain, packed = out / RECORDS_FILE, out / RECORDS_GZ_FILE
    if packed.exists() and not plain.exists():
        return packed, True
    if plain.exists():
        return plain, False
    return (packed, True) if compress else (plain, False)


class RunError(Exception):
    """A run that cannot start or go on; the message is one line for the user."""


def _record_game_id(line: bytes) -> str | None:
    try:
        value = json.loads(line)
    except ValueError:
        return None
    game_id = value.get("game_id") if isinstance(value, dict) else None
    return game_id if isinstance(game_id, str) else None


def _row_key(path: Path, line: str) -> tuple[str, int, int]:
    """A games.csv row's game id, seat and number of fields."""
    try:
        row = next(csv.reader([line]))
        return row[0], int(row[5]), len(row)
    except (StopIteration, IndexError, ValueError):
        raise RunError(f"{path}: a malformed row: {line.strip()[:60]!r}") from None


def recover(out: Path, config: TournamentConfig) -> Recovered:
    """Make ``out``'s results whole and say which games are stored.

    Half-written last lines are cut off; a game whose record or rows are
    missing, incomplete or there twice is dropped from both files (it will be
    played again); a game id that is not in the schedule is an error.
    """
    valid = {game.game_id for game in schedule(config)}
    header = header_text()
    width = header.count(",") + 1
    games_path = out / GAMES_FILE
    records_path, compressed = records_file(out)

    rows: dict[str, int] = {}
    bad: set[str] = set()
    header_ok = False
    games_cut = 0
    if games_path.exists():
        games = _Lines(games_path, False)
        lines = iter(games)
        first = next(lines, None)
        if first is not None:
            if first.decode("utf-8", errors="replace") != header:
                raise RunError(f"{games_path}: not a games table of this arena (its header differs)")
            header_ok = True
            for raw in lines:
                game_id, seat, fields = _row_key(games_path, raw.decode("utf-8", errors="replace"))
                if game_id not in valid:
                    raise RunError(f"{games_path}: game {game_id} is not part of this tournament")
                count = rows.get(game_id, 0)
                if fields != width or seat != count:
                    bad.add(game_id)
                rows[game_id] = count + 1
        games_cut = games.cut
    complete = {g for g, n in rows.items() if n == config.players} - bad

    seen: set[str] = set()
    twice: set[str] = set()
    unreadable = 0
    records = _Lines(records_path, compressed)
    if records_path.exists():
        for line in records:
            game_id = _record_game_id(line)
            if game_id is None:
                unreadable += 1
            elif game_id not in valid:
                raise RunError(f"{records_path}: game {game_id} is not part of this tournament")
            else:
                (twice if game_id in seen else seen).add(game_id)

    # A game counts only when its record and all its rows are there, once.
    done = (seen & complete) - twice
    dropped = len((seen | set(rows)) - done)

    if not header_ok or games_cut or len(rows) != len(done) or bad:
        kept_rows = (
            line for line in _text_lines(games_path, skip_header=True)
            if line.split(",", 1)[0] in done
        ) if header_ok else iter(())
        _rewrite_text(games_path, header, kept_rows)
    if not records_path.exists() or records.cut or not records.clean or unreadable or len(seen) != len(done) or twice:
        kept_records = (
            line for line in _Lines(records_path, compressed) if _record_game_id(line) in done
        ) if records_path.exists() else iter(())
        _rewrite_records(records_path, compressed, kept_records)
    return Recovered(done, dropped, games_cut + records.cut)


def _text_lines(path: Path, skip_header: bool) -> Iterator[str]:
    lines = iter(_Lines(path, False))
    if skip_header:
        next(lines, None)
    for raw in lines:
        yield raw.decode("utf-8", errors="replace")


def _rewrite_text(path: Path, header: str, lines: Iterable[str]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        f.write(header)
        f.writelines(lines)
    tmp.replace(path)


def _rewrite_records(path: Path, compressed: bool, lines: Iterable[bytes]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with gzip.open(tmp, "wb") if compressed else open(tmp, "wb") as f:
        f.writelines(lines)
    tmp.replace(path)


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
    keys = [k for k in ("name", "players", "deals", "seed", "scoring", "penalty", "time_limit", "rotate", "entrants")
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
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, f"{os.getpid()}\n".encode(), 0)

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
        if not existing.exists():
            tmp = out / (TOURNAMENT_FILE + ".tmp")
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(existing)
    except OSError as exc:
        raise RunError(f"{out}: cannot write there: {exc.strerror or exc}") from None
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
