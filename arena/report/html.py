"""``report.html``: a tournament's tables and plots, its games, and replays of its first games, as HTML.

The tables are the ones ``arena report`` prints, with the same cell texts.  The games list (seats,
players, winner, scores) is read from ``games.csv`` as a stream: the first :data:`GAMES_LIMIT` games
are listed, sortable, filterable and in pages, and the rest only counted, so a folder of a million games
costs the report the games it lists, not the whole file.

The page opens on a summary in words (:mod:`arena.report.summary`) and a list of its contents, then the
standings and the plots; each table has a line under it that says what its columns mean.

The report links each game id to a replay page ``games/ID.html``.  A run and a match write those pages
beside their report; ``arena report --html`` writes them only when asked (``--replays``), and otherwise
links the pages the folder already holds.  Replaying and writing every game of a big tournament would
cost more than the tournament's tables, so only the first :data:`REPLAY_LIMIT`
games of the records file get a page, and the file is read no further (the
tables say how many games there are); the report names how many more there
are and that ``arena view DIR --game ID`` writes the page of any of them.
"""

from __future__ import annotations

import csv
import gzip
import os
import re
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from arena import records
from arena.display.html import GameList, Section, replay_page, report_page
from arena.errors import os_error_line
from arena.report import columns as col
from arena.report.summary import COLUMN_NOTES, summary_lines
from arena.report.tables import Tables
from arena.report.text import (
    TITLES,
    head_to_head_matrix,
    head_to_head_note,
    order_display,
    seats_display,
    standings_display,
    time_display,
)
from arena.results.files import (
    GAMES_FILE,
    PLOT_FILES,
    RECORDS_FILE,
    RECORDS_GZ_FILE,
    REPLAYS_FOLDER,
    REPORT_FILE,
    RunError,
    write_atomically,
)
from arena.results.games_table import game_id_of, named_columns, whole_lines

if TYPE_CHECKING:
    import pandas as pd

#: How many games (the first in the records file) get a replay page linked from the report.
REPLAY_LIMIT = 100
#: How many games (the first in games.csv) the report lists; the rest are counted.
GAMES_LIMIT = 5000
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
    if seats.empty:
        return 0
    return int(seats[col.GAMES].max())


def _game_rows(path: Path, limit: int) -> Iterator[dict[str, str] | str]:
    """The rows of ``games.csv`` as dicts while they hold the first ``limit`` games, then only the game id
    of each further row (its first field, read without parsing the row: the count costs little per game).
    A damaged or unreadable file ends them; so does a last line cut short."""
    try:
        with open(path, encoding="utf-8", errors="replace", newline="") as f:
            lines = whole_lines(f)
            rows = named_columns(lines, _LISTED)
            games, current = 0, None
            for row in rows:
                if row.get("game_id") != current:
                    current = row.get("game_id")
                    games += 1
                    if games > limit:
                        yield row
                        break
                yield row
            for line in lines:  # past the listed games: the game id alone
                if line.strip():
                    yield game_id_of(line)
    except (OSError, csv.Error):
        return


#: The columns of ``games.csv`` a games list reads.
_LISTED = ("game_id", "table", "deal", "seat", "entrant", "groups", "blockers_score", "won", "faulted", "moves")


def _int(text: str | None) -> int:
    try:
        return int(text or 0)
    except ValueError:
        return 0


def game_columns(players: int, scoring: str) -> list[str]:
    """The columns of the games list (:func:`game_list`) of ``players``-player games under ``scoring``."""
    score_name = "groups" if scoring == "uptown" else "blockers score"
    return ["game", "table", "deal", *(f"seat {s}" for s in range(players)),
            *(f"{score_name} {s}" for s in range(players)), "winner", "faults", "moves"]


def game_rows(folder: Path, players: int, scoring: str, limit: int = sys.maxsize) -> Iterator[list[str | int] | str]:
    """Each game of ``folder/games.csv`` in file order, read as a stream: its row of the games list
    (:func:`game_columns`) for the first ``limit`` games, then its id alone.  A game whose rows are not
    all there yet (a run writing the file) is its row with the seats it has."""
    score = "groups" if scoring == "uptown" else "blockers_score"
    current: str | None = None
    seats: list[dict[str, str]] = []
    for row in _game_rows(folder / GAMES_FILE, limit):
        game_id = row if isinstance(row, str) else row.get("game_id")
        if game_id != current:
            if current is not None:
                yield _game_row(current, seats, players, score) if seats else current
            current, seats = game_id, []
        if not isinstance(row, str):
            seats.append(row)
    if current is not None:
        yield _game_row(current, seats, players, score) if seats else current


def _game_row(game_id: str, seats: list[dict[str, str]], players: int, score: str) -> list[str | int]:
    names = [""] * players
    scores: list[str | int] = [""] * players
    for row in seats:
        seat = _int(row.get("seat"))
        if 0 <= seat < players:
            names[seat] = row.get("entrant", "")
            scores[seat] = _int(row.get(score))
    winners = ", ".join(r.get("entrant", "") for r in seats if r.get("won") == "1")
    return [game_id, _int(seats[0].get("table")), _int(seats[0].get("deal")), *names, *scores,
            winners, sum(_int(r.get("faulted")) for r in seats), sum(_int(r.get("moves")) for r in seats)]


def game_list(folder: Path, players: int, scoring: str, limit: int = GAMES_LIMIT) -> GameList:
    """The first ``limit`` games of ``folder/games.csv``, one row each, and how many games it holds.

    A game's rows (one per seat) follow each other in the file; they are read as a stream, so
    memory follows ``limit``, not the file.  Each game's row: its id, table, deal, each seat's entrant
    and score (groups under Uptown scoring, the Blockers! score under Blockers!; C1, C2), the
    winners (C3, a faulted seat behind the others) and the faults and moves of the game."""
    rows: list[list[str | int]] = []
    count = 0
    for game in game_rows(folder, players, scoring, limit):
        count += 1
        if len(rows) < limit and not isinstance(game, str):
            rows.append(game)
    return GameList(game_columns(players, scoring), rows, count)


def tables_shown(tables: Tables) -> list[Section]:
    """The tables ``arena report`` prints, as sections of the page: title, frame of cell texts, with its
    index or not, the note under it and what its columns mean."""
    return [
        Section(TITLES["standings"], standings_display(tables), False, "", COLUMN_NOTES["standings"], "standings"),
        Section(TITLES["head-to-head"], head_to_head_matrix(tables), True, head_to_head_note(tables),
                COLUMN_NOTES["head-to-head"], "head-to-head"),
        Section(TITLES["seats"], seats_display(tables), False, "", COLUMN_NOTES["seats"], "seats"),
        Section(TITLES["order"], order_display(tables), False, "", COLUMN_NOTES["order"], "order"),
        Section(TITLES["time"], time_display(tables), False, "", COLUMN_NOTES["time"], "time"),
    ]


def _teams_section(teams: pd.DataFrame) -> Section:
    from arena.report.teams import TITLE, teams_display, teams_note

    return Section(TITLE, teams_display(teams), False, teams_note(teams), COLUMN_NOTES["teams"], "teams")


def _replays(folder: Path, target: Path, title: str, limit: int) -> dict[str, str]:
    """Write the replay pages of the first ``limit`` readable, valid games beside ``target`` (in
    :data:`GAMES_FOLDER`); the link to each, by game id."""
    links: dict[str, str] = {}
    for line in _record_lines(folder, limit):
        try:
            record = records.loads(line)
            game = records.replay(record)
        except records.RecordError:
            continue  # a damaged line: arena run --resume plays it again; no page for it
        game_id = str(record.get("game_id", ""))
        if not _SAFE_ID.fullmatch(game_id):
            continue
        pages = target.parent / GAMES_FOLDER
        try:
            pages.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise RunError(f"{pages}: cannot write there: {os_error_line(exc)}") from None
        _write(pages / f"{game_id}.html", replay_page(game, f"{title}: {game_id}"))
        links[game_id] = f"{GAMES_FOLDER}/{game_id}.html"
    return links


def _found_replays(folder: Path, target: Path, listed: GameList) -> dict[str, str]:
    """Links to the replay pages ``folder`` already holds (a run wrote them) for the ``listed`` games, relative
    to the page ``target``: a page written elsewhere links them where they are, and writes none."""
    pages = folder / GAMES_FOLDER
    try:
        held = set(os.listdir(pages))
    except OSError:
        return {}
    base = os.path.relpath(pages.resolve(), target.parent.resolve())
    links = {}
    at = listed.columns.index("game")
    for row in listed.rows:
        game_id = str(row[at])
        if _SAFE_ID.fullmatch(game_id) and f"{game_id}.html" in held:
            links[game_id] = quote(Path(base, f"{game_id}.html").as_posix())
    return links


def write_report(
    folder: str | Path, tables: Tables, title: str, out: str | Path | None = None, limit: int = REPLAY_LIMIT, *,
    replays: bool = False, match: dict[str, Any] | None = None, teams: pd.DataFrame | None = None,
) -> Path:
    """Write the HTML report of the results ``folder`` to ``out`` (default ``folder/report.html``).

    With ``replays`` the first ``limit`` readable, valid games get ``games/ID.html`` beside the report (a
    run's and a match's own folder); without, the page writes nothing else and links the replay pages the
    folder already holds.  A ``match`` (``match.json``'s dict) adds its verdict and evidence, ``teams`` (the
    "Teams?" table) its table and finding.  Every page is written through a temporary file beside it; one
    that cannot be written is a :class:`~arena.results.files.RunError` of one line naming it.
    """
    from arena.report.match import summary_lines as match_lines

    folder = Path(folder)
    target = Path(out) if out is not None else folder / REPORT_FILE
    try:
        target.parent.mkdir(parents=True, exist_ok=True)  # as --plots-dir is: a page's folder is made if missing
    except OSError as exc:
        raise RunError(f"{target.parent}: cannot write there: {os_error_line(exc)}") from None
    shown = tables_shown(tables) + ([] if teams is None else [_teams_section(teams)])
    plots = [folder / name for name in PLOT_FILES if (folder / name).is_file()]
    players = int(tables.seats[col.SEAT].max()) + 1 if len(tables.seats) else 0
    games = game_list(folder, players, tables.scoring)
    count = max(_games_counted(tables), games.total)
    links = _replays(folder, target, title, limit) if replays else _found_replays(folder, target, games)
    games.links = links
    games.replays_left = max(0, count - len(links))
    summary = summary_lines(tables, games.total, match, teams)
    page = report_page(title, summary, shown, plots, games, str(folder), match_lines(match) if match else ())
    _write(target, page)
    return target


def _write(path: Path, text: str) -> None:
    write_atomically(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
