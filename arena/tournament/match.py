"""Matches: 2-5 bots at one table, deal after deal in the duplicate format, to a fixed count or a test's verdict.

What a match is
---------------
A match is a tournament of one table (``arena match A B [C ...]``): as many
players as bots, the first bot **A** (the challenger), every deal played in
every seating of its design — both seats with two players (``rotate``, which
is ``balanced`` for two), the ``balanced`` design of :mod:`.seating` with 3-5
(6, 12 or 20 games a deal).  Its ``tournament.toml`` is an ordinary
tournament file (players, deals, seed, scoring, time limit, seating, the
bots as entrants, and a comment saying which match it is), so the folder is
an ordinary results folder that ``arena report`` reads.  It is played by the
tournament runner (:func:`~.runner.run_tournament`: the same workers,
sandbox, records, resume check, folder lock and fault summary) through a
:class:`MatchFeed`, which chooses the games handed out and says when to stop.

The end: ``--games N`` plays ``N`` games rounded up to whole deals.  ``--sprt``
plays until the sequential test of :mod:`arena.stats.sprt` decides (H0 or H1)
or ``max_games`` (rounded up to whole deals) are counted: then the verdict is
``inconclusive``.

Counting, and why it does not depend on the workers
---------------------------------------------------
Games finish in any order across workers.  A deal is **counted** only when
every game of it is stored, and deals go to the test strictly in deal order:
a deal whose games all came back early waits for every deal before it.  The
test therefore sees the same deals in the same order with any number of
workers, after any interruption and resume, and decides at the same deal.

Lookahead
---------
Games are handed out in deal order, no further than ``lookahead`` deals past
the deals counted (:func:`lookahead`: two per worker), in chunks of at most
one deal's games, so a verdict wastes at most a few deals of play.  When the
test decides, the games still being played are stopped (their workers are
ended) and never stored; games of later deals that finished early were stored,
and are removed from ``games.csv`` and the records (:func:`~.store.drop_games`).
``tournament.toml`` then gives ``deals`` = the deals counted.  So the folder
holds exactly the games the test counted and ``arena report`` gives the same
numbers.  While a match runs, or after an interruption, ``deals`` is the cap;
``--resume`` sets it back to the cap, recounts the stored games (after the
resume check) in deal order and goes on.  A cap is at most
:data:`MAX_SPRT_DEALS` deals, so game ids keep their width when the folder
is cut.

Scores
------
The deciding scoring ranks the seats; a faulted seat ranks behind every seat
that did not fault (the tables' *tournament rank*).  With two players a game
scores 1 for A when A's rank is better, 0.5 when level (a shared first
place), 0 when worse, and a deal's two games are a pair of the pentanomial
(:class:`~arena.stats.sprt.Pentanomial`); the SPRT is fastchess's
(:func:`~arena.stats.sprt.sprt`).  With 3-5 players a deal's score for A is
the share of (game, rival) pairs in which A finished ahead, ties half
(:func:`~arena.stats.sprt.field_score`), and the test is the GSPRT of A
against the field (:func:`~arena.stats.sprt.field_sprt`, logistic model only).

``match.json``
--------------
Written when the match starts (``state`` ``"running"``) and when it ends
(``"done"``): the bots, players, seating, games a deal, seed, scoring,
``parameters`` (``games``, ``sprt``, ``max_games``: what ``--resume`` must
repeat), ``test`` (``"pentanomial"``, ``"field"`` or None for a fixed count),
``deals`` and ``games`` counted, ``llr``, ``lower``, ``upper``, ``verdict``
(``"H0"``, ``"H1"``, ``"inconclusive"``, None for a fixed count or a match
still running), ``pentanomial`` (``LL``, ``LD``, ``DD+WL``, ``WD``, ``WW``;
two players), ``score`` (A's mean score), ``elo`` (the estimate with its 95%
interval, logistic and normalized, and the likelihood of superiority), and
``history``: ``{"games": [...], "llr": [...]}``, the LLR after every deal
counted, for the LLR plot.  Numbers that are not finite are written as null.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import math
import re
import secrets
import shlex
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.play import ranges as limits
from arena.play.ranges import DEFAULT_TIME_LIMIT
from arena.stats.sprt import (
    EloEstimate,
    Pentanomial,
    SprtParameters,
    SprtStatus,
    field_elo,
    field_score,
    field_sprt,
    game_score,
    pentanomial_elo,
    sprt,
)
from arena.tournament.folder.files import GAMES_FILE, TOURNAMENT_FILE, RunError, write_atomically
from arena.tournament.folder.rows import COLUMNS, tournament_ranks
from arena.tournament.folder.store import drop_games
from arena.tournament.plan.config import ConfigError, TournamentConfig, _default_name, parse_config
from arena.tournament.plan.schedule import Game, schedule
from arena.tournament.plan.seating import seatings

log = logging.getLogger("arena.tournament")

#: The file of a results folder that holds a match's test and verdict.
MATCH_FILE = "match.json"
#: The LLR plot a sequential match writes.
LLR_PLOT = "llr.png"
FORMAT = "arena-match/1"
#: ``--max-games`` when not given.
DEFAULT_MAX_GAMES = 20_000
#: The most deals an SPRT may run to: a folder cut to fewer keeps its game ids (4-digit deals).
MAX_SPRT_DEALS = 10_000
SPRT_KEYS = ("elo0", "elo1", "alpha", "beta", "model")
#: The keys of ``--sprt`` that must be given.
SPRT_REQUIRED = ("elo0", "elo1")
PAIR_LABELS = ("LL", "LD", "DD+WL", "WD", "WW")


class MatchError(ValueError):
    """A match that cannot be set up; the message is one line naming the option and the problem."""


def parse_sprt(text: str, players: int) -> SprtParameters:
    """``elo0=0,elo1=20[,alpha=0.05,beta=0.05,model=normalized]`` as checked SPRT parameters.

    The model defaults to ``normalized`` (fastchess's) with two players and ``logistic`` with 3-5,
    the only model of the field test.  Raises :class:`MatchError` naming ``--sprt``.
    """
    given: dict[str, str] = {}
    for part in text.split(","):
        key, eq, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not key or not value:
            raise MatchError(f"--sprt: {part.strip()!r} is not key=value (e.g. --sprt elo0=0,elo1=20)")
        if key not in SPRT_KEYS:
            raise MatchError(f"--sprt: unknown key {key!r} (it takes {', '.join(SPRT_KEYS)})")
        if key in given:
            raise MatchError(f"--sprt: {key} is given twice")
        given[key] = value
    for key in SPRT_REQUIRED:
        if key not in given:
            raise MatchError(f"--sprt: {key} is missing (e.g. --sprt elo0=0,elo1=20)")
    numbers: dict[str, float] = {}
    for key in ("elo0", "elo1", "alpha", "beta"):
        if key in given:
            try:
                numbers[key] = float(given[key])
            except ValueError:
                raise MatchError(f"--sprt: {key} must be a number, not {given[key]!r}") from None
    model = given.get("model", "normalized" if players == 2 else "logistic")
    if players > 2 and model != "logistic":
        raise MatchError(f"--sprt: model {model} is for two players; the test of A against the field "
                         f"({players} bots) takes model=logistic")
    try:
        return SprtParameters(model=model, **numbers)
    except ValueError as exc:
        raise MatchError(f"--sprt: {str(exc).removeprefix('SPRT ')}") from None


def _toml_string(text: str) -> str:
    """``text`` as a TOML basic string (JSON's escapes are TOML's; DEL must be escaped too)."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _short_spec(spec: str) -> str:
    """A spec without the folders and file of a ``path/file.py:Name`` or ``module:Name`` ref (``Name:p=0.5``)."""
    from arena.plugins.specs import EXEC_PREFIX, BotError, split_bot_spec

    if spec.startswith(EXEC_PREFIX):
        return spec
    try:
        ref, options = split_bot_spec(spec)
    except BotError:
        return spec
    short = ref.rsplit(":", 1)[-1] if ":" in ref and (".py:" in ref or "." in ref.split(":")[0]) else ref
    return short + spec[len(ref):]


def entrant_names(specs: Sequence[str]) -> tuple[str, ...]:
    """Each bot's entrant name: its spec made a name as a tournament file names it (a file's or module's
    bot by its class name), ``-2``, ``-3`` ... for repeats."""
    names: list[str] = []
    for spec in specs:
        base = _default_name(_short_spec(spec))
        name, n = base, 1
        while name in names:
            n += 1
            name = f"{base[:40 - len(str(n)) - 1]}-{n}"
        names.append(name)
    return tuple(names)


def match_name(names: Sequence[str]) -> str:
    """The match's name and default folder: ``match-A-vs-B``, ``match-A-vs-B-C`` for a table of more."""
    text = f"match-{names[0]}-vs-" + "-".join(names[1:])
    text = re.sub(r"[^A-Za-z0-9._-]+", "-", text)[:64]
    return text.rstrip("-._") or "match"


@dataclass(frozen=True)
class MatchPlan:
    """A checked match: its bots (A first), its end (``games`` or ``sprt``), seed and game settings."""

    specs: tuple[str, ...]
    seed: int
    games: int | None = None
    sprt: SprtParameters | None = None
    max_games: int = DEFAULT_MAX_GAMES
    scoring: str = "uptown"
    time_limit: float = DEFAULT_TIME_LIMIT
    isolation: str = "process"
    names: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if not 2 <= len(self.specs) <= 5:
            raise MatchError(f"BOTS: a match takes 2 to 5 bots, not {len(self.specs)}")
        if (self.games is None) == (self.sprt is None):
            raise MatchError("give either --games N or --sprt elo0=...,elo1=..., not both" if self.games is not None
                             else "give either --games N or --sprt elo0=...,elo1=... (how long the match plays)")
        if self.games is not None and not 1 <= self.games:
            raise MatchError(f"--games must be at least 1, not {self.games}")
        if self.games is not None and self.deals > limits.MAX_DEALS:
            raise MatchError(f"--games: at most {limits.MAX_DEALS * self.games_per_deal} games "
                             f"({limits.MAX_DEALS} deals of {self.games_per_deal})")
        if self.sprt is not None:
            if self.max_games < 1:
                raise MatchError(f"--max-games must be at least 1, not {self.max_games}")
            if self.deals > MAX_SPRT_DEALS:
                raise MatchError(f"--max-games: at most {MAX_SPRT_DEALS * self.games_per_deal} games "
                                 f"({MAX_SPRT_DEALS} deals of {self.games_per_deal})")
        try:
            limits.time_limit(self.time_limit)
        except limits.LimitError as exc:
            raise MatchError(f"--time-limit: {exc}") from None
        if not self.names:
            object.__setattr__(self, "names", entrant_names(self.specs))

    @property
    def players(self) -> int:
        return len(self.specs)

    @property
    def seating(self) -> str:
        """The seating design of a deal: both seats with two players, ``balanced`` with more."""
        return "rotate" if self.players == 2 else "balanced"

    @property
    def games_per_deal(self) -> int:
        return len(seatings(tuple(range(self.players)), self.seating))

    @property
    def deals(self) -> int:
        """The cap: the deals of ``games``, or of ``max_games`` for an SPRT, rounded up."""
        target = self.games if self.games is not None else self.max_games
        return -(-target // self.games_per_deal)

    @property
    def name(self) -> str:
        return match_name(self.names)

    @property
    def test(self) -> str | None:
        """``pentanomial`` (two players), ``field`` (3-5) or None (a fixed count)."""
        if self.sprt is None:
            return None
        return "pentanomial" if self.players == 2 else "field"

    def parameters(self) -> dict[str, Any]:
        """What ends the match, as ``match.json`` keeps it (a resume must give the same)."""
        return {
            "games": self.games,
            "sprt": None if self.sprt is None else {key: getattr(self.sprt, key) for key in SPRT_KEYS},
            "max_games": self.max_games if self.sprt is not None else None,
        }

    def describe(self) -> str:
        """The match as a command line would give it (for the folder's file and messages)."""
        if self.sprt is not None:
            p = self.sprt
            end = (f"--sprt elo0={p.elo0:g},elo1={p.elo1:g},alpha={p.alpha:g},beta={p.beta:g},model={p.model} "
                   f"--max-games {self.max_games}")
        else:
            end = f"--games {self.games}"
        return f"{' '.join(shlex.quote(s) for s in self.specs)} {end}"

    def config_text(self, deals: int | None = None) -> str:
        """The match's ``tournament.toml``, with ``deals`` deals (default: the cap)."""
        lines = [
            f"# arena match {self.describe()}",
            f"# {self.names[0]} (the first entrant) is A, the challenger; the test and its verdict are in {MATCH_FILE}.",
            f"name = {_toml_string(self.name)}",
            f"players = {self.players}",
            f"deals = {self.deals if deals is None else deals}",
            f"seed = {self.seed}",
            f"scoring = {_toml_string(self.scoring)}",
            f"time_limit = {float(self.time_limit)!r}",
            # two players: the two rotations, which are the balanced design (the same games and ids)
            "rotate = true" if self.players == 2 else f"seating = {_toml_string(self.seating)}",
            f"isolation = {_toml_string(self.isolation)}",
        ]
        for name, spec in zip(self.names, self.specs):
            lines += ["", "[[entrants]]", f"name = {_toml_string(name)}", f"bot = {_toml_string(spec)}"]
        return "\n".join(lines) + "\n"

    def config(self, deals: int | None = None) -> TournamentConfig:
        """The tournament the match plays (``deals``: default the cap)."""
        try:
            return parse_config(self.config_text(deals), "arena match", default_name=self.name)
        except ConfigError as exc:
            raise MatchError(str(exc).removeprefix("arena match: ")) from None


def random_seed() -> int:
    """A fresh 63-bit master seed (it fits every JSON reader)."""
    return secrets.randbits(63)


# -- counting -----------------------------------------------------------------------


_COL = {name: COLUMNS.index(name) for name in ("game_id", "deal", "rotation", "entrant", "faulted",
                                                  "uptown_rank", "blockers_rank")}


class MatchTally:
    """The match's evidence: games as they are stored, deals counted strictly in deal order, the test's state."""

    def __init__(self, plan: MatchPlan) -> None:
        self.plan = plan
        self.rank_column = _COL[f"{plan.scoring}_rank"]
        #: Rows of games not yet whole (a chunk holds whole games; kept for safety).
        self._partial: dict[str, list[list[str]]] = {}
        #: Deals not counted yet: deal -> rotation -> (A's rank, the rivals' ranks).
        self._waiting: dict[int, dict[int, tuple[int, tuple[int, ...]]]] = {}
        #: The deal of every stored game seen.
        self.stored: dict[str, int] = {}
        #: Deals counted (all of 0 .. deals-1).
        self.deals = 0
        self.counts = Pentanomial()
        self.scores: list[float] = []
        self.status: SprtStatus | None = None
        #: ``(games counted, LLR)`` after every deal counted.
        self.history: list[tuple[int, float]] = []
        self.verdict: str | None = None

    @property
    def games(self) -> int:
        return self.deals * self.plan.games_per_deal

    @property
    def done(self) -> bool:
        """Whether the match needs no more games: the test decided, or the cap is counted."""
        return self.verdict is not None or self.deals >= self.plan.deals

    def add_rows(self, text: str | Iterable[str]) -> None:
        """Count the ``games.csv`` rows ``text`` (or its lines: whole games, any order, any deals)."""
        players = self.plan.players
        for row in csv.reader(io.StringIO(text) if isinstance(text, str) else text):
            if not row:
                continue
            rows = self._partial.setdefault(row[_COL["game_id"]], [])
            rows.append(row)
            if len(rows) == players:
                self._add_game(self._partial.pop(row[_COL["game_id"]]))
        self._advance()

    def _add_game(self, rows: list[list[str]]) -> None:
        game_id, deal, rotation = rows[0][_COL["game_id"]], int(rows[0][_COL["deal"]]), int(rows[0][_COL["rotation"]])
        self.stored[game_id] = deal
        if deal < self.deals or self.done:
            return
        ranks = tournament_ranks([int(r[self.rank_column]) for r in rows], [r[_COL["faulted"]] == "1" for r in rows])
        a = self.plan.names[0]
        mine = next(rank for rank, r in zip(ranks, rows) if r[_COL["entrant"]] == a)
        rivals = tuple(rank for rank, r in zip(ranks, rows) if r[_COL["entrant"]] != a)
        self._waiting.setdefault(deal, {})[rotation] = (mine, rivals)

    def _advance(self) -> None:
        per_deal = self.plan.games_per_deal
        while not self.done and len(self._waiting.get(self.deals, ())) == per_deal:
            games = [game for _, game in sorted(self._waiting.pop(self.deals).items())]
            self.deals += 1
            self._count(games)

    def _count(self, games: list[tuple[int, tuple[int, ...]]]) -> None:
        plan = self.plan
        if plan.players == 2:
            first, second = (game_score(mine, rivals[0]) for mine, rivals in games)
            self.counts = self.counts.add(first, second)
        else:
            self.scores.append(field_score(games))
        if plan.sprt is not None:
            self.status = sprt(self.counts, plan.sprt) if plan.players == 2 else field_sprt(self.scores, plan.sprt)
            self.history.append((self.games, self.status.llr))
            if self.status.verdict != "continue":
                self.verdict = self.status.verdict
            elif self.deals >= plan.deals:
                self.verdict = "inconclusive"

    def elo(self) -> EloEstimate:
        """A's Elo over B (two players) or over the field, with its 95% interval."""
        return pentanomial_elo(self.counts) if self.plan.players == 2 else field_elo(self.scores)

    def score(self) -> float:
        """A's mean score: points per game (two players) or the mean deal score (the field)."""
        if self.plan.players == 2:
            return self.counts.points / (2 * self.counts.pairs) if self.counts.pairs else math.nan
        return sum(self.scores) / len(self.scores) if self.scores else math.nan


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


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


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
        """What ``match.json`` holds (see the module docstring)."""
        plan, tally = self.plan, self.tally
        elo = tally.elo()
        lower = upper = None
        if plan.sprt is not None:
            lower, upper = plan.sprt.lower, plan.sprt.upper
        return {
            "format": FORMAT,
            "name": plan.name,
            "state": self.state,
            "bots": [{"name": n, "spec": s} for n, s in zip(plan.names, plan.specs)],
            "players": plan.players,
            "seating": plan.seating,
            "games_per_deal": plan.games_per_deal,
            "seed": plan.seed,
            "scoring": plan.scoring,
            "parameters": plan.parameters(),
            "test": plan.test,
            "deals": tally.deals,
            "games": tally.games,
            "llr": None if tally.status is None else _finite(tally.status.llr),
            "lower": lower,
            "upper": upper,
            "verdict": tally.verdict,
            "pentanomial": dict(zip(PAIR_LABELS, tally.counts)) if plan.players == 2 else None,
            "score": _finite(tally.score()),
            "elo": {key: _finite(value) for key, value in elo._asdict().items()},
            "history": {"games": [g for g, _ in tally.history], "llr": [_finite(x) for x in
                                                                           (llr for _, llr in tally.history)]},
        }

    def save(self) -> None:
        """Write ``match.json`` (atomically)."""
        if self.out is None:
            return
        text = json.dumps(self.to_dict(), indent=1) + "\n"
        write_atomically(self.out / MATCH_FILE, lambda tmp: tmp.write_text(text, encoding="utf-8"))


# -- what the terminal shows ----------------------------------------------------------


def _elo_text(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.1f}"


def status_line(tally: MatchTally) -> str:
    """The progress bar's postfix: LLR and bounds, the counts, the Elo estimate."""
    parts = []
    if tally.status is not None:
        s = tally.status
        parts.append(f"LLR {s.llr:.2f} ({s.lower:.2f}, {s.upper:.2f})")
    if tally.plan.players == 2:
        parts.append("LL-LD-DDWL-WD-WW " + "-".join(str(c) for c in tally.counts))
    else:
        parts.append(f"score {tally.score():.3f}")
    elo = tally.elo()
    if tally.deals:
        parts.append(f"Elo {_elo_text(elo.elo)} ({_elo_text(elo.low)}, {_elo_text(elo.high)})")
    return " ".join(parts)


def summary_lines(match: dict[str, Any]) -> list[str]:
    """The match's evidence and verdict as text lines, from its ``match.json`` dict."""
    bots = [b["name"] for b in match["bots"]]
    rivals = bots[1] if match["players"] == 2 else "the field (" + ", ".join(bots[1:]) + ")"
    unit = ("deal pair" if match["players"] == 2 else "deal") + ("" if match["deals"] == 1 else "s")
    verdict = match.get("verdict")
    state = "" if match.get("state") == "done" else f" [{match.get('state')}]"
    head = f"{bots[0]} vs {rivals}: {match['games']} games ({match['deals']} {unit})"
    lines = [head + (f", verdict {verdict}" if verdict else "") + state]
    sprt_params = match["parameters"]["sprt"]
    if sprt_params is not None:
        p = sprt_params
        llr = "n/a" if match["llr"] is None else f"{match['llr']:.3f}"
        lines.append(f"  SPRT ({match['test']}, {p['model']}) elo0={p['elo0']:g} elo1={p['elo1']:g} "
                     f"alpha={p['alpha']:g} beta={p['beta']:g}: LLR {llr}, bounds {match['lower']:.3f} and "
                     f"{match['upper']:.3f}")
        meaning = {"H1": f"H1 accepted: {bots[0]} is at least {p['elo1']:g} Elo better",
                   "H0": f"H0 accepted: {bots[0]} is at most {p['elo0']:g} Elo better",
                   "inconclusive": f"inconclusive: no verdict within {match['parameters']['max_games']} games"}
        if verdict in meaning:
            lines.append(f"  {meaning[verdict]}")
    if match["pentanomial"] is not None:
        lines.append("  pentanomial " + ", ".join(f"{k} {v}" for k, v in match["pentanomial"].items()))
    if match["score"] is not None:
        what = "points per game" if match["players"] == 2 else "share of rivals finished ahead of, ties half"
        lines.append(f"  score {match['score']:.3f} ({what})")
    e = match["elo"]
    if match["deals"]:
        # null in match.json: not finite; a score of 1 (or 0) throughout is +inf (or -inf) Elo
        edge = {1.0: math.inf, 0.0: -math.inf}.get(e["score"]) if e["score"] is not None else None
        elo, low, high = (edge if e[key] is None else e[key] for key in ("elo", "low", "high"))
        text = f"  Elo {_elo_text(elo)} (95%: {_elo_text(low)} to {_elo_text(high)})"
        if e["nelo"] is not None:
            text += f", normalized {_elo_text(e['nelo'])} ({_elo_text(e['nelo_low'])} to {_elo_text(e['nelo_high'])})"
        if e["los"] is not None:
            text += f", LOS {100 * e['los']:.1f}%"
        lines.append(text)
    return lines


def read_match(folder: Path) -> dict[str, Any] | None:
    """The ``match.json`` of a results folder, None when it has none; :class:`RunError` (one line) when
    it is there but is not a match's (damaged, or another format)."""
    path = folder / MATCH_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise RunError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise RunError(f"{path}: not a match's results ({FORMAT})")
    return data


# -- running a match ------------------------------------------------------------------


def stored_seed(out: Path) -> int | None:
    """The master seed of the match stored in ``out`` (for ``--resume`` without ``--seed``), None if there is none."""
    try:
        text = (out / TOURNAMENT_FILE).read_text(encoding="utf-8")
        return parse_config(text, str(out / TOURNAMENT_FILE), default_name=out.name).seed
    except (OSError, UnicodeDecodeError, ConfigError):
        return None


def settle_folder(plan: MatchPlan, out: Path, resume: bool, overwrite: bool) -> None:
    """Before the run: a folder holding this match cut to the deals it counted is set back to the cap.

    Refuses (:class:`RunError`), unless ``overwrite``, a folder whose ``match.json`` gives other
    parameters, and this match cut to its deals without ``resume``; the rest is
    :func:`~.store.prepare_folder`'s to judge.
    """
    path = out / TOURNAMENT_FILE
    if overwrite or not path.exists():
        return
    stored = read_match(out)
    if stored is not None and stored.get("parameters") != plan.parameters():
        # a sequential test's error rates hold for parameters fixed before its first game
        raise RunError(f"{out} holds a match with other parameters ({MATCH_FILE}: {stored.get('parameters')}); "
                       f"choose another folder with --out, or start again with --overwrite")
    try:
        previous = parse_config(path.read_text(encoding="utf-8"), str(path), default_name=plan.name)
    except (OSError, UnicodeDecodeError, ConfigError):
        return  # prepare_folder refuses it in one line
    config = plan.config()
    if previous == config or replace(previous, deals=config.deals) != config:
        return  # the same cap, or another tournament: prepare_folder decides
    if not resume:
        raise RunError(f"{out} already holds this match's games; add --resume to go on with them, "
                       f"or --overwrite to start again")
    text = plan.config_text()
    write_atomically(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


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


__all__ = [
    "DEFAULT_MAX_GAMES", "LLR_PLOT", "MATCH_FILE", "MAX_SPRT_DEALS", "MatchError", "MatchFeed", "MatchPlan",
    "MatchResult", "MatchTally", "entrant_names", "lookahead", "match_name", "parse_sprt", "random_seed",
    "read_match", "run_match", "settle_folder", "stored_seed", "summary_lines",
]
