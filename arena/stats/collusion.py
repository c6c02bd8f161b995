"""Does entrant A help entrant B?  A test per ordered pair of entrants on a finished run's games.

In a game of three to five players two entrants can play as a team with no
channel at all: by what they play.  Every move is legal, so no referee sees it;
it shows only in the games, as a pattern that honest play would not give.  Two
patterns are tested for each ordered pair ``(A, B)``, on the games where both
sat at one table:

**Captures** (rule M3).  The captures of a tournament are a table of counts:
in game ``g`` the seat of entrant ``i`` took ``y`` tiles of the color of the
seat of entrant ``j``.  The null model is log-linear with no interaction:
``log E[y] = game + capturer(i) + victim(j) + offset(j - i)`` — each
entrant captures at its own rate, each is captured at its own rate (a bot that
leaves lone tiles is taken more by everyone), the seat after yours differs from
the seat before it, and the game's own number of captures is given (the fit
conditions on it: a multinomial over the game's capturer-victim cells).  "A
captures B's tiles at another rate than A's captures of the others and the
others' captures of B predict" is the interaction ``A -> B``, tested by a
score test with the deals as the independent units.  One-sided: A spares B.
(More captures than predicted is what honest bots do to a team's tiles, which
crowd the others' groups; a lone tile taken as a gift, a group fewer for B, is
a pattern this test does not look for.)  Games with a faulted seat are left
out (a random fallback played on).

**Results.**  The Plackett-Luce strengths of all the games
(:mod:`arena.stats.ratings`) predict each game's ranking.  "B does better at
tables with A than its strength says" is an extra strength ``delta`` for B in
the games with A, tested by a score test at ``delta = 0``.  One-sided: helping
B means B finishes higher.  It needs games of B without A (otherwise
``delta`` is B's own strength) and says nothing with two players.

Both score tests allow for the nuisance parameters being fitted (the residual of
each game is corrected by the fitted parameters' influence) and take their
variance from the spread of the deals' sums (a sandwich, as the ratings'
intervals), mixed with the model's as one deal's worth; the statistic is read
as Student's t on the pair's deals minus one (turned into a normal z by
Fisher's approximation).  A pair's p-value is the smaller of the two with
Bonferroni's factor 2 (the two statistics are correlated — a spared partner
also finishes higher — so a product rule like Fisher's would need their
correlation; Bonferroni holds under any), and the pairs' p-values are
adjusted by Holm's step-down, which keeps the chance of flagging any honest
pair at most ``alpha`` whatever the dependence between pairs.

Pure functions on pandas/numpy data; ``docs/explanation/statistics.md``
explains the choices and shows the calibration (``benchmarks/collusion_calibration.py``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd

from arena.rules import COLORS
from arena.stats.ratings import ELO_PER_THETA, Patterns, _derivatives, fit, pattern_scores, patterns

#: The family-wise error rate Holm's adjustment keeps.
ALPHA = 0.05
#: Deals at least that two entrants shared for a test of the pair (and that B played without A, for results).
MIN_DEALS = 10
#: The ridge that keeps the captures fit finite when an entrant never captures (or is never captured).
RIDGE = 1e-3
#: The null hypotheses are margins, not equalities: A spares B only if it takes B's tiles at less than this
#: share of the predicted rate, and helps B's results only by more than this many Elo.  Honest bots of
#: different styles interact a little (one leaves tiles where another captures them), and with enough games
#: any interaction at all would be flagged; the margins ask for one large enough to matter.
CAPTURE_MARGIN = 0.75
RESULT_MARGIN = 20.0
#: The Plackett-Luce information (about four games' worth) a results test needs: an entrant that always
#: finishes last says nothing about who helps it.
MIN_INFORMATION = 1.0
#: Newton iterations at most for the captures fit.
MAX_ITERATIONS = 50

#: The columns of :func:`collusion_table`, in order.
HELPER, HELPED = "helper", "helped"
GAMES = "games"
CAPTURES_SEEN, CAPTURES_EXPECTED = "captures_seen", "captures_expected"
CAPTURE_RATIO, CAPTURE_LOW, CAPTURE_HIGH, P_CAPTURES = "capture_ratio", "capture_low", "capture_high", "p_captures"
RESULT_ELO, RESULT_LOW, RESULT_HIGH, P_RESULTS = "result_elo", "result_low", "result_high", "p_results"
P_PAIR, P_HOLM, FLAGGED, NOTE = "p", "p_holm", "flagged", "note"
COLUMNS: tuple[str, ...] = (
    HELPER, HELPED, GAMES, CAPTURES_SEEN, CAPTURES_EXPECTED, CAPTURE_RATIO, CAPTURE_LOW, CAPTURE_HIGH, P_CAPTURES,
    RESULT_ELO, RESULT_LOW, RESULT_HIGH, P_RESULTS, P_PAIR, P_HOLM, FLAGGED, NOTE,
)

_NORMAL = NormalDist()


# -- the games as arrays --------------------------------------------------------------


class TableGames:
    """One run's games of one table size as arrays: ``entrants[g, s]`` (indices into ``names``),
    ``ranks[g, s]``, ``deals[g]`` (a code per deal: the game's ``seed``, which deals it; without that
    column its ``(table, deal)``), ``captures[g, s, t]`` (tiles of seat ``t``'s color
    that seat ``s`` took) and ``clean[g]`` (no seat faulted)."""

    def __init__(self, names: Sequence[str], entrants: np.ndarray, ranks: np.ndarray, deals: np.ndarray,
                 captures: np.ndarray, clean: np.ndarray) -> None:
        self.names = list(names)
        self.entrants = entrants
        self.ranks = ranks
        self.deals = deals
        self.captures = captures
        self.clean = clean

    @property
    def players(self) -> int:
        return int(self.entrants.shape[1])

    @classmethod
    def of(cls, games: pd.DataFrame, rank: str = "uptown_rank", names: Sequence[str] | None = None) -> TableGames:
        """The games of ``games.csv`` rows (one per seat), those of the most common table size.

        ``rank`` is the column that ranks a game's seats (``t_uptown_rank`` in the report's frames, where
        faulted seats are put last).
        """
        if names is None:
            names = sorted(games["entrant"].astype(str).unique()) if not games.empty else []
        names = list(names)
        if games.empty:
            return cls(names, np.zeros((0, 3), np.int64), np.zeros((0, 3)), np.zeros(0, np.int64),
                       np.zeros((0, 3, 3)), np.zeros(0, bool))
        game = pd.factorize(games["game_id"])[0]
        order = np.lexsort((games["seat"].to_numpy(), game))
        game = game[order]
        size = np.bincount(game)
        players = int(np.bincount(size).argmax())
        keep = size[game] == players
        rows = order[keep]
        codes = pd.Categorical(games["entrant"].astype(str), categories=names).codes.astype(np.int64)
        entrants = codes[rows].reshape(-1, players)
        ranks = games[rank].to_numpy(dtype=float)[rows].reshape(-1, players)
        if "seed" in games:  # a game's seed is its deal: games dealt alike share it (the duplicate format)
            key = games["seed"].astype(str).to_numpy()[rows].reshape(-1, players)[:, 0]
        else:  # the round at its table, the ratings' unit
            key = (games["table"].astype(str) + ":" + games["deal"].astype(str)).to_numpy()[rows]
            key = key.reshape(-1, players)[:, 0]
        deals = pd.factorize(pd.Series(key))[0]
        if players >= 3:  # seat t plays the t-th color (T2, GameSettings.for_players)
            taken = np.stack([games[f"captures_{COLORS[t]}"].to_numpy(dtype=float)[rows] for t in range(players)],
                             axis=1)
            captures = taken.reshape(-1, players, players)
        else:
            captures = np.zeros((len(entrants), players, players))
        faulted = games["faulted"].to_numpy(dtype=bool)[rows] if "faulted" in games else np.zeros(len(rows), bool)
        clean = np.asarray(~faulted.reshape(-1, players).any(axis=1), dtype=bool)
        return cls(names, entrants, ranks, deals, captures, clean)


# -- the two score tests --------------------------------------------------------------


def _z_of_t(t: float, freedom: int) -> float:
    """The normal deviate with the tail of Student's ``t`` on ``freedom`` degrees (Fisher's approximation)."""
    if freedom <= 0 or not math.isfinite(t):
        return t
    return t * (1.0 - 1.0 / (4.0 * freedom)) / math.sqrt(1.0 + t * t / (2.0 * freedom))


def _spread(influence: np.ndarray, deals: np.ndarray, model: float) -> tuple[float, int]:
    """The variance of a sum of games' influences from the spread of the deals' sums, mixed with the
    model's variance ``model`` as one deal's worth (as in :mod:`arena.stats.ratings`); and the deals."""
    used = influence != 0.0
    if not used.any():
        return model, 0
    codes = deals[used]  # deal codes 0, 1, ... (pandas.factorize)
    present = np.bincount(codes) > 0
    per_deal = np.bincount(codes, weights=influence[used])[present]
    count = len(per_deal)
    if count < 2:
        return model, count
    weight = 1.0 / (count + 1.0)
    # centred: under the null the deals' mean is 0 anyway, and a real effect does not widen its own spread
    robust = float(((per_deal - per_deal.mean()) ** 2).sum()) * count / (count - 1)
    return (1.0 - weight) * robust + weight * model, count


class CaptureModel:
    """The log-linear null model of captures (module docstring), fitted once for all pairs."""

    def __init__(self, games: TableGames, excluded: frozenset[tuple[int, int]] = frozenset(),
                 start: np.ndarray | None = None) -> None:
        k, entrants = games.players, len(games.names)
        self.entrants = entrants
        use = np.flatnonzero(games.clean & (games.captures.sum(axis=(1, 2)) > 0))
        si, sj = np.array([(i, j) for i in range(k) for j in range(k) if i != j]).T
        local = np.repeat(np.arange(len(use)), len(si))
        capturer = games.entrants[use][:, si].ravel()
        victim = games.entrants[use][:, sj].ravel()
        offset = np.tile((sj - si) % k - 1, len(use))
        seen = games.captures[use][:, si, sj].ravel()
        # the cells of pairs already flagged leave the model (their counts are given, as structural cells)
        keep = np.ones(len(local), dtype=bool)
        for a, b in excluded:
            keep &= ~((capturer == a) & (victim == b))
        self.local, self.capturer, self.victim, self.seen = local[keep], capturer[keep], victim[keep], seen[keep]
        self.use = use
        self.games = len(use)
        self.deals = games.deals
        self.width = 2 * entrants + (k - 1)
        # the design's three ones per cell: capturer, victim, seat offset
        self.columns = np.stack([self.capturer, entrants + self.victim, 2 * entrants + offset[keep]], axis=1)
        self.total = np.bincount(self.local, weights=self.seen, minlength=self.games)
        # the cells are in game order: each game's cells one run, for the per-game maxima
        self.starts = np.flatnonzero(np.r_[True, self.local[1:] != self.local[:-1]]) if len(self.local) else self.local
        self.flat = self.local[:, None] * self.width + self.columns  # (cells, 3): into a (games, width) grid
        self.theta = self._fit(start)
        self.expected, self.info, self.scores = self._at(self.theta)
        self.inverse = np.linalg.inv(self.info)
        self.share = self._probabilities(self.theta)
        self.mean = self._per_game(self.share)  # X_g' p_g at the fit
        self.weighted = self.mean * self.total[:, None]
        # each ordered pair's cells, found once: the pairs are tested many times
        key = self.capturer * entrants + self.victim
        order = np.argsort(key, kind="stable")
        self.cells: dict[tuple[int, int], np.ndarray] = {}
        if len(key):
            bounds = np.flatnonzero(np.r_[True, key[order][1:] != key[order][:-1], True])
            self.cells = {divmod(int(key[order[a]]), entrants): order[a:b] for a, b in zip(bounds[:-1], bounds[1:])}

    def _per_game(self, values: np.ndarray) -> np.ndarray:
        """``(games, width)``: each game's sum of ``values`` (one per cell) times the design's rows."""
        size = self.games * self.width
        out = np.bincount(self.flat[:, 0], weights=values, minlength=size)
        out += np.bincount(self.flat[:, 1], weights=values, minlength=size)
        out += np.bincount(self.flat[:, 2], weights=values, minlength=size)
        return out.reshape(self.games, self.width)

    def _eta(self, theta: np.ndarray) -> np.ndarray:
        return theta[self.columns].sum(axis=1)

    def _probabilities(self, theta: np.ndarray) -> np.ndarray:
        eta = self._eta(theta)
        top = np.zeros(self.games)
        if len(eta):
            top[self.local[self.starts]] = np.maximum.reduceat(eta, self.starts)
        w = np.exp(eta - top[self.local])
        return w / np.bincount(self.local, weights=w, minlength=self.games)[self.local]

    def _loglik(self, theta: np.ndarray) -> float:
        p = self._probabilities(theta)
        return float((self.seen * np.log(np.maximum(p, 1e-300))).sum()) - 0.5 * RIDGE * float(theta @ theta)

    def _at(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Expected counts, information (with the ridge) and the per-game scores ``(games, width)``."""
        p = self._probabilities(theta)
        expected = p * self.total[self.local]
        residual = self.seen - expected
        scores = self._per_game(residual)
        mean = self._per_game(p)  # X_g' p_g
        flat = np.zeros(self.width * self.width)
        for a in range(3):
            for b in range(3):
                flat += np.bincount(self.columns[:, a] * self.width + self.columns[:, b], weights=expected,
                                    minlength=self.width * self.width)
        info = flat.reshape(self.width, self.width)
        info -= (mean.T * self.total) @ mean
        info += RIDGE * np.eye(self.width)
        return expected, info, scores

    def _fit(self, start: np.ndarray | None) -> np.ndarray:
        theta = np.zeros(self.width) if start is None else start.copy()
        if not self.games:
            return theta
        loglik = self._loglik(theta)
        for _ in range(MAX_ITERATIONS):
            _, info, scores = self._at(theta)
            grad = scores.sum(axis=0) - RIDGE * theta
            step = np.linalg.solve(info, grad)
            size = 1.0
            while True:
                trial = theta + size * step
                new = self._loglik(trial)
                if new >= loglik - 1e-12 or size < 1e-6:
                    break
                size /= 2.0
            theta, loglik = trial, new
            if np.abs(size * step).max() < 1e-9:
                break
        return theta

    def test(self, helper: int, helped: int) -> tuple[float, float, float, int]:
        """``(seen, expected, variance, deals)`` of the captures of ``helped``'s tiles by ``helper``."""
        cell = self.cells.get((helper, helped))
        if cell is None:
            return 0.0, 0.0, 0.0, 0
        seen = float(self.seen[cell].sum())
        expected = float(self.expected[cell].sum())
        # how the expected count moves with the nuisance parameters: the information between the
        # interaction's indicator and the model's columns
        games = self.local[cell]
        share = np.bincount(games, weights=self.share[cell], minlength=self.games)
        cross = np.zeros(self.width)
        for c in range(3):
            cross += np.bincount(self.columns[cell, c], weights=self.expected[cell], minlength=self.width)
        shared = np.unique(games)  # a game that seats an entrant twice has two of the pair's cells
        cross -= self.weighted[shared].T @ share[shared]
        own = expected - float((self.total * share ** 2).sum())
        residual = np.bincount(self.local[cell], weights=(self.seen - self.expected)[cell], minlength=self.games)
        projection = self.inverse @ cross
        influence = residual - self.scores @ projection
        model = max(own - float(cross @ projection), 0.0)
        full = np.zeros(len(self.deals))
        full[self.use] = influence
        variance, deals = _spread(full, self.deals, model)
        return seen, expected, variance, deals


class ResultModel:
    """The Plackett-Luce fit of all the games (:mod:`arena.stats.ratings`), for the results test."""

    def __init__(self, games: TableGames) -> None:
        self.games = games
        entrants = len(games.names)
        self.pats: Patterns = patterns(games.entrants, games.ranks)
        self.theta, _, _, _ = fit(self.pats, entrants)
        self.scores = pattern_scores(self.theta, self.pats, entrants)[self.pats.pattern]  # (games, entrants)
        _, _, hess = _derivatives(self.theta, self.pats, entrants)
        self.inverse = np.linalg.pinv(-hess)
        self._with: dict[int, np.ndarray] = {}
        self._tests: dict[tuple[int, int], tuple[float, float, float, int]] = {}

    def _info_with(self, helper: int) -> np.ndarray:
        """The information of the games with ``helper`` at the table."""
        if helper not in self._with:
            rows = (self.games.entrants == helper).any(axis=1)
            sub = patterns(self.games.entrants[rows], self.games.ranks[rows])
            _, _, hess = _derivatives(self.theta, sub, len(self.games.names))
            self._with[helper] = -hess
        return self._with[helper]

    def test(self, helper: int, helped: int) -> tuple[float, float, float, int]:
        """``(score, information, variance, deals)`` of an extra strength of ``helped`` at ``helper``'s tables."""
        if (helper, helped) not in self._tests:
            self._tests[helper, helped] = self._test(helper, helped)
        return self._tests[helper, helped]

    def _test(self, helper: int, helped: int) -> tuple[float, float, float, int]:
        together = (self.games.entrants == helper).any(axis=1) & (self.games.entrants == helped).any(axis=1)
        residual = np.where(together, self.scores[:, helped], 0.0)
        info = self._info_with(helper)
        cross = info[helped]
        projection = self.inverse @ cross
        influence = residual - self.scores @ projection
        model = max(float(info[helped, helped] - cross @ projection), 0.0)
        variance, deals = _spread(influence, self.games.deals, model)
        return float(residual.sum()), model, variance, deals


# -- the table ---------------------------------------------------------------------------


def holm(pvalues: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjustment of ``pvalues`` (``nan`` stays ``nan`` and is not counted)."""
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, math.nan)
    known = np.flatnonzero(~np.isnan(p))
    m = len(known)
    order = known[np.argsort(p[known], kind="mergesort")]
    running = 0.0
    for position, index in enumerate(order):
        running = max(running, min(1.0, (m - position) * p[index]))
        out[index] = running
    return out


def collusion_table(games: pd.DataFrame, rank: str = "uptown_rank", entrants: Sequence[str] | None = None,
                    alpha: float = ALPHA, confidence: float = 0.95, capture_margin: float = CAPTURE_MARGIN,
                    result_margin: float = RESULT_MARGIN) -> pd.DataFrame:
    """One row per ordered pair of entrants (:data:`COLUMNS`): does ``helper`` help ``helped``?

    ``games`` are ``games.csv`` rows; ``rank`` the column that ranks a game's seats.  See the module
    docstring for the tests.  ``capture_ratio`` is the captures of ``helped``'s tiles by ``helper`` over
    what the null model expects, with its interval; ``result_elo`` how much stronger ``helped`` plays at
    ``helper``'s tables, in Elo, with its interval; ``p`` the pair's p-value, ``p_holm`` Holm's over all
    pairs tested; ``flagged`` is ``p_holm <= alpha``; ``note`` says why a test does not apply.  The
    p-values test the margins: captures at ``capture_margin`` times the prediction, results
    ``result_margin`` Elo better (:data:`CAPTURE_MARGIN`).

    Holm's steps are taken one pair at a time, and the captures of a pair once flagged leave the null
    model before the next step: a pair that never captures each other would otherwise lower its
    members' capture rates in the model and make their captures of everyone else look suspect too.
    """
    table = TableGames.of(games, rank, entrants)
    names = table.names
    pairs = [(a, b) for a in range(len(names)) for b in range(len(names)) if a != b]
    if table.players < 3 or not len(table.entrants):
        why = "two players: no third party to compare with" if len(table.entrants) else "no games"
        return _finish([_empty_row(names[a], names[b], 0, why) for a, b in pairs], alpha)
    present = np.stack([(table.entrants == e).any(axis=1) for e in range(len(names))], axis=1)
    results = ResultModel(table)
    margins = (confidence, capture_margin, result_margin / ELO_PER_THETA)
    model = CaptureModel(table)
    rows = {pair: _pair_row(table, present, model, results, pair, margins) for pair in pairs}
    tested = [pair for pair in pairs if not math.isnan(float(rows[pair][P_PAIR]))]  # type: ignore[arg-type]
    flagged: list[tuple[int, int]] = []
    running = 0.0
    while len(flagged) < len(tested):
        left = [pair for pair in tested if pair not in flagged]
        if flagged:  # refit without the flagged pairs' captures, and test the others again
            model = CaptureModel(table, frozenset(flagged), model.theta)  # the last fit is close: a warm start
            rows.update({pair: _pair_row(table, present, model, results, pair, margins) for pair in left})
        left.sort(key=lambda pair: float(rows[pair][P_PAIR]))  # type: ignore[arg-type]
        best = left[0]
        step = min(1.0, len(left) * float(rows[best][P_PAIR]))  # type: ignore[arg-type]
        if max(running, step) > alpha:  # Holm stops: the rest keep the usual step-down values
            for position, pair in enumerate(left):
                running = max(running, min(1.0, (len(left) - position) * float(rows[pair][P_PAIR])))  # type: ignore[arg-type]
                rows[pair][P_HOLM] = running
            break
        running = max(running, step)
        rows[best][P_HOLM] = running
        flagged.append(best)
    out = pd.DataFrame([rows[pair] for pair in pairs], columns=list(COLUMNS))
    out[FLAGGED] = (out[P_HOLM] <= alpha).to_numpy()
    out[GAMES] = out[GAMES].astype(int)
    return out


def _pair_row(table: TableGames, present: np.ndarray, captures: CaptureModel, results: ResultModel,
              pair: tuple[int, int], margins: tuple[float, float, float]) -> dict[str, object]:
    """The row of one ordered pair, ``p_holm`` left for the caller; ``margins`` are the confidence of the
    intervals, the capture margin (a share) and the result margin (in strength)."""
    a, b = pair
    confidence, capture_margin, result_margin = margins
    names = table.names
    z = _NORMAL.inv_cdf(0.5 + confidence / 2.0)
    together = present[:, a] & present[:, b]
    row = _empty_row(names[a], names[b], int(together.sum()), "")
    if not together.any():
        row[NOTE] = "never met"
        return row
    shared = _count_deals(table.deals[together])
    if shared < MIN_DEALS:
        row[NOTE] = f"too few deals together ({shared} < {MIN_DEALS})"
        return row
    notes = []
    seen, expected, variance, deals = captures.test(a, b)
    row[CAPTURES_SEEN], row[CAPTURES_EXPECTED] = seen, expected
    if deals >= MIN_DEALS and variance > 0 and expected > 0:
        sd = math.sqrt(variance)
        # one-sided: fewer captures than the margin's share of the prediction
        row[P_CAPTURES] = _NORMAL.cdf(_z_of_t((seen - capture_margin * expected) / sd, deals - 1))
        row[CAPTURE_RATIO] = seen / expected
        row[CAPTURE_LOW] = max(0.0, (seen - z * sd) / expected)
        row[CAPTURE_HIGH] = (seen + z * sd) / expected
    else:
        notes.append("captures: too few")
    alone = _count_deals(table.deals[present[:, b] & ~present[:, a]])
    if alone >= MIN_DEALS:
        score, info, variance, deals = results.test(a, b)
        if info < MIN_INFORMATION:
            notes.append(f"results: {names[b]}'s place hardly varies")
        elif variance > 0:
            t = (score - result_margin * info) / math.sqrt(variance)
            row[P_RESULTS] = _NORMAL.cdf(-_z_of_t(t, deals - 1))  # one-sided: helped finishes higher
            scale = ELO_PER_THETA / info
            row[RESULT_ELO] = score * scale
            row[RESULT_LOW] = (score - z * math.sqrt(variance)) * scale
            row[RESULT_HIGH] = (score + z * math.sqrt(variance)) * scale
    else:
        notes.append(f"results: {names[b]} rarely plays without {names[a]}")
    tested = [p for p in (row[P_CAPTURES], row[P_RESULTS]) if isinstance(p, float) and not math.isnan(p)]
    if tested:
        row[P_PAIR] = min(1.0, len(tested) * min(tested))
    row[NOTE] = "; ".join(notes)
    return row


def _count_deals(codes: np.ndarray) -> int:
    """How many distinct deals the deal codes (0, 1, ...: pandas.factorize) name."""
    return int((np.bincount(codes) > 0).sum()) if len(codes) else 0


def _empty_row(helper: str, helped: str, games: int, note: str) -> dict[str, object]:
    row: dict[str, object] = dict.fromkeys(COLUMNS, math.nan)
    row.update({HELPER: helper, HELPED: helped, GAMES: games, FLAGGED: False, NOTE: note})
    return row


def _finish(rows: list[dict[str, object]], alpha: float) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    frame[P_HOLM] = holm(frame[P_PAIR].to_numpy(dtype=float))
    frame[FLAGGED] = (frame[P_HOLM] <= alpha).to_numpy()
    frame[GAMES] = frame[GAMES].astype(int)
    return frame


def flagged_lines(table: pd.DataFrame) -> list[str]:
    """One line per flagged pair of a :func:`collusion_table`, most significant first."""
    lines = []
    for row in table[table[FLAGGED]].sort_values(P_HOLM, kind="mergesort").itertuples(index=False):
        lines.append(pair_line(row._asdict()))
    return lines


def shown_p(p: float) -> str:
    """A p-value in a few characters (``<0.0001`` below that)."""
    return "<0.0001" if p < 1e-4 else f"{p:.2g}"


def pair_line(row: Mapping[str, Any]) -> str:
    """What one row of a :func:`collusion_table` says, in a line."""
    parts = []
    ratio = row[CAPTURE_RATIO]
    if isinstance(ratio, float) and not math.isnan(ratio):
        parts.append(f"took {row[CAPTURES_SEEN]:.0f} of {row[HELPED]}'s tiles where {row[CAPTURES_EXPECTED]:.1f} "
                     f"were expected "
                     f"(x{ratio:.2f}, {row[CAPTURE_LOW]:.2f}-{row[CAPTURE_HIGH]:.2f}; p {shown_p(float(row[P_CAPTURES]))})")
    elo = row[RESULT_ELO]
    if isinstance(elo, float) and not math.isnan(elo):
        parts.append(f"{row[HELPED]} plays {elo:+.0f} Elo ({row[RESULT_LOW]:+.0f} to {row[RESULT_HIGH]:+.0f}) "
                     f"at {row[HELPER]}'s tables "
                     f"(p {shown_p(float(row[P_RESULTS]))})")
    verdict = "FLAGGED" if row[FLAGGED] else "not flagged"
    p_holm = float(row[P_HOLM])
    shown = "not tested" if math.isnan(p_holm) else f"Holm p {shown_p(p_holm)}"
    what = "; ".join(parts) or str(row[NOTE]) or "nothing to test"
    return f"{row[HELPER]} -> {row[HELPED]}: {verdict} ({shown}, {row[GAMES]} games): {what}"
