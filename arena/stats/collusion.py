"""Does entrant A help entrant B?  A test per ordered pair of entrants on a finished run's games.

In a game of three to five players two entrants can play as a team with no channel at all: by what they
play.  Every move is legal, so no referee sees it; it shows only in the games, as a pattern honest play
would not give.  Three patterns are tested for each ordered pair ``(A, B)`` on the games where both sat,
each against a null model of honest play (:mod:`arena.stats.pair_models`):

**Captures** (rule M3): A takes B's tiles at under ``CAPTURE_MARGIN`` of the rate that A's captures of
the others and the others' captures of B predict (``log E[y] = game + capturer + victim + seat offset``,
conditional on each game's captures), or at over that rate divided by it.  Two-sided: A spares B, or A
takes B's tiles far more than anyone (with a fixed number of captures a game, an excess on one pair is a
deficit on the others: both sides must be seen for the right pair to be found).

**Gifts** (M3 and C1): A capture can only keep or lower the victim's groups; a lone tile taken is a
group fewer.  B's groups at the end against the captures of its tiles: A's captures of B's tiles cost B
more than ``GIFT_MARGIN`` of a group each beyond what anyone's captures of B, and A's of anyone, predict.
One-sided: A gifts B.

**Results**: B's Plackett-Luce strength (:mod:`arena.stats.ratings`) at the tables where A sits differs
from its strength elsewhere by more than ``RESULT_MARGIN`` Elo, read on the rankings with A struck out (A's
own place, weak or thrown, says nothing of A -> B).  Two-sided: B finishing higher at A's
tables (A helps B) and lower (A hurts B, or B throws its games at A's tables) are both reported.  It
needs games of B without A, and without A and each other entrant C (below).

Each score test corrects for the fitted nuisance parameters and takes its variance from the spread of
the deals' sums (a game's seed is its deal), mixed with the model's as one deal's worth; the statistic
is read as Student's t on the deals minus one.  A pair's p-value is the smallest of its tests' times
their number (Bonferroni; each two-sided test's sides count as its own factor 2).  Pairs are flagged one
at a time, each at ``p <= alpha / (pairs not yet flagged)`` (Holm's step-down: the chance of flagging any
honest pair stays at most ``alpha``, in whatever order the pairs come), and before the next step a
flagged pair's tables leave every model.

A team also moves what happens to whoever else sits at its tables: a blocker hurts the leader, a
thrower lifts everyone else, a team of three makes the two honest entrants beside it look as if they
spared each other.  So a gifts or results finding is flagged only where it holds, the same way, at the
tables without each other entrant C in turn (the largest of those p-values, an intersection-union test);
with no such tables (five entrants at four seats: every table without A is every other entrant) the
results test is not made.  The captures test keeps a margin wider than any effect a team has had on an
honest pair (``CAPTURE_MARGIN``).

Pure functions on pandas/numpy data; ``docs/explanation/statistics.md`` explains the choices and shows
the calibration (``benchmarks/collusion_calibration.py``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import cached_property
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd

from arena.rules import COLORS
from arena.stats.pair_models import CaptureModel, GiftModel, PairTest, ResultModel
from arena.stats.ratings import ELO_PER_THETA

#: The family-wise error rate Holm's adjustment keeps.
ALPHA = 0.05
#: Deals at least that two entrants shared for a test of the pair (and that B played without A, for results).
MIN_DEALS = 10
#: The null hypotheses are margins, not equalities: honest bots of different styles interact a little (one
#: leaves tiles where another captures them), and with enough games any interaction at all would be
#: flagged.  A spares B only if it takes B's tiles at less than this share of the predicted rate (a team
#: of three among five entrants at four seats makes the two honest ones look like a pair sparing each other
#: at 0.37 of the rate: within a table the two cannot be told apart) ...
CAPTURE_MARGIN = 0.25
#: ... gifts B only if each of its captures of B's tiles costs B this many groups more than predicted ...
GIFT_MARGIN = 0.25
#: ... and helps (or hurts) B's results only by more than this many Elo.
RESULT_MARGIN = 20.0
#: The Plackett-Luce information (about four games' worth) a results test needs: an entrant that always
#: finishes last says nothing about who helps it.
MIN_INFORMATION = 1.0
#: Captures of B's tiles by A at least for a gifts test.
MIN_CAPTURES = 10

#: The note of a pair left with too few games once the flagged pairs' tables are set aside.
SET_ASIDE = "its games were at a flagged pair's tables"
#: The columns of :func:`collusion_table`, in order.
HELPER, HELPED = "helper", "helped"
GAMES = "games"
CAPTURES_SEEN, CAPTURES_EXPECTED = "captures_seen", "captures_expected"
CAPTURE_RATIO, CAPTURE_LOW, CAPTURE_HIGH, P_CAPTURES = "capture_ratio", "capture_low", "capture_high", "p_captures"
GIFT_GROUPS, GIFT_LOW, GIFT_HIGH, P_GIFTS = "gift_groups", "gift_low", "gift_high", "p_gifts"
RESULT_ELO, RESULT_LOW, RESULT_HIGH, P_RESULTS = "result_elo", "result_low", "result_high", "p_results"
P_PAIR, P_HOLM, FLAGGED, EVIDENCE, NOTE = "p", "p_holm", "flagged", "evidence", "note"
COLUMNS: tuple[str, ...] = (
    HELPER, HELPED, GAMES, CAPTURES_SEEN, CAPTURES_EXPECTED, CAPTURE_RATIO, CAPTURE_LOW, CAPTURE_HIGH, P_CAPTURES,
    GIFT_GROUPS, GIFT_LOW, GIFT_HIGH, P_GIFTS, RESULT_ELO, RESULT_LOW, RESULT_HIGH, P_RESULTS, P_PAIR, P_HOLM,
    FLAGGED, EVIDENCE, NOTE,
)
#: What each test's finding is called (the ``evidence`` column): the test with the pair's smallest p-value.
SPARES, TAKES, GIFTS, HELPS, HURTS = "spares", "takes", "gifts", "helps", "hurts"
#: A row's one-sided p-values by finding, and the number of its tests (its Bonferroni factor): not columns.
_ONE_SIDED, _TESTS = "_one_sided", "_tests"
#: What a flag on ``A -> B`` says, by its evidence.
FINDINGS = {
    SPARES: "{a} spares {b}'s tiles",
    TAKES: "{a} takes far more of {b}'s tiles than predicted",
    GIFTS: "{a} takes {b}'s lone tiles (gifts)",
    HELPS: "{b} finishes higher at {a}'s tables: {a}'s play helps {b}",
    HURTS: "{b} finishes lower at {a}'s tables: {a} hurts {b}, or {b} throws its games at {a}'s tables",
    "": "",
}

_NORMAL = NormalDist()


# -- the games as arrays --------------------------------------------------------------


class TableGames:
    """One run's games of one table size as arrays, sorted by deal: ``entrants[g, s]`` (indices into
    ``names``), ``ranks[g, s]``, ``deals[g]`` (a code per deal: the game's ``seed``, which deals it; without
    that column its ``(table, deal)``), ``captures[g, s, t]`` (tiles of seat ``t``'s color that seat ``s``
    took), ``groups[g, s]`` (NaN when not known) and ``clean[g]`` (no seat faulted)."""

    def __init__(self, names: Sequence[str], entrants: np.ndarray, ranks: np.ndarray, deals: np.ndarray,
                 captures: np.ndarray, clean: np.ndarray, groups: np.ndarray | None = None) -> None:
        self.names = list(names)
        if groups is None:
            groups = np.full(ranks.shape, math.nan)
        if len(deals) > 1 and (np.diff(deals) < 0).any():  # the deal sums read each deal's games together
            order = np.argsort(deals, kind="stable")
            entrants, ranks, deals = entrants[order], ranks[order], deals[order]
            captures, clean, groups = captures[order], clean[order], groups[order]
        self.entrants, self.ranks, self.deals, self.captures, self.clean, self.groups = (
            entrants, ranks, deals, captures, clean, groups)

    def present(self) -> np.ndarray:
        """``present[g, e]``: entrant ``e`` sat at game ``g``."""
        present = np.zeros((len(self.entrants), len(self.names)), dtype=bool)
        np.put_along_axis(present, self.entrants, True, axis=1)
        return present

    def where(self, keep: np.ndarray) -> TableGames:
        """The games ``keep`` marks."""
        return TableGames(self.names, self.entrants[keep], self.ranks[keep], self.deals[keep], self.captures[keep],
                          self.clean[keep], self.groups[keep])

    def without(self, pairs: Sequence[tuple[int, int]]) -> TableGames:
        """These games less those where both entrants of one of ``pairs`` sat."""
        if not pairs:
            return self
        present = self.present()
        keep = np.ones(len(self.entrants), dtype=bool)
        for a, b in pairs:
            keep &= ~(present[:, a] & present[:, b])
        return self.where(keep)

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
        seat = games["seat"].to_numpy()
        if len(game) > 1 and (np.diff(game) >= 0).all() and not (np.diff(seat)[np.diff(game) == 0] <= 0).any():
            order = np.arange(len(game))  # games.csv as a run writes it: a game's seats together, in order
        else:
            order = np.lexsort((seat, game))
        game = game[order]
        size = np.bincount(game)
        players = int(np.bincount(size).argmax())
        rows = order[size[game] == players]
        whole = len(rows) == len(games) and order[0] == 0 and (order[1:] > order[:-1]).all()

        def column(name: str, dtype: type) -> np.ndarray:  # the column's values of the rows kept, in order
            values = games[name].to_numpy(dtype=dtype)
            return values if whole else values[rows]

        entrant = games["entrant"]
        if isinstance(entrant.dtype, pd.CategoricalDtype):  # a report's frame: recode its few categories alone
            entrant = entrant.cat.rename_categories([str(c) for c in entrant.cat.categories])
        else:
            entrant = entrant.astype(str)
        codes = pd.Categorical(entrant, categories=names).codes.astype(np.int64)
        entrants = codes[rows].reshape(-1, players)
        ranks = column(rank, float).reshape(-1, players)
        first = rows.reshape(-1, players)[:, 0]
        if "seed" in games:  # a game's seed is its deal: games dealt alike share it (the duplicate format)
            deals = pd.factorize(games["seed"].to_numpy()[first])[0]
        else:  # the round at its table, the ratings' unit
            deals = pd.factorize(pd.MultiIndex.from_arrays([games["table"].to_numpy()[first],
                                                            games["deal"].to_numpy()[first]]))[0]
        if players >= 3:  # seat t plays the t-th color (T2, GameSettings.for_players)
            taken = np.empty((len(rows), players))
            for t in range(players):
                taken[:, t] = column(f"captures_{COLORS[t]}", float)
            captures = taken.reshape(-1, players, players)
        else:
            captures = np.zeros((len(entrants), players, players))
        faulted = column("faulted", bool) if "faulted" in games else np.zeros(len(rows), bool)
        clean = np.asarray(~faulted.reshape(-1, players).any(axis=1), dtype=bool)
        groups = column("groups", float).reshape(-1, players) if "groups" in games else None
        return cls(names, entrants, ranks, np.asarray(deals, np.int64), captures, clean, groups)


# -- the models of one step ------------------------------------------------------------


class Models:
    """The three null models of one step of Holm's procedure, on the games of the tables it is given."""

    def __init__(self, table: TableGames, checked: bool = True) -> None:
        names = len(table.names)
        clean = table if table.clean.all() else table.where(table.clean)  # no copy of a run without faults
        counted = clean.captures.sum(axis=(1, 2)) > 0
        part = clean if counted.all() else clean.where(counted)
        self.captures = CaptureModel(part.entrants, part.captures, part.deals, names)
        known = np.isfinite(clean.groups).all(axis=1)
        part = clean if known.all() else clean.where(known)
        self.gifts = GiftModel(part.entrants, part.captures, part.groups, part.deals, names) if known.any() else None
        self._table = table
        # the tables without one entrant, where a finding is checked (_held), are not checked again
        self.blind = _results_blind(table) if checked else np.full((names, names), -1)


    @cached_property
    def results(self) -> ResultModel:
        """The results model, fitted when a pair first needs it: never where every game seats every entrant."""
        table = self._table
        return ResultModel(table.entrants, table.ranks, table.deals, len(table.names))


def _results_blind(table: TableGames) -> np.ndarray:
    """``blind[a, b]``: an entrant ``c`` such that ``b`` has fewer than :data:`MIN_DEALS` deals without both
    ``a`` and ``c``, or with ``a`` and without ``c`` (then the results test of ``a -> b`` cannot be checked
    at the tables without ``c``: :func:`_held`), or -1 for none.  Counted over the tables' line-ups."""
    names = len(table.names)
    present = table.present()
    if not len(present):
        return np.full((names, names), -1)
    if names < 63:  # a line-up as the bits of one integer: a one-dimensional unique, far faster
        code = present.astype(np.int64) @ (np.int64(1) << np.arange(names, dtype=np.int64))
        index, _ = pd.factorize(code)  # by hashing, as the seatings (pair_models)
        first = np.zeros(int(index.max()) + 1, np.int64)
        first[index[::-1]] = np.arange(len(index) - 1, -1, -1)
        lineups = present[first]
    else:
        lineups, index = np.unique(present, axis=0, return_inverse=True)
    # the deals of each line-up: a deal's games with one line-up (its seatings) count once
    span = int(table.deals.max()) + 1
    key = index.reshape(-1).astype(np.int64) * span + table.deals
    deals = np.bincount(pd.unique(key) // span, minlength=len(lineups)).astype(float)
    seated = lineups.astype(float)
    blind = np.full((names, names), -1)
    for b in range(names):
        weight = deals * seated[:, b]
        apart = (1.0 - seated).T @ (weight[:, None] * (1.0 - seated))  # [a, c]: b without a and c
        beside = seated.T @ (weight[:, None] * (1.0 - seated))  # [a, c]: b with a, without c
        short = (apart < MIN_DEALS) | (beside < MIN_DEALS)
        np.fill_diagonal(short, False)
        short[:, b] = False
        for a in range(names):
            if a != b and short[a].any():
                blind[a, b] = int(np.flatnonzero(short[a])[0])
    return blind


def _z_of_t(t: float, freedom: int) -> float:
    """The normal deviate with the tail of Student's ``t`` on ``freedom`` degrees (Fisher's approximation)."""
    if freedom <= 0 or not math.isfinite(t):
        return t
    return t * (1.0 - 1.0 / (4.0 * freedom)) / math.sqrt(1.0 + t * t / (2.0 * freedom))


def _below(test: PairTest, margin: float) -> float:
    """One-sided p-value of "the effect is below ``margin``" (the effect's score is ``information`` times it)."""
    t = (test.score - margin * test.information) / math.sqrt(test.variance)
    return _NORMAL.cdf(_z_of_t(t, test.deals - 1))


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
                    result_margin: float = RESULT_MARGIN, gift_margin: float = GIFT_MARGIN) -> pd.DataFrame:
    """One row per ordered pair of entrants (:data:`COLUMNS`): does ``helper`` help ``helped``?

    ``games`` are ``games.csv`` rows; ``rank`` the column that ranks a game's seats.  See the module
    docstring for the tests.  ``capture_ratio`` is the captures of ``helped``'s tiles by ``helper`` over
    what the null model expects; ``gift_groups`` the groups each of those captures cost ``helped`` beyond
    the prediction (negative: a gift); ``result_elo`` how much stronger ``helped`` plays at ``helper``'s
    tables, in Elo (negative: weaker); each with its interval.  ``p`` is the pair's p-value, ``p_holm``
    Holm's over all pairs tested; ``flagged`` is ``p_holm <= alpha``; ``evidence`` names the test with the
    pair's smallest p-value; ``note`` says why a test does not apply.  The p-values test the margins.
    """
    table = TableGames.of(games, rank, entrants)
    names = table.names
    pairs = [(a, b) for a in range(len(names)) for b in range(len(names)) if a != b]
    if table.players < 3 or not len(table.entrants):
        why = "two players: no third party to compare with" if len(table.entrants) else "no games"
        return _finish([_empty_row(names[a], names[b], 0, why) for a, b in pairs], alpha)
    margins = (confidence, capture_margin, gift_margin, result_margin / ELO_PER_THETA)
    rows = _pair_rows(table, pairs, margins)
    tested = [pair for pair in pairs if not math.isnan(float(rows[pair][P_PAIR]))]  # type: ignore[arg-type]
    flagged: list[tuple[int, int]] = []
    running = 0.0
    while len(flagged) < len(tested):
        left = [pair for pair in tested if pair not in flagged]
        groups = _set_aside(flagged, left)
        if flagged:  # the flagged pairs' tables leave every model: test the others again on the rest
            for aside, among in groups.items():
                rows.update(_pair_rows(table.without(aside), among, margins, SET_ASIDE))
        chosen = _next_flag(table, rows, groups, margins, alpha)
        if chosen is None:  # Holm stops: the rest keep the usual step-down values
            known = sorted((pair for pair in left if not math.isnan(float(rows[pair][P_PAIR]))),  # type: ignore[arg-type]
                           key=lambda pair: float(rows[pair][P_PAIR]))  # type: ignore[arg-type]
            # a pair left with too few games still counts in the multiplier, as if its p-value were 1
            for position, pair in enumerate(known):
                running = max(running, min(1.0, (len(left) - position) * float(rows[pair][P_PAIR])))  # type: ignore[arg-type]
                rows[pair][P_HOLM] = running
            break
        running = max(running, len(left) * float(rows[chosen][P_PAIR]))  # type: ignore[arg-type]
        rows[chosen][P_HOLM] = running
        flagged.append(chosen)
    out = pd.DataFrame([rows[pair] for pair in pairs], columns=list(COLUMNS))
    out[FLAGGED] = (out[P_HOLM] <= alpha).to_numpy()
    out[GAMES] = out[GAMES].astype(int)
    return out


def _next_flag(table: TableGames, rows: Mapping[tuple[int, int], dict[str, object]],
               groups: Mapping[tuple[tuple[int, int], ...], Sequence[tuple[int, int]]],
               margins: tuple[float, float, float, float], alpha: float) -> tuple[int, int] | None:
    """The pair to flag next, if one is due: the first, by p-value, whose finding holds at the tables
    without each other entrant (:func:`_held`) with ``p <= alpha / pairs not yet flagged``, which keeps
    Holm's bound in whatever order the pairs come.  ``rows[pair][P_PAIR]`` becomes that p-value for each
    pair looked at."""
    left = [pair for among in groups.values() for pair in among]
    candidates = sorted((pair for pair in left if not math.isnan(float(rows[pair][P_PAIR]))),  # type: ignore[arg-type]
                        key=lambda pair: float(rows[pair][P_PAIR]))  # type: ignore[arg-type]
    fits: dict[tuple[tuple[tuple[int, int], ...], int], _Fit] = {}
    for aside, among in groups.items():
        for pair in candidates:
            if pair not in among:
                continue
            if len(left) * float(rows[pair][P_PAIR]) > alpha:  # type: ignore[arg-type]
                break  # sorted: no later pair is due either
            _held(table, rows[pair], pair, aside, margins, fits)
    due = [pair for pair in candidates if len(left) * float(rows[pair][P_PAIR]) <= alpha]  # type: ignore[arg-type]
    return min(due, key=lambda pair: float(rows[pair][P_PAIR])) if due else None  # type: ignore[arg-type]


class _Fit:
    """The models of one set of tables, with who sat at each."""

    def __init__(self, table: TableGames, checked: bool = True) -> None:
        self.table = table
        self.present = table.present()
        self.models = Models(table, checked)


def _held(table: TableGames, row: dict[str, object], pair: tuple[int, int], aside: tuple[tuple[int, int], ...],
          margins: tuple[float, float, float, float], fits: dict[tuple[tuple[tuple[int, int], ...], int], _Fit]) -> None:
    """The pair's p-value (in ``row``) made that of its findings as they hold at the tables without each
    other entrant C in turn: an intersection-union test, each finding's p-value the largest of them.

    A team moves the groups and results of whoever else sits at its tables (a blocker hurts the leader, a
    thrower lifts everyone else): a gifts or results finding on A -> B that such a team of others made
    vanishes at the tables without one of them, while one on A and B's own play holds there.  A finding
    with no test there (B never without A and C) is not one the data can check: its p-value is 1.  The
    captures findings keep their own: what A takes of B's tiles is A's own play, and the margin
    (:data:`CAPTURE_MARGIN`) is wider than anything a team of others has made of an honest pair's."""
    a, b = pair
    one_sided: dict[str, float] = dict(row[_ONE_SIDED])  # type: ignore[call-overload]
    checked = [finding for finding in one_sided if finding in (GIFTS, HELPS, HURTS)]
    for c in range(len(table.names)):
        if c in pair or not checked:
            continue
        key = (aside, c)
        if key not in fits:
            kept = table.without(aside)
            fits[key] = _Fit(kept.where(~kept.present()[:, c]), checked=False)
        fit = fits[key]
        again = _pair_row(fit.table, fit.present, fit.models, pair, margins)[_ONE_SIDED]
        one_sided.update({finding: max(one_sided[finding], again.get(finding, 1.0))  # type: ignore[attr-defined]
                          for finding in checked})
    if not one_sided:
        return
    sides = {finding: 1.0 if finding == GIFTS else 2.0 for finding in one_sided}  # gifts: a one-sided test
    best = min(one_sided, key=lambda finding: sides[finding] * one_sided[finding])
    held = min(1.0, float(row[_TESTS]) * min(1.0, sides[best] * one_sided[best]))  # type: ignore[arg-type]
    if held > float(row[P_PAIR]):  # type: ignore[arg-type]
        unheld = ", ".join(sorted(f for f in one_sided if one_sided[f] > float(row[_ONE_SIDED][f])))  # type: ignore[index]
        row[NOTE] = "; ".join(filter(None, [str(row[NOTE]), f"{unheld or best}: not at the tables without each other entrant"]))
    row[P_PAIR], row[EVIDENCE] = held, best


def _set_aside(flagged: Sequence[tuple[int, int]],
               left: Sequence[tuple[int, int]]) -> dict[tuple[tuple[int, int], ...], list[tuple[int, int]]]:
    """The pairs ``left`` by the tables set aside for them: those of every flagged pair, except a pair's own
    (the way back of a flagged pair is tested on the tables it shares, as at the first step)."""
    teams = sorted({(min(a, b), max(a, b)) for a, b in flagged})
    out: dict[tuple[tuple[int, int], ...], list[tuple[int, int]]] = {}
    for a, b in left:
        out.setdefault(tuple(t for t in teams if t != (min(a, b), max(a, b))), []).append((a, b))
    return out


def _pair_rows(table: TableGames, pairs: Sequence[tuple[int, int]], margins: tuple[float, float, float, float],
               aside: str = "") -> dict[tuple[int, int], dict[str, object]]:
    """The rows of ``pairs`` on ``table`` (``aside``: the note of a pair whose games were all set aside)."""
    fit = _Fit(table)
    rows = {pair: _pair_row(table, fit.present, fit.models, pair, margins) for pair in pairs}
    if aside:
        for row in rows.values():
            if math.isnan(float(row[P_PAIR])):  # type: ignore[arg-type]
                row[NOTE] = f"{aside}; {row[NOTE]}" if row[NOTE] else aside
    return rows


def _pair_row(table: TableGames, present: np.ndarray, models: Models, pair: tuple[int, int],
              margins: tuple[float, float, float, float]) -> dict[str, object]:
    """The row of one ordered pair, ``p_holm`` left for the caller; ``margins`` are the confidence of the
    intervals, the capture margin (a share), the gift margin (groups a capture) and the result margin (in
    strength)."""
    a, b = pair
    confidence, capture_margin, gift_margin, result_margin = margins
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
    found: dict[str, float] = {}  # each test's p-value, by its finding
    one_sided: dict[str, float] = {}  # each side's own p-value
    seen, expected = models.captures.counts(a, b)
    row[CAPTURES_SEEN], row[CAPTURES_EXPECTED] = seen, expected
    test = models.captures.test(a, b)
    if test.deals >= MIN_DEALS and test.variance > 0 and expected > 0:
        sd = math.sqrt(test.variance)
        # two-sided: fewer captures than the margin's share of the prediction (A spares B), or more than
        # the prediction over it (A takes B's tiles: gifts, and the mirror of A's captures of the others)
        spares = _NORMAL.cdf(_z_of_t((seen - capture_margin * expected) / sd, test.deals - 1))
        takes = 1.0 - _NORMAL.cdf(_z_of_t((seen - expected / capture_margin) / sd, test.deals - 1))
        row[P_CAPTURES] = min(1.0, 2.0 * min(spares, takes))
        one_sided.update({SPARES: spares, TAKES: takes})
        found[SPARES if spares <= takes else TAKES] = float(row[P_CAPTURES])  # type: ignore[arg-type]
        row[CAPTURE_RATIO] = seen / expected
        row[CAPTURE_LOW] = max(0.0, (seen - z * sd) / expected)
        row[CAPTURE_HIGH] = (seen + z * sd) / expected
    else:
        notes.append("captures: too few")
    gifts = models.gifts
    if gifts is None:
        notes.append("gifts: no groups in the results")
    else:
        test = gifts.test(a, b)
        if gifts.captures[a * len(names) + b] >= MIN_CAPTURES and test.variance > 0 and test.information > 0:
            row[P_GIFTS] = found[GIFTS] = one_sided[GIFTS] = _below(test, -gift_margin)  # one-sided
            sd = math.sqrt(test.variance)
            row[GIFT_GROUPS] = test.score / test.information
            row[GIFT_LOW] = (test.score - z * sd) / test.information
            row[GIFT_HIGH] = (test.score + z * sd) / test.information
        else:
            notes.append(f"gifts: {names[a]} took too few of {names[b]}'s tiles")
    alone = _count_deals(table.deals[present[:, b] & ~present[:, a]])
    if alone >= MIN_DEALS:
        notes.extend(_results(row, models, pair, names, (z, result_margin), found, one_sided))
    else:
        notes.append(f"results: {names[b]} rarely plays without {names[a]}")
    if found:
        row[P_PAIR] = min(1.0, len(found) * min(found.values()))
        row[EVIDENCE] = min(found, key=lambda name: found[name])
        row[_TESTS] = len(found)
    row[_ONE_SIDED] = one_sided
    row[NOTE] = "; ".join(notes)
    return row


def _results(row: dict[str, object], models: Models, pair: tuple[int, int], names: Sequence[str],
             bounds: tuple[float, float], found: dict[str, float], one_sided: dict[str, float]) -> list[str]:
    """The results test of ``pair`` into ``row``, ``found`` and ``one_sided`` (``bounds``: the intervals'
    normal deviate and the result margin, in strength); the notes of what could not be made."""
    a, b = pair
    z, result_margin = bounds
    test = models.results.test(a, b)
    if test.information < MIN_INFORMATION:
        return [f"results: {names[b]}'s place hardly varies"]
    if test.variance <= 0:
        return []
    notes = []
    blind = int(models.blind[a, b])
    if blind >= 0:  # the estimate is shown, the test cannot be checked (_held)
        notes.append(f"results: not tested, {names[b]} never plays without both {names[a]} and {names[blind]} "
                     f"(a team among the others at the tables without {names[a]} would look the same)")
    else:
        helps = 1.0 - _below(test, result_margin)
        hurts = _below(test, -result_margin)
        one_sided.update({HELPS: helps, HURTS: hurts})
        row[P_RESULTS] = min(1.0, 2.0 * min(helps, hurts))  # two-sided
        found[HELPS if helps <= hurts else HURTS] = float(row[P_RESULTS])  # type: ignore[arg-type]
    sd = math.sqrt(test.variance)
    scale = ELO_PER_THETA / test.information
    row[RESULT_ELO] = test.score * scale
    row[RESULT_LOW] = (test.score - z * sd) * scale
    row[RESULT_HIGH] = (test.score + z * sd) * scale
    return notes


def _count_deals(codes: np.ndarray) -> int:
    """How many distinct deals the deal codes (0, 1, ...: pandas.factorize) name."""
    return int((np.bincount(codes) > 0).sum()) if len(codes) else 0


def _empty_row(helper: str, helped: str, games: int, note: str) -> dict[str, object]:
    row: dict[str, object] = dict.fromkeys(COLUMNS, math.nan)
    row.update({_ONE_SIDED: {}, _TESTS: 0})
    row.update({HELPER: helper, HELPED: helped, GAMES: games, FLAGGED: False, EVIDENCE: "", NOTE: note})
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
    gift = row[GIFT_GROUPS]
    if isinstance(gift, float) and not math.isnan(gift):
        parts.append(f"each capture cost {row[HELPED]} {-gift:+.2f} groups beyond the prediction "
                     f"({-row[GIFT_HIGH]:+.2f} to {-row[GIFT_LOW]:+.2f}; p {shown_p(float(row[P_GIFTS]))})")
    elo = row[RESULT_ELO]
    if isinstance(elo, float) and not math.isnan(elo):
        p_results = float(row[P_RESULTS])
        parts.append(f"{row[HELPED]} plays {elo:+.0f} Elo ({row[RESULT_LOW]:+.0f} to {row[RESULT_HIGH]:+.0f}) "
                     f"at {row[HELPER]}'s tables "
                     f"({'not tested' if math.isnan(p_results) else f'p {shown_p(p_results)}'})")
    finding = FINDINGS[str(row[EVIDENCE])].format(a=row[HELPER], b=row[HELPED])
    verdict = f"FLAGGED, {finding}" if row[FLAGGED] else "not flagged"
    p_holm = float(row[P_HOLM])
    shown = "not tested" if math.isnan(p_holm) else f"Holm p {shown_p(p_holm)}"
    what = "; ".join(parts) or str(row[NOTE]) or "nothing to test"
    return f"{row[HELPER]} -> {row[HELPED]}: {verdict} ({shown}, {row[GAMES]} games): {what}"
