"""What a folder's page shows of it now: progress, tables, a match's test, a league, the games being played.

:class:`FolderView` keeps the last section it made of its folder and the files' sizes and times it
was made from (:meth:`FolderView.signature`, looked at about once a second by each open page): the
section is made again only when they change, and no sooner after the last than :data:`DUTY` times
what that one cost, so a big folder being written is not rebuilt more than its size allows.

The tables come from :func:`arena.report.folder_tables.folder_tables` — the folder's own while they
are its own (a finished run's), else built from ``games.csv`` as ``arena report`` builds them — and
are shown as ``report.html`` shows them (:func:`arena.report.html.tables_shown`).  Every text a
bot or a file chose (names, options, messages) is escaped here.
"""

from __future__ import annotations

import html
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from arena.display.html import frame_table, plot_caption
from arena.display.terminal import printable
from arena.errors import ArenaError
from arena.results.files import GAMES_FILE, LEAGUE_FILE, MATCH_FILE, TABLES_STAMP
from arena.results.live import live_files, read_live
from arena.results.lock import FolderLock
from arena.serve.folders import Served, pictures

#: A section is made again no sooner after the last than this many times the seconds that one took.
DUTY = 5.0
#: The files whose size and time say the page should change.
_WATCHED = (GAMES_FILE, TABLES_STAMP, MATCH_FILE, LEAGUE_FILE, "standings.csv")


def esc(value: Any) -> str:
    """Any value as HTML text: made printable (no control characters), then escaped."""
    return html.escape(printable(value))


@dataclass
class Facts:
    """A folder's facts the page's header and its games list need (its players and scoring)."""

    title: str
    players: int
    scoring: str
    total: int


class FolderView:
    """One results folder's live section, made when the folder changes; see the module docstring."""

    def __init__(self, served: Served) -> None:
        self.served = served
        self._lock = threading.Lock()
        self._made: tuple[Any, ...] | None = None
        self._section = ""
        self._facts: Facts | None = None
        self._next = 0.0

    def signature(self) -> tuple[Any, ...]:
        """The sizes and times of the files the section is made of, the live files' and whether a run holds it."""
        path = self.served.path
        marks: list[Any] = []
        for name in _WATCHED:
            try:
                st = (path / name).stat()
                marks.append((name, st.st_size, st.st_mtime_ns))
            except OSError:
                marks.append((name, None))
        for live in live_files(path):
            try:
                st = live.stat()
                marks.append((live.name, st.st_size, st.st_mtime_ns))
            except OSError:
                pass
        marks.append(FolderLock.held(path))
        return tuple(marks)

    def facts(self) -> Facts:
        """The tournament's name, players, scoring and games (read once, from its tournament file)."""
        if self._facts is None:
            from arena.plan.schedule import Schedule
            from arena.results.league import folder_numbering
            from arena.results.tournament_file import read_tournament

            config, _ = read_tournament(self.served.path)
            total = len(Schedule(config, folder_numbering(self.served.path)))
            self._facts = Facts(config.name, config.players, config.scoring, total)
        return self._facts

    def section(self, wait: bool = True) -> tuple[tuple[Any, ...], str]:
        """The folder's signature and its section now (the last one made, while its files are unchanged or it
        is too soon to make another; ``wait=False`` never makes one while another is being made)."""
        signature = self.signature()
        if signature == self._made or (self._made is not None and time.monotonic() < self._next):
            return self._made, self._section
        if not self._lock.acquire(blocking=wait):
            return self._made or signature, self._section
        try:
            if signature != self._made:
                started = time.monotonic()
                self._section = self._make()
                self._made = signature
                self._next = time.monotonic() + DUTY * (time.monotonic() - started)
            return self._made, self._section
        finally:
            self._lock.release()

    def _make(self) -> str:
        try:
            return self._sections()
        except ArenaError as exc:
            return f"<p class=\"error\">{esc(exc)}</p>"

    def _sections(self) -> str:
        from arena.plan.schedule import Schedule
        from arena.report.folder_tables import folder_tables
        from arena.report.html import tables_shown
        from arena.results.league import folder_numbering
        from arena.results.tournament_file import read_tournament

        path = self.served.path
        config, _ = read_tournament(path)
        schedule = Schedule(config, folder_numbering(path))
        found = folder_tables(path, schedule)
        held = FolderLock.held(path)
        parts = [_progress(found.games, len(schedule), found.left_out, held)]
        parts.append(_playing(path, held))
        parts.append(_match(path))
        if found.tables is not None:
            for shown in tables_shown(found.tables):
                parts.append(f"<h2 id=\"{shown.key}\">{esc(shown.title)}</h2>{frame_table(shown.frame, shown.with_index)}")
                for line in (shown.note, shown.columns):
                    if line:
                        parts.append(f"<p class=\"note\">{esc(line)}</p>")
            parts.append(_league(path, found.tables))
        parts.append(_pictures(path))
        return "".join(parts)


def _progress(games: int, total: int, left_out: int, held: bool | None) -> str:
    state = {True: "a run is writing this folder", False: "no run is writing this folder",
             None: "whether a run writes this folder cannot be told"}[held]
    share = f"{100 * games / total:.1f}%" if total else "-"
    text = f"{games} of {total} games stored ({share}); {state}"
    if left_out:
        text += f"; {left_out} game(s) left out as damaged or not the schedule's"
    return (f"<p id=\"progress\" data-games=\"{games}\" data-total=\"{total}\">{esc(text)}</p>"
            f"<progress max=\"{max(total, 1)}\" value=\"{min(games, total)}\"></progress>")


def _playing(path: Path, held: bool | None) -> str:
    """The games the run's workers are playing, each linked to its page that follows it."""
    if held is False:
        return ""
    items = []
    for live in live_files(path):
        game = read_live(live)
        if game is None or game.over:
            continue
        worker = live.name.removeprefix("worker-").removesuffix(".txt")  # a finished game's (.last) is no number
        if not worker.isdigit():
            continue
        items.append(f"<li><a href=\"live/{worker}\" data-game=\"{esc(game.game_id)}\">{esc(game.game_id)}</a>: "
                     f"{esc(', '.join(game.names))} <span class=\"moves\">({len(game.moves)} moves)</span></li>")
    if not items:
        return ""
    return f"<h2>Being played</h2><ul id=\"playing\">{''.join(items)}</ul>"


def _match(path: Path) -> str:
    """A match's test: its lines as ``arena report`` prints them, and the LLR between its bounds."""
    from arena.report.match import summary_lines
    from arena.results.match_file import read_match

    try:
        match = read_match(path)
    except ArenaError as exc:
        return f"<p class=\"error\">{esc(exc)}</p>"
    if match is None:
        return ""
    try:
        lines = summary_lines(match)
    except (KeyError, TypeError, ValueError, AttributeError):
        return f"<p class=\"error\">{esc(path / MATCH_FILE)}: not a match's results</p>"
    out = f"<h2>Match</h2><pre id=\"match\">{esc(chr(10).join(lines))}</pre>"
    llr, lower, upper = (match.get(k) for k in ("llr", "lower", "upper"))
    if (isinstance(llr, (int, float)) and isinstance(lower, (int, float)) and isinstance(upper, (int, float))
            and upper > lower):
        at = min(100.0, max(0.0, 100 * (llr - lower) / (upper - lower)))
        out += (f"<div id=\"sprt\" class=\"sprt\" data-llr=\"{llr:.3f}\" title=\"LLR {llr:.3f}\">"
                f"<span class=\"bound\">{lower:.3f}</span><span class=\"track\"><i style=\"left:{at:.1f}%\"></i></span>"
                f"<span class=\"bound\">{upper:.3f}</span></div>")
    return out


def _league(path: Path, tables: Any) -> str:
    from arena.report.league import league_lines
    from arena.results.league import read_league

    league = read_league(path)
    if league is None:
        return ""
    games = {str(k): int(v) for k, v in zip(tables.standings["entrant"], tables.standings["games"])}
    lines = league_lines(league, games)
    return f"<h2>League</h2><pre id=\"league\">{esc(chr(10).join(lines))}</pre>" if lines else ""


def _pictures(path: Path) -> str:
    shown = []
    for name in pictures(path):
        try:
            version = (path / name).stat().st_mtime_ns
        except OSError:
            continue
        caption = esc(plot_caption(name))
        shown.append(f"<figure><img alt=\"{caption}\" src=\"file/{quote(name)}?v={version}\">"
                     f"<figcaption>{caption} <small>({esc(name)})</small></figcaption></figure>")
    return "<h2>Plots</h2>" + "".join(shown) if shown else ""
