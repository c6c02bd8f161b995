"""Running a match: the games handed out a few deals ahead of the deals counted, until the count or the verdict.

Lookahead
---------
Games are handed out in deal order, no further than ``lookahead`` deals past
the deals counted (:func:`lookahead`: two per worker), in chunks of at most
one deal's games, so a verdict wastes at most a few deals of play.  When the
test decides, the games still being played are stopped (their workers are
ended) and never stored; games of later deals that finished early were stored,
and are removed from ``games.csv`` and the records
(:func:`~arena.results.store.drop_games`).  ``tournament.toml`` then
gives ``deals`` = the deals counted.  So the folder holds exactly the games the
test counted and ``arena report`` gives the same numbers.  While a match runs,
or after an interruption, ``deals`` is the cap; ``--resume`` sets it back to
the cap (:func:`~.folder.settle_folder`), recounts the stored games (after the
resume check) in deal order and goes on.  A cap is at most
:data:`~.plan.MAX_SPRT_DEALS` deals, so game ids keep their width when the
folder is cut.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.plan.config import TournamentConfig
from arena.plan.schedule import Game, schedule
from arena.results.dealkey import folder_key
from arena.results.files import GAMES_FILE, LLR_PLOT, TOURNAMENT_FILE, write_atomically
from arena.results.store import drop_games
from arena.tournament.match.folder import match_dict, settle_folder, write_match
from arena.tournament.match.plan import MatchPlan
from arena.tournament.match.tally import MatchTally, status_line

log = logging.getLogger("arena.tournament")


def lookahead(workers: int) -> int:
    """How many deals past the deals counted games are handed out: two per worker."""
    return 2 * max(1, workers)


class _Gate:
    """The schedule's games in order, none of a deal ``lookahead`` or more past the deals counted.

    An iterator that runs dry while the deals before are not counted and fills again once they
    are (:meth:`~.workers.Workers.play` asks again whenever a worker is free); dry for good once
    the tally is done.
    """

    def __init__(self, games: Iterator[Game], done: set[str], tally: MatchTally, ahead: int) -> None:
        self.games = games
        self.done = done
        self.tally = tally
        self.ahead = ahead
        self._next: Game | None = None

    def __iter__(self) -> _Gate:
        return self

    def __next__(self) -> Game:
        while True:
            if self.tally.done:
                raise StopIteration
            if self._next is None:
                self._next = next(self.games, None)
                if self._next is None:
                    raise StopIteration
            game = self._next
            if game.game_id in self.done:
                self._next = None
                continue
            if game.deal >= self.tally.deals + self.ahead:
                raise StopIteration  # not yet: its turn comes when the deals before it are counted
            self._next = None
            return game


class MatchFeed:
    """The :class:`~.runner.Feed` of a match: the gate, the tally, the folder cut to the deals counted."""

    def __init__(self, plan: MatchPlan, workers: int) -> None:
        self.plan = plan
        self.config = plan.config()
        self.tally = MatchTally(plan)
        self.ahead = lookahead(workers)
        self.max_chunk = plan.games_per_deal
        self.state = "running"
        self.out: Path | None = None
        #: Games of deals after the last one counted, removed from the folder by :meth:`finish`.
        self.removed = 0

    def begin(self, out: Path, done: set[str]) -> tuple[int, int]:
        self.out = out
        self.config = folder_key(self.config, out)  # the folder's deal key, made or read as the run began
        self.tally = MatchTally(self.plan)
        path = out / GAMES_FILE
        if done and path.exists():  # after the resume check it holds exactly the games in done
            with open(path, encoding="utf-8", newline="") as f:
                f.readline()
                self.tally.add_rows(f)
        (out / LLR_PLOT).unlink(missing_ok=True)  # a plot of an earlier match in this folder
        self.save()
        total = self.plan.deals * self.plan.games_per_deal
        log.info("match %s: %s; %d deal(s) counted from the stored games", self.plan.name, self.plan.describe(),
                 self.tally.deals)
        return total, 0 if self.tally.done else total - len(done)

    def tasks(self, done: set[str]) -> Iterator[Game]:
        return _Gate(schedule(self.config), done, self.tally, self.ahead)

    def stored(self, rows: str) -> bool:
        self.tally.add_rows(rows)
        return self.tally.done

    def postfix(self) -> str:
        return status_line(self.tally)

    def finish(self, out: Path) -> TournamentConfig:
        tally = self.tally
        beyond = {game_id for game_id, deal in tally.stored.items() if deal >= tally.deals}
        drop_games(out, beyond)
        self.removed = len(beyond)
        config = self.config
        if tally.deals and tally.deals != config.deals:
            text = self.plan.config_text(tally.deals)
            write_atomically(out / TOURNAMENT_FILE, lambda tmp: tmp.write_text(text, encoding="utf-8"))
            config = replace(config, deals=tally.deals)
        self.state = "done"
        self.save()
        log.info("match %s: %s after %d games (%d deals)%s", self.plan.name, tally.verdict or "done", tally.games,
                 tally.deals, f"; {len(beyond)} game(s) of later deals removed" if beyond else "")
        return config

    def to_dict(self) -> dict[str, Any]:
        """What ``match.json`` holds (:func:`~.folder.match_dict`)."""
        return match_dict(self.plan, self.tally, self.state)

    def save(self) -> None:
        """Write ``match.json`` (atomically)."""
        if self.out is not None:
            write_match(self.out, self.to_dict())


@dataclass
class MatchResult:
    """What a match did: the run's summary (:class:`~.runner.RunSummary`) and ``match.json``'s dict."""

    summary: Any
    match: dict[str, Any]
    #: Games of deals after the last one counted (finished early), removed from the folder.
    removed: int = 0
    #: The pictures drawn (:func:`arena.report.plots.write_plots`).
    plots: list[Path] = field(default_factory=list)


def run_match(
    plan: MatchPlan, out: Path, *, workers: int = 1, start_method: str | None = None, resume: bool = False,
    overwrite: bool = False, progress: bool = False, notify: Any = None, plot: bool = True,
) -> MatchResult:
    """Play ``plan`` into the results folder ``out`` (see the module docstring).

    Raises :class:`RunError` for a folder that cannot be used, :class:`~.runner.Interrupted` on Ctrl-C
    (every game finished is stored; ``resume`` goes on).  With ``plot`` the tables are drawn as for
    ``arena run``, and an SPRT's LLR into ``llr.png``.
    """
    from arena.tournament.run.runner import run_tournament

    settle_folder(plan, out, resume, overwrite)
    feed = MatchFeed(plan, workers)
    summary = run_tournament(
        feed.config, plan.config_text(), out, workers=workers, start_method=start_method, resume=resume,
        overwrite=overwrite, progress=progress, notify=notify, feed=feed,
    )
    match = feed.to_dict()
    plots: list[Path] = []
    if plot:
        from arena.report.plots import try_write_plots

        # The tables, and the LLR of a sequential test; a picture that fails costs one line, not the match.
        plots, problem = try_write_plots(out, summary.tables, match if plan.sprt is not None else None,
                                         log_file=summary.log)
        if problem is not None and notify is not None:
            notify(problem)
    return MatchResult(summary, match, feed.removed, plots)
