"""Making a results folder whole after an interruption, and saying which games it stores.

A game is *stored* once both its record line (``records.jsonl`` or
``records.jsonl.gz``) and all its rows (``games.csv``) are on disk; the runner
writes and flushes the record first, then the rows.  :func:`recover` reads
both files as streams (memory grows with the number of games only by their
ids and a digest of their rows), cuts a half-written last line, removes lines
that belong to no game of the tournament, replays every record with the rules
engine and checks it and its rows (:mod:`.verify`), and drops every game that
is not complete in both or fails a check, so it is played again.  What the
run's checkpoints vouch for (:mod:`.checkpoints`) is trusted without a second look.
"""

from __future__ import annotations

import collections
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from arena.plan.config import TournamentConfig
from arena.plan.schedule import Game, Schedule
from arena.results.checkpoints import Checkpoint, after, faults_of, read_checkpoints, trusted_prefix, write_checkpoints
from arena.results.dealkey import folder_key
from arena.results.faults import FaultSummary
from arena.results.files import GAMES_FILE, RunError, records_file
from arena.results.games_table import COLUMNS, GamesTableError, game_id_of, header_text, row_key, upgrade_file
from arena.results.lines import Lines, replace_tail, rewrite_records, rewrite_text, shown_line, text_lines
from arena.results.sorting import game_ids
from arena.results.verify import REASONS, GameCheckError, digest_of, expected_rows, first_difference, rows_digest


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
    #: A line for each entrant whose bot changed since the stored games (``--allow-changed-bots``).
    changed: list[str] = field(default_factory=list)

    def summary(self) -> list[str]:
        """What the resume removed, one line per reason class (empty when nothing was)."""
        lines = [f"resume: dropped {n} game(s) to play again: {REASONS[reason]}"
                 for reason, n in sorted(self.reasons.items(), key=lambda item: list(REASONS).index(item[0]))]
        if self.unreadable:
            lines.append(f"resume: removed {self.unreadable} line(s) that belong to no game of this tournament")
        if self.cut_bytes:
            lines.append(f"resume: cut {self.cut_bytes} byte(s) of half-written last lines")
        return lines


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
    lines = Lines(path, False, start)
    numbered = enumerate(lines, start=1)
    first = next(numbered, None) if not start else (0, header.encode("utf-8"))
    if start:
        scan.header_ok = True
    if first is not None:
        if first[1].decode("utf-8", errors="replace") != header:  # an older version is upgraded before the scan
            raise RunError(f"{path}: not a games table of this arena (its header differs)")
        scan.header_ok = True
        for number, raw in numbered:
            text = raw.decode("utf-8", errors="replace")
            key = row_key(text)
            if key is None or key[0] not in games:
                scan.unreadable.append(f"{path.name} line {number}: not a row of a game of this tournament: "
                                       f"{shown_line(text)}")
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
    lines = Lines(path, compressed, start)
    for number, line in enumerate(lines, start=1):
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            record = None
        game_id = record.get("game_id") if isinstance(record, dict) else None
        if not isinstance(game_id, str) or game_id not in games:
            scan.order.append(None)
            scan.unreadable.append(f"{path.name} line {number}: not a record of a game of this tournament: "
                                   f"{shown_line(line)}")
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


def recover(out: Path, schedule: Schedule) -> Recovered:
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
    config = schedule.config
    if not config.public_deals and config.deal_key is None:
        # The stored games are checked against the seeds of the folder's key.
        schedule = Schedule(folder_key(config, out), schedule.numbering)
    games_path = out / GAMES_FILE
    records_path, compressed = records_file(out)
    upgrade_rows(games_path)
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
    recovered = _recover_after(out, schedule, games_path, records_path, compressed, base, trusted)
    recovered.faults.update(faults)
    recovered.done |= trusted
    return recovered


def upgrade_rows(path: Path) -> bool:
    """Write a ``games.csv`` of an older version again as the current version (:func:`.games_table.upgrade_file`),
    so that the games a resume adds fit it; True when it did.  :class:`RunError` for a header of no version."""
    try:
        return upgrade_file(path) is not None
    except GamesTableError as exc:
        raise RunError(str(exc)) from None


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
    for raw in Lines(games_path, False, base.rows):
        ids.add(game_id_of(raw.decode("utf-8", "replace")))
    if records_path.exists():
        for line in Lines(records_path, compressed, base.records):
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(record, dict) and isinstance(record.get("game_id"), str):
                ids.add(record["game_id"])
    return ids


def _scheduled(schedule: Schedule, wanted: set[str] | None, trusted: set[str]) -> dict[str, Game]:
    """The games of the schedule by id: those named in ``wanted`` (all for None) and not ``trusted``."""
    if wanted is not None:
        return schedule.games(wanted - trusted)
    return {game.game_id: game for game in schedule if game.game_id not in trusted}


def _recover_after(out: Path, schedule: Schedule, games_path: Path, records_path: Path, compressed: bool,
                   base: Checkpoint | None, trusted: set[str]) -> Recovered:
    """Check what follows the trusted part (``base``; None: both files whole) and make it whole."""
    config = schedule.config
    wanted = _tail_ids(games_path, records_path, compressed, base)
    games = _scheduled(schedule, wanted, trusted)
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
            for line in text_lines(games_path, skip_header=not rows_start, start=rows_start):
                game_id = game_id_of(line)
                if game_id in done:
                    yield line
                elif game_id in differing:
                    differing[game_id].append(line)

        if rows_start:
            replace_tail(games_path, rows_start, (line.encode("utf-8") for line in kept_rows()), False)
        else:
            rewrite_text(games_path, header_text(), kept_rows() if rows.header_ok else iter(()))
        for game_id, stored in differing.items():
            where = first_difference(stored, records.expected[game_id].splitlines(keepends=True))
            why[game_id] = ("rows", f"{game_id}: rows: {where}")
    if (not records_path.exists() or records.cut or not records.clean or records.unreadable
            or records.seen != done):
        order = records.order
        kept_records = (
            line for index, line in enumerate(Lines(records_path, compressed, records_start))
            if index < len(order) and order[index] in done
        ) if records_path.exists() else iter(())
        if records_start:
            replace_tail(records_path, records_start, kept_records, compressed)
        else:
            rewrite_records(records_path, compressed, kept_records)

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
