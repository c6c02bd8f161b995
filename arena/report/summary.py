"""What ``report.html`` says in words: the summary it opens on, and what each table's columns mean.

The summary names who leads (with the rating's interval, and whether the second is still inside it), how
many games were played, a match's verdict and the Teams? test's finding; the column lines sit under each
table, so that a reader needs no other page to read it.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from arena.report import columns as col
from arena.report.match import headline, verdict_line
from arena.report.tables import Tables
from arena.report.text import standings_display

#: What the columns of each table of the page mean, by :data:`~arena.results.files.TABLES` name (and "teams").
COLUMN_NOTES = {
    "standings": "#: the place, by rating. games: seats played. rating: strength on the Elo scale (the entrants' "
                 "mean is 0; 100 points more: ahead of the other in 64% of the games), with its 95% interval. "
                 "wins: the share of games won under each scoring, with its 95% interval. rank: the mean finishing "
                 "place (1 is first). groups, captures, penalty, blockers: means per game. faults: seats lost to "
                 "a fault.",
    "head-to-head": "Each cell: the share of the games the two entrants shared in which the row entrant finished "
                    "ahead of the column entrant (50% is even).",
    "seats": "One row per seat, seat 0 moving first: the games played from it, the win share and mean rank there, "
             "mean groups, captures and Blockers! score, and faults: an advantage of a seat shows here.",
    "order": "Each row is a pair of entrants who sat side by side: after moved directly after before (seat s, then "
             "seat s + 1; the last seat, then seat 0). games: the games they sat so. ahead, tied, behind: the games "
             "after finished ahead of, level with and behind before. after ahead: the share of those games after "
             "finished ahead. wins and rank: after's win share and mean rank in them. The balanced seating gives "
             "every entrant every neighbour equally often, so these effects cancel out of the standings.",
    "time": "moves: the turns the entrant was asked to play. mean a move, longest: the time it took to answer, "
            "by the referee's clock. lost on time: games it faulted by running out of time. clock left: the mean "
            "time left on its clock at the end of a game with a clock (- without one).",
    "teams": "helper -> helped: the pair tested (does the first help the second?). games: the games they shared. "
             "captures: the helped's tiles the helper took / the number expected; x expected: their ratio with its "
             "95% interval. results (Elo): how much stronger the helped plays at the helper's tables than its "
             "rating says. p (Holm): the p-value adjusted over every pair. team?: FLAGGED when the test finds one.",
}

_SCORING_NAMES = {"uptown": "Uptown", "blockers": "Blockers!"}


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


def leader_line(tables: Tables) -> str:
    """Who leads, with the rating's interval, and whether the second is still inside it."""
    shown = standings_display(tables)
    if shown.empty:
        return "No game is counted yet."
    scoring = tables.scoring
    first = shown.iloc[0]
    rated = first["rating"] != "-"
    line = f"{first['entrant']} leads"
    if rated:
        line += f" with a rating of {first['rating']} (95% interval {first['rating 95% CI']})"
    line += f", winning {first[f'wins ({scoring})']} of its games under {_SCORING_NAMES[scoring]} scoring."
    if len(shown) < 2 or not rated:
        return line
    second = shown.iloc[1]
    standings = tables.standings
    low, high = standings[col.RATING_LOW].iloc[0], standings[col.RATING_HIGH].iloc[1]
    named = f"{second['entrant']} ({second['rating']}, {second['rating 95% CI']})"
    if _finite(low) and _finite(high) and low > high:
        return line + f" Second, {named}, is behind it beyond both intervals."
    return line + f" Second, {named}: the intervals overlap, so these games do not yet tell the two apart."


def games_line(games: int, tables: Tables) -> str:
    """How many games the page is about, and how many seats each."""
    seats = int(tables.seats[col.SEAT].max()) + 1 if len(tables.seats) else 0
    return f"{games} game{'' if games == 1 else 's'} of {seats} players played."


def teams_line(teams: pd.DataFrame) -> str:
    """What the Teams? test found, in a line."""
    from arena.stats.collusion import FLAGGED, HELPED, HELPER, P_PAIR

    tested = int(teams[P_PAIR].notna().sum())
    flagged = teams[teams[FLAGGED].astype(bool)]
    if flagged.empty:
        return f"Teams?: no pair of entrants plays as a team ({tested} ordered pairs tested)."
    pairs = ", ".join(f"{a} -> {b}" for a, b in zip(flagged[HELPER], flagged[HELPED]))
    return f"Teams?: {len(flagged)} pair(s) FLAGGED as playing as a team: {pairs} (of {tested} tested)."


def summary_lines(tables: Tables, games: int, match: dict[str, Any] | None = None,
                  teams: pd.DataFrame | None = None) -> list[str]:
    """The page's summary: the leader, the games, a match's verdict, the Teams? finding (plain text)."""
    lines = [leader_line(tables), games_line(games, tables)]
    if match is not None:
        lines.append(headline(match))
        verdict = verdict_line(match)
        if verdict:
            lines.append(verdict)
    if teams is not None:
        lines.append(teams_line(teams))
    return lines
