"""What a run shows and writes while it plays: the standings above the progress bar, report.html every N games.

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
from arena.plan.config import TournamentConfig
from arena.results.files import GAMES_FILE, RunError

log = logging.getLogger("arena.tournament")

#: Seconds between two drawings of the standings, at least.
DRAW_EVERY = 2.0


class Showing:
    """The standings on ``stream`` above ``bar`` (when ``live``), and report.html every ``report_every`` games."""

    def __init__(self, config: TournamentConfig, out: Path, total: int, stream: TextIO, bar: Any, live: bool,
                 report_every: int | None = None) -> None:
        self.config = config
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
        from arena.report.html import write_report
        from arena.report.tables import write_folder_tables

        try:
            tables = write_folder_tables(self.out, self.config)
            write_report(self.out, tables, self.config.name)
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
