"""The tables of a tournament, built with pandas from ``games.csv`` alone (read by :mod:`.games`), their
columns named in :mod:`.columns`.

``games.csv`` holds one row per seat per game (:data:`COLUMNS`).  Its
``uptown_rank`` and ``blockers_rank`` are the game's own ranks, as in the game
record.  The tables rank a faulted seat behind every seat that did not fault
(the *tournament rank*): among seats that both faulted, or both did not, the
game's ranks decide.  A seat **wins** when its tournament rank is 1, so a
shared first place is a win for every seat that shares it.

* ``standings``: per entrant, games (seats played), the rating with its 95%
  interval, wins and win share under each scoring with a 95% interval, mean
  tournament rank under each scoring, mean groups, captures, Blockers! penalty
  and score, and faults.
* ``head_to_head``: for each ordered pair of entrants that met, the games they
  shared, how often the first finished ahead of, level with and behind the
  second, and the share of shared games in which it finished ahead.
* ``seats``: the same figures by seat, to show any first-player advantage.
* ``order``: for each ordered pair ``(before, after)`` of entrants where
  ``after`` moves directly after ``before`` (cyclic turn order, rule T3: seat
  ``s`` then seat ``s + 1``, the last seat then seat 0), the games, how often
  ``after`` finished ahead of, level with and behind ``before``, the share
  ahead, and ``after``'s win share and mean rank in those games: what sitting
  right after a given rival does, which the seating design (``balanced``) spreads
  evenly over the entrants.

The **rating** is the maximum-likelihood Plackett-Luce rating of
:func:`arena.stats.ratings.ratings_of`, fitted on every game's whole ranking
by tournament rank under the deciding scoring (faulted seats last, ties
shared): ``mu`` is the entrant's strength (natural log units, the entrants'
mean at 0) and ``sigma`` its standard error, ``rating`` the same on the Elo
scale (100 points more: ahead of the other in 64% of the games), and
``rating_low``-``rating_high`` its 95% interval from the observed Fisher
information.  The fit counts the games by pattern (who finished where), so
its cost does not grow with the games; the same games give the same tables,
with no seed.  An entrant that finished ahead of every opponent every time
(or behind) has no finite maximum: then a weak prior (one virtual win and
one virtual loss against an entrant of strength 0, for every entrant) keeps
the ratings finite, with a wide interval (see :mod:`arena.stats.ratings`).
Games with a number of seats other than the tournament's most common one
are left out of the rating.

The **win share**'s interval is
:func:`arena.stats.intervals.win_share_interval`: Wilson's interval on the
effective number of games, the deals as clusters; it does not collapse at 0
or 100% wins.

**The order rule.** The standings are ordered by the rating (the point
estimate), best first; equal ratings by the deciding scoring's win share,
then its mean rank, then the name.  An entrant that played no game has no
rating and comes last.  So a place never contradicts the rating printed
beside it; the win shares are shown beside it, and may disagree with the
order, since the rating reads each game's whole ranking and the win share
only who came first.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from arena.report import columns as col
from arena.report.games import TABLE_COLUMNS, games_frame, load_games, seat_grid, with_tournament_ranks
from arena.results.files import write_atomically
from arena.rules.state import SCORINGS
from arena.stats.intervals import win_share_interval
from arena.stats.ratings import RankedGame, ratings_of

__all__ = [
    "TABLE_COLUMNS", "Tables", "build_tables", "games_frame", "head_to_head", "load_games", "order", "pairs",
    "rated_games", "rating_arrays", "ratings", "seat_grid", "seats", "standings", "time_use", "win_share_intervals",
    "with_tournament_ranks", "write_tables",
]


@dataclass
class Tables:
    """The tables of a tournament, and the scoring they are ordered by.

    Each frame has the columns of its ``*_COLUMNS`` tuple (:data:`~arena.report.columns.STANDINGS_COLUMNS`,
    :data:`~arena.report.columns.HEAD_TO_HEAD_COLUMNS`, :data:`~arena.report.columns.SEATS_COLUMNS`, :data:`~arena.report.columns.ORDER_COLUMNS`,
    :data:`~arena.report.columns.TIME_USE_COLUMNS`), in that order, a
    row per entrant, pair or seat (none before the first game); the standings are in place order.
    """

    scoring: str
    standings: pd.DataFrame
    head_to_head: pd.DataFrame
    seats: pd.DataFrame
    order: pd.DataFrame
    #: Each entrant's time use, in standings order: not part of the results (it differs run to run).
    time_use: pd.DataFrame


# -- tables ----------------------------------------------------------------


def pairs(games: pd.DataFrame, scoring: str) -> pd.DataFrame:
    """Every ordered pair of seats of different entrants in the same game, with who finished ahead."""
    rank = f"t_{scoring}_rank"
    left = games[["game_id", "entrant", rank]]
    both = left.merge(left, on="game_id", suffixes=("", "_other"))
    both = both[both["entrant"] != both["entrant_other"]]
    return pd.DataFrame({
        "entrant": both["entrant"].to_numpy(),
        "opponent": both["entrant_other"].to_numpy(),
        "game_id": both["game_id"].to_numpy(),
        "ahead": (both[rank] < both[f"{rank}_other"]).to_numpy().astype(int),
        "tied": (both[rank] == both[f"{rank}_other"]).to_numpy().astype(int),
        "behind": (both[rank] > both[f"{rank}_other"]).to_numpy().astype(int),
    })


def head_to_head(games: pd.DataFrame, scoring: str) -> pd.DataFrame:
    """Per ordered pair: shared games, ahead / tied / behind counts, and the share of games finished ahead.

    A pair that met several times in one game (a filled table) counts that game once,
    by the majority of its seat pairs.
    """
    columns = list(col.HEAD_TO_HEAD_COLUMNS)
    fast = _grid_codes(games)
    if fast is not None:
        names, codes, grid = fast
        rank = games[f"t_{scoring}_rank"].to_numpy()[grid]
        n, players = len(names), grid.shape[1]
        counts = np.zeros((3, n * n), dtype=np.int64)
        for i in range(players):
            for j in range(players):
                if i != j:
                    key = codes[:, i] * n + codes[:, j]
                    for k, hit in enumerate((rank[:, i] < rank[:, j], rank[:, i] == rank[:, j],
                                             rank[:, i] > rank[:, j])):
                        counts[k] += np.bincount(key[hit], minlength=n * n)
        return _pair_table(names, counts, columns)
    p = pairs(games, scoring)
    if p.empty:
        return pd.DataFrame(columns=columns)
    per_game = p.groupby(["entrant", "opponent", "game_id"], sort=True)[["ahead", "tied", "behind"]].sum()
    outcome = np.sign(per_game["ahead"] - per_game["behind"])
    per_game = pd.DataFrame({
        "ahead": (outcome > 0).astype(int), "tied": (outcome == 0).astype(int), "behind": (outcome < 0).astype(int),
    })
    table = per_game.groupby(level=["entrant", "opponent"], sort=True).sum()
    table.insert(0, col.GAMES, table[[col.AHEAD, col.TIED, col.BEHIND]].sum(axis=1))
    table[col.AHEAD_SHARE] = table[col.AHEAD] / table[col.GAMES]
    return table.reset_index()[columns]


def _distinct_entrants(codes: np.ndarray) -> bool:
    """Whether no game of the grid of entrant codes seats one entrant twice."""
    players = codes.shape[1]
    return all((codes[:, i] != codes[:, j]).all() for i in range(players) for j in range(i + 1, players))


def _grid_codes(games: pd.DataFrame) -> tuple[list[str], np.ndarray, np.ndarray] | None:
    """``(names, entrant codes by game and seat, seat grid)`` when the frame is a :func:`seat_grid` whose games
    seat no entrant twice (then a pair of entrants meets at most once a game); else None."""
    grid = seat_grid(games)
    if grid is None:
        return None
    codes, uniques = pd.factorize(games["entrant"].astype(str), sort=True)
    codes = np.asarray(codes)[grid]
    if not _distinct_entrants(codes):
        return None
    return [str(name) for name in uniques], codes, grid


def _pair_table(names: list[str], counts: np.ndarray, columns: list[str],
                extra: dict[str, np.ndarray] | None = None) -> pd.DataFrame:
    """The rows of every ordered pair of ``names`` that met (``counts``: ahead, tied, behind by ``a * n + b``)."""
    n = len(names)
    total = counts.sum(axis=0)
    met = np.flatnonzero(total)
    table = pd.DataFrame({
        columns[0]: pd.array([names[k // n] for k in met], dtype="str"),
        columns[1]: pd.array([names[k % n] for k in met], dtype="str"),
        col.GAMES: total[met], col.AHEAD: counts[0][met], col.TIED: counts[1][met], col.BEHIND: counts[2][met],
    })
    table[col.AHEAD_SHARE] = table[col.AHEAD] / table[col.GAMES]
    for name, values in (extra or {}).items():
        table[name] = values[met] / total[met]
    return table


def rated_games(games: pd.DataFrame, scoring: str) -> list[RankedGame]:
    """Each game's ranking by tournament rank under ``scoring``, by game id, as :class:`~arena.stats.ratings.RankedGame` s.

    What :func:`arena.stats.ratings.ranked_games` gives (a game's deal is its
    ``(table, deal)``, its seats in seat order), read with numpy rather than a group per game.
    """
    if games.empty:
        return []
    rank = f"t_{scoring}_rank"
    rows = games.sort_values(["game_id", "seat"], kind="mergesort")
    ids = rows["game_id"].astype(str).to_numpy()
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    ends = np.r_[starts[1:], len(ids)]
    entrants = rows["entrant"].astype(str).to_numpy()
    ranks = rows[rank].to_numpy(dtype=float)
    tables = rows["table"].to_numpy()
    deals = rows["deal"].to_numpy()
    return [
        RankedGame(game_id=str(ids[a]), deal=(int(tables[a]), int(deals[a])),
                   entrants=tuple(entrants[a:b].tolist()), ranks=tuple(ranks[a:b].tolist()))
        for a, b in zip(starts, ends)
    ]


def rating_arrays(games: pd.DataFrame, scoring: str,
                  names: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(seats, ranks, deals)``: per game (one row each) the entrant index (into ``names``) and
    tournament rank under ``scoring`` of every seat, and a code of its ``(table, deal)``, for
    :func:`arena.stats.ratings.ratings_of`.

    Vectorised (no object a game).  Games whose seat count differs from the most common one are
    left out (a table of another size is another model).
    """
    codes = pd.Categorical(games["entrant"], categories=list(names)).codes
    tables, deals = games["table"].to_numpy(dtype=np.int64), games["deal"].to_numpy(dtype=np.int64)
    width = int(deals.max()) + 1
    grid = seat_grid(games)
    if grid is not None:  # a run's own file: each game's rows together, in seat order; no copy of a row each
        first = grid[:, 0]
        return (codes[grid].astype(np.int64), games[f"t_{scoring}_rank"].to_numpy()[grid].astype(float),
                tables[first] * width + deals[first])
    codes = codes.astype(np.int64)
    game = pd.factorize(games["game_id"])[0]
    order = np.lexsort((games["seat"].to_numpy(), game))
    game, codes = game[order], codes[order]
    ranks = games[f"t_{scoring}_rank"].to_numpy(dtype=float)[order]
    deal = (tables * width + deals)[order]
    size = np.bincount(game)
    players = int(np.bincount(size).argmax())
    keep = size[game] == players
    return (codes[keep].reshape(-1, players), ranks[keep].reshape(-1, players),
            deal[keep].reshape(-1, players)[:, 0])


def ratings(games: pd.DataFrame, scoring: str, entrants: Sequence[str]) -> pd.DataFrame:
    """Per entrant (indexed by name): ``rating``, ``rating_low``, ``rating_high``, ``mu``, ``sigma``.

    See the module docstring.  An entrant without games has ``nan`` everywhere.
    """
    columns = [col.RATING, col.RATING_LOW, col.RATING_HIGH, col.MU, col.SIGMA]
    table = pd.DataFrame(math.nan, index=pd.Index(list(entrants), name=col.ENTRANT), columns=columns)
    if games.empty:
        return table
    played = set(games["entrant"].astype(str))
    names = [name for name in entrants if name in played]
    seats, ranks, deals = rating_arrays(games, scoring, names)
    if not len(seats):
        return table
    fitted = ratings_of(seats, ranks, names, deals).set_index("entrant")
    table.loc[names, col.RATING] = fitted["elo"]
    table.loc[names, col.RATING_LOW] = fitted["elo_low"]
    table.loc[names, col.RATING_HIGH] = fitted["elo_high"]
    table.loc[names, col.MU] = fitted["mu"]
    table.loc[names, col.SIGMA] = fitted["sigma"]
    return table


def win_share_intervals(games: pd.DataFrame, scoring: str, entrants: Sequence[str]) -> pd.DataFrame:
    """Per entrant (indexed by name): the 95% interval ``low``, ``high`` of its win share under ``scoring``.

    :func:`arena.stats.intervals.win_share_interval` on the entrant's wins and games per deal.
    """
    per_deal = games.groupby(["entrant", "table", "deal"], sort=True)[f"t_{scoring}_won"].agg(["sum", "size"])
    out = pd.DataFrame(math.nan, index=pd.Index(list(entrants), name="entrant"), columns=["low", "high"])
    for name, part in per_deal.groupby(level="entrant", sort=False):
        if name in out.index:
            _, low, high = win_share_interval(part["sum"].to_numpy(dtype=float), part["size"].to_numpy(dtype=float))
            out.loc[name] = (low, high)
    return out


def standings(games: pd.DataFrame, scoring: str, entrants: Sequence[str] | None = None) -> pd.DataFrame:
    """Per entrant figures (:data:`~arena.report.columns.STANDINGS_COLUMNS`), ordered by the rating under ``scoring`` (the order
    rule of the module docstring)."""
    if entrants is None:
        entrants = sorted(games["entrant"].unique())
    grouped = games.groupby("entrant", sort=True)
    table = pd.DataFrame(index=pd.Index(list(entrants), name=col.ENTRANT))
    first_bot = grouped["bot"].first()
    table[col.BOT] = first_bot.reindex(table.index).fillna("")
    table[col.GAMES] = grouped.size().reindex(table.index, fill_value=0).astype(int)
    table = table.join(ratings(games, scoring, list(entrants)))
    for s in SCORINGS:
        won = f"t_{s}_won"
        table[col.WINS[s]] = grouped[won].sum().reindex(table.index, fill_value=0).astype(int)
        table[col.WIN_SHARE[s]] = table[col.WINS[s]] / table[col.GAMES].where(table[col.GAMES] > 0)
        interval = win_share_intervals(games, s, list(entrants))
        table[col.CI_LOW[s]] = interval["low"]
        table[col.CI_HIGH[s]] = interval["high"]
        table[col.MEAN_RANK[s]] = grouped[f"t_{s}_rank"].mean().reindex(table.index)
    table[col.MEAN_GROUPS] = grouped["groups"].mean().reindex(table.index)
    table[col.MEAN_CAPTURES] = grouped["captured_total"].mean().reindex(table.index)
    table[col.MEAN_BLOCKERS_PENALTY] = grouped["blockers_penalty"].mean().reindex(table.index)
    table[col.MEAN_BLOCKERS_SCORE] = grouped["blockers_score"].mean().reindex(table.index)
    table[col.FAULTS] = grouped["faulted"].sum().reindex(table.index, fill_value=0).astype(int)
    table = table.reset_index()
    table = table.sort_values(
        [col.RATING, col.WIN_SHARE[scoring], col.MEAN_RANK[scoring], col.ENTRANT],
        ascending=[False, False, True, True], kind="mergesort", na_position="last",
    ).reset_index(drop=True)
    table.insert(0, col.PLACE, range(1, len(table) + 1))
    return table


def seats(games: pd.DataFrame) -> pd.DataFrame:
    """The figures by seat (:data:`~arena.report.columns.SEATS_COLUMNS`): games, win share and mean rank under each scoring, groups,
    captures, faults."""
    grouped = games.groupby("seat", sort=True)
    table = pd.DataFrame({col.GAMES: grouped.size()})
    for s in SCORINGS:
        table[col.WIN_SHARE[s]] = grouped[f"t_{s}_won"].mean()
        table[col.MEAN_RANK[s]] = grouped[f"t_{s}_rank"].mean()
    table[col.MEAN_GROUPS] = grouped["groups"].mean()
    table[col.MEAN_CAPTURES] = grouped["captured_total"].mean()
    table[col.MEAN_BLOCKERS_SCORE] = grouped["blockers_score"].mean()
    table[col.FAULTS] = grouped["faulted"].sum().astype(int)
    return table.reset_index()


def order(games: pd.DataFrame, scoring: str) -> pd.DataFrame:
    """The result by who sits directly before whom (see the module docstring and :data:`~arena.report.columns.ORDER_COLUMNS`).

    ``ahead``, ``tied`` and ``behind`` count games by the tournament rank under
    ``scoring``: ``after`` finished ahead of ``before`` (a lower rank), level, or
    behind; ``ahead_share`` is ``ahead / games``.  ``after_win_share_S`` and
    ``after_mean_rank_S`` are ``after``'s win share and mean tournament rank in
    those games under each scoring.  A filled table can make the pair adjacent
    more than once in one game: the game counts once, ``ahead`` / ``tied`` /
    ``behind`` by the majority of its adjacent seat pairs, ``after``'s figures
    the mean of its seats in them.  With 2 players every game counts for both
    ``(A, B)`` and ``(B, A)`` (the seats alternate).
    """
    if games.empty:
        return pd.DataFrame(columns=list(col.ORDER_COLUMNS))
    # after_win_share_S and after_mean_rank_S come from the after seat's t_S_won and t_S_rank
    figures = {name: f"t_{s}_{column}" for s in SCORINGS
               for name, column in ((col.AFTER_WIN_SHARE[s], "won"), (col.AFTER_MEAN_RANK[s], "rank"))}
    fast = _grid_codes(games)
    if fast is not None:  # each ordered pair is adjacent at most once a game: a game is an adjacency
        names, codes, grid = fast
        rank = games[f"t_{scoring}_rank"].to_numpy()[grid]
        n, players = len(names), grid.shape[1]
        counts = np.zeros((3, n * n), dtype=np.int64)
        sums = {name: np.zeros(n * n) for name in figures}
        for seat in range(players):
            after = (seat + 1) % players
            key = codes[:, seat] * n + codes[:, after]
            for k, hit in enumerate((rank[:, after] < rank[:, seat], rank[:, after] == rank[:, seat],
                                     rank[:, after] > rank[:, seat])):
                counts[k] += np.bincount(key[hit], minlength=n * n)
            for name, column in figures.items():
                sums[name] += np.bincount(key, weights=games[column].to_numpy()[grid][:, after], minlength=n * n)
        table = _pair_table(names, counts, [col.BEFORE, col.AFTER], sums)
        return table[list(col.ORDER_COLUMNS)] if len(table) else pd.DataFrame(columns=list(col.ORDER_COLUMNS))
    seat = games[["game_id", "seat", "entrant", *figures.values()]]
    size = games.groupby("game_id")["seat"].transform("size")
    before = seat.assign(next_seat=(games["seat"] + 1) % size)
    both = before.merge(
        seat, left_on=["game_id", "next_seat"], right_on=["game_id", "seat"], suffixes=("_before", "_after"),
    )
    both = both[both["entrant_before"] != both["entrant_after"]]
    rank = f"t_{scoring}_rank"
    adjacent = pd.DataFrame({
        "before": both["entrant_before"].to_numpy(),
        "after": both["entrant_after"].to_numpy(),
        "game_id": both["game_id"].to_numpy(),
        "lead": np.sign(both[f"{rank}_before"].to_numpy() - both[f"{rank}_after"].to_numpy()),
        **{name: both[f"{column}_after"].to_numpy() for name, column in figures.items()},
    })
    if adjacent.empty:
        return pd.DataFrame(columns=list(col.ORDER_COLUMNS))
    per_game = adjacent.groupby(["before", "after", "game_id"], sort=True).agg(
        lead=("lead", "sum"), **{name: (name, "mean") for name in figures},
    )
    outcome = np.sign(per_game["lead"])
    per_game = per_game.assign(ahead=(outcome > 0).astype(int), tied=(outcome == 0).astype(int),
                               behind=(outcome < 0).astype(int))
    grouped = per_game.groupby(level=["before", "after"], sort=True)
    table = grouped[["ahead", "tied", "behind"]].sum()
    table.insert(0, col.GAMES, grouped.size())
    table[col.AHEAD_SHARE] = table[col.AHEAD] / table[col.GAMES]
    for name in figures:
        table[name] = grouped[name].mean()
    return table.reset_index()[list(col.ORDER_COLUMNS)]


def build_tables(games: pd.DataFrame, scoring: str, entrants: Sequence[str] | None = None) -> Tables:
    """All the tables of a tournament from its ``games.csv`` frame (see :func:`load_games`)."""
    ranked = standings(games, scoring, entrants)
    return Tables(
        scoring=scoring,
        standings=ranked,
        head_to_head=head_to_head(games, scoring),
        seats=seats(games),
        order=order(games, scoring),
        time_use=time_use(games, list(ranked[col.ENTRANT])),
    )


def time_use(games: pd.DataFrame, entrants: Sequence[str]) -> pd.DataFrame:
    """Per entrant, in the order of ``entrants`` (:data:`~arena.report.columns.TIME_USE_COLUMNS`): the turns
    its bot was asked, its thinking time per turn asked (the mean) and its longest turn, the games it
    lost on time, and the mean time left on its game clock at the end.  A figure no row gives (an older
    arena's ``games.csv``; no clock) is missing (NaN)."""
    table = pd.DataFrame(index=pd.Index(list(entrants), name=col.ENTRANT))
    if games.empty or "asked" not in games.columns:
        for column in col.TIME_USE_COLUMNS[1:]:
            table[column] = 0 if column == col.GAMES else math.nan
        return table.reset_index()
    # Numbers, an empty field missing, however the frame was read.
    figures = {c: pd.to_numeric(games[c], errors="coerce") for c in ("seconds", "asked", "longest", "lost_on_time",
                                                                     "clock_left")}
    timed = pd.DataFrame({"entrant": games["entrant"], **figures})[figures["asked"].notna()]
    grouped = games.groupby("entrant", sort=False, observed=True)
    by_timed = timed.groupby("entrant", sort=False, observed=True)
    table[col.GAMES] = grouped.size().reindex(table.index, fill_value=0).astype(int)
    asked = by_timed["asked"].sum().reindex(table.index)
    table[col.MOVES_ASKED] = asked
    table[col.MEAN_MOVE_SECONDS] = by_timed["seconds"].sum().reindex(table.index) / asked.where(asked > 0)
    table[col.LONGEST_MOVE_SECONDS] = by_timed["longest"].max().reindex(table.index)
    table[col.LOST_ON_TIME] = by_timed["lost_on_time"].sum().reindex(table.index)
    table[col.MEAN_CLOCK_LEFT] = by_timed["clock_left"].mean().reindex(table.index)
    return table.reset_index()[list(col.TIME_USE_COLUMNS)]


def write_tables(folder: str | Path, tables: Tables) -> None:
    """Write ``standings.csv``, ``head_to_head.csv``, ``seats.csv`` and ``order.csv`` into ``folder``.

    Each through a temporary file: a write that fails (full disk, read-only folder, a folder
    where the file should be) is a one-line :class:`~arena.results.files.RunError` that leaves no temporary
    file and the table as it was.
    """
    folder = Path(folder)
    for name in col.TABLE_NAMES:
        write_atomically(folder / f"{name}.csv", _csv_writer(getattr(tables, name)))


def _csv_writer(frame: pd.DataFrame) -> Callable[[Path], None]:
    def write(tmp: Path) -> None:
        frame.to_csv(tmp, index=False, float_format="%.6g", lineterminator="\n")

    return write
