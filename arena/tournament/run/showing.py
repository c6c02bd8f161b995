"""What a run shows: the lines a command says before and after it, and while it plays the standings above the
progress bar and report.html every N games.

The standings (:class:`~arena.report.live.LiveStandings`) are drawn only on a terminal, at most every
:data:`DRAW_EVERY` seconds, and taken away when the run ends (the command prints the final tables).
``report_every`` writes the tables and ``report.html`` after every so many games stored, in a thread of
its own, one at a time: a page that is still being written when the next is due is simply skipped.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any, TextIO

from arena.display.live import LiveBlock
from arena.isolation.sandbox import short_walls
from arena.plan.config import TournamentConfig
from arena.plan.schedule import Schedule
from arena.results.files import BOTS_FOLDER, GAMES_FILE, LOG_FILE, REPORT_FILE, TABLE_FILES, RunError

log = logging.getLogger("arena.tournament")

#: Seconds between two drawings of the standings, at least.
DRAW_EVERY = 2.0


class Showing:
    """The standings on ``stream`` above ``bar`` (when ``live``), and report.html every ``report_every`` games."""

    def __init__(self, schedule: Schedule, out: Path, total: int, stream: TextIO, bar: Any, live: bool,
                 report_every: int | None = None) -> None:
        self.schedule = schedule
        config = schedule.config
        self.out = out
        self.total = total
        self.standings = None
        if live:  # pandas and the fit come with it: not for a run without a terminal
            from arena.report.live import LiveStandings

            self.standings = LiveStandings(config)
        self.block = LiveBlock(stream, bar) if live else None
        self.report_every = report_every
        self._next_draw = 0.0
        self._reported = 0
        self._report: threading.Thread | None = None

    def begin(self, stored: int) -> None:
        """Count the ``stored`` games already in the folder (a resume), from its ``games.csv``."""
        self._reported = stored // self.report_every if self.report_every else 0
        if self.standings is None or not stored:
            return
        try:
            text = (self.out / GAMES_FILE).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return
        self.standings.add(text.split("\n", 1)[1] if "\n" in text else "")

    def stored(self, rows: str, stored: int) -> None:
        """The rows of games just stored; ``stored`` games are in the folder now."""
        if self.standings is not None and self.block is not None:
            self.standings.add(rows)
            now = time.monotonic()
            if now >= self._next_draw:
                self._next_draw = now + DRAW_EVERY
                self.standings.rate()
                self.block.draw(self.standings.lines(self.block.size()[0] - 1, self.total))
        if self.report_every and stored // self.report_every > self._reported:
            self._reported = stored // self.report_every
            if self._report is None or not self._report.is_alive():
                self._report = threading.Thread(target=self._write_report, name="report-every", daemon=True)
                self._report.start()

    def _write_report(self) -> None:
        from arena.report.folder_tables import folder_tables
        from arena.report.publish import Page, publish

        try:
            found = folder_tables(self.out, self.schedule, write=True)
            publish(self.out, found, page=Page(self.out / REPORT_FILE, self.schedule.config.name, replays=True))
        except (RunError, ValueError) as exc:  # the run goes on; its last page is written when it ends
            log.warning("report.html not written during the run: %s", exc)

    def close(self) -> None:
        """Take the standings away and let a report being written finish."""
        if self.block is not None:
            self.block.erase()
        if self.standings is not None:
            self.standings.close()
        if self._report is not None:
            self._report.join()


# -- what a command says before and after a run -------------------------------------------------


def start_lines(schedule: Schedule, where: str, folder: Path, walls: dict[str, str]) -> list[str]:
    """What ``arena run`` says before the first game: the tournament, who plays ``where``, the bots' walls."""
    config = schedule.config
    lines = [f"{config.name}: {len(schedule)} games ({len(config.entrants)} entrants, {config.players} players, "
             f"{len(schedule.tables)} table(s) x {config.deals} deal(s), seating {config.seating}), {where} -> {folder}"]
    lines += [f"bots run in {short_walls(line)}" for line in sorted(set(walls.values()))]
    return lines + setting_lines(config)


def setting_lines(config: TournamentConfig) -> list[str]:
    """The settings a run's terminal is reminded of: entrants that repeat at a table, the clock, public or
    duplicate deals, trusted bots."""
    lines = []
    if len(config.entrants) < config.players:  # the standings count seats: say why they hold more games
        lines.append(f"{len(config.entrants)} entrants at {config.players} seats: the entrants repeat at every table "
                     f"(A, B, A, B), so the standings count each entrant's seats, more than the games")
    if config.time.clocked:
        lines.append(f"every bot seat has a {config.time}")
    if config.public_deals:
        lines.append("public deals: the file alone gives every game's deal (bots can work them out too)")
    elif config.duplicate:
        lines.append("duplicate deals: a round's seatings share one deal (trusted bots only)")
    if config.isolation == "none":
        lines.append("Python bots run inside the workers (isolation none: trusted code only)")
    return lines


def played_line(summary: Any) -> str:
    """How many games a run (a :class:`~.runner.RunSummary`) played, how fast, and how many it found stored."""
    rate = summary.played / summary.seconds if summary.seconds > 0 else 0.0
    already = f", {summary.already} were stored already" if summary.already else ""
    return f"played {summary.played} games in {summary.seconds:.1f} s ({rate:.1f} games/s){already}"


def results_line(summary: Any, published: list[Path], first: tuple[str, ...] = ()) -> str:
    """Where a run's results are: the folder's files (``first`` ahead of them), the pictures and page written."""
    files = [*first, GAMES_FILE, summary.records.name, *TABLE_FILES, *(path.name for path in published), LOG_FILE]
    return (f"\nResults in {summary.out}/: {', '.join(files)}, {BOTS_FOLDER}/ (the bots' logs).  "
            f"More tables: arena report {summary.out}")


def time_lines(summary: Any, width: int | None) -> list[str]:
    """Each entrant's time use, as fastchess shows it after a run: said on standard error, beside the
    faults, for it differs run to run where the standings printed on standard output do not."""
    from arena.report.text import format_tables

    if summary.tables is None:
        return []
    return ["", *format_tables(summary.tables, "text", table="time", width=width).rstrip("\n").splitlines()]


def fault_lines(summary: Any) -> list[str]:
    """A run's last words: its faults by entrant and kind, and where each is logged."""
    faults = summary.faults
    if not len(faults):
        return [f"\nNo bot faulted.  Log: {summary.log}"]
    return [f"\n{len(faults)} fault(s) in {summary.total} games (faulted seats play on with random legal moves "
            f"and rank last):", *("  " + line for line in faults.lines()),
            f"Every fault is in {summary.log}, with the bot's log to look in for its traceback."]
