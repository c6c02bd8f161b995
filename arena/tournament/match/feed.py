"""Running a match: the games handed out a few deals ahead of the deals counted, until the count or the verdict.

Lookahead
---------
Games are handed out in deal order, no further than ``lookahead`` deals past
the deals counted (:func:`lookahead`: two per worker), in chunks of at most
one deal's games, so a verdict wastes at most a few deals of play.  When the
test decides, the games still being played are stopped (their workers are
ended) and never stored; games of later deals that finished early were stored,
and are removed from ``games.csv`` and the records
(:meth:`~arena.results.folder.OpenFolder.drop`).  ``tournament.toml`` then
gives ``deals`` = the deals counted (:meth:`~arena.results.folder.OpenFolder.retitle`).  So the folder holds exactly the games the
test counted and ``arena report`` gives the same numbers.  While a match runs,
or after an interruption, ``deals`` is the cap; ``--resume`` sets it back to
the cap (:func:`~.folder.cap_to_restore`), recounts the stored games (after the
resume check) in deal order and goes on.  A cap is at most
:data:`~.plan.MAX_SPRT_DEALS` deals, so game ids keep their width when the
folder is cut.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.isolation.sandbox import short_walls
from arena.plan.schedule import Game, Schedule
from arena.results.files import LLR_PLOT
from arena.results.folder import OpenFolder, Opening, Preflight, ResultsFolder
from arena.results.tournament_file import write_tournament
from arena.tournament.match.folder import cap_to_restore, match_dict, write_match
from arena.tournament.match.plan import MatchPlan
from arena.tournament.match.tally import MatchTally, status_line

if TYPE_CHECKING:
    from arena.tournament.run.runner import RunOptions

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
        self.schedule = Schedule(plan.config())
        self.tally = MatchTally(plan)
        self.ahead = lookahead(workers)
        self.max_chunk = plan.games_per_deal
        self.state = "running"
        self.out: Path | None = None
        #: Games of deals after the last one counted, removed from the folder by :meth:`finish`.
        self.removed = 0

    def begin(self, folder: OpenFolder) -> tuple[int, int]:
        self.out = folder.path
        self.schedule = folder.schedule  # the folder's deal key, made or read as the run began
        self.tally = MatchTally(self.plan)
        done = folder.recovered.done
        if done:  # after the resume check the folder holds exactly the games in done
            self.tally.add_rows(folder.rows())
        (folder.path / LLR_PLOT).unlink(missing_ok=True)  # a plot of an earlier match in this folder
        self.save()
        total = self.plan.deals * self.plan.games_per_deal
        log.info("match %s: %s; %d deal(s) counted from the stored games", self.plan.name, self.plan.describe(),
                 self.tally.deals)
        return total, 0 if self.tally.done else total - len(done)

    def tasks(self, done: set[str]) -> Iterator[Game]:
        return _Gate(iter(self.schedule), done, self.tally, self.ahead)

    def stored(self, rows: str) -> bool:
        self.tally.add_rows(rows)
        return self.tally.done

    def postfix(self) -> str:
        return status_line(self.tally)

    def finish(self, folder: OpenFolder) -> None:
        tally = self.tally
        beyond = {game_id for game_id, deal in tally.stored.items() if deal >= tally.deals}
        folder.drop(beyond)
        self.removed = len(beyond)
        config = folder.config
        if tally.deals and tally.deals != config.deals:
            folder.retitle(replace(config, deals=tally.deals, deal_seeds=config.deal_seeds[:tally.deals]),
                           self.plan.config_text(tally.deals))
        self.state = "done"
        self.save()
        log.info("match %s: %s after %d games (%d deals)%s", self.plan.name, tally.verdict or "done", tally.games,
                 tally.deals, f"; {len(beyond)} game(s) of later deals removed" if beyond else "")

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
    #: The pictures and page written (:func:`arena.report.publish.publish`).
    plots: list[Path] = field(default_factory=list)


@dataclass(frozen=True)
class MatchPreflight:
    """What :func:`check_match` found, for :func:`run_match` to take without looking again."""

    #: ``tournament.toml`` with the match's cap, to write back first (None: nothing to write).
    cap: str | None
    folder: Preflight


def check_match(plan: MatchPlan, out: Path, *, resume: bool, overwrite: bool, bots: bool = True) -> MatchPreflight:
    """Refuse what :func:`run_match` would refuse before anything is written: a folder holding another match,
    another run holding it, a bot that cannot start (with ``bots``).  The rest of the folder is checked as it
    is opened, once its cap is back."""
    cap = cap_to_restore(plan, out, resume, overwrite)
    opening = Opening(resume=resume, overwrite=overwrite, source="arena match")
    return MatchPreflight(cap, ResultsFolder(out).check(plan.config(), opening, bots=bots, folder=False))


def run_match(plan: MatchPlan, out: Path, options: RunOptions | None = None, *,
              preflight: MatchPreflight | None = None, plots: bool = True) -> MatchResult:
    """Play ``plan`` into the results folder ``out`` (see the module docstring) with ``options``'s workers,
    resume, overwrite, progress and notify (the others are the match's own); ``preflight``: what
    :func:`check_match` found (None: checked now, the bots aside).

    Raises :class:`RunError` for a folder that cannot be used, :class:`~.runner.Interrupted` on Ctrl-C
    (every game finished is stored; ``resume`` goes on).  The tables are drawn and ``report.html`` written as
    for ``arena run``, and an SPRT's LLR into ``llr.png`` (a failure is a line ``notify`` is told); without
    ``plots``, no picture is drawn and the folder's older ones are removed.
    """
    from arena.report.publish import publish_played
    from arena.tournament.run.runner import RunOptions, run_tournament

    options = options or RunOptions()
    if preflight is None:
        preflight = check_match(plan, out, resume=options.resume, overwrite=options.overwrite, bots=False)
    if preflight.cap is not None:
        write_tournament(out, preflight.cap)
    feed = MatchFeed(plan, options.workers)
    # Records gzipped, as arena run writes them by default (a resume keeps the kind the folder holds).
    summary = run_tournament(plan.config(), plan.config_text(), out, replace(
        options, compress=True, feed=feed, source="arena match", preflight=preflight.folder,
        hide=() if plan.deals_file is None else (os.path.abspath(plan.deals_file),)))  # it gives every deal
    match = feed.to_dict()
    published = publish_played(out, summary.found, plan.name, match, plots=plots, log_file=summary.log)
    for problem in published.problems:
        if options.notify is not None:
            options.notify(problem)
    return MatchResult(summary, match, feed.removed, published.paths)


def start_lines(plan: MatchPlan, workers: int, out: Path, seed_note: str, walls: dict[str, str]) -> list[str]:
    """What ``arena match`` says before the first game: the match, its end, seed, clock and the bots' walls."""
    end = f"SPRT to a verdict, at most {plan.max_games} games" if plan.sprt is not None else f"{plan.games} games"
    lines = [f"{plan.name}: {' vs '.join(plan.names)}, {end}, {plan.games_per_deal} games a deal "
             f"({'both seats' if plan.players == 2 else 'balanced seating'}), {workers} worker(s) -> {out}",
             f"seed {plan.seed}{seed_note}"]
    if plan.time.clocked:
        lines.append(f"every bot seat has a {plan.time}")
    lines += [f"bots run in {short_walls(line)}" for line in sorted(set(walls.values()))]
    if plan.isolation == "none":
        lines.append("Python bots run inside the workers (isolation none: trusted code only)")
    return lines
