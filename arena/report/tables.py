"""The tables of a tournament, built with pandas from ``games.csv`` alone.

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

import io
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from arena.plan.config import TournamentConfig
from arena.report.stamp import write_stamp
from arena.results.files import GAMES_FILE, TABLE_FILES, RunError, write_atomically
from arena.results.rows import COLUMNS
from arena.rules.state import SCORINGS
from arena.stats.intervals import win_share_interval
from arena.stats.ratings import RankedGame, ratings_of

FORMATS = ("text", "csv", "markdown", "json")


# -- the columns -------------------------------------------------------------
# The contract between these tables and what reads them (the plots, the text and the HTML report, the
# CSV files): each column's name, once.  A name that depends on the scoring is a dict by scoring.


def _by_scoring(pattern: str) -> dict[str, str]:
    return {s: pattern.format(s) for s in SCORINGS}


#: Who a row is about: an entrant's name (standings; the first of a pair in head_to_head), its bot spec.
ENTRANT, BOT = "entrant", "bot"
#: The standings' order, from 1 (the order rule of the module docstring).
PLACE = "place"
#: Games counted: seats played (standings, seats), games shared (head_to_head), games adjacent (order).
GAMES = "games"
#: The rating on the Elo scale and its 95% interval; ``mu`` and ``sigma`` the same in natural log units.
RATING, RATING_LOW, RATING_HIGH, MU, SIGMA = "rating", "rating_low", "rating_high", "mu", "sigma"
#: Per scoring: the wins, the win share, its 95% interval (standings only) and the mean tournament rank.
WINS = _by_scoring("wins_{}")
WIN_SHARE = _by_scoring("win_share_{}")
CI_LOW = _by_scoring("ci_low_{}")
CI_HIGH = _by_scoring("ci_high_{}")
MEAN_RANK = _by_scoring("mean_rank_{}")
#: Means over the seats played, and the seats faulted.
MEAN_GROUPS, MEAN_CAPTURES = "mean_groups", "mean_captures"
MEAN_BLOCKERS_PENALTY, MEAN_BLOCKERS_SCORE = "mean_blockers_penalty", "mean_blockers_score"
FAULTS = "faults"
#: The seat, from 0 (seats).
SEAT = "seat"
#: The second of a pair (head_to_head), and the games the first finished ahead of, level with and
#: behind it, and the share ahead (head_to_head and order).
OPPONENT = "opponent"
AHEAD, TIED, BEHIND, AHEAD_SHARE = "ahead", "tied", "behind", "ahead_share"
#: The pair of order: ``after`` moves directly after ``before``; ``after``'s win share and mean rank there.
BEFORE, AFTER = "before", "after"
AFTER_WIN_SHARE = _by_scoring("after_win_share_{}")
AFTER_MEAN_RANK = _by_scoring("after_mean_rank_{}")

#: The columns of each table, in the order of its CSV file.
STANDINGS_COLUMNS = (
    PLACE, ENTRANT, BOT, GAMES, RATING, RATING_LOW, RATING_HIGH, MU, SIGMA,
    *(c for s in SCORINGS for c in (WINS[s], WIN_SHARE[s], CI_LOW[s], CI_HIGH[s], MEAN_RANK[s])),
    MEAN_GROUPS, MEAN_CAPTURES, MEAN_BLOCKERS_PENALTY, MEAN_BLOCKERS_SCORE, FAULTS,
)
HEAD_TO_HEAD_COLUMNS = (ENTRANT, OPPONENT, GAMES, AHEAD, TIED, BEHIND, AHEAD_SHARE)
SEATS_COLUMNS = (
    SEAT, GAMES, *(c for s in SCORINGS for c in (WIN_SHARE[s], MEAN_RANK[s])),
    MEAN_GROUPS, MEAN_CAPTURES, MEAN_BLOCKERS_SCORE, FAULTS,
)
ORDER_COLUMNS = (
    BEFORE, AFTER, GAMES, AHEAD, TIED, BEHIND, AHEAD_SHARE,
    *(c for s in SCORINGS for c in (AFTER_WIN_SHARE[s], AFTER_MEAN_RANK[s])),
)
#: The tables :func:`write_tables` writes, each to ``NAME.csv`` (:data:`~arena.results.files.TABLE_FILES`).
TABLE_NAMES = tuple(file.removesuffix(".csv") for file in TABLE_FILES)


@dataclass
class Tables:
    """The tables of a tournament, and the scoring they are ordered by.

    Each frame has the columns of its ``*_COLUMNS`` tuple (:data:`STANDINGS_COLUMNS`,
    :data:`HEAD_TO_HEAD_COLUMNS`, :data:`SEATS_COLUMNS`, :data:`ORDER_COLUMNS`), in that order, a
    row per entrant, pair or seat (none before the first game); the standings are in place order.
    """

    scoring: str
    standings: pd.DataFrame
    head_to_head: pd.DataFrame
    seats: pd.DataFrame
    order: pd.DataFrame


# -- reading -----------------------------------------------------------------


_TEXT_COLUMNS = ("game_id", "entrant", "bot")
#: What each column of ``games.csv`` is read as: text the few names, 64-bit integers the seeds, the
#: smallest integer that holds the rest (a million games' rows then take tens of megabytes, not hundreds).
_DTYPES: dict[str, str] = {
    **{c: "int32" for c in COLUMNS if c not in _TEXT_COLUMNS},
    **{c: "int16" for c in ("groups", "captured_total", "blockers_penalty", "blockers_score")},
    **{c: "int8" for c in ("seat", "uptown_rank", "blockers_rank", "faulted")},
    "seed": "int64", "seconds": "float64", "game_id": "category", "entrant": "category", "bot": "category",
}
#: The columns the tables read (:func:`build_tables`); the others are for people and other tools.
TABLE_COLUMNS = ("game_id", "table", "deal", "seat", "entrant", "bot", "groups", "captured_total",
                 "blockers_penalty", "blockers_score", "uptown_rank", "blockers_rank", "faulted")


def load_games(path: str | Path, players: int | None = None, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """``games.csv`` as a frame, with each seat's tournament rank under both scorings added.

    Only complete lines are read, and with ``players`` given only games with a
    row for every seat, so the folder of a run still going on, or interrupted,
    can be read as it is.  ``columns`` (default: all) are the columns to read
    (``game_id``, ``seat``, ``faulted`` and the ranks always are).  A file a run
    wrote is parsed at once with each column's type; one with a damaged row
    is read as text first, and every game with a row that is not numbers
    where numbers belong is left out (counted in ``attrs["unreadable"]``).
    """
    wanted = list(COLUMNS) if columns is None else [c for c in COLUMNS if c in {*columns, *_ALWAYS}]
    try:
        games = _read_typed(Path(path), wanted)
        ignored: set[str] = set()
    except (ValueError, TypeError, OverflowError):
        games, ignored = _read_checked(Path(path), wanted)
    return _complete(games, players, len(ignored))


def games_frame(data: bytes, source: str = "games.csv", players: int | None = None) -> pd.DataFrame:
    """:func:`load_games` of the text ``data`` of a ``games.csv`` (header first); ``source`` names it in errors."""
    games, ignored = _checked_frame(data, source, list(COLUMNS))
    return _complete(games, players, len(ignored))


def _complete(games: pd.DataFrame, players: int | None, unreadable: int) -> pd.DataFrame:
    """The games with a row for each of ``players`` seats, with their tournament ranks."""
    if players is not None and len(games):
        sizes = games.groupby("game_id", sort=False)["seat"].transform("size")
        if (sizes != players).any():
            games = games[sizes == players]
    games = with_tournament_ranks(games.reset_index(drop=True))
    games.attrs["unreadable"] = unreadable
    return games


#: The columns every frame of :func:`load_games` holds: what ranks and complete games are read from.
_ALWAYS = ("game_id", "seat", "faulted", "uptown_rank", "blockers_rank")


def _header(path: Path) -> list[str]:
    with open(path, encoding="utf-8", errors="replace") as f:
        first = f.readline()
    if not first:
        raise ValueError(f"{path}: empty")
    header = first.rstrip("\r\n").split(",")
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise ValueError(f"{path}: not a games table (no column {missing[0]})")
    return header


class _Damaged(ValueError):
    """A row that does not parse with the column types."""


def _read_typed(path: Path, wanted: list[str]) -> pd.DataFrame:
    """The file parsed with the column types at once; :class:`ValueError` when any row does not fit them."""
    header = _header(path)
    with open(path, "rb") as f:
        f.seek(0, 2)
        size = f.tell()
        f.seek(max(0, size - 1))
        whole_lines = size == 0 or f.read(1) == b"\n"
    if not whole_lines:
        raise _Damaged("a half-written last line")
    games = pd.read_csv(path, usecols=wanted, dtype={c: _DTYPES[c] for c in wanted}, keep_default_na=False,
                        na_filter=False, engine="c")
    if len(header) != len(COLUMNS):
        raise _Damaged("another header")
    return games[wanted]


def _read_checked(path: Path, wanted: list[str]) -> tuple[pd.DataFrame, set[str]]:
    """The file read as text, complete lines only, every game with a row that is not numbers left out."""
    return _checked_frame(path.read_bytes(), str(path), wanted)


def _checked_frame(data: bytes, path: str, wanted: list[str]) -> tuple[pd.DataFrame, set[str]]:
    """:func:`_read_checked` of the text ``data``; ``path`` names it in errors."""
    data = data[: data.rfind(b"\n") + 1]
    if not data:
        raise ValueError(f"{path}: empty")
    games = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False, on_bad_lines="skip")
    missing = [c for c in COLUMNS if c not in games.columns]
    if missing:
        raise ValueError(f"{path}: not a games table (no column {missing[0]})")
    games = games[wanted]
    # A row that is not numbers where numbers belong (an edited or damaged line) takes its game out.
    numeric = [c for c in wanted if c not in _TEXT_COLUMNS]
    values = games[numeric].apply(pd.to_numeric, errors="coerce")
    whole = [c for c in numeric if c != "seconds"]
    bad = values.isna().any(axis=1) | (values[whole] % 1 != 0).any(axis=1)
    ignored = set(games.loc[bad, "game_id"])
    games = games[~games["game_id"].isin(ignored)].copy()
    # Read again once the bad rows are gone: with a NaN among them, 63-bit seeds would have become floats.
    for column in numeric:
        games[column] = pd.to_numeric(games[column]).astype("int64" if column in whole else "float64")
    return games, ignored


def seat_grid(games: pd.DataFrame) -> np.ndarray | None:
    """The frame's rows as a ``(games, seats)`` grid of row numbers, when every game's rows are together in
    seat order 0, 1, … and every game has as many (a sorted ``games.csv``: what a run leaves); else None.

    The tables then read each game's seats side by side with numpy instead of grouping by game id,
    which for a million games takes seconds instead of minutes, and memory by the row, not by the pair.
    """
    if games.empty:
        return None
    seat = games["seat"].to_numpy()
    players = int(seat.max()) + 1
    if players < 2 or len(seat) % players or not np.array_equal(seat, np.tile(np.arange(players), len(seat) // players)):
        return None
    ids = games["game_id"].to_numpy().reshape(-1, players)
    if not all((ids[:, 0] == ids[:, s]).all() for s in range(1, players)) or not pd.Index(ids[:, 0]).is_unique:
        return None
    return np.arange(len(seat)).reshape(-1, players)


def _distinct_entrants(codes: np.ndarray) -> bool:
    """Whether no game of the grid of entrant codes seats one entrant twice."""
    players = codes.shape[1]
    return all((codes[:, i] != codes[:, j]).all() for i in range(players) for j in range(i + 1, players))


def with_tournament_ranks(games: pd.DataFrame) -> pd.DataFrame:
    """Add ``t_uptown_rank`` and ``t_blockers_rank``: the ranks with faulted seats put last."""
    games = games.copy(deep=False)  # copy-on-write: the caller's frame is never changed, and nothing is copied
    grid = seat_grid(games)
    for scoring in SCORINGS:
        if grid is not None:
            # Ranks are at most 5, so faulting dominates any rank difference; a seat's rank is one more
            # than the seats of its game with a smaller key ("min" ranks).
            key = (games["faulted"].to_numpy() * 10 + games[f"{scoring}_rank"].to_numpy())[grid]
            rank = 1 + (key[:, None, :] < key[:, :, None]).sum(axis=2, dtype=np.int8)
            games[f"t_{scoring}_rank"] = rank.ravel()
            games[f"t_{scoring}_won"] = (rank.ravel() == 1).astype(np.int8)
            continue
        # Ranks are at most 5, so faulting dominates any rank difference.
        key = games["faulted"].astype(int) * 10 + games[f"{scoring}_rank"]
        games[f"t_{scoring}_rank"] = key.groupby(games["game_id"], observed=True).rank(method="min").astype(np.int8)
        games[f"t_{scoring}_won"] = (games[f"t_{scoring}_rank"] == 1).astype(np.int8)
    return games


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
    columns = list(HEAD_TO_HEAD_COLUMNS)
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
    table.insert(0, GAMES, table[[AHEAD, TIED, BEHIND]].sum(axis=1))
    table[AHEAD_SHARE] = table[AHEAD] / table[GAMES]
    return table.reset_index()[columns]


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
        GAMES: total[met], AHEAD: counts[0][met], TIED: counts[1][met], BEHIND: counts[2][met],
    })
    table[AHEAD_SHARE] = table[AHEAD] / table[GAMES]
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
    columns = [RATING, RATING_LOW, RATING_HIGH, MU, SIGMA]
    table = pd.DataFrame(math.nan, index=pd.Index(list(entrants), name=ENTRANT), columns=columns)
    if games.empty:
        return table
    played = set(games["entrant"].astype(str))
    names = [name for name in entrants if name in played]
    seats, ranks, deals = rating_arrays(games, scoring, names)
    if not len(seats):
        return table
    fitted = ratings_of(seats, ranks, names, deals).set_index("entrant")
    table.loc[names, RATING] = fitted["elo"]
    table.loc[names, RATING_LOW] = fitted["elo_low"]
    table.loc[names, RATING_HIGH] = fitted["elo_high"]
    table.loc[names, MU] = fitted["mu"]
    table.loc[names, SIGMA] = fitted["sigma"]
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
    """Per entrant figures (:data:`STANDINGS_COLUMNS`), ordered by the rating under ``scoring`` (the order
    rule of the module docstring)."""
    if entrants is None:
        entrants = sorted(games["entrant"].unique())
    grouped = games.groupby("entrant", sort=True)
    table = pd.DataFrame(index=pd.Index(list(entrants), name=ENTRANT))
    first_bot = grouped["bot"].first()
    table[BOT] = first_bot.reindex(table.index).fillna("")
    table[GAMES] = grouped.size().reindex(table.index, fill_value=0).astype(int)
    table = table.join(ratings(games, scoring, list(entrants)))
    for s in SCORINGS:
        won = f"t_{s}_won"
        table[WINS[s]] = grouped[won].sum().reindex(table.index, fill_value=0).astype(int)
        table[WIN_SHARE[s]] = table[WINS[s]] / table[GAMES].where(table[GAMES] > 0)
        interval = win_share_intervals(games, s, list(entrants))
        table[CI_LOW[s]] = interval["low"]
        table[CI_HIGH[s]] = interval["high"]
        table[MEAN_RANK[s]] = grouped[f"t_{s}_rank"].mean().reindex(table.index)
    table[MEAN_GROUPS] = grouped["groups"].mean().reindex(table.index)
    table[MEAN_CAPTURES] = grouped["captured_total"].mean().reindex(table.index)
    table[MEAN_BLOCKERS_PENALTY] = grouped["blockers_penalty"].mean().reindex(table.index)
    table[MEAN_BLOCKERS_SCORE] = grouped["blockers_score"].mean().reindex(table.index)
    table[FAULTS] = grouped["faulted"].sum().reindex(table.index, fill_value=0).astype(int)
    table = table.reset_index()
    table = table.sort_values(
        [RATING, WIN_SHARE[scoring], MEAN_RANK[scoring], ENTRANT],
        ascending=[False, False, True, True], kind="mergesort", na_position="last",
    ).reset_index(drop=True)
    table.insert(0, PLACE, range(1, len(table) + 1))
    return table


def seats(games: pd.DataFrame) -> pd.DataFrame:
    """The figures by seat (:data:`SEATS_COLUMNS`): games, win share and mean rank under each scoring, groups,
    captures, faults."""
    grouped = games.groupby("seat", sort=True)
    table = pd.DataFrame({GAMES: grouped.size()})
    for s in SCORINGS:
        table[WIN_SHARE[s]] = grouped[f"t_{s}_won"].mean()
        table[MEAN_RANK[s]] = grouped[f"t_{s}_rank"].mean()
    table[MEAN_GROUPS] = grouped["groups"].mean()
    table[MEAN_CAPTURES] = grouped["captured_total"].mean()
    table[MEAN_BLOCKERS_SCORE] = grouped["blockers_score"].mean()
    table[FAULTS] = grouped["faulted"].sum().astype(int)
    return table.reset_index()


def order(games: pd.DataFrame, scoring: str) -> pd.DataFrame:
    """The result by who sits directly before whom (see the module docstring and :data:`ORDER_COLUMNS`).

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
        return pd.DataFrame(columns=list(ORDER_COLUMNS))
    # after_win_share_S and after_mean_rank_S come from the after seat's t_S_won and t_S_rank
    figures = {name: f"t_{s}_{column}" for s in SCORINGS
               for name, column in ((AFTER_WIN_SHARE[s], "won"), (AFTER_MEAN_RANK[s], "rank"))}
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
        table = _pair_table(names, counts, [BEFORE, AFTER], sums)
        return table[list(ORDER_COLUMNS)] if len(table) else pd.DataFrame(columns=list(ORDER_COLUMNS))
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
        return pd.DataFrame(columns=list(ORDER_COLUMNS))
    per_game = adjacent.groupby(["before", "after", "game_id"], sort=True).agg(
        lead=("lead", "sum"), **{name: (name, "mean") for name in figures},
    )
    outcome = np.sign(per_game["lead"])
    per_game = per_game.assign(ahead=(outcome > 0).astype(int), tied=(outcome == 0).astype(int),
                               behind=(outcome < 0).astype(int))
    grouped = per_game.groupby(level=["before", "after"], sort=True)
    table = grouped[["ahead", "tied", "behind"]].sum()
    table.insert(0, GAMES, grouped.size())
    table[AHEAD_SHARE] = table[AHEAD] / table[GAMES]
    for name in figures:
        table[name] = grouped[name].mean()
    return table.reset_index()[list(ORDER_COLUMNS)]


def build_tables(games: pd.DataFrame, scoring: str, entrants: Sequence[str] | None = None) -> Tables:
    """All the tables of a tournament from its ``games.csv`` frame (see :func:`load_games`)."""
    return Tables(
        scoring=scoring,
        standings=standings(games, scoring, entrants),
        head_to_head=head_to_head(games, scoring),
        seats=seats(games),
        order=order(games, scoring),
    )


def write_tables(folder: str | Path, tables: Tables) -> None:
    """Write ``standings.csv``, ``head_to_head.csv``, ``seats.csv`` and ``order.csv`` into ``folder``.

    Each through a temporary file: a write that fails (full disk, read-only folder, a folder
    where the file should be) is a one-line :class:`~arena.results.files.RunError` that leaves no temporary
    file and the table as it was.
    """
    folder = Path(folder)
    for name in TABLE_NAMES:
        write_atomically(folder / f"{name}.csv", _csv_writer(getattr(tables, name)))


def _csv_writer(frame: pd.DataFrame) -> Callable[[Path], None]:
    def write(tmp: Path) -> None:
        frame.to_csv(tmp, index=False, float_format="%.6g", lineterminator="\n")

    return write


def write_folder_tables(folder: str | Path, config: TournamentConfig) -> Tables:
    """The tables of the games stored in ``folder`` (its ``games.csv``), written into it (:func:`write_tables`)."""
    folder = Path(folder)
    try:
        games = load_games(folder / GAMES_FILE, config.players, TABLE_COLUMNS)
    except (OSError, ValueError) as exc:
        raise RunError(f"{folder / GAMES_FILE}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    tables = build_tables(games, config.scoring, config.names)
    write_tables(folder, tables)
    write_stamp(folder, tables.scoring, int(games["game_id"].nunique()), int(games.attrs.get("unreadable", 0)))
    return tables
