"""A match's evidence: the games stored, counted deal by deal in deal order, A's scores and the test's state.

Counting, and why it does not depend on the workers
---------------------------------------------------
Games finish in any order across workers.  A deal is **counted** only when
every game of it is stored, and deals go to the test strictly in deal order:
a deal whose games all came back early waits for every deal before it.  The
test therefore sees the same deals in the same order with any number of
workers, after any interruption and resume, and decides at the same deal.

Scores
------
The deciding scoring ranks the seats; a faulted seat ranks behind every seat
that did not fault (the tables' *tournament rank*).  With two players a game
scores 1 for A when A's rank is better, 0.5 when level (a shared first
place), 0 when worse, and a deal's two games are a pair of the pentanomial
(:class:`~arena.stats.sprt.Pentanomial`); the SPRT is fastchess's
(:func:`~arena.stats.sprt.sprt`).  With 3-5 players a deal's score for A is
the share of (game, rival) pairs in which A finished ahead, ties half
(:func:`~arena.stats.field.field_score`), and the test is the GSPRT of A
against the field (:func:`~arena.stats.field.field_sprt`, logistic model only).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from arena.report.match import elo_text
from arena.results.games_table import GameRow, parse_rows
from arena.results.rows import tournament_ranks
from arena.stats.field import field_elo, field_score, field_sprt
from arena.stats.hypotheses import EloEstimate, SprtStatus, game_score
from arena.stats.sequential import SequentialEstimate
from arena.stats.sprt import Pentanomial, pentanomial_elo, pentanomial_sequential, sprt
from arena.tournament.match.plan import MatchPlan


class MatchTally:
    """The match's evidence: games as they are stored, deals counted strictly in deal order, the test's state."""

    def __init__(self, plan: MatchPlan) -> None:
        self.plan = plan
        #: Rows of games not yet whole (a chunk holds whole games; kept for safety).
        self._partial: dict[str, list[GameRow]] = {}
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
        lines = text.splitlines(keepends=True) if isinstance(text, str) else text
        for row in parse_rows(lines):
            if row is None:
                continue
            rows = self._partial.setdefault(row.game_id, [])
            rows.append(row)
            if len(rows) == players:
                self._add_game(self._partial.pop(row.game_id))
        self._advance()

    def _add_game(self, rows: list[GameRow]) -> None:
        game_id, deal, rotation = rows[0].game_id, rows[0].deal, rows[0].rotation
        self.stored[game_id] = deal
        if deal < self.deals or self.done:
            return
        scoring = self.plan.scoring
        ranks = tournament_ranks([r.rank(scoring) for r in rows], [r.faulted == 1 for r in rows])
        a = self.plan.names[0]
        mine = next(rank for rank, r in zip(ranks, rows) if r.entrant == a)
        rivals = tuple(rank for rank, r in zip(ranks, rows) if r.entrant != a)
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

    def sequential_elo(self) -> SequentialEstimate | None:
        """The stopping-aware estimate after the two-player SPRT (None for the field test or a fixed count)."""
        if self.plan.sprt is None or self.plan.players != 2 or not self.counts.pairs:
            return None
        return pentanomial_sequential(self.counts, self.plan.sprt)

    def score(self) -> float:
        """A's mean score: points per game (two players) or the mean deal score (the field)."""
        if self.plan.players == 2:
            return self.counts.points / (2 * self.counts.pairs) if self.counts.pairs else math.nan
        return sum(self.scores) / len(self.scores) if self.scores else math.nan


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
        parts.append(f"Elo {elo_text(elo.elo)} ({elo_text(elo.low)}, {elo_text(elo.high)})")
    return " ".join(parts)
