"""The tables of a tournament, built with pandas from ``games.csv`` alone.

``games.csv`` holds one row per seat per game (:data:`COLUMNS`).  Its
``uptown_rank`` and ``blockers_rank`` are the game's own ranks, as in the game
record.  The tables rank a faulted seat behind every seat that did not fault
(the *tournament rank*): among seats that both faulted, or both did not, the
game's ranks decide.  A seat **wins** when its tournament rank is 1, so a
shared first place is a win for every seat that shares it.

* ``standings``: per entrant, games (seats played), wins and win share under
  each scoring with a 95% confidence interval (percentile bootstrap over the
  deals, 1,000 resamples, seeded from the master seed), mean tournament rank
  under each scoring, mean groups, captures, Blockers! penalty and score,
  faults, and a rating.
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

The **rating** is a Bradley-Terry fit of every pair of seats in every game
(finishing ahead is a win, level is half a win) on the Elo scale: 400 points
are odds of 10 to 1, and each entrant also plays one virtual win and one
virtual loss against a 1500-rated anchor so that an entrant that never lost
gets a finite rating.  The fit uses only counts, so it does not depend on the
order the games were played in.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..rules.state import SCORINGS
from ..terminal import Column, fit_table, printable, wrap
from .config import TournamentConfig
from .rows import COLUMNS, header_text, rows_text, tournament_ranks
from .store import GAMES_FILE, TABLE_FILES, RunError, write_atomically

__all__ = [
    "COLUMNS", "FORMATS", "ORDER_COLUMNS", "Tables", "bootstrap_ci", "build_tables", "format_tables",
    "head_to_head", "header_text", "load_games", "order", "ratings", "rows_text", "seats", "standings",
    "tournament_ranks",
    "with_tournament_ranks", "write_folder_tables", "write_tables",
]

BOOTSTRAP_RESAMPLES = 1000
RATING_BASE = 1500.0
RATING_SCALE = 400.0
FORMATS = ("text", "csv", "markdown", "json")


#: The columns of the ``order`` table (``order.csv``).
ORDER_COLUMNS = (
    "before", "after", "games", "ahead", "tied", "behind", "ahead_share",
    *(f"after_{figure}_{s}" for s in SCORINGS for figure in ("win_share", "mean_rank")),
)
#: The tables :func:`write_tables` writes, each to ``NAME.csv`` (:data:`~.store.TABLE_FILES`).
TABLE_NAMES = tuple(file.removesuffix(".csv") for file in TABLE_FILES)


@dataclass
class Tables:
    """The tables of a tournament, and the scoring they are ordered by."""

    scoring: str
    standings: pd.DataFrame
    head_to_head: pd.DataFrame
    seats: pd.DataFrame
    order: pd.DataFrame


# -- reading -----------------------------------------------------------------


_TEXT_COLUMNS = ("game_id", "entrant", "bot")


def load_games(path: str | Path, players: int | None = None) -> pd.DataFrame:
    """``games.csv`` as a frame, with each seat's tournament rank under both scorings added.

    Only complete lines are read, and with ``players`` given only games with a
    row for every seat, so the folder of a run still going on, or interrupted,
    can be read as it is.
    """
    data = Path(path).read_bytes()
    data = data[: data.rfind(b"\n") + 1]
    if not data:
        raise ValueError(f"{path}: empty")
    games = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False, on_bad_lines="skip")
    missing = [c for c in COLUMNS if c not in games.columns]
    if missing:
        raise ValueError(f"{path}: not a games table (no column {missing[0]})")
    # A row that is not numbers where numbers belong (an edited or damaged line) takes its game out.
    numeric = [c for c in COLUMNS if c not in _TEXT_COLUMNS]
    values = games[numeric].apply(pd.to_numeric, errors="coerce")
    whole = [c for c in numeric if c != "seconds"]
    bad = values.isna().any(axis=1) | (values[whole] % 1 != 0).any(axis=1)
    ignored = set(games.loc[bad, "game_id"])
    games = games[~games["game_id"].isin(ignored)].copy()
    # Read again once the bad rows are gone: with a NaN among them, 63-bit seeds would have become floats.
    for column in numeric:
        games[column] = pd.to_numeric(games[column]).astype("int64" if column in whole else "float64")
    if players is not None and len(games):
        sizes = games.groupby("game_id")["seat"].transform("size")
        games = games[sizes == players]
    games = with_tournament_ranks(games.reset_index(drop=True))
    games.attrs["unreadable"] = len(ignored)
    return games


def with_tournament_ranks(games: pd.DataFrame) -> pd.DataFrame:
    """Add ``t_uptown_rank`` and ``t_blockers_rank``: the ranks with faulted seats put last."""
    games = games.copy()
    for scoring in SCORINGS:
        # Ranks are at most 5, so faulting dominates any rank difference.
        key = games["faulted"].astype(int) * 10 + games[f"{scoring}_rank"]
        games[f"t_{scoring}_rank"] = key.groupby(games["game_id"]).rank(method="min").astype(int)
        games[f"t_{scoring}_won"] = (games[f"t_{scoring}_rank"] == 1).astype(int)
    return games


# -- tables ----------------------------------------------------------------


def _derived_seed(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()[:8], "big")


def bootstrap_ci(
    wins: np.ndarray, games: np.ndarray, seed: int, resamples: int = BOOTSTRAP_RESAMPLES,
) -> tuple[float, float]:
    """95% percentile interval of ``sum(wins) / sum(games)`` resampling the clusters (deals) with replacement."""
    n = len(wins)
    if n == 0:
        return (math.nan, math.nan)
    rng = np.random.default_rng(seed)
    shares = np.empty(resamples)
    # Resample in blocks so that memory stays small even for very long tournaments.
    block = max(1, min(resamples, 2_000_000 // n))
    done = 0
    while done < resamples:
        size = min(block, resamples - done)
        idx = rng.integers(0, n, size=(size, n))
        shares[done:done + size] = wins[idx].sum(axis=1) / games[idx].sum(axis=1)
        done += size
    low, high = np.percentile(shares, [2.5, 97.5])
    return float(low), float(high)


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
    p = pairs(games, scoring)
    columns = ["entrant", "opponent", "games", "ahead", "tied", "behind", "ahead_share"]
    if p.empty:
        return pd.DataFrame(columns=columns)
    per_game = p.groupby(["entrant", "opponent", "game_id"], sort=True)[["ahead", "tied", "behind"]].sum()
    outcome = np.sign(per_game["ahead"] - per_game["behind"])
    per_game = pd.DataFrame({
        "ahead": (outcome > 0).astype(int), "tied": (outcome == 0).astype(int), "behind": (outcome < 0).astype(int),
    })
    table = per_game.groupby(level=["entrant", "opponent"], sort=True).sum()
    table.insert(0, "games", table[["ahead", "tied", "behind"]].sum(axis=1))
    table["ahead_share"] = table["ahead"] / table["games"]
    return table.reset_index()[columns]


def ratings(games: pd.DataFrame, scoring: str, entrants: Sequence[str]) -> dict[str, float]:
    """Bradley-Terry ratings (Elo scale) from every pair of seats' finishing order; see the module docstring."""
    index = {name: i for i, name in enumerate(entrants)}
    n = len(entrants)
    wins = np.zeros((n, n))
    p = pairs(games, scoring)
    if not p.empty:
        scored = p.assign(points=p["ahead"] + 0.5 * p["tied"])
        grouped = scored.groupby(["entrant", "opponent"], sort=True)["points"].sum()
        for (a, b), points in grouped.items():
            wins[index[a], index[b]] += points
    played = wins + wins.T
    total_wins = wins.sum(axis=1) + 1.0  # the virtual win against the anchor
    strength = np.ones(n)
    for _ in range(10_000):
        denominator = (played / (strength[:, None] + strength[None, :])).sum(axis=1) + 2.0 / (strength + 1.0)
        new = total_wins / denominator
        if np.max(np.abs(np.log(new) - np.log(strength))) < 1e-12:
            strength = new
            break
        strength = new
    return {name: RATING_BASE + RATING_SCALE * math.log10(strength[i]) for name, i in index.items()}


def standings(games: pd.DataFrame, scoring: str, master_seed: int, entrants: Sequence[str] | None = None) -> pd.DataFrame:
    """Per entrant figures, best first under ``scoring`` (see the module docstring)."""
    if entrants is None:
        entrants = sorted(games["entrant"].unique())
    grouped = games.groupby("entrant", sort=True)
    table = pd.DataFrame(index=pd.Index(list(entrants), name="entrant"))
    first_bot = grouped["bot"].first()
    table["bot"] = first_bot.reindex(table.index).fillna("")
    table["games"] = grouped.size().reindex(table.index, fill_value=0).astype(int)
    rating = ratings(games, scoring, list(entrants))
    table["rating"] = [round(rating[name], 1) for name in table.index]
    clusters = games.groupby(["entrant", "table", "deal"], sort=True)
    for s in SCORINGS:
        won = f"t_{s}_won"
        table[f"wins_{s}"] = grouped[won].sum().reindex(table.index, fill_value=0).astype(int)
        table[f"win_share_{s}"] = table[f"wins_{s}"] / table["games"].where(table["games"] > 0)
        per_cluster = clusters[won].agg(["sum", "size"])
        lows, highs = [], []
        for name in table.index:
            if name in per_cluster.index.get_level_values(0):
                part = per_cluster.loc[name]
                low, high = bootstrap_ci(
                    part["sum"].to_numpy(dtype=float), part["size"].to_numpy(dtype=float),
                    _derived_seed("uptown-bootstrap/1", master_seed, s, name),
                )
            else:
                low, high = math.nan, math.nan
            lows.append(low)
            highs.append(high)
        table[f"ci_low_{s}"] = lows
        table[f"ci_high_{s}"] = highs
        table[f"mean_rank_{s}"] = grouped[f"t_{s}_rank"].mean().reindex(table.index)
    table["mean_groups"] = grouped["groups"].mean().reindex(table.index)
    table["mean_captures"] = grouped["captured_total"].mean().reindex(table.index)
    table["mean_blockers_penalty"] = grouped["blockers_penalty"].mean().reindex(table.index)
    table["mean_blockers_score"] = grouped["blockers_score"].mean().reindex(table.index)
    table["faults"] = grouped["faulted"].sum().reindex(table.index, fill_value=0).astype(int)
    table = table.reset_index()
    table = table.sort_values(
        [f"win_share_{scoring}", f"mean_rank_{scoring}", "rating", "entrant"],
        ascending=[False, True, False, True], kind="mergesort", na_position="last",
    ).reset_index(drop=True)
    table.insert(0, "place", range(1, len(table) + 1))
    return table


def seats(games: pd.DataFrame) -> pd.DataFrame:
    """The figures by seat: games, win share and mean rank under each scoring, groups, captures, faults."""
    grouped = games.groupby("seat", sort=True)
    table = pd.DataFrame({"games": grouped.size()})
    for s in SCORINGS:
        table[f"win_share_{s}"] = grouped[f"t_{s}_won"].mean()
        table[f"mean_rank_{s}"] = grouped[f"t_{s}_rank"].mean()
    table["mean_groups"] = grouped["groups"].mean()
    table["mean_captures"] = grouped["captured_total"].mean()
    table["mean_blockers_score"] = grouped["blockers_score"].mean()
    table["faults"] = grouped["faulted"].sum().astype(int)
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
    figures = {f"after_{figure}_{s}": f"t_{s}_{column}" for s in SCORINGS
               for figure, column in (("win_share", "won"), ("mean_rank", "rank"))}
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
    table.insert(0, "games", grouped.size())
    table["ahead_share"] = table["ahead"] / table["games"]
    for name in figures:
        table[name] = grouped[name].mean()
    return table.reset_index()[list(ORDER_COLUMNS)]


def build_tables(
    games: pd.DataFrame, scoring: str, master_seed: int, entrants: Sequence[str] | None = None,
) -> Tables:
    """All the tables of a tournament from its ``games.csv`` frame (see :func:`load_games`)."""
    return Tables(
        scoring=scoring,
        standings=standings(games, scoring, master_seed, entrants),
        head_to_head=head_to_head(games, scoring),
        seats=seats(games),
        order=order(games, scoring),
    )


def write_tables(folder: str | Path, tables: Tables) -> None:
    """Write ``standings.csv``, ``head_to_head.csv``, ``seats.csv`` and ``order.csv`` into ``folder``.

    Each through a temporary file: a write that fails (full disk, read-only folder, a folder
    where the file should be) is a one-line :class:`~.store.RunError` that leaves no temporary
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
        games = load_games(folder / GAMES_FILE, config.players)
    except (OSError, ValueError) as exc:
        raise RunError(f"{folder / GAMES_FILE}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    tables = build_tables(games, config.scoring, config.seed, config.names)
    write_tables(folder, tables)
    return tables


# -- printing ----------------------------------------------------------------


def _percent(value: float) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{100 * value:.1f}%"


def standings_display(tables: Tables) -> pd.DataFrame:
    """The standings as a person reads them: shares in percent with their intervals, means rounded."""
    s = tables.scoring
    other = "blockers" if s == "uptown" else "uptown"
    st = tables.standings
    return pd.DataFrame({
        "#": st["place"],
        "entrant": st["entrant"],
        "games": st["games"],
        "rating": st["rating"].map(lambda v: f"{v:.0f}"),
        f"wins ({s})": st[f"win_share_{s}"].map(_percent),
        "95% CI": [f"{_percent(lo)}-{_percent(hi)}" for lo, hi in zip(st[f"ci_low_{s}"], st[f"ci_high_{s}"])],
        f"rank ({s})": st[f"mean_rank_{s}"].map(lambda v: f"{v:.2f}"),
        f"wins ({other})": st[f"win_share_{other}"].map(_percent),
        f"rank ({other})": st[f"mean_rank_{other}"].map(lambda v: f"{v:.2f}"),
        "groups": st["mean_groups"].map(lambda v: f"{v:.2f}"),
        "captures": st["mean_captures"].map(lambda v: f"{v:.2f}"),
        "penalty": st["mean_blockers_penalty"].map(lambda v: f"{v:.2f}"),
        "blockers": st["mean_blockers_score"].map(lambda v: f"{v:.2f}"),
        "faults": st["faults"],
    })


def head_to_head_matrix(tables: Tables) -> pd.DataFrame:
    """Row entrant's share of shared games finished ahead of the column entrant, in standings order."""
    order = list(tables.standings["entrant"])
    h2h = tables.head_to_head
    matrix = pd.DataFrame("", index=order, columns=order)
    for row in h2h.itertuples(index=False):
        matrix.loc[row.entrant, row.opponent] = _percent(row.ahead_share)
    for name in order:
        matrix.loc[name, name] = "-"
    matrix.index.name = "ahead of"
    return matrix


def seats_display(tables: Tables) -> pd.DataFrame:
    s = tables.scoring
    se = tables.seats
    return pd.DataFrame({
        "seat": se["seat"],
        "games": se["games"],
        f"wins ({s})": se[f"win_share_{s}"].map(_percent),
        f"rank ({s})": se[f"mean_rank_{s}"].map(lambda v: f"{v:.2f}"),
        "groups": se["mean_groups"].map(lambda v: f"{v:.2f}"),
        "captures": se["mean_captures"].map(lambda v: f"{v:.2f}"),
        "blockers": se["mean_blockers_score"].map(lambda v: f"{v:.2f}"),
        "faults": se["faults"],
    })


def _markdown(frame: pd.DataFrame, index: bool = False) -> str:
    if index:
        frame = frame.reset_index()
    cells = [[str(c) for c in frame.columns]] + [[str(v) for v in row] for row in frame.itertuples(index=False)]
    cells = [[printable(c).replace("|", "\\|") for c in row] for row in cells]
    lines = ["| " + " | ".join(cells[0]) + " |", "|" + "|".join("---" for _ in cells[0]) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in cells[1:]]
    return "\n".join(lines)


def _json_ready(frame: pd.DataFrame) -> list[dict[str, Any]]:
    rows = []
    for record in frame.to_dict(orient="records"):
        clean = {}
        for key, value in record.items():
            if isinstance(value, np.generic):
                value = value.item()
            if isinstance(value, float) and math.isnan(value):
                value = None
            clean[str(key)] = value
        rows.append(clean)
    return rows


#: The text tables' short headings when they have to be fitted, and the order columns are left out in
#: (first dropped first); the deciding scoring's wins, the entrant, its place, rating and faults always stay.
_SHORT = {"groups": "groups", "captures": "capt", "penalty": "pen", "blockers": "B score"}
STANDINGS_DROP_ORDER = ("penalty", "blockers", "captures", "groups", "rank (other)", "wins (other)", "games",
                        "rank (deciding)", "95% CI")
SEATS_DROP_ORDER = ("blockers", "captures", "groups", "rank (deciding)")


def _scoring_short(heading: str) -> str | None:
    for scoring in SCORINGS:
        for what in ("wins", "rank"):
            if heading == f"{what} ({scoring})":
                return f"{scoring[0].upper()} {what}"
    return _SHORT.get(heading)


def _generic(heading: str, scoring: str) -> str:
    """A heading as it is named in the drop orders: the scorings as deciding / other."""
    for s in SCORINGS:
        role = "deciding" if s == scoring else "other"
        heading = heading.replace(f"({s})", f"({role})")
    return heading


def _columns(frame: pd.DataFrame, scoring: str, order: Sequence[str], left: Sequence[str] = ()) -> list[Column]:
    columns = []
    for heading in frame.columns:
        generic = _generic(str(heading), scoring)
        columns.append(Column(
            str(heading), [str(v) for v in frame[heading]], left=heading in left, short=_scoring_short(str(heading)),
            drop=order.index(generic) if generic in order else None, shrink=heading == "entrant",
        ))
    return columns


def _notes(width: int | None, shortened: bool, dropped: Sequence[str]) -> list[str]:
    """What a fitted table says about itself: the short headings, and which columns it left out."""
    notes = []
    if shortened:
        notes.append("U: Uptown scoring, B: Blockers! scoring")
    if dropped:
        notes.append(f"left out to fit {width} columns: {', '.join(dropped)} (--format csv has them all)")
    return [line for note in notes for line in wrap(note, width)]


def _text_table(frame: pd.DataFrame, scoring: str, order: Sequence[str], width: int | None) -> list[str]:
    table = fit_table(_columns(frame, scoring, order, left=("entrant",)), width)
    return table.lines + _notes(width, table.short, table.dropped)


def _head_to_head_text(matrix: pd.DataFrame, width: int | None) -> list[str]:
    """The matrix in ``width`` columns: headed by the entrants' places if need be, then the last columns left out."""
    names = [printable(name) for name in matrix.index]
    cells = [[str(v) for v in matrix[c]] for c in matrix.columns]
    full = [Column("", names, left=True)] + [Column(printable(c), col) for c, col in zip(matrix.columns, cells)]
    table = fit_table(full, None)
    if width is None or table.width <= width:
        return table.lines
    n = len(names)
    # Place numbers head the columns; the lowest placed opponents are left out first.
    places = [Column("", [f"{i + 1} {name}" for i, name in enumerate(names)], left=True, shrink=True)]
    places += [Column(str(i + 1), col, drop=n - i) for i, col in enumerate(cells)]
    table = fit_table(places, width)
    notes = ["columns: the entrants by place"]
    if table.dropped:
        notes.append(f"left out to fit {width} columns: places {', '.join(table.dropped)} (--format csv has them all)")
    return table.lines + [line for note in notes for line in wrap(note, width)]


def format_tables(
    tables: Tables, fmt: str, title: str = "", only_standings: bool = False, width: int | None = None,
) -> str:
    """The tables as ``text`` (aligned, for a terminal), ``csv``, ``markdown`` or ``json``.

    ``width`` fits the text tables into that many columns (None: whole): their
    headings are shortened, then columns left out in the order of
    :data:`STANDINGS_DROP_ORDER` and :data:`SEATS_DROP_ORDER` (the head-to-head
    matrix is headed by places and loses its last columns), then long entrant
    names are cut; a line under each table says what was left out.  Text
    from the tables (entrant and bot names) is printed through
    :func:`arena.terminal.printable` in every format but json, which escapes
    it itself.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (choose {', '.join(FORMATS)})")
    if fmt == "json":
        payload = {"scoring": tables.scoring, "standings": _json_ready(tables.standings)}
        if not only_standings:
            payload["head_to_head"] = _json_ready(tables.head_to_head)
            payload["seats"] = _json_ready(tables.seats)
        return json.dumps(payload, indent=2, allow_nan=False) + "\n"
    if fmt == "csv":
        parts = [("standings", tables.standings)]
        if not only_standings:
            parts += [("head_to_head", tables.head_to_head), ("seats", tables.seats)]
        out = []
        for name, frame in parts:
            text = frame.map(lambda v: printable(v) if isinstance(v, str) else v).to_csv(
                index=False, float_format="%.6g", lineterminator="\n")
            out.append(f"# {name}\n" + text)
        return "\n".join(out)
    scoring = tables.scoring
    heading = f"{title} - " if title else ""
    standings_title = f"{heading}Standings"
    if fmt == "markdown":
        out = [f"## {printable(standings_title)}\n\n{_markdown(standings_display(tables))}\n"]
        if not only_standings:
            out.append(f"## {H2H_TITLE}\n\n{_markdown(head_to_head_matrix(tables), True)}\n")
            out.append(f"## By seat\n\n{_markdown(seats_display(tables))}\n")
        return "\n".join(out)
    sections = [[printable(standings_title), *_text_table(standings_display(tables), scoring, STANDINGS_DROP_ORDER,
                                                           width)]]
    if not only_standings:
        sections.append([*wrap(H2H_TITLE, width), *_head_to_head_text(head_to_head_matrix(tables), width)])
        sections.append(["By seat", *_text_table(seats_display(tables), scoring, SEATS_DROP_ORDER, width)])
    return "\n".join("\n".join(lines) + "\n" for lines in sections)


H2H_TITLE = "Head to head (share of shared games the row entrant finished ahead of the column entrant)"
