"""``report.html``: a tournament's tables and plots, with replays of its first games, as HTML.

The report links each game id to a replay page written beside it as
``games/ID.html``.  Replaying and writing every game of a big tournament would
cost more than the tournament's tables, so only the first :data:`REPLAY_LIMIT`
games of the records file get a page, and the file is read no further (the
tables say how many games there are); the report names how many more there
are and that ``arena view DIR --game ID`` writes the page of any of them.
"""

from __future__ import annotations

import gzip
import re
import zlib
from pathlib import Path
from typing import Any

from arena import records
from arena.display.html import replay_page, report_page
from arena.report.tables import Tables
from arena.report.text import head_to_head_matrix, seats_display, standings_display
from arena.tournament.folder.files import (
    PLOT_FILES,
    RECORDS_FILE,
    RECORDS_GZ_FILE,
    REPLAYS_FOLDER,
    REPORT_FILE,
    RunError,
    write_atomically,
)

#: How many games (the first in the records file) get a replay page linked from the report.
REPLAY_LIMIT = 100
#: The folder, beside the report, that holds the replay pages.
GAMES_FOLDER = REPLAYS_FOLDER
#: Game ids that are safe as a file name; any other id is listed without a page.
_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def _record_lines(folder: Path, limit: int) -> list[str]:
    """The first ``limit`` records of ``folder`` as lines, read as a stream that stops there."""
    for name in (RECORDS_FILE, RECORDS_GZ_FILE):
        path = folder / name
        if path.is_file():
            opener = gzip.open if name.endswith(".gz") else open
            first: list[str] = []
            try:
                with opener(path, "rt", encoding="utf-8", errors="replace") as lines:  # type: ignore[operator]
                    for line in lines:
                        if len(first) >= limit:
                            break
                        if line.strip():
                            first.append(line)
            except (OSError, EOFError, zlib.error):
                return first
            return first
    return []


def _games_counted(tables: Tables) -> int:
    """How many games the tables count: every game has one seat 0 (the seats table's first row)."""
    seats = tables.seats
    if seats.empty or "games" not in seats.columns:
        return 0
    return int(seats["games"].max())


def write_report(
    folder: str | Path, tables: Tables, title: str, out: str | Path | None = None, limit: int = REPLAY_LIMIT,
) -> Path:
    """Write the HTML report of the results ``folder`` to ``out`` (default ``folder/report.html``).

    The first ``limit`` readable, valid games get ``games/ID.html`` beside the report.
    Every page is written through a temporary file beside it; one that cannot be written is a
    :class:`~arena.tournament.folder.files.RunError` of one line naming it.
    """
    folder = Path(folder)
    target = Path(out) if out is not None else folder / REPORT_FILE
    shown: dict[str, Any] = {
        "Standings": (standings_display(tables), False),
        "Head-to-head (row finished ahead of column)": (head_to_head_matrix(tables), True),
        "Seats": (seats_display(tables), False),
    }
    plots = [folder / name for name in PLOT_FILES if (folder / name).is_file()]
    lines = _record_lines(folder, limit)
    count = max(_games_counted(tables), len(lines))
    games: list[tuple[str, str | None]] = []
    for line in lines:
        try:
            record = records.loads(line)
            game = records.replay(record)
        except records.RecordError:
            continue  # a damaged line: arena run --resume plays it again; no page for it
        game_id = str(record.get("game_id", ""))
        if not _SAFE_ID.fullmatch(game_id):
            games.append((game_id, None))
            continue
        pages = target.parent / GAMES_FOLDER
        try:
            pages.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise RunError(f"{pages}: cannot write there: {exc.strerror or exc}") from None
        _write(pages / f"{game_id}.html", replay_page(game, f"{title}: {game_id}"))
        games.append((game_id, f"{GAMES_FOLDER}/{game_id}.html"))
    more = max(0, count - limit)
    _write(target, report_page(title, shown, plots, games, more, str(folder)))
    return target


def _write(path: Path, text: str) -> None:
    write_atomically(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
