"""A tournament's tables as the commands print them: text fitted to the terminal, markdown, csv or json.

:func:`format_tables` turns the :class:`~arena.report.tables.Tables` of a results folder into what
``arena run``, ``arena match`` and ``arena report`` print; the ``*_display`` functions give each table
the headings and cell texts a reader sees (percentages, Elo, intervals), shared with the plots and the
HTML report.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from arena.display.terminal import Column, duration, fit_table, printable, wrap
from arena.report import columns as col
from arena.report.tables import Tables
from arena.results.files import TABLES
from arena.rules.state import SCORINGS

#: What :func:`format_tables` writes: text fitted to the terminal, csv, markdown or json.
FORMATS = ("text", "csv", "markdown", "json")


def _percent(value: float) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{100 * value:.1f}%"


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _elo(value: float) -> str:
    """A rating on the Elo scale, signed: the entrants' mean is 0."""
    if _missing(value):
        return "-"
    points = round(value)
    return f"{points:+d}" if points else "0"


def standings_display(tables: Tables) -> pd.DataFrame:
    """The standings as a person reads them: the rating, shares in percent with their intervals, means rounded."""
    s = tables.scoring
    other = "blockers" if s == "uptown" else "uptown"
    st = tables.standings
    return pd.DataFrame({
        "#": st[col.PLACE],
        "entrant": st[col.ENTRANT],
        "games": st[col.GAMES],
        "rating": st[col.RATING].map(_elo),
        "rating 95% CI": ["-" if _missing(lo) else f"[{_elo(lo)}, {_elo(hi)}]"
                          for lo, hi in zip(st[col.RATING_LOW], st[col.RATING_HIGH])],
        f"wins ({s})": st[col.WIN_SHARE[s]].map(_percent),
        "95% CI": [f"{_percent(lo)}-{_percent(hi)}" for lo, hi in zip(st[col.CI_LOW[s]], st[col.CI_HIGH[s]])],
        f"rank ({s})": st[col.MEAN_RANK[s]].map(lambda v: f"{v:.2f}"),
        f"wins ({other})": st[col.WIN_SHARE[other]].map(_percent),
        f"rank ({other})": st[col.MEAN_RANK[other]].map(lambda v: f"{v:.2f}"),
        "groups": st[col.MEAN_GROUPS].map(lambda v: f"{v:.2f}"),
        "captures": st[col.MEAN_CAPTURES].map(lambda v: f"{v:.2f}"),
        "penalty": st[col.MEAN_BLOCKERS_PENALTY].map(lambda v: f"{v:.2f}"),
        "blockers": st[col.MEAN_BLOCKERS_SCORE].map(lambda v: f"{v:.2f}"),
        "faults": st[col.FAULTS],
    })


def head_to_head_matrix(tables: Tables) -> pd.DataFrame:
    """Row entrant's share of shared games finished ahead of the column entrant, in standings order.

    When the pairs did not all share as many games, each cell gives its count in brackets.
    """
    order = list(tables.standings[col.ENTRANT])
    h2h = tables.head_to_head
    matrix = pd.DataFrame("", index=order, columns=order)
    counted = h2h[col.GAMES].nunique() > 1
    for entrant, opponent, games, share in zip(h2h[col.ENTRANT], h2h[col.OPPONENT], h2h[col.GAMES], h2h[col.AHEAD_SHARE], strict=True):
        matrix.loc[entrant, opponent] = f"{_percent(share)} ({games})" if counted else _percent(share)
    for name in order:
        matrix.loc[name, name] = "-"
    matrix.index.name = "ahead of"
    return matrix


def head_to_head_note(tables: Tables) -> str:
    """The line under the head-to-head matrix that says how many games its shares are of."""
    counts = tables.head_to_head[col.GAMES].unique()
    if len(counts) == 0:
        return "no pair of entrants has met yet"
    if len(counts) == 1:
        return f"each pair shared {int(counts[0])} games"
    return "in brackets: the games the pair shared"


def seats_display(tables: Tables) -> pd.DataFrame:
    s = tables.scoring
    se = tables.seats
    return pd.DataFrame({
        "seat": se[col.SEAT],
        "games": se[col.GAMES],
        f"wins ({s})": se[col.WIN_SHARE[s]].map(_percent),
        f"rank ({s})": se[col.MEAN_RANK[s]].map(lambda v: f"{v:.2f}"),
        "groups": se[col.MEAN_GROUPS].map(lambda v: f"{v:.2f}"),
        "captures": se[col.MEAN_CAPTURES].map(lambda v: f"{v:.2f}"),
        "blockers": se[col.MEAN_BLOCKERS_SCORE].map(lambda v: f"{v:.2f}"),
        "faults": se[col.FAULTS],
    })


def order_display(tables: Tables) -> pd.DataFrame:
    """The order table as text: who moves before whom, how often ``after`` finished ahead, and its results."""
    s = tables.scoring
    o = tables.order
    shown = {"before": o[col.BEFORE], "after": o[col.AFTER], "games": o[col.GAMES], "ahead": o[col.AHEAD],
             "tied": o[col.TIED], "behind": o[col.BEHIND], "after ahead": o[col.AHEAD_SHARE].map(_percent)}
    for scoring in (s, *(x for x in SCORINGS if x != s)):
        shown[f"wins ({scoring})"] = o[col.AFTER_WIN_SHARE[scoring]].map(_percent)
        shown[f"rank ({scoring})"] = o[col.AFTER_MEAN_RANK[scoring]].map(lambda v: f"{v:.2f}")
    return pd.DataFrame(shown)


def _count(value: float) -> str:
    return "-" if _missing(value) else str(int(value))


def time_display(tables: Tables) -> pd.DataFrame:
    """Each entrant's time use as a person reads it: the mean and longest turn, games lost on time, the
    mean clock left at the end; ``-`` where the games do not tell (an older arena's folder, no clock)."""
    t = tables.time_use
    return pd.DataFrame({
        "entrant": t[col.ENTRANT],
        "games": t[col.GAMES],
        "moves": t[col.MOVES_ASKED].map(_count),
        "mean a move": t[col.MEAN_MOVE_SECONDS].map(duration),
        "longest": t[col.LONGEST_MOVE_SECONDS].map(duration),
        "lost on time": t[col.LOST_ON_TIME].map(_count),
        "clock left": t[col.MEAN_CLOCK_LEFT].map(duration),
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
#: (first dropped first; an interval before its point estimate); the deciding scoring's wins, the entrant, its
#: place, rating and faults always stay.
_SHORT = {"groups": "groups", "captures": "capt", "penalty": "pen", "blockers": "B score", "rating 95% CI": "rating CI",
          "mean a move": "mean", "lost on time": "on time", "clock left": "clock"}
STANDINGS_DROP_ORDER = ("penalty", "blockers", "captures", "groups", "rank (other)", "wins (other)", "games",
                        "rank (deciding)", "95% CI", "rating 95% CI")
SEATS_DROP_ORDER = ("blockers", "captures", "groups", "rank (deciding)")
TIME_DROP_ORDER = ("clock left", "moves", "games", "longest")
ORDER_DROP_ORDER = ("rank (other)", "wins (other)", "tied", "behind", "ahead", "rank (deciding)", "games",
                    "wins (deciding)")


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
            drop=order.index(generic) if generic in order else None, shrink=heading in left,
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


def _text_table(frame: pd.DataFrame, scoring: str, order: Sequence[str], width: int | None,
                names: Sequence[str] = ("entrant",)) -> list[str]:
    """``frame`` fitted to ``width``: columns left out in ``order``, then the ``names`` columns cut."""
    table = fit_table(_columns(frame, scoring, order, left=names), width)
    # The note on U and B only where a heading names a scoring (the time table's do not).
    scored = any(f"({s})" in str(heading) for heading in frame.columns for s in SCORINGS)
    return table.lines + _notes(width, table.short and scored, table.dropped)


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


def _table(tables: Tables, name: str) -> pd.DataFrame:
    """The frame of table ``name`` (a key of :data:`TABLES`); ValueError, one line, when it is not there."""
    if name not in TABLES:
        raise ValueError(f"unknown table {name!r} (choose {', '.join(TABLES)})")
    frame = getattr(tables, TABLES[name], None)
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"no {name} table in these results")
    return frame


def _present(tables: Tables) -> list[str]:
    """The names of the tables ``tables`` holds, in :data:`TABLES` order."""
    return [name for name in TABLES if isinstance(getattr(tables, TABLES[name], None), pd.DataFrame)]


def format_tables(
    tables: Tables, fmt: str, title: str = "", only_standings: bool = False, width: int | None = None,
    table: str | None = None, games: tuple[int, int] | None = None,
) -> str:
    """The tables as ``text`` (aligned, for a terminal), ``csv``, ``markdown`` or ``json``.

    ``csv`` is one table: ``table`` (a key of :data:`TABLES`, default the
    standings), readable as it is by any CSV reader.  The other formats give
    every table (only the standings with ``only_standings``; only ``table``
    when it is given): ``json`` as one object with a list of records per
    table under its :data:`TABLES` attribute, and ``title``, ``scoring`` and,
    with ``games`` (stored, scheduled) given, ``games``, ``scheduled_games``
    and ``partial``.  A ``table`` these tables do not hold is a one-line
    :class:`ValueError`.  ``games`` also marks the title of a partial run.

    ``width`` fits the text tables into that many columns (None: whole): their
    headings are shortened, then columns left out in the order of
    :data:`STANDINGS_DROP_ORDER` and :data:`SEATS_DROP_ORDER` (the head-to-head
    matrix is headed by places and loses its last columns), then long entrant
    names are cut; a line under each table says what was left out.  Text
    from the tables (entrant and bot names) is printed through
    :func:`arena.display.terminal.printable` in every format but json, which escapes
    it itself.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (choose {', '.join(FORMATS)})")
    if table is not None:
        _table(tables, table)
        names = [table]
    elif fmt == "csv" or only_standings:
        names = ["standings"]
    else:
        names = _present(tables)
    if fmt == "json":
        payload: dict[str, Any] = {"title": title, "scoring": tables.scoring}
        if games is not None:
            payload.update(games=games[0], scheduled_games=games[1], partial=games[0] < games[1])
        for name in names:
            payload[TABLES[name]] = _json_ready(_table(tables, name))
        return json.dumps(payload, indent=2, allow_nan=False) + "\n"
    if fmt == "csv":
        frame = _table(tables, names[0])
        return frame.map(lambda v: printable(v) if isinstance(v, str) else v).to_csv(
            index=False, float_format="%.6g", lineterminator="\n")
    scoring = tables.scoring
    heading = title
    if games is not None and games[0] < games[1]:
        heading = f"{heading} (partial: {games[0]} of {games[1]} games)"
    heading = f"{heading} - " if heading else ""
    sections: list[tuple[str, list[str], str]] = []  # (title, text lines, markdown)
    for name in names:
        if name == "standings":
            shown = standings_display(tables)
            sections.append((f"{heading}Standings", _text_table(shown, scoring, STANDINGS_DROP_ORDER, width),
                             _markdown(shown)))
        elif name == "head-to-head":
            matrix = head_to_head_matrix(tables)
            note = head_to_head_note(tables)
            sections.append((H2H_TITLE, [*_head_to_head_text(matrix, width), *wrap(note, width)],
                             f"{_markdown(matrix, True)}\n\n{note}"))
        elif name == "seats":
            shown = seats_display(tables)
            sections.append(("By seat", _text_table(shown, scoring, SEATS_DROP_ORDER, width), _markdown(shown)))
        elif name == "time":
            shown = time_display(tables)
            sections.append((TITLES[name], _text_table(shown, scoring, TIME_DROP_ORDER, width), _markdown(shown)))
        else:  # order
            shown = order_display(tables)
            sections.append((TITLES[name], _text_table(shown, scoring, ORDER_DROP_ORDER, width, ("before", "after")),
                             _markdown(shown)))
    if fmt == "markdown":
        return "\n".join(f"## {printable(head)}\n\n{body}\n" for head, _, body in sections)
    return "\n".join("\n".join([*wrap(printable(head), width), *lines]) + "\n" for head, lines, _ in sections)


H2H_TITLE = "Head to head (share of shared games the row entrant finished ahead of the column entrant)"
#: The titles of the tables in text and markdown, by :data:`TABLES` name.
TITLES = {"standings": "Standings", "head-to-head": H2H_TITLE, "seats": "By seat",
          "order": "By who sits directly before whom",
          "time": "Time use (per move the bot was asked)"}
