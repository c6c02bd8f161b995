"""``games.csv``: its columns in every version the arena has written, the upgrade of an older version to
the current one, and the one reader of its rows, with named fields.

Every module that reads the table reads it here (a :class:`GameRow` per line, or the columns of
:data:`COLUMNS` by name); :mod:`.rows` writes it.  A new column is a new :class:`Version` (its columns,
and what the rows of the versions before it hold there), a field of :class:`GameRow`, the code that
makes the value and the table that shows it.  The versions are listed in ``docs/reference/output-files.md``.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from arena.errors import ArenaError
from arena.results.lines import rewrite_text, text_lines
from arena.rules import COLORS


@dataclass(frozen=True)
class Version:
    """One set of columns the arena has written, in the order of its header."""

    number: int
    columns: tuple[str, ...]
    #: What it brought, in a few words.
    note: str
    #: The text its new columns hold in the rows of the versions before it.
    defaults: Mapping[str, str] = field(default_factory=dict, hash=False)

    @property
    def header(self) -> str:
        return ",".join(self.columns) + "\n"


_BASE: tuple[str, ...] = (
    "game_id", "table", "deal", "rotation", "seed", "seat", "entrant", "bot", "groups",
    *(f"captures_{color}" for color in COLORS),
    "captured_total", "blockers_penalty", "blockers_score", "uptown_rank", "blockers_rank",
    "won", "faulted", "moves", "seconds",
)
#: The columns of each seat's time use: ``seconds`` the bot's thinking time in the game, ``asked`` the
#: turns it was asked, ``longest`` its longest turn (seconds), ``lost_on_time`` 1 when its fault was a
#: timeout, ``clock_left`` the seconds left on its game clock at the end (empty without a clock).
SEAT_TIME_COLUMNS: tuple[str, ...] = ("seconds", "asked", "longest", "lost_on_time", "clock_left")

#: Every version of ``games.csv``, oldest first; the last is the one the arena writes.
VERSIONS: tuple[Version, ...] = (
    Version(1, _BASE, "the game, its seat and result, and the seat's thinking time (seconds)"),
    Version(2, (*_BASE, *SEAT_TIME_COLUMNS[1:]),
            "each seat's time use: turns asked, longest turn, lost on time, clock left",
            dict.fromkeys(SEAT_TIME_COLUMNS[1:], "")),
)
CURRENT = VERSIONS[-1]
COLUMNS: tuple[str, ...] = CURRENT.columns
#: Each column's place in a row of the current version.
INDEX: Mapping[str, int] = {name: i for i, name in enumerate(COLUMNS)}
#: The columns that differ from one run of the same games to the next (the record implies the others).
TIMING_COLUMNS: tuple[str, ...] = tuple(c for c in COLUMNS if c in SEAT_TIME_COLUMNS)
#: The columns an older version may lack, read as missing (empty) in its rows.
OPTIONAL_COLUMNS: tuple[str, ...] = tuple(c for c in COLUMNS if c not in VERSIONS[0].columns)
#: The columns that hold text; the others hold numbers.
TEXT_COLUMNS: tuple[str, ...] = ("game_id", "entrant", "bot")
#: The columns that hold fractions; the other numbers are whole.
FLOAT_COLUMNS: tuple[str, ...] = ("seconds", "longest", "clock_left")


class GamesTableError(ArenaError):
    """A ``games.csv`` that is none of the versions of :data:`VERSIONS`; the message is one line."""


class GameRow(NamedTuple):
    """One row of ``games.csv``: one seat of one game (the fields are :data:`COLUMNS`, parsed)."""

    game_id: str
    table: int
    deal: int
    rotation: int
    seed: int
    seat: int
    entrant: str
    bot: str
    groups: int
    captures_red: int
    captures_blue: int
    captures_green: int
    captures_yellow: int
    captures_purple: int
    captured_total: int
    blockers_penalty: int
    blockers_score: int
    uptown_rank: int
    blockers_rank: int
    won: int
    faulted: int
    moves: int
    seconds: float
    #: None in a row of version 1 (no time-use columns).
    asked: int | None
    longest: float | None
    lost_on_time: int | None
    #: None without a clock, and in a row of version 1.
    clock_left: float | None

    def rank(self, scoring: str) -> int:
        """The seat's rank in its game under ``scoring`` (``uptown`` or ``blockers``)."""
        return self.uptown_rank if scoring == "uptown" else self.blockers_rank

    @classmethod
    def parse(cls, fields: Sequence[str]) -> GameRow:
        """The row of ``fields`` (a row of the current version); :class:`ValueError` for a row of another
        width, or a field that is not a number where one belongs."""
        if len(fields) != len(COLUMNS):
            raise ValueError(f"a row of {len(fields)} fields, not {len(COLUMNS)}")
        return cls._make([read(text) for read, text in zip(_READERS, fields)])


def _optional(read: Callable[[str], int | float]) -> Callable[[str], int | float | None]:
    return lambda text: read(text) if text else None


def _reader(column: str) -> Callable[[str], object]:
    if column in TEXT_COLUMNS:
        return str
    read: Callable[[str], int | float] = float if column in FLOAT_COLUMNS else int
    return _optional(read) if column in OPTIONAL_COLUMNS or column == "clock_left" else read


_READERS = tuple(_reader(column) for column in COLUMNS)
assert GameRow._fields == COLUMNS, "GameRow's fields are the current version's columns"


def version_of(header: str | Sequence[str]) -> Version | None:
    """The version whose header is ``header`` (its first line, or its fields); None for none of them."""
    columns = tuple(header.rstrip("\r\n").split(",")) if isinstance(header, str) else tuple(header)
    return next((v for v in VERSIONS if v.columns == columns), None)


def header_fields(path: Path) -> list[str]:
    """The column names of the header of the file at ``path``, whatever version it is ([]: an empty file);
    :class:`OSError` when it cannot be read."""
    with open(path, encoding="utf-8", errors="replace", newline="") as f:
        return next(csv.reader([f.readline()]), [])


def named_columns(lines: Iterable[str], names: Sequence[str]) -> Iterator[dict[str, str]]:
    """The rows of ``lines`` (a header of any version first) as dicts of the columns ``names`` alone (those the
    version has), as text; nothing for a header of no version, and a row of another length is passed over.
    A million games' rows are read so in a few seconds, where whole rows take several times as long."""
    reader = csv.reader(lines)
    header = next(reader, None)
    version = version_of(header) if header is not None else None
    if header is None or version is None:
        return
    at = [(name, version.columns.index(name)) for name in names if name in version.columns]
    for fields in reader:
        if len(fields) == len(header):
            yield {name: fields[i] for name, i in at}


def fields_by_name(line: str) -> dict[str, str]:
    """A row of the current version (its text) as its fields by column name; a row with more fields than
    :data:`COLUMNS` keeps the extra ones under ``extra_N``."""
    fields = next(csv.reader([line]), [])
    return {COLUMNS[i] if i < len(COLUMNS) else f"extra_{i}": value for i, value in enumerate(fields)}


def header_text() -> str:
    """The header of the current version, with its newline."""
    return CURRENT.header


def read_version(path: Path) -> Version | None:
    """The version of the ``games.csv`` at ``path`` (None: it does not exist or is empty);
    :class:`GamesTableError` for a header that is none of :data:`VERSIONS`."""
    try:
        with open(path, "rb") as f:
            first = f.readline().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return None
    if not first:
        return None
    version = version_of(first)
    if version is None:
        raise GamesTableError(f"{path}: not a games table of this arena (its header differs from each of the "
                              f"{len(VERSIONS)} versions of games.csv)")
    return version


def upgrader(version: Version) -> Callable[[str], str]:
    """What makes a row (its text, with its newline) of ``version`` a row of the current version: every
    column by name, each column ``version`` lacks as the version that added it says."""
    if version == CURRENT:
        return lambda line: line
    defaults = {column: text for later in VERSIONS for column, text in later.defaults.items()}
    if COLUMNS[: len(version.columns)] == version.columns:
        pad = "".join("," + defaults[c] for c in COLUMNS[len(version.columns):])
        # Columns added at the end: the fields are appended (a half-written line stays as it is).
        return lambda line: line[:-1] + pad + "\n" if line.endswith("\n") else line
    at = {name: i for i, name in enumerate(version.columns)}

    def upgrade(line: str) -> str:
        if not line.endswith("\n"):
            return line
        fields = next(csv.reader([line]), [])
        if len(fields) != len(version.columns):
            return line  # not a row of its version: the checks that follow drop it
        return rows_line([fields[at[c]] if c in at else defaults[c] for c in COLUMNS])

    return upgrade


def rows_line(fields: Sequence[str]) -> str:
    """One row of CSV text, quoted as the arena writes its rows (the csv module's minimal quoting)."""
    out: list[str] = []
    writer = csv.writer(_Into(out), lineterminator="\n")
    writer.writerow(fields)
    return out[0]


class _Into:
    def __init__(self, out: list[str]) -> None:
        self.write = out.append


def whole_lines(lines: Iterable[str]) -> Iterator[str]:
    """``lines`` up to the first that is cut short (a run still writing the file)."""
    for line in lines:
        if not line.endswith("\n"):
            return
        yield line


def parse_rows(lines: Iterable[str]) -> Iterator[GameRow | None]:
    """The rows of ``lines`` (rows of the current version, no header): a :class:`GameRow` for each line,
    None for a line that is not one."""
    for line in lines:
        try:
            yield GameRow.parse(next(csv.reader([line]), []))
        except (ValueError, csv.Error):
            yield None


def read_rows(path: Path, *, start: int = 0) -> Iterator[GameRow]:
    """The rows of the ``games.csv`` at ``path`` (of any version, upgraded as read), whole lines only,
    in file order; damaged lines are passed over.  ``start`` is the byte of a line to begin at (past the
    header when not 0; the file then is of the current version)."""
    version = CURRENT if start else read_version(path)
    if version is None:
        return
    upgrade = upgrader(version)
    with open(path, encoding="utf-8", errors="replace", newline="") as f:
        if start:
            f.seek(start)
        else:
            f.readline()
        for row in parse_rows(upgrade(line) for line in whole_lines(f)):
            if row is not None:
                yield row


def first_row(path: Path) -> GameRow | None:
    """The first whole row of the ``games.csv`` at ``path`` (None: none)."""
    return next(read_rows(path), None)


def game_id_of(line: str) -> str:
    """The game id of a row's text, read without parsing the row (ids are plain text, never quoted)."""
    return line.partition(",")[0].strip('"')


def row_key(line: str) -> tuple[str, int, int] | None:
    """A row's game id, seat and number of fields, from its text; None for a line that is not a row."""
    try:
        fields = next(csv.reader([line]))
        return fields[_GAME_ID], int(fields[_SEAT]), len(fields)
    except (StopIteration, IndexError, ValueError, csv.Error):
        return None


_GAME_ID, _SEAT = INDEX["game_id"], INDEX["seat"]
_TIMING_LAST = COLUMNS[-len(TIMING_COLUMNS):] == TIMING_COLUMNS
_UNTIMED = [i for i, name in enumerate(COLUMNS) if name not in TIMING_COLUMNS]


def without_timing(line: str) -> str:
    """A row's text without the :data:`TIMING_COLUMNS` and the newline: what the record implies."""
    line = line.rstrip("\r\n")
    if _TIMING_LAST:  # the fast path while they come last: the text before their commas
        return line.rsplit(",", len(TIMING_COLUMNS))[0]
    fields = next(csv.reader([line]), [])
    if len(fields) != len(COLUMNS):
        return line
    return rows_line([fields[i] for i in _UNTIMED])[:-1]


def upgrade_file(path: Path) -> Version | None:
    """Write the ``games.csv`` at ``path`` of an older version again as the current version (its rows
    upgraded by :func:`upgrader`), so that the games a resume adds fit it; the version it was, or None when
    it needed nothing.  The checkpoints no longer match the file: the resume checks every game once."""
    version = read_version(path)
    if version is None or version == CURRENT:
        return None
    upgrade = upgrader(version)
    rewrite_text(path, header_text(), (upgrade(line) for line in text_lines(path, skip_header=True)))
    return version


def game_ids_in(path: Path) -> list[str]:
    """The ids of the games the ``games.csv`` at ``path`` holds rows of, in the order first met (every line
    past the header counts, a damaged one too)."""
    seen: dict[str, None] = {}
    try:
        with open(path, encoding="utf-8", errors="replace", newline="") as f:
            f.readline()
            for line in f:
                if line.strip():
                    seen.setdefault(game_id_of(line), None)
    except FileNotFoundError:
        return []
    return list(seen)
