"""Pictures of a tournament's tables and of a match's sequential test, written as PNG files.

:func:`write_plots` draws, from the :class:`~arena.report.tables.Tables` of a
results folder, each picture its tables allow (in the standings' order, best first,
as Axelrod's tournament plots rank their strategies):

* ``win_share.png``: each entrant's win share under both scorings (the deciding one
  filled) with its 95% interval over deals;
* ``rating.png``: each entrant's rating with its 95% interval;
* ``head_to_head.png``: the share of shared games the row entrant finished ahead of the
  column entrant, as a heatmap with the share (and the games) written in each cell,
  when a pair of entrants has met;
* ``seats.png``: win share and mean rank by seat;
* ``order.png``: the share of games the row entrant finished ahead of the one who moves
  just before it, when the tables have an ``order`` frame with a row;
* ``llr.png``: a match's log-likelihood ratio over the games counted, with the SPRT
  bounds (:func:`llr_plot`), when a match is given.

The columns are read by the names :mod:`arena.report.tables` gives them (``RATING``,
``WIN_SHARE[scoring]`` ...): the tables and the pictures share one contract.

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

from arena.errors import ArenaError, os_error_line
from arena.report import columns as col
from arena.report.tables import Tables
from arena.results.files import LLR_PLOT, PLOT_FILES
from arena.rules.state import SCORINGS

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


class PlotError(ArenaError):
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
    from arena.results.files import RunError, write_atomically

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


def _errors(value: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """The (2, n) distances from each value to its interval ends, 0 where an end is missing."""
    below = np.nan_to_num(value - low, nan=0.0).clip(min=0.0)
    above = np.nan_to_num(high - value, nan=0.0).clip(min=0.0)
    return np.vstack([below, above])


def _numbers(frame: pd.DataFrame, column: str) -> np.ndarray:
    return pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=float)


# -- the tables -----------------------------------------------------------------------


def _scorings(tables: Tables) -> list[str]:
    """The deciding scoring first, then the other."""
    return [tables.scoring] + [s for s in SCORINGS if s != tables.scoring]


def _standings(tables: Tables) -> pd.DataFrame:
    standings = tables.standings
    if standings.empty or not (pd.to_numeric(standings[col.GAMES], errors="coerce") > 0).any():
        raise PlotError("no standings to plot (no game is stored yet)")
    return standings.sort_values(col.PLACE, kind="mergesort").reset_index(drop=True)


# -- the pictures ------------------------------------------------------------------


def win_share_plot(tables: Tables, path: Path) -> bool:
    """``win_share.png``: win share per entrant under each scoring, with its interval."""
    standings = _standings(tables)
    scorings = _scorings(tables)
    names = [str(n) for n in standings[col.ENTRANT]]
    x = np.arange(len(names), dtype=float)
    with _style():
        figure = _figure(_width(len(names)), 5.0)
        ax = figure.add_subplot()
        top = 0.0
        for k, scoring in enumerate(scorings):
            value = _numbers(standings, col.WIN_SHARE[scoring])
            low, high = _numbers(standings, col.CI_LOW[scoring]), _numbers(standings, col.CI_HIGH[scoring])
            deciding = k == 0
            label = f"{scoring}{' (decides wins and the order)' if deciding else ''}, {SHARE_INTERVAL}"
            offset = (k - (len(scorings) - 1) / 2) * 0.2
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
            top = max(top, float(np.nanmax(high)) if np.isfinite(high).any() else 0.0,
                      float(np.nanmax(value)) if np.isfinite(value).any() else 0.0)
        ax.set_ylim(0.0, min(1.04, top * 1.15 + 0.05))  # 100% drawn whole, the scale never past it
        _percent_axis(ax)
        _entrant_axis(ax, names)
        ax.set_ylabel("win share (games won / games played)")
        ax.set_title(f"Win share per entrant ({scorings[0]} scoring decides)")
        ax.legend(loc="best", fontsize=8)
        _save(figure, path)
    return True


def rating_plot(tables: Tables, path: Path) -> bool:
    """``rating.png``: each entrant's rating (on the Elo scale) with its interval."""
    standings = _standings(tables)
    names = [str(n) for n in standings[col.ENTRANT]]
    value, low, high = (_numbers(standings, c) for c in (col.RATING, col.RATING_LOW, col.RATING_HIGH))
    x = np.arange(len(names), dtype=float)
    with _style():
        figure = _figure(_width(len(names)), 5.0)
        ax = figure.add_subplot()
        ax.errorbar(x, value, yerr=_errors(value, low, high), fmt="o", color="tab:green", markersize=7, capsize=4,
                    linewidth=1.5, label=f"{col.RATING}, {RATING_INTERVAL}")
        for xi, v in zip(x, value):
            if not math.isnan(v):
                ax.annotate(f"{v:.0f}", (xi, v), textcoords="offset points", xytext=(-8, 0), ha="right", va="center",
                            fontsize=8)
        _entrant_axis(ax, names)
        ax.set_ylabel(f"{col.RATING} (Elo scale: +100 = ahead 64% of the time)")
        ax.set_title(f"Rating per entrant, ordered as the standings ({tables.scoring} scoring)")
        ax.legend(loc="best", fontsize=8)
        _save(figure, path)
    return True


def _heatmap(ax: Axes, matrix: np.ndarray, names: Sequence[str], cell: Callable[[int, int], str],
             colorbar_label: str) -> None:
    """``matrix`` (shares, entrants by entrants) as coloured cells from 0 to 100% (missing ones grey) with
    ``cell(i, j)`` written in each."""
    import matplotlib as mpl
    from matplotlib.ticker import PercentFormatter

    rows = columns = names
    cmap = mpl.colormaps["RdBu"].with_extremes(bad="#e8e8e8")
    image = ax.imshow(np.ma.masked_invalid(matrix), cmap=cmap, vmin=0.0, vmax=1.0, aspect="auto")
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
    colorbar.ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))


def head_to_head_plot(tables: Tables, path: Path) -> bool:
    """``head_to_head.png``: the head-to-head matrix as a heatmap; False when no pair of entrants met."""
    standings = _standings(tables)
    h2h = tables.head_to_head
    if h2h.empty:
        return False
    names = [str(n) for n in standings[col.ENTRANT]]
    index = {n: i for i, n in enumerate(names)}
    n = len(names)
    share = np.full((n, n), math.nan)
    games = np.zeros((n, n), dtype=int)
    for entrant, opponent, count, ahead in zip(h2h[col.ENTRANT], h2h[col.OPPONENT], h2h[col.GAMES],
                                               h2h[col.AHEAD_SHARE], strict=True):
        i, j = index.get(str(entrant)), index.get(str(opponent))
        if i is not None and j is not None:
            share[i, j] = float(ahead)
            games[i, j] = int(count)
    _matrix_plot(path, share, games, names, "-", "row entrant ahead of column entrant (share of shared games)",
                 "opponent", f"Head to head ({tables.scoring} scoring; ties count as not ahead)")
    return True


def seats_plot(tables: Tables, path: Path) -> bool:
    """``seats.png``: win share and mean rank by seat, every entrant together; False without seats."""
    seats = tables.seats
    if seats.empty:
        return False
    scorings = _scorings(tables)
    seats = seats.sort_values(col.SEAT, kind="mergesort")
    seat_numbers = sorted(int(s) for s in seats[col.SEAT].unique())
    with _style():
        figure = _figure(max(9.0, 4.0 + 1.2 * len(seat_numbers)), 5.0)
        share_ax, rank_ax = figure.subplots(1, 2, squeeze=False)[0]
        _seat_bars(share_ax, seats, [(s, col.WIN_SHARE[s]) for s in scorings], scorings[0], share=True)
        share_ax.set_title("Win share by seat, every entrant together")
        _percent_axis(share_ax)
        share_ax.set_ylabel("win share (games won / games played)")
        _seat_bars(rank_ax, seats, [(s, col.MEAN_RANK[s]) for s in scorings], scorings[0], share=False)
        rank_ax.set_title("Mean rank by seat, every entrant together")
        rank_ax.set_ylim(bottom=1.0)  # rank 1 is the best there is: bars start there
        rank_ax.set_ylabel("mean rank (1 = first; ties share the better rank)")
        for ax in (share_ax, rank_ax):
            ax.set_xticks(seat_numbers, [str(s) for s in seat_numbers])
            ax.set_xlabel("seat (seat 0 moves first, T3)")
        _save(figure, path)
    return True


def _seat_bars(ax: Axes, seats: pd.DataFrame, columns: Sequence[tuple[str, str]], deciding: str, *,
               share: bool) -> None:
    """Bars per seat, one per scoring, with a dashed line at the figure over every seat (a percentage with
    ``share``, else a number)."""
    width = 0.8 / len(columns)
    weights = _numbers(seats, col.GAMES)
    for k, (scoring, column) in enumerate(columns):
        value = _numbers(seats, column)
        x = seats[col.SEAT].to_numpy(dtype=float) + (k - (len(columns) - 1) / 2) * width
        color = "tab:blue" if scoring == deciding else "tab:orange"
        label = f"{scoring}{' (decides)' if scoring == deciding else ''}"
        ax.bar(x, value, width * 0.9, color=color, alpha=0.85 if scoring == deciding else 0.6, label=label)
        finite = np.isfinite(value)
        if finite.any():
            overall = float(np.average(value[finite], weights=weights[finite]))
            ax.axhline(overall, color=color, linestyle="--", linewidth=1,
                       label=f"{scoring}, all seats: {100 * overall:.0f}%" if share else
                       f"{scoring}, all seats: {overall:.2f}")
    ax.set_ylim(top=ax.get_ylim()[1] * 1.3)  # room for the legend above the bars
    ax.legend(loc="upper left", ncols=2, fontsize=7)


def order_plot(tables: Tables, path: Path) -> bool:
    """``order.png``: from the order table, the share of games the row entrant finished ahead of the entrant
    who sits directly before it; False when the order table has no row."""
    order = tables.order
    if order.empty:
        return False
    ranked = [str(n) for n in _standings(tables)[col.ENTRANT]]
    seen = {str(n) for n in order[col.AFTER]} | {str(n) for n in order[col.BEFORE]}
    names = [n for n in ranked if n in seen] + sorted(seen - set(ranked))
    matrix = np.full((len(names), len(names)), math.nan)
    games = np.zeros((len(names), len(names)))
    for before, after, count, share in zip(order[col.BEFORE], order[col.AFTER], _numbers(order, col.GAMES),
                                           _numbers(order, col.AHEAD_SHARE), strict=True):
        i, j = names.index(str(after)), names.index(str(before))
        matrix[i, j], games[i, j] = share, count
    _matrix_plot(path, matrix, games, names, "", "share of games finished ahead",
                 "who sits directly before the row entrant (moves just before it)",
                 "How often the row entrant finished ahead of the one who moves just before it")
    return True


def _matrix_plot(path: Path, share: np.ndarray, games: np.ndarray, names: Sequence[str], diagonal: str,
                 colorbar_label: str, xlabel: str, title: str) -> None:
    """A heatmap of ``share`` (row entrant by column entrant) with the share, and up to 8 entrants the
    games, written in each cell (``diagonal`` on the diagonal, nothing where a share is missing)."""
    n = len(names)

    def cell(i: int, j: int) -> str:
        if i == j and diagonal:
            return diagonal
        if math.isnan(share[i, j]):
            return ""
        text = f"{100 * share[i, j]:.0f}%"
        return f"{text}\n{games[i, j]:.0f} games" if n <= 8 and games[i, j] else text

    side = max(6.0, min(16.0, 2.5 + 0.8 * n))
    with _style():
        figure = _figure(side + 1.5, side)
        ax = figure.add_subplot()
        _heatmap(ax, share, names, cell, colorbar_label)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("entrant")
        ax.set_title(title)
        _save(figure, path)


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


def write_plots(folder: Path, tables: Tables, match: dict[str, Any] | None = None) -> list[Path]:
    """Draw every picture ``tables`` (and ``match``, a ``match.json`` dict) allow into ``folder``; the paths written.

    A picture of a table without a row (no pair met yet, no order table) is left out.  ``folder`` is made if
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
        raise PlotError(f"{folder}: cannot make the plots folder: {os_error_line(exc)}") from None
    drawers: list[tuple[str, Callable[[Tables, Path], bool]]] = [
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


def try_write_plots(folder: Path, tables: Tables, match: dict[str, Any] | None = None,
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
        from arena.results.files import LOG_FORMAT

        record = log.makeRecord(log.name, logging.WARNING, __file__, 0, reason, (), None)
        try:
            with open(log_file, "a", encoding="utf-8") as f:
                f.write(logging.Formatter(LOG_FORMAT).format(record) + "\n")
        except OSError:
            pass  # the reason still reaches the caller, who shows it
    return [], reason
