"""The files of a results folder and how each is written: whole, through a temporary file beside it.

The names themselves live in :mod:`arena.folderfiles` (one list for every layer); this module adds the
tables' and pictures' files.  Kept apart from :mod:`.recovery` so that every room of a tournament (planning,
identity, plots) can name a file or write one without importing what recovers a folder.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from pathlib import Path

from arena.errors import ArenaError, os_error_line
from arena.folderfiles import (  # noqa: F401  (the names, kept in one place, are part of this module's API)
    BOTS_FOLDER,
    CHECKPOINTS_FILE,
    DEAL_KEY_FILE,
    GAMES_FILE,
    IDENTITY_FILE,
    LEAGUE_FILE,
    LIVE_FOLDER,
    LOCK_FILE,
    LOG_FILE,
    MATCH_FILE,
    RECORDS_FILE,
    RECORDS_GZ_FILE,
    REPLAYS_FOLDER,
    REPORT_FILE,
    RETIRED_FILE,
    TABLES_STAMP,
    TEAMS_FILE,
    TOURNAMENT_FILE,
)

#: How every line of ``arena.log`` is written, by the parent and by the workers.
LOG_FORMAT = "%(asctime)s %(processName)s %(levelname)s %(message)s"
#: The descriptors of the locks this process holds (a forked worker closes its copies).
HELD_LOCKS: list[int] = []

#: Every table of a tournament, in the order they print: the name ``arena report --table`` gives it, and
#: the :class:`~arena.report.tables.Tables` attribute that holds it (also its key in ``--format json`` and its
#: file, ``ATTRIBUTE.csv``).  A table that a :class:`~arena.report.tables.Tables` does not hold is read as missing.
TABLES: dict[str, str] = {
    "standings": "standings",
    "head-to-head": "head_to_head",
    "seats": "seats",
    "order": "order",
    "time": "time_use",
}
TABLE_FILES = tuple(f"{attribute}.csv" for attribute in TABLES.values())
#: The picture of a match's sequential test (:func:`arena.report.plots.llr_plot`).
LLR_PLOT = "llr.png"
#: Every picture :func:`arena.report.plots.write_plots` may write, in the order it writes them.
PLOT_FILES = ("win_share.png", "rating.png", "head_to_head.png", "seats.png", "order.png", LLR_PLOT)
#: Every file a run writes; ``overwrite`` removes these (and the bots' and replays' folders) and nothing else.
OUTPUT_FILES = (TOURNAMENT_FILE, DEAL_KEY_FILE, IDENTITY_FILE, LEAGUE_FILE, RETIRED_FILE, GAMES_FILE, RECORDS_FILE, RECORDS_GZ_FILE,
                LOG_FILE, CHECKPOINTS_FILE, *TABLE_FILES, TABLES_STAMP, TEAMS_FILE, *PLOT_FILES, REPORT_FILE)


class RunError(ArenaError):
    """A run that cannot start or go on; the message is one line for the user."""


def records_file(out: Path, compress: bool = True) -> tuple[Path, bool]:
    """The records file of ``out`` and whether it is gzipped: the one that exists, else as ``compress`` says."""
    plain, packed = out / RECORDS_FILE, out / RECORDS_GZ_FILE
    if packed.exists() and not plain.exists():
        return packed, True
    if plain.exists():
        return plain, False
    return (packed, True) if compress else (plain, False)


#: The zlib level of the records' gzip members: a game in about 10% more bytes than level 9 (0.7 KB of
#: random bots' 8 KB), at a third of its CPU time.
RECORDS_LEVEL = 6


def pack(data: bytes) -> bytes:
    """``data`` as one gzip member (empty for no data): a compressed records file is a series of them, one
    per chunk of games stored, each made by the worker that played the chunk."""
    if not data:
        return b""
    packer = zlib.compressobj(RECORDS_LEVEL, zlib.DEFLATED, 31)
    return packer.compress(data) + packer.flush()


def write_atomically(path: Path, write: Callable[[Path], object]) -> None:
    """Make ``path`` anew: ``write(tmp)`` fills a temporary file beside it, which then replaces it.

    Any failure (a full disk, a read-only folder, a folder where the file should be) is a
    :class:`RunError` of one line: the temporary file is removed and ``path`` is as it was.
    """
    tmp = path.with_name(path.name + ".tmp")
    try:
        write(tmp)
        tmp.replace(path)
    except OSError as exc:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise RunError(f"{path}: cannot write: {os_error_line(exc)} (it is left as it was)") from None
