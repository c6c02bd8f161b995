"""The columns of a tournament's tables: each name once, the contract between :mod:`arena.report.tables`
and what reads them (the plots, the text and the HTML report, the CSV files).

A name that depends on the scoring is a dict by scoring: ``WIN_SHARE["uptown"]``.
"""

from __future__ import annotations

from arena.results.files import TABLE_FILES
from arena.rules.state import SCORINGS


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

#: Time use (time_use): turns the entrant's bot was asked, its mean and longest turn in seconds, its games
#: lost on time and the mean seconds left on its game clock at the end (empty without a clock).
MOVES_ASKED, MEAN_MOVE_SECONDS, LONGEST_MOVE_SECONDS = "moves_asked", "mean_move_seconds", "longest_move_seconds"
LOST_ON_TIME, MEAN_CLOCK_LEFT = "lost_on_time", "mean_clock_left"

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
TIME_USE_COLUMNS = (ENTRANT, GAMES, MOVES_ASKED, MEAN_MOVE_SECONDS, LONGEST_MOVE_SECONDS, LOST_ON_TIME, MEAN_CLOCK_LEFT)
#: The tables :func:`write_tables` writes, each to ``NAME.csv`` (:data:`~arena.results.files.TABLE_FILES`).
TABLE_NAMES = tuple(file.removesuffix(".csv") for file in TABLE_FILES)
