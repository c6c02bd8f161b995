"""The games list of a folder's page, a page at a time, sorted and filtered by the server.

``games.csv`` is read as a stream (:func:`arena.report.html.game_rows`, the report's own rows), never
held whole: a page in file order reads only the games up to it and counts the rest by their lines; a
filter keeps only the matching games of the page asked for; a sort keeps the best ``(page + 1) *
size`` games in a heap.  So memory follows the page shown, not the folder — a page deep into a
million-game folder sorted by a column costs one pass over the file and that heap.
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.report.html import game_columns, game_rows
from arena.results.files import GAMES_FILE

#: Games on a page.
PAGE_SIZE = 50
#: The longest filter text.
MAX_FILTER = 200


@dataclass
class GamesPage:
    """One page of the games list: its columns and rows, the games that match, and which page it is."""

    columns: list[str]
    rows: list[list[str | int]]
    matched: int
    page: int
    size: int

    def as_json(self) -> dict[str, Any]:
        return {"columns": self.columns, "rows": self.rows, "matched": self.matched, "page": self.page,
                "size": self.size, "pages": max(1, -(-self.matched // self.size))}


#: The last count of each file's games, by its path: (size, time, games).
_COUNTS: dict[Path, tuple[int, int, int]] = {}
_BLOCK = 1 << 20


def stored_games(path: Path, players: int) -> int:
    """The games of ``games.csv`` at ``path``: its whole lines past the header, ``players`` to a game (a run
    appends a game's rows together), counted a block at a time without parsing them (and again only when
    the file changed)."""
    try:
        st = path.stat()
        known = _COUNTS.get(path)
        if known is not None and known[:2] == (st.st_size, st.st_mtime_ns):
            return known[2]
        lines = 0
        with open(path, "rb") as f:
            while block := f.read(_BLOCK):
                lines += block.count(b"\n")
    except OSError:
        return 0
    games = max(0, lines - 1) // max(1, players)
    _COUNTS[path] = (st.st_size, st.st_mtime_ns, games)
    return games


def _key(value: str | int) -> tuple[int, Any]:
    """A cell's sort key: numbers by their value, before texts."""
    if isinstance(value, int):
        return (0, value)
    return (1, value.casefold())


def games_page(folder: Path, players: int, scoring: str, page: int = 0, sort: str | None = None,
               descending: bool = False, query: str = "", size: int = PAGE_SIZE) -> GamesPage:
    """Page ``page`` (from 0) of ``size`` games of ``folder``, sorted by the column ``sort`` (None: file order)
    and holding ``query`` (case-blind, in any cell; empty: every game)."""
    columns = game_columns(players, scoring)
    page = max(0, page)
    column = columns.index(sort) if sort in columns else None
    needle = query[:MAX_FILTER].casefold()
    start = page * size
    if column is None and not needle:  # file order: the page's games parsed, the rest counted by their lines
        shown = itertools.islice(game_rows(folder, players, scoring, start + size), start, start + size)
        rows: list[list[str | int]] = [g for g in shown if not isinstance(g, str)]
        return GamesPage(columns, rows, max(stored_games(folder / GAMES_FILE, players), start + len(rows) if rows else 0), page, size)
    games = (g for g in game_rows(folder, players, scoring) if not isinstance(g, str))
    if needle:
        games = (g for g in games if any(needle in str(cell).casefold() for cell in g))
    counter = itertools.count()
    if column is None:
        rows, matched = [], 0
        for game in games:
            if start <= matched < start + size:
                rows.append(game)
            matched += 1
        return GamesPage(columns, rows, matched, page, size)
    # The best start + size games by the column (ties in file order), kept in a heap as the file streams by.
    keyed = ((_key(g[column]), next(counter), g) for g in games)
    count = [0]

    def counted(items: Any) -> Any:
        for item in items:
            count[0] += 1
            yield item

    pick = heapq.nlargest if descending else heapq.nsmallest
    best = pick(start + size, counted(keyed), key=lambda item: (item[0], -item[1] if descending else item[1]))
    return GamesPage(columns, [g for _, _, g in best[start:]], count[0], page, size)
