"""The three null models of the Teams? test (:mod:`arena.stats.collusion`): captures, gifts and results.

Each model is fitted on aggregates (games counted by seating or by finishing pattern, or a Gram matrix),
and keeps the covariance of its per-deal score sums over a space that holds every candidate pair at once
(:class:`DealSums`): a pair's score test is then a few small matrix products, whatever the number of
games.  Each model is fitted on the games it is given: the Teams? test leaves out the tables of the pairs
it has flagged by giving a model the other games alone.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from arena.stats.ratings import Patterns, _choices, fit, patterns

#: The ridge that keeps the captures fit finite when an entrant never captures (or is never captured).
RIDGE = 1e-3
#: Newton iterations at most.
MAX_ITERATIONS = 50
#: Games per chunk of the deal sums (memory stays within a few tens of MB).
CHUNK = 1 << 17
#: Cells (deals x width) of one dense block of deal sums.
BLOCK_CELLS = 1 << 22


@dataclass(frozen=True)
class PairTest:
    """One pair's score test in a model: the statistic (observed minus fitted, summed over the games),
    the information of the pair's effect given the nuisance parameters (``effect = score / information``),
    the score's variance from the deals' spread mixed with the model's, and the deals counted."""

    score: float
    information: float
    variance: float
    deals: int


class DealSums:
    """The sums of squares and cross products, centred, of per-deal sums of ``width``-wide vectors, given a
    game at a time: ``deal[g]`` and the game's entries ``(dim[g, e], value[g, e])``; each :meth:`add` holds
    whole deals, in ascending deal order."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.square = np.zeros((width, width))
        self.total = np.zeros(width)
        self.deals = 0

    def add(self, deal: np.ndarray, dim: np.ndarray, value: np.ndarray) -> None:
        if not len(deal):
            return
        compact = np.concatenate([[0], np.cumsum(deal[1:] != deal[:-1])])  # each game's deal, from 0
        count = int(compact[-1]) + 1
        self.deals += count
        step = max(1, BLOCK_CELLS // self.width)
        cuts = np.searchsorted(compact, np.arange(0, count + step, step))
        for lo, (a, b) in enumerate(zip(cuts[:-1], cuts[1:])):
            if a == b:
                continue
            rows = compact[a:b] - lo * step
            height = int(rows[-1]) + 1  # the deals of this block: a block's deals are consecutive
            cells = (rows[:, None] * self.width + dim[a:b]).ravel()
            block = np.bincount(cells, weights=value[a:b].ravel(),
                                minlength=height * self.width).reshape(height, self.width)
            self.square += block.T @ block
            self.total += block.sum(axis=0)

    def covariance(self) -> np.ndarray:
        """``sum_d (u_d - mean)(u_d - mean)^T * n / (n - 1)``: the spread of the deals' sums, as a variance of
        their total."""
        n = self.deals
        if n < 2:
            return np.zeros_like(self.square)
        centred = self.square - np.outer(self.total, self.total) / n
        return centred * n / (n - 1)


def chunks(deals: np.ndarray, size: int = CHUNK) -> Iterator[slice]:
    """Slices of the games (sorted by deal) of about ``size`` games each, never splitting a deal."""
    n = len(deals)
    start = 0
    while start < n:
        stop = min(n, start + size)
        while 0 < stop < n and deals[stop] == deals[stop - 1]:
            stop += 1
        yield slice(start, stop)
        start = stop


class PairModel:
    """What every model keeps for its pairs' score tests: the summed extended scores ``vector`` (one
    dimension per ordered pair, and the nuisance parameters' own), the extended information ``info`` (``scale``
    times it is the model's variance of the scores), ``embed`` (the nuisance parameters as extended
    directions: their scores are ``embed.T @ vector``), and the deals' ``covariance`` of the scores."""

    vector: np.ndarray
    info: np.ndarray
    embed: np.ndarray
    covariance: np.ndarray
    deals: int
    scale: float = 1.0
    names: int = 0
    #: Where the pair (A, B)'s dimension starts in the extended space: ``offset + A * names + B``.
    offset: int = 0

    def _prepare(self) -> None:
        nuisance = self.embed.T @ self.info @ self.embed
        self.inverse = np.linalg.pinv(nuisance + RIDGE * np.eye(len(nuisance)))

    def test(self, helper: int, helped: int) -> PairTest:
        """The score test of the effect of ``helper`` on ``helped``, given the nuisance parameters."""
        dim = self.offset + helper * self.names + helped
        cross = self.embed.T @ self.info[:, dim]
        projection = self.inverse @ cross
        information = float(self.info[dim, dim] - cross @ projection)
        weights = -(self.embed @ projection)
        weights[dim] += 1.0
        robust = float(weights @ self.covariance @ weights)
        variance = _mixed(robust, max(information, 0.0) * self.scale, self.deals)
        # at the nuisance's fit its own scores are 0, so the pair's efficient score is its plain one
        return PairTest(float(self.vector[dim]), information, variance, self.deals)


def _mixed(robust: float, model: float, deals: int) -> float:
    """The deals' variance mixed with the model's as one deal's worth (a few deals say little of their spread)."""
    if deals < 2:
        return model
    mix = 1.0 / (deals + 1.0)
    return max((1.0 - mix) * robust + mix * model, 0.0)


def _pair_embedding(names: int, offset: int, width: int, columns: Sequence[tuple[str, int]]) -> np.ndarray:
    """``(width, parameters)``: the pair dimensions ``offset + i * names + j`` summed into the columns named
    ``capturer`` (over ``j``) or ``victim`` (over ``i``) at the column index given."""
    embed = np.zeros((width, max((c for _, c in columns), default=-1) + names))
    for kind, start in columns:
        for i in range(names):
            for j in range(names):
                if i != j:
                    embed[offset + i * names + j, start + (i if kind == "capturer" else j)] = 1.0
    return embed


# -- captures ------------------------------------------------------------------------------------


class CaptureModel(PairModel):
    """``log E[y] = game + capturer(i) + victim(j) + offset(j - i)``, conditional on each game's captures (a
    multinomial over its capturer-victim cells), fitted on the games counted by seating.  A pair's statistic
    is its cells' observed minus expected captures."""

    def __init__(self, entrants: np.ndarray, captures: np.ndarray, deals: np.ndarray, names: int) -> None:
        k = entrants.shape[1]
        self.names, self.offset = names, 0
        si, sj = np.array([(i, j) for i in range(k) for j in range(k) if i != j]).T
        offset = (sj - si) % k - 1
        seating, configs = _seatings(entrants, names)
        pair = configs[:, si] * names + configs[:, sj]  # (seatings, cells)
        keep = np.ones(pair.shape, dtype=bool)  # every cell: the shares below also serve masked cells
        seen = captures[:, si, sj] * keep[seating]  # (games, cells)
        total = seen.sum(axis=1)
        cells = len(si)
        counts = np.bincount((seating[:, None] * cells + np.arange(cells)).ravel(), weights=seen.ravel(),
                             minlength=len(configs) * cells).reshape(len(configs), cells)
        config_total = counts.sum(axis=1)
        width = 2 * names + (k - 1)
        columns = np.stack([configs[:, si], names + configs[:, sj], 2 * names + np.broadcast_to(offset, pair.shape)],
                           axis=2)
        theta = _fit_multinomial(columns, keep, counts, config_total, width)
        share = _shares(theta, columns, keep)
        expected = share * config_total[:, None]
        # the extended space: each ordered pair's cells, then the seat offsets
        self.extended = names * names + (k - 1)
        ext = np.stack([pair, np.broadcast_to(names * names + offset, pair.shape)], axis=2)
        residual = np.where(keep, counts - expected, 0.0)
        self.vector = (np.bincount(ext[..., 0].ravel(), weights=residual.ravel(), minlength=self.extended)
                       + np.bincount(ext[..., 1].ravel(), weights=residual.ravel(), minlength=self.extended))
        self.info = _multinomial_information(ext, keep, share, config_total, self.extended)
        embed = _pair_embedding(names, 0, self.extended, [("capturer", 0), ("victim", names)])
        embed = np.concatenate([embed, np.zeros((self.extended, k - 1))], axis=1)
        for o in range(k - 1):
            embed[names * names + o, 2 * names + o] = 1.0
        self.embed = embed
        self.seen = np.bincount(pair.ravel(), weights=np.where(keep, counts, 0.0).ravel(), minlength=names * names)
        self.expected = np.bincount(pair.ravel(), weights=np.where(keep, expected, 0.0).ravel(),
                                    minlength=names * names)
        sums = DealSums(self.extended)
        for part in chunks(deals):  # each game's cells twice: its pair's dimension and its offset's
            res = seen[part] - total[part, None] * share[seating[part]]
            dims = np.stack([pair[seating[part]], np.broadcast_to(names * names + offset, res.shape)], axis=2)
            sums.add(deals[part], dims.reshape(len(res), -1), np.repeat(res, 2, axis=1))
        self.covariance, self.deals = sums.covariance(), sums.deals
        self._prepare()

    def counts(self, helper: int, helped: int) -> tuple[float, float]:
        """The tiles of ``helped``'s color that ``helper`` took, and the model's expectation."""
        dim = helper * self.names + helped
        return float(self.seen[dim]), float(self.expected[dim])


def _seatings(entrants: np.ndarray, names: int) -> tuple[np.ndarray, np.ndarray]:
    """Each game's seating (the entrants by seat) as an index, and the seatings."""
    k = entrants.shape[1]
    if not len(entrants):
        return np.zeros(0, np.int64), np.zeros((0, k), np.int64)
    if names ** k < 2 ** 62:
        code = np.zeros(len(entrants), np.int64)
        for s in range(k):
            code = code * names + entrants[:, s]
        inverse, _ = pd.factorize(code)  # by hashing: a million games' seatings in a tenth of np.unique's time
        first = np.zeros(int(inverse.max()) + 1, np.int64)
        first[inverse[::-1]] = np.arange(len(inverse) - 1, -1, -1)  # each seating's first game
        return inverse.astype(np.int64), entrants[first]
    configs, inverse = np.unique(entrants, axis=0, return_inverse=True)
    return inverse.reshape(-1), configs


def _shares(theta: np.ndarray, columns: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Each kept cell's share of its seating's captures (0 for the cells left out)."""
    eta = np.where(keep, theta[columns].sum(axis=2), -np.inf)
    top = eta.max(axis=1, keepdims=True)
    w = np.exp(eta - np.where(np.isfinite(top), top, 0.0))
    norm = w.sum(axis=1, keepdims=True)
    return w / np.where(norm > 0, norm, 1.0)


def _multinomial_information(columns: np.ndarray, keep: np.ndarray, share: np.ndarray, total: np.ndarray,
                             width: int) -> np.ndarray:
    """``sum_c T_c (X' diag(p) X - X'p p'X)`` over the seatings ``c`` (``columns``: each cell's ones)."""
    parts = columns.shape[2]
    p = np.where(keep, share, 0.0)
    weight = (p * total[:, None]).ravel()
    flat = np.zeros(width * width)
    for a in range(parts):
        for b in range(parts):
            flat += np.bincount((columns[..., a] * width + columns[..., b]).ravel(), weights=weight,
                                minlength=width * width)
    flat_mean = np.zeros(len(share) * width)  # X'p per seating
    rows = np.arange(len(share))[:, None] * width
    for a in range(parts):
        flat_mean += np.bincount((rows + columns[..., a]).ravel(), weights=p.ravel(), minlength=len(share) * width)
    mean = flat_mean.reshape(len(share), width)
    return flat.reshape(width, width) - (mean.T * total) @ mean


def _fit_multinomial(columns: np.ndarray, keep: np.ndarray, counts: np.ndarray, total: np.ndarray,
                     width: int) -> np.ndarray:
    """The maximum (with the ridge) of the multinomial log-likelihood, by Newton's method."""
    theta = np.zeros(width)
    if not total.sum():
        return theta

    def loglik(x: np.ndarray) -> float:
        p = _shares(x, columns, keep)
        return float(np.where(keep, counts * np.log(np.maximum(p, 1e-300)), 0.0).sum()) - 0.5 * RIDGE * float(x @ x)

    current = loglik(theta)
    for _ in range(MAX_ITERATIONS):
        p = _shares(theta, columns, keep)
        residual = np.where(keep, counts - p * total[:, None], 0.0).ravel()
        grad = -RIDGE * theta
        for a in range(columns.shape[2]):
            grad += np.bincount(columns[..., a].ravel(), weights=residual, minlength=width)
        info = _multinomial_information(columns, keep, p, total, width) + RIDGE * np.eye(width)
        step = np.linalg.solve(info, grad)
        size = 1.0
        while True:  # halve a step that would lower the likelihood (far from the maximum)
            trial = theta + size * step
            new = loglik(trial)
            if new >= current - 1e-12 or size < 1e-6:
                break
            size /= 2.0
        theta, current = trial, new
        if np.abs(size * step).max() < 1e-9:
            break
    return theta


# -- gifts ----------------------------------------------------------------------------------------


class GiftModel(PairModel):
    """The groups a seat ends with, against the captures of its tiles (least squares): ``groups = base(j)
    + captures from i x (help(i) + helped(j))`` for victim ``j`` and each capturer ``i`` at the table.  A
    capture can only keep or lower the victim's groups (M3): a lone tile taken is a group fewer.  A pair's
    statistic is its captures' residual product: negative when ``helper``'s captures of ``helped``'s
    tiles cost ``helped`` more groups than anyone's captures predict (gifts)."""

    def __init__(self, entrants: np.ndarray, captures: np.ndarray, groups: np.ndarray, deals: np.ndarray,
                 names: int) -> None:
        games, k = entrants.shape
        self.names, self.offset = names, names
        width = names + names * names  # the victim's own base, then each ordered pair's captures
        seating, configs = _seatings(entrants, names)
        # per seating and victim seat t, k slots: the victim's base, then each other seat's captures of t's tiles
        others = np.array([[s for s in range(k) if s != t] for t in range(k)])  # (k, k - 1)
        dims = np.empty((len(configs), k, k), np.int64)
        dims[:, :, 0] = configs
        dims[:, :, 1:] = names + configs[:, others] * names + configs[:, :, None]
        y = groups.astype(float)

        def slots(part: slice) -> np.ndarray:  # the games' values of the slots: 1, then the captures
            values = np.empty((part.stop - part.start, k, k))
            values[:, :, 0] = 1.0
            values[:, :, 1:] = captures[part][:, others, np.arange(k)[:, None]]
            return values

        # the games summed by seating, a chunk at a time: each slot pair's products, each slot's with the groups
        square = np.zeros((len(configs), k, k, k))
        moment_by = np.zeros((len(configs), k, k))
        for part in chunks(deals):
            values = slots(part)
            square += _by_seating(seating[part], values[:, :, :, None] * values[:, :, None, :], len(configs))
            moment_by += _by_seating(seating[part], values * y[part, :, None], len(configs))
        rows = np.broadcast_to(dims[:, :, :, None], square.shape)
        cols = np.broadcast_to(dims[:, :, None, :], square.shape)
        gram = np.bincount((rows * width + cols).ravel(), weights=square.ravel(),
                           minlength=width * width).reshape(width, width)
        moment = np.bincount(dims.ravel(), weights=moment_by.ravel(), minlength=width)
        embed = np.zeros((width, names))
        embed[:names, :names] = np.eye(names)
        embed = np.concatenate([embed, _pair_embedding(names, names, width, [("capturer", 0), ("victim", names)])],
                               axis=1)
        normal = embed.T @ gram @ embed
        beta = np.linalg.pinv(normal) @ (embed.T @ moment)
        fitted = embed @ beta  # each extended dimension's coefficient
        coefficients = fitted[dims]  # (seatings, k, k)
        squares, scored = 0.0, np.zeros((len(configs), k, k))
        sums = DealSums(width)
        for part in chunks(deals):
            values = slots(part)
            residual = y[part] - np.einsum("gta,gta->gt", coefficients[seating[part]], values)  # (games, k)
            squares += float((residual ** 2).sum())
            scores = values * residual[:, :, None]  # each slot's score
            scored += _by_seating(seating[part], scores, len(configs))
            sums.add(deals[part], dims[seating[part]].reshape(len(scores), -1), scores.reshape(len(scores), -1))
        freedom = max(games * k - np.linalg.matrix_rank(normal), 1)
        self.scale = squares / freedom
        self.vector = np.bincount(dims.ravel(), weights=scored.ravel(), minlength=width)
        self.info, self.embed = gram, embed
        self.covariance, self.deals = sums.covariance(), sums.deals
        taken = square[:, :, 0, 1:]  # the captures of each slot (its product with the base's 1)
        self.captures = np.bincount(dims[:, :, 1:].ravel() - names, weights=taken.ravel(), minlength=names * names)
        self._prepare()


def _by_seating(seating: np.ndarray, values: np.ndarray, seatings: int) -> np.ndarray:
    """``values`` (games first) summed over the games of each seating: ``(seatings, *values.shape[1:])``."""
    size = int(np.prod(values.shape[1:]))
    flat = values.reshape(len(values), size)
    index = seating[:, None] * size + np.arange(size)
    return np.bincount(index.ravel(), weights=flat.ravel(), minlength=seatings * size).reshape(
        (seatings, *values.shape[1:]))


# -- results --------------------------------------------------------------------------------------


class ResultModel(PairModel):
    """Plackett-Luce strengths (:mod:`arena.stats.ratings`), fitted on the games counted by finishing pattern.
    A pair's statistic is the score at 0 of an extra strength ``delta(A, B)`` for B at the tables where A
    sits, on **the rankings with A struck out** (a Plackett-Luce ranking's order of any of its seats is
    Plackett-Luce with the same strengths): positive when B finishes above the others at A's tables more
    often than its strength says, negative when less.  The strengths it is measured against are those of
    the same rankings (A struck out of every game), reached from the strengths of the whole rankings by
    Neyman's C(alpha) correction.  A's own place never enters A's pairs: A playing weakly or throwing at
    some tables lifts everyone there alike and moves none of them, and B beating A more (or less) than
    its strength says is no evidence on ``A -> B``.

    The extended space: each entrant's score on the whole rankings (``[0, n)``), each pair ``(A, j)``'s
    score of ``j`` on A's tables with A struck out (``n + A n + j``), and its score on the whole rankings
    of A's tables (``n + n^2 + A n + j``): the scores on the rankings without A are then ``whole - with +
    pair``, linear in them, and one pass over the games gathers the deals' sums of all."""

    def __init__(self, entrants: np.ndarray, ranks: np.ndarray, deals: np.ndarray, names: int) -> None:
        k = entrants.shape[1]
        self.names, self.offset = names, names
        width = names + 2 * names * names
        pats: Patterns = patterns(entrants, ranks)
        order = pats.order
        self.embed = np.eye(width, names)
        theta = self.embed @ fit(pats, names)[0]
        # the whole rankings: each position's strength, and the same score again for each other entrant A
        whole = np.empty(order.shape + (k,), np.int64)
        whole[..., 0] = order
        for position in range(k):
            for slot, m in enumerate([m for m in range(k) if m != position], 1):
                whole[:, position, slot] = names + names * names + order[:, m] * names + order[:, position]
        per_pattern, self.info = _plackett_luce(theta, pats, whole, width)
        # the rankings without A, for each A at the table in turn
        self.marginal = np.zeros((width, width))
        pair_scores = np.empty((len(order), k, k - 1))
        dims = np.empty((len(order), k, k - 1), np.int64)
        for m in range(k):
            rest = [j for j in range(k) if j != m]
            start = pats.start[:, rest]
            reduced = Patterns(order=order[:, rest], start=start - (start > m), count=pats.count, pattern=pats.pattern)
            pair = names + order[:, m, None] * names + reduced.order
            # each position's strength is its entrant's (the pair's extra strength is 0 under the null)
            score, info = _plackett_luce(theta, reduced, np.stack([reduced.order, pair], axis=2), width)
            self.marginal += info
            pair_scores[:, m], dims[:, m] = score, pair
        with_a = whole[:, :, 1:]  # the whole rankings' scores of A's tables, slot by slot as ``dims``
        pairs = k * (k - 1)
        game_dims = np.concatenate([order, dims.reshape(len(order), pairs), with_a.reshape(len(order), pairs)], axis=1)
        repeated = np.repeat(per_pattern, k - 1, axis=1)  # position p's score, once per other seat
        game_scores = np.concatenate([per_pattern, pair_scores.reshape(len(order), pairs), repeated], axis=1)
        self.vector = np.bincount(game_dims.ravel(), weights=(game_scores * pats.count[:, None]).ravel(),
                                  minlength=width)
        sums = DealSums(width)
        for part in chunks(deals):
            index = pats.pattern[part]
            sums.add(deals[part], game_dims[index], game_scores[index])
        self.covariance, self.deals = sums.covariance(), sums.deals
        self._inverses: dict[int, np.ndarray] = {}

    def _struck(self, helper: int) -> tuple[np.ndarray, np.ndarray]:
        """``(n, width)``: each strength's score on the rankings with ``helper`` struck out, as weights of the
        extended scores; and the inverse of those rankings' information of the strengths."""
        n = self.names
        pair = n + helper * n + np.arange(n)
        with_a = n + n * n + helper * n + np.arange(n)
        weights = np.zeros((n, self.info.shape[0]))
        weights[np.arange(n), np.arange(n)] = 1.0
        weights[np.arange(n), with_a] -= 1.0
        weights[np.arange(n), pair] += 1.0
        weights[helper] = 0.0  # the helper has no place in those rankings, so no strength there
        if helper not in self._inverses:
            information = (self.info[:n, :n] - self.info[np.ix_(with_a, with_a)]
                           + self.marginal[np.ix_(pair, pair)])
            information[helper, :] = information[:, helper] = 0.0
            self._inverses[helper] = np.linalg.pinv(information + RIDGE * np.eye(n))
        return weights, self._inverses[helper]

    def test(self, helper: int, helped: int) -> PairTest:
        """The C(alpha) test of ``delta(helper, helped)``: the pair's score less its projection on the
        strengths' scores (both on the rankings with ``helper`` struck out, at the whole rankings' fit), its
        slope in ``delta`` and its variance."""
        n = self.names
        dim = self.offset + helper * n + helped
        struck, inverse = self._struck(helper)
        pairs = n + helper * n + np.arange(n)
        cross = self.marginal[pairs, dim]  # how the pair's effect moves each strength's score, and back
        projection = inverse @ cross
        weights = -(projection @ struck)
        weights[dim] += 1.0
        information = float(self.marginal[dim, dim] - cross @ projection)
        robust = float(weights @ self.covariance @ weights)
        model = max(information, 0.0)
        return PairTest(float(weights @ self.vector), information, _mixed(robust, model, self.deals), self.deals)


def _plackett_luce(extended: np.ndarray, pats: Patterns, dims: np.ndarray,
                   width: int) -> tuple[np.ndarray, np.ndarray]:
    """Each pattern's per-position score (one game's), and the extended information of all the games."""
    k = pats.order.shape[1]
    strength = extended[dims].sum(axis=2)  # (patterns, k)
    shifted = Patterns(order=np.arange(k)[None, :].repeat(len(strength), axis=0), start=pats.start,
                       count=pats.count, pattern=pats.pattern)
    # _choices reads theta[order]: give it the positions' strengths through a flat index
    flat = Patterns(order=(np.arange(len(strength))[:, None] * k + shifted.order), start=pats.start,
                    count=pats.count, pattern=pats.pattern)
    pi, _ = _choices(strength.ravel(), flat)
    score = 1.0 - pi.sum(axis=1)  # (patterns, k)
    block = np.einsum("pjl,pjm->plm", pi, pi) - np.einsum("pjl,lm->plm", pi, np.eye(k))
    block = -block * pats.count[:, None, None]  # the information between positions
    info = np.zeros(width * width)
    slots = dims.shape[2]  # the parameters each position's strength sums
    for a in range(slots):
        for b in range(slots):
            rows = dims[:, :, a][:, :, None]
            cols = dims[:, :, b][:, None, :]
            info += np.bincount((rows * width + cols).ravel(), weights=block.ravel(), minlength=width * width)
    return score, info.reshape(width, width)

