"""The "Teams?" table of a report: does any pair of entrants play as a team (:mod:`arena.stats.collusion`)?

One row per ordered pair tested, in a frame of cell texts for the text report and ``report.html``,
the lines that name the flagged pairs, and the detail of one pair (``arena report DIR --collusion A,B``).
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from arena.display.terminal import Column, fit_table, printable
from arena.errors import ArenaError
from arena.results.files import TEAMS_FILE, write_atomically
from arena.stats.collusion import (
    ALPHA,
    CAPTURE_MARGIN,
    CAPTURES_EXPECTED,
    CAPTURES_SEEN,
    EVIDENCE,
    FLAGGED,
    GAMES,
    GIFT_MARGIN,
    HELPED,
    HELPER,
    NOTE,
    P_HOLM,
    P_PAIR,
    RESULT_MARGIN,
    collusion_table,
    flagged_lines,
    pair_line,
    shown_p,
)

TITLE = "Teams?"
#: The heading of the pairs' column.
PAIR = "helper -> helped"
#: The columns of ``games.csv`` the tests read.
COLUMNS = ("game_id", "table", "deal", "seed", "seat", "entrant", "faulted", "uptown_rank", "blockers_rank", "groups",
           "captures_red", "captures_blue", "captures_green", "captures_yellow", "captures_purple")


def teams_table(games: pd.DataFrame, scoring: str, entrants: Sequence[str] | None = None) -> pd.DataFrame:
    """:func:`~arena.stats.collusion.collusion_table` of a report's games (tournament ranks under ``scoring``)."""
    rank = f"t_{scoring}_rank" if f"t_{scoring}_rank" in games else f"{scoring}_rank"
    played = {str(name) for name in pd.unique(games["entrant"])} if len(games) else set()
    names = [e for e in entrants if e in played] if entrants is not None else None
    return collusion_table(games, rank=rank, entrants=names)


def _number(value: object, spec: str) -> str:
    return "" if not isinstance(value, float) or math.isnan(value) else format(value, spec)


def _interval(row: pd.Series, middle: str, low: str, high: str, spec: str) -> str:
    if _number(row[middle], spec) == "":
        return ""
    return f"{row[middle]:{spec}} [{row[low]:{spec}}, {row[high]:{spec}}]"


def teams_display(table: pd.DataFrame) -> pd.DataFrame:
    """The tested pairs of ``table`` as cell texts, the flagged first, then by Holm's p-value."""
    tested = table[table[P_PAIR].notna()].sort_values([FLAGGED, P_HOLM, P_PAIR], ascending=[False, True, True],
                                                      kind="mergesort")
    rows = []
    for _, row in tested.iterrows():
        rows.append({
            PAIR: f"{row[HELPER]} -> {row[HELPED]}",
            "games": int(row[GAMES]),
            "captures": f"{row[CAPTURES_SEEN]:.0f} / {row[CAPTURES_EXPECTED]:.1f}"
            if _number(row[CAPTURES_EXPECTED], ".1f") else "",
            "x expected": _interval(row, "capture_ratio", "capture_low", "capture_high", ".2f"),
            "results (Elo)": _interval(row, "result_elo", "result_low", "result_high", "+.0f"),
            "p (Holm)": shown_p(float(row[P_HOLM])),
            "team?": f"FLAGGED ({row[EVIDENCE]})" if row[FLAGGED] else "",
        })
    return pd.DataFrame(rows, columns=[PAIR, "games", "captures", "x expected", "results (Elo)",
                                       "p (Holm)", "team?"])


def teams_note(table: pd.DataFrame) -> str:
    """What the table tests and what it found, in a paragraph."""
    tested = int(table[P_PAIR].notna().sum())
    flagged = int(table[FLAGGED].sum())
    found = f"{flagged} pair(s) flagged" if flagged else "no pair flagged"
    untested = len(table) - tested
    why = ""
    if untested:
        reasons = sorted(set(str(n) for n in table.loc[table[P_PAIR].isna(), NOTE]))
        why = f"; {untested} not tested ({'; '.join(reasons[:3])}{'; ...' if len(reasons) > 3 else ''})"
    ran = ", ".join(f"{name} {int(table[column].notna().sum())}" for name, column in
                    (("captures", "p_captures"), ("gifts", "p_gifts"), ("results", "p_results")))
    return (f"Does A help B? {tested} ordered pairs tested{why}: {found}. Captures: A takes B's tiles at under "
            f"{CAPTURE_MARGIN:.0%} of the rate A's captures of the others and the others' of B predict, or over "
            f"{1 / CAPTURE_MARGIN:.0%} of it; gifts: each of A's captures costs B over {GIFT_MARGIN:.2f} of a group "
            f"more than predicted; results: B plays over {RESULT_MARGIN:.0f} Elo stronger, or weaker, at A's tables "
            f"than its rating says, a gifts or results finding only where it holds at the tables without each "
            f"other entrant. Pairs each test ran on: {ran}. Holm's adjustment over the pairs, a flagged pair's "
            f"tables set aside before the next step, family-wise {ALPHA:.0%} (docs/explanation/statistics.md).")


#: Rows of the text report's Teams? table at most (the flagged pairs, then the most suspect); report.html
#: and teams.csv hold every pair.
TEXT_ROWS = 6


#: The columns the text report leaves out, in this order, to fit its width.
DROPPED_FIRST = ("results (Elo)", "captures", "games", "x expected")


def _wrap(line: str, width: int | None, indent: str = "  ") -> list[str]:
    """``line`` (made printable) in lines of at most ``width`` columns, the later ones indented, a long name
    broken too."""
    text = printable(line)
    return textwrap.wrap(text, width, subsequent_indent=indent) if width else [text]


def teams_lines(table: pd.DataFrame, width: int | None = None) -> list[str]:
    """The "Teams?" section of the text report, fitted to ``width`` columns (None: as wide as it is):
    columns left out (:data:`DROPPED_FIRST`), then the pairs' names cut, and the lines wrapped."""
    lines = ["", TITLE]
    display = teams_display(table)
    shown = display.head(max(TEXT_ROWS, int(table[FLAGGED].sum())))
    if len(shown):
        columns = [Column(str(heading), [str(v) for v in shown[heading]], left=heading == PAIR, shrink=heading == PAIR,
                          drop=DROPPED_FIRST.index(heading) if heading in DROPPED_FIRST else None)
                   for heading in shown.columns]
        fitted = fit_table(columns, width)
        lines.extend(fitted.lines)
        if fitted.dropped:
            lines.extend(_wrap(f"(left out to fit {width} columns: {', '.join(fitted.dropped)}; --collusion A,B "
                               "shows a pair whole)", width))
        if len(display) > len(shown):
            lines.extend(_wrap(f"({len(display) - len(shown)} more pairs, none flagged: in report.html and "
                               f"{TEAMS_FILE}, from arena report DIR --html)", width))
    lines.extend(_wrap(teams_note(table), width or 100, indent=""))
    for line in flagged_lines(table):
        lines.extend(_wrap(line, width))
    return lines


class PairError(ArenaError, ValueError):
    """``--collusion A,B`` names no pair the table holds."""


def pair_lines(table: pd.DataFrame | None, pair: str, width: int | None = None) -> list[str]:
    """The detail of one pair ``"A,B"``, both ways (``arena report DIR --collusion A,B``), wrapped at ``width``;
    :class:`PairError` for a pair the table does not hold (None: two players, no table)."""
    names = [name.strip() for name in pair.split(",", 2)]  # the option's A,B (a third part is an error below)
    if len(names) != 2:
        raise PairError(f"--collusion takes two entrants, A,B, not {pair!r}")
    if table is None:
        raise PairError("--collusion: with two players there is no third party to compare with")
    first, second = names
    known = set(table[HELPER]) | set(table[HELPED])
    unknown = [name for name in (first, second) if name not in known]
    if unknown or first == second:
        raise PairError(f"--collusion needs two different entrants of the results, not {', '.join(unknown) or first}"
                        f" (entrants: {', '.join(sorted(known))})")
    lines = []
    for helper, helped in ((first, second), (second, first)):
        row = table[(table[HELPER] == helper) & (table[HELPED] == helped)].iloc[0]
        lines.extend(_wrap(pair_line(row.to_dict()), width))
        if row[NOTE]:
            lines.extend(_wrap(f"  ({row[NOTE]})", width))
    return lines


def write_teams(table: pd.DataFrame, folder: str | Path) -> Path:
    """``table`` as ``folder/teams.csv``, through a temporary file beside it."""
    path = Path(folder) / TEAMS_FILE
    write_atomically(path, lambda tmp: table.to_csv(tmp, index=False))
    return path


#: The columns of the Teams? table that hold text (read back as text, empty for none).
_TEXT_COLUMNS = (HELPER, HELPED, NOTE, EVIDENCE)


def read_teams(path: Path) -> pd.DataFrame:
    """A table :func:`write_teams` wrote, as it was: names and notes as text, the flags as booleans."""
    table = pd.read_csv(path, dtype={column: str for column in _TEXT_COLUMNS}, keep_default_na=False,
                        na_values={column: [""] for column in pd.read_csv(path, nrows=0).columns
                                   if column not in _TEXT_COLUMNS})
    table[FLAGGED] = table[FLAGGED].astype(bool)
    return table
