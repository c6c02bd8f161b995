"""Pictures of a tournament's tables and of a match's sequential test, written as PNG files.

:func:`write_plots` draws, from the :class:`~arena.report.tables.Tables` of a
results folder, each picture its tables allow (in the standings' order, best first,
as Axelrod's tournament plots rank their strategies):

* ``win_share.png``: each entrant's win share under both scorings (the deciding one
  filled) with its 95% interval over deals;
* ``rating.png``: each entrant's rating with its 95% interval, when the standings have
  one (a column ``X`` with ``X_low`` and ``X_high``: ``rating``, ``elo`` ...);
* ``head_to_head.png``: the share of shared games the row entrant finished ahead of the
  column entrant, as a heatmap with the share (and the games) written in each cell;
* ``seats.png``: win share and mean rank by seat (per entrant when the seat table has
  an ``entrant`` column);
* ``order.png``: the deciding win share by who sits directly before whom, when the
  tables have an ``order`` frame;
* ``llr.png``: a match's log-likelihood ratio over the games counted, with the SPRT
  bounds (:func:`llr_plot`), when a match is given.

matplotlib is imported only here, and only when a picture is drawn, so ``arena``
starts without it.  Figures are drawn on the Agg canvas (no window, no global
backend switch) with matplotlib's default style, a fixed size and DPI, the DejaVu
Sans font matplotlib ships and no metadata that changes between runs, so the same
tables give the same bytes.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from arena.rules.state import SCORINGS
from arena.tournament.folder.files import LLR_PLOT, PLOT_FILES

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "PLOT_FILES", "PlotError", "head_to_head_plot", "llr_plot", "order_plot", "rating_plot",
    "seats_plot", "try_write_plots", "win_share_plot", "write_plots",
]

DPI = 100
#: matplotlib writes its version as the PNG's Software text; without it the bytes depend on the tables only.
PNG_METADATA: dict[str, Any] = {"Software": None}
_RC: dict[str, Any] = {
    "svg.hashsalt": "uptown-arena",
    "font.family": "DejaVu Sans",
    "figure.dpi": DPI,
    "savefig.dpi": DPI,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.axisbelow": True,
}
#: The legends name the interval each figure has: a win share's is Wilson's on the deals as clusters,
#: a rating's from the maximum-likelihood fit's information, summed by deal.
SHARE_INTERVAL = "95% Wilson interval over deals"
RATING_INTERVAL = "95% interval (information summed by deal)"

log = logging.getLogger("arena.report.plots")


class PlotError(Exception):
    """A picture that cannot be drawn or written; the message is one line naming the file or the input."""


# -- drawing helpers -------------------------------------------------------------


@contextmanager
def _style() -> Iterator[None]:
    """matplotlib's own defaults whatever the user's matplotlibrc says, plus the arena's few settings."""
    import matplotlib as mpl
    import matplotlib.style

    # matplotlib types rc keys as a Literal of every known name; these are known names.
    with matplotlib.style.context("default"), mpl.rc_context(cast(Any, _RC)):
        yield


def _figure(width: float, height: float) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _save(figure: Figure, path: Path) -> None:
    """Write ``figure`` to ``path`` through a temporary file beside it (a failed write leaves ``path`` as it was)."""
    from arena.tournament.folder.files import RunError, write_atomically

    try:
        write_atomically(path, lambda tmp: figure.savefig(tmp, format="png", dpi=DPI, metadata=PNG_METADATA))
    except RunError as exc:
        raise PlotError(str(exc)) from None


def _width(count: int) -> float:
    """A figure width that leaves every entrant's label room (fixed for a given count)."""
    return max(8.0, min(20.0, 3.0 + 0.7 * count))


def _entrant_axis(ax: Axes, names: Sequence[str]) -> None:
    rotate = len(names) > 4 or max((len(n) for n in names), default=0) > 12
    ax.set_xticks(range(len(names)), list(names), rotation=30 if rotate else 0, ha="right" if rotate else "center")
    ax.set_xlim(-0.6, len(names) - 0.4)
    ax.set_xlabel("entrant (ordered as the standings, best first)")


def _percent_axis(ax: Axes) -> None:
    from matplotlib.ticker import PercentFormatter

    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))


def _errors(value: np.ndarray, low: np.ndarray | None, high: np.ndarray | None) -> np.ndarray | None:
    """The (2, n) distances from each value to its interval ends, 0 where an end is missing."""
    if low is None or high is None:
        return None
    below = np.nan_to_num(value - low, nan=0.0).clip(min=0.0)
    above = np.nan_to_num(high - value, nan=0.0).clip(min=0.0)
    return np.vstack([below, above])


def _numbers(frame: pd.DataFrame, column: str) -> np.ndarray:
    return pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=float)


# -- finding the columns ------------------------------------------------------------


def _interval_columns(frame: pd.DataFrame, column: str) -> tuple[str, str] | None:
    """The columns holding the interval of ``column``: ``X_low``/``X_high`` and their usual spellings."""
    names = set(frame.columns)
    for low, high in (
        (f"{column}_low", f"{column}_high"), (f"{column}_lo", f"{column}_hi"),
        (f"{column}_ci_low", f"{column}_ci_high"), (f"ci_low_{column}", f"ci_high_{column}"),
    ):
        if low in names and high in names:
            return low, high
    return None


def _win_share_columns(frame: pd.DataFrame, scoring: str) -> tuple[str, tuple[str, str] | None] | None:
    """``(share, (low, high) or None)`` for ``scoring`` in a standings or seats frame, None without a share."""
    for share in (f"win_share_{scoring}", f"{scoring}_win_share"):
        if share in frame.columns:
            interval = _interval_columns(frame, share)
            if interval is None and {f"ci_low_{scoring}", f"ci_high_{scoring}"} <= set(frame.columns):
                interval = (f"ci_low_{scoring}", f"ci_high_{scoring}")
            return share, interval
    return None


def _mean_rank_column(frame: pd.DataFrame, scoring: str) -> str | None:
    for name in (f"mean_rank_{scoring}", f"{scoring}_mean_rank"):
        if name in frame.columns:
            return name
    return None


def _rating_columns(frame: pd.DataFrame) -> tuple[str, str, str] | None:
    """``(rating, low, high)``: the first rating-like column of the standings that has an interval."""
    shares = {c for s in SCORINGS if (found := _win_share_columns(frame, s)) for c in (found[0], *(found[1] or ()))}
    preferred = [c for c in ("rating", "elo", "rating_elo", "elo_rating") if c in frame.columns]
    others = [c for c in frame.columns if ("rating" in str(c) or "elo" in str(c)) and c not in preferred]
    for column in preferred + others:
        if column in shares:
            continue
        interval = _interval_columns(frame, column)
        if interval is not None and pd.api.types.is_numeric_dtype(frame[column]):
            return column, *interval
    return None


def _scorings(tables: Any) -> list[str]:
    """The deciding scoring first, then the other."""
    deciding = getattr(tables, "scoring", SCORINGS[0])
    return [deciding] + [s for s in SCORINGS if s != deciding]


def _standings(tables: Any) -> pd.DataFrame:
    standings = getattr(tables, "standings", None)
    if not isinstance(standings, pd.DataFrame) or standings.empty or "entrant" not in standings.columns:
        raise PlotError("no standings to plot (no game is stored yet)")
    if "games" in standings.columns and not (pd.to_numeric(standings["games"], errors="coerce") > 0).any():
        raise PlotError("no standings to plot (no game is stored yet)")
    if "place" in standings.columns:
        standings = standings.sort_values("place", kind="mergesort")
    return standings.reset_index(drop=True)


# -- the pictures ------------------------------------------------------------------


def win_share_plot(tables: Any, path: Path) -> bool:
    """``win_share.png``: win share per entrant under each scoring, with its interval; False if there is none."""
    standings = _standings(tables)
    found = [(s, cols) for s in _scorings(tables) if (cols := _win_share_columns(standings, s)) is not None]
    if not found:
        return False
    names = [str(n) for n in standings["entrant"]]
    x = np.arange(len(names), dtype=float)
    with _style():
        figure = _figure(_width(len(names)), 5.0)
        ax = figure.add_subplot()
        top = 0.0
        for k, (scoring, (share, interval)) in enumerate(found):
            value = _numbers(standings, share)
            low = _numbers(standings, interval[0]) if interval else None
            high = _numbers(standings, interval[1]) if interval else None
            deciding = k == 0
            label = f"{scoring}{' (decides wins and the order)' if deciding else ''}"
            label += f", {SHARE_INTERVAL}" if interval else ", no interval in the table"
            offset = (k - (len(found) - 1) / 2) * 0.2
            color = "tab:blue" if deciding else "tab:orange"
            ax.errorbar(
                x + offset, value, yerr=_errors(value, low, high), fmt="o" if deciding else "s", color=color,
                markerfacecolor=color if deciding else "white", markersize=7, capsize=4, linewidth=1.5, label=label,
            )
            if deciding:
                for xi, v in zip(x + offset, value):
                    if not math.isnan(v):
                        ax.annotate(f"{100 * v:.0f}%", (xi, v), textcoords="offset points", xytext=(-8, 0),
                                    ha="right", va="center", fontsize=8, color=color)
            top = max(top, float(np.nanmax(high)) if high is not None and np.isfinite(high).any() else 0.0,
                      float(np.nanmax(value)) if np.isfinite(value).any() else 0.0)
        ax.set_ylim(0.0, min(1.04, top * 1.15 + 0.05))  # 100% drawn whole, the scale never past it
        _percent_axis(ax)
        _entrant_axis(ax, names)
        ax.set_ylabel("win share (games won / games played)")
        ax.set_title(f"Win share per entrant ({found[0][0]} scoring decides)")
        ax.legend(loc="best", fontsize=8)
        _save(figure, path)
    return True


def rating_plot(tables: Any, path: Path) -> bool:
    """``rating.png``: each entrant's rating with its interval; False when the standings have no rating interval."""
    standings = _standings(tables)
    columns = _rating_columns(standings)
    if columns is None:
        return False
    rating = columns[0]
    names = [str(n) for n in standings["entrant"]]
    value, low, high = (_numbers(standings, c) for c in columns)
    x = np.arange(len(names), dtype=float)
    with _style():
        figure = _figure(_width(len(names)), 5.0)
        ax = figure.add_subplot()
        ax.errorbar(x, value, yerr=_errors(value, low, high), fmt="o", color="tab:green", markersize=7, capsize=4,
                    linewidth=1.5, label=f"{rating}, {RATING_INTERVAL}")
        for xi, v in zip(x, value):
            if not math.isnan(v):
                ax.annotate(f"{v:.0f}", (xi, v), textcoords="offset points", xytext=(-8, 0), ha="right", va="center",
                            fontsize=8)
        _entrant_axis(ax, names)
        ax.set_ylabel(f"{rating} (Elo scale: +100 = ahead 64% of the time)" if "elo" in rating or rating == "rating"
                      else rating)
        ax.set_title(f"Rating per entrant, ordered as the standings ({getattr(tables, 'scoring', '')} scoring)")
        ax.legend(loc="best", fontsize=8)
        _save(figure, path)
    return True


def _heatmap(ax: Axes, matrix: np.ndarray, rows: Sequence[str], columns: Sequence[str],
             cell: Callable[[int, int], str], vmin: float, vmax: float, colorbar_label: str,
             colors: str = "RdBu", percent: bool = True) -> None:
    """``matrix`` as coloured cells (missing ones grey) with ``cell(i, j)`` written in each."""
    import matplotlib as mpl
    from matplotlib.ticker import PercentFormatter

    cmap = mpl.colormaps[colors].with_extremes(bad="#e8e8e8")
    image = ax.imshow(np.ma.masked_invalid(matrix), cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto")
    ax.grid(False)
    ax.set_xticks(range(len(columns)), list(columns), rotation=30 if len(columns) > 3 else 0,
                  ha="right" if len(columns) > 3 else "center")
    ax.set_yticks(range(len(rows)), list(rows))
    size = max(5.0, min(10.0, 70.0 / max(len(rows), len(columns), 1)))
    for i in range(len(rows)):
        for j in range(len(columns)):
            v = matrix[i, j]
            # Black or white, whichever reads better on the cell's colour (its luminance).
            red, green, blue, _ = cmap(image.norm(v)) if not math.isnan(v) else (1.0, 1.0, 1.0, 1.0)
            dark = 0.299 * red + 0.587 * green + 0.114 * blue < 0.5
            ax.text(j, i, cell(i, j), ha="center", va="center", fontsize=size, color="white" if dark else "black")
    colorbar = ax.figure.colorbar(image, ax=ax, shrink=0.9)
    colorbar.set_label(colorbar_label)
    if percent:
        colorbar.ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))


def head_to_head_plot(tables: Any, path: Path) -> bool:
    """``head_to_head.png``: the head-to-head matrix as a heatmap; False when no pair of entrants met."""
    standings = _standings(tables)
    h2h = getattr(tables, "head_to_head", None)
    if not isinstance(h2h, pd.DataFrame) or h2h.empty or not {"entrant", "opponent", "ahead_share"} <= set(h2h.columns):
        return False
    names = [str(n) for n in standings["entrant"]]
    index = {n: i for i, n in enumerate(names)}
    n = len(names)
    share = np.full((n, n), math.nan)
    games = np.zeros((n, n), dtype=int)
    for row in h2h.itertuples(index=False):
        i, j = index.get(str(row.entrant)), index.get(str(row.opponent))
        if i is not None and j is not None:
            share[i, j] = float(row.ahead_share)
            games[i, j] = int(getattr(row, "games", 0) or 0)

    def cell(i: int, j: int) -> str:
        if i == j:
            return "-"
        if math.isnan(share[i, j]):
            return ""
        text = f"{100 * share[i, j]:.0f}%"
        return f"{text}\n{games[i, j]} games" if n <= 8 and games[i, j] else text

    side = max(6.0, min(16.0, 2.5 + 0.8 * n))
    with _style():
        figure = _figure(side + 1.5, side)
        ax = figure.add_subplot()
        _heatmap(ax, share, names, names, cell, 0.0, 1.0,
                 "row entrant ahead of column entrant (share of shared games)")
        ax.set_xlabel("opponent")
        ax.set_ylabel("entrant")
        ax.set_title(f"Head to head ({getattr(tables, 'scoring', '')} scoring; ties count as not ahead)")
        _save(figure, path)
    return True


def seats_plot(tables: Any, path: Path) -> bool:
    """``seats.png``: win share and mean rank by seat (per entrant when the table has them); False without seats."""
    seats = getattr(tables, "seats", None)
    if not isinstance(seats, pd.DataFrame) or seats.empty or "seat" not in seats.columns:
        return False
    scorings = _scorings(tables)
    shares = [(s, cols) for s in scorings if (cols := _win_share_columns(seats, s)) is not None]
    ranks = [(s, col) for s in scorings if (col := _mean_rank_column(seats, s)) is not None]
    if not shares and not ranks:
        return False
    seats = seats.sort_values([c for c in ("seat", "entrant") if c in seats.columns], kind="mergesort")
    seat_numbers = sorted(int(s) for s in seats["seat"].unique())
    per_entrant = "entrant" in seats.columns
    with _style():
        figure = _figure(max(9.0, 4.0 + 1.2 * len(seat_numbers)), 5.0)
        panels = figure.subplots(1, 2 if shares and ranks else 1, squeeze=False)[0]
        panel = 0
        if shares:
            ax = panels[panel]
            panel += 1
            if per_entrant:
                _seat_lines(ax, seats, shares[0][1][0], seat_numbers)
                ax.set_title(f"Win share by seat ({shares[0][0]} scoring decides)")
            else:
                _seat_bars(ax, seats, [(s, cols[0], cols[1]) for s, cols in shares], seat_numbers, scorings[0])
                ax.set_title("Win share by seat, every entrant together")
            _percent_axis(ax)
            ax.set_ylabel("win share (games won / games played)")
        if ranks:
            ax = panels[panel]
            if per_entrant:
                _seat_lines(ax, seats, ranks[0][1], seat_numbers)
                ax.set_title(f"Mean rank by seat ({ranks[0][0]} scoring)")
            else:
                _seat_bars(ax, seats, [(s, col, None) for s, col in ranks], seat_numbers, scorings[0])
                ax.set_title("Mean rank by seat, every entrant together")
            ax.set_ylim(bottom=1.0)  # rank 1 is the best there is: bars start there
            ax.set_ylabel("mean rank (1 = first; ties share the better rank)")
        for ax in panels:
            ax.set_xticks(seat_numbers, [str(s) for s in seat_numbers])
            ax.set_xlabel("seat (seat 0 moves first, T3)")
        _save(figure, path)
    return True


def _seat_bars(ax: Axes, seats: pd.DataFrame, columns: Sequence[tuple[str, str, tuple[str, str] | None]],
               seat_numbers: Sequence[int], deciding: str) -> None:
    """Bars per seat, one per scoring, with a dashed line at the figure over every seat."""
    width = 0.8 / len(columns)
    weights = _numbers(seats, "games") if "games" in seats.columns else np.ones(len(seats))
    for k, (scoring, column, interval) in enumerate(columns):
        value = _numbers(seats, column)
        low = _numbers(seats, interval[0]) if interval else None
        high = _numbers(seats, interval[1]) if interval else None
        x = seats["seat"].to_numpy(dtype=float) + (k - (len(columns) - 1) / 2) * width
        color = "tab:blue" if scoring == deciding else "tab:orange"
        label = f"{scoring}{' (decides)' if scoring == deciding else ''}" + (f", {SHARE_INTERVAL}" if interval else "")
        ax.bar(x, value, width * 0.9, yerr=_errors(value, low, high), capsize=3 if interval else 0, color=color,
               alpha=0.85 if scoring == deciding else 0.6, label=label)
        finite = np.isfinite(value)
        if finite.any():
            overall = float(np.average(value[finite], weights=weights[finite]))
            ax.axhline(overall, color=color, linestyle="--", linewidth=1,
                       label=f"{scoring}, all seats: {overall:.2f}" if "rank" in column else
                       f"{scoring}, all seats: {100 * overall:.0f}%")
    ax.set_ylim(top=ax.get_ylim()[1] * 1.3)  # room for the legend above the bars
    ax.legend(loc="upper left", ncols=2, fontsize=7)


def _seat_lines(ax: Axes, seats: pd.DataFrame, column: str, seat_numbers: Sequence[int]) -> None:
    """One line per entrant across the seats."""
    for name, part in seats.groupby("entrant", sort=False):
        ax.plot(part["seat"].to_numpy(dtype=float), _numbers(part, column), marker="o", label=str(name))
    ax.legend(loc="best", fontsize=7, title="entrant", title_fontsize=7)


def order_plot(tables: Any, path: Path) -> bool:
    """``order.png``: from the order table (``before``, ``after``, ``games``, ``ahead_share``), the share
    of games the row entrant finished ahead of the entrant who sits directly before it; False without."""
    order = getattr(tables, "order", None)
    if not isinstance(order, pd.DataFrame) or order.empty or \
            not {"before", "after", "games", "ahead_share"} <= set(order.columns):
        return False
    standings = getattr(tables, "standings", None)
    ranked = [str(n) for n in standings["entrant"]] if isinstance(standings, pd.DataFrame) and "entrant" in standings \
        else []
    seen = {str(n) for n in order["after"]} | {str(n) for n in order["before"]}
    names = [n for n in ranked if n in seen] + sorted(seen - set(ranked))
    matrix = np.full((len(names), len(names)), math.nan)
    games = np.zeros((len(names), len(names)))
    for before, after, count, share in zip(order["before"], order["after"], _numbers(order, "games"),
                                           _numbers(order, "ahead_share"), strict=True):
        i, j = names.index(str(after)), names.index(str(before))
        matrix[i, j], games[i, j] = share, count
    with_games = len(names) <= 8

    def cell(i: int, j: int) -> str:
        v = matrix[i, j]
        if math.isnan(v):
            return ""
        return f"{100 * v:.0f}%\n{games[i, j]:.0f} games" if with_games else f"{100 * v:.0f}%"

    side = max(6.0, min(16.0, 2.5 + 0.8 * len(names)))
    with _style():
        figure = _figure(side + 1.5, side)
        ax = figure.add_subplot()
        _heatmap(ax, matrix, names, names, cell, 0.0, 1.0, "share of games finished ahead",
                 colors="RdBu", percent=True)
        ax.set_xlabel("who sits directly before the row entrant (moves just before it)")
        ax.set_ylabel("entrant")
        ax.set_title("How often the row entrant finished ahead of the one who moves just before it")
        _save(figure, path)
    return True


# -- a match ----------------------------------------------------------------------


def _match_fields(match: Any) -> tuple[np.ndarray, float, float, str, dict[str, Any]]:
    """The checked fields of a ``match.json`` object (see :func:`llr_plot`); PlotError names the first bad one."""
    if not isinstance(match, dict):
        raise PlotError("match: not an object with history, lower, upper, verdict and parameters")
    for key in ("history", "lower", "upper", "verdict", "parameters"):
        if key not in match:
            raise PlotError(f"match: no key {key!r}")
    sprt = (match["parameters"] or {}).get("sprt") if isinstance(match["parameters"], dict) else None
    if not isinstance(sprt, dict) or not {"elo0", "elo1"} <= set(sprt):
        raise PlotError("match: not a sequential test (parameters.sprt with elo0 and elo1)")
    history = match["history"]
    try:
        games, llrs = history["games"], history["llr"]
        points = np.array([[float(g), math.nan if v is None else float(v)] for g, v in zip(games, llrs, strict=True)],
                          dtype=float).reshape(-1, 2)
    except (TypeError, ValueError, KeyError):
        raise PlotError("match: 'history' is not {games: [...], llr: [...]} of equal lengths") from None
    try:
        lower, upper = float(match["lower"]), float(match["upper"])
    except (TypeError, ValueError):
        raise PlotError("match: lower and upper must be numbers") from None
    # the field test's corrected bounds meet where the deals have no spread: equal is allowed
    if not (math.isfinite(lower) and math.isfinite(upper) and lower <= upper):
        raise PlotError(f"match: the bounds must be finite with lower <= upper, not {lower} and {upper}")
    return points[np.isfinite(points[:, 1])], lower, upper, str(match["verdict"]), sprt


def llr_plot(match: dict[str, Any], path: Path) -> None:
    """``llr.png``: a match's sequential test, its log-likelihood ratio over the games counted, with its bounds.

    ``match`` is the object of the match's ``match.json`` (:mod:`arena.tournament.match.folder`); these keys
    are read, any other is ignored: ``history`` (``{"games": [...], "llr": [...]}``, one entry per deal
    counted, in counting order), ``lower`` and ``upper`` (the SPRT bounds at the last deal), ``verdict``,
    ``parameters.sprt`` (``elo0``, ``elo1``, ``alpha``, ``beta``, ``model``) and ``bots`` (names, A first).

    Raises :class:`PlotError` (one line) for a missing or malformed key or a file that cannot be written.
    """
    points, lower, upper, verdict, sprt = _match_fields(match)
    elo0, elo1 = float(sprt["elo0"]), float(sprt["elo1"])
    bots = match.get("bots")
    names = " vs ".join(str(b.get("name")) for b in bots if isinstance(b, dict)) if isinstance(bots, list) else ""
    extras = [f"{k}={sprt[k]:g}" for k in ("alpha", "beta") if isinstance(sprt.get(k), (int, float))]
    with _style():
        figure = _figure(9.0, 5.0)
        ax = figure.add_subplot()
        if len(points):
            ax.plot(points[:, 0], points[:, 1], color="tab:blue", linewidth=1.5,
                    marker="o" if len(points) <= 40 else None, markersize=3, label="LLR after each deal counted")
        ax.axhline(upper, color="tab:green", linestyle="--", linewidth=1.5,
                   label=f"upper bound {upper:.3f}: accept H1 (elo >= {elo1:g})")
        ax.axhline(lower, color="tab:red", linestyle="--", linewidth=1.5,
                   label=f"lower bound {lower:.3f}: accept H0 (elo <= {elo0:g})")
        ax.axhline(0.0, color="grey", linewidth=0.8)
        span = upper - lower or 1.0
        low_y = min(lower, float(points[:, 1].min()) if len(points) else lower) - 0.1 * span
        high_y = max(upper, float(points[:, 1].max()) if len(points) else upper) + 0.1 * span
        ax.set_ylim(low_y, high_y)
        ax.set_xlim(0.0, max(1.0, float(points[:, 0].max()) if len(points) else 1.0))
        ax.set_xlabel("games counted")
        ax.set_ylabel("log-likelihood ratio (LLR)")
        head = f"{names}: " if names else ""
        model = f" ({sprt['model']})" if isinstance(sprt.get("model"), str) else ""
        ax.set_title(f"{head}SPRT{model} elo0={elo0:g}, elo1={elo1:g}{', ' + ', '.join(extras) if extras else ''}"
                     f" - verdict: {verdict}")
        ax.legend(loc="best", fontsize=8)
        _save(figure, path)


# -- all of them ------------------------------------------------------------------


def write_plots(folder: Path, tables: Any, match: dict[str, Any] | None = None) -> list[Path]:
    """Draw every picture ``tables`` (and ``match``, a ``match.json`` dict) allow into ``folder``; the paths written.

    ``tables`` is a :class:`~arena.report.tables.Tables` (or anything with its
    ``scoring``, ``standings``, ``head_to_head``, ``seats`` and optional ``order``
    frames); a picture whose columns are missing is left out.  ``folder`` is made if
    needed.  Raises :class:`PlotError` (one line) when there is nothing to draw or a
    file cannot be written; each file is written whole or left as it was.
    """
    folder = Path(folder)
    _standings(tables)
    if folder.exists() and not folder.is_dir():
        raise PlotError(f"{folder}: is not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PlotError(f"{folder}: cannot make the plots folder: {exc.strerror or exc}") from None
    drawers: list[tuple[str, Callable[[Any, Path], bool]]] = [
        ("win_share.png", win_share_plot), ("rating.png", rating_plot), ("head_to_head.png", head_to_head_plot),
        ("seats.png", seats_plot), ("order.png", order_plot),
    ]
    written = []
    for name, draw in drawers:
        if draw(tables, folder / name):
            written.append(folder / name)
    if match is not None:
        llr_plot(match, folder / LLR_PLOT)
        written.append(folder / LLR_PLOT)
    return written


def try_write_plots(folder: Path, tables: Any, match: dict[str, Any] | None = None,
                    log_file: Path | None = None) -> tuple[list[Path], str | None]:
    """:func:`write_plots` that never raises: the paths written and, when a picture failed, the one-line reason.

    For the end of a run: its results are on disk already and a picture must not cost
    them.  The reason is also appended to ``log_file`` (the run's ``arena.log``) when given.
    """
    try:
        return write_plots(folder, tables, match), None
    except Exception as exc:  # noqa: BLE001 - any failure of a picture is one line, never the run's end
        text = str(exc).strip().splitlines()
        reason = f"plots not written: {text[0] if text else type(exc).__name__}"
    if log_file is not None:
        from arena.tournament.folder.files import LOG_FORMAT

        record = log.makeRecord(log.name, logging.WARNING, __file__, 0, reason, (), None)
        try:
            with open(log_file, "a", encoding="utf-8") as f:
                f.write(logging.Formatter(LOG_FORMAT).format(record) + "\n")
        except OSError:
            pass  # the reason still reaches the caller, who shows it
    return [], reason
