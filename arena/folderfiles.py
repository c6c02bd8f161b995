"""The names of a results folder's files: one list, which every layer imports (the sandbox too, to know a
results folder when it sees one), so no module keeps a copy.

How each file is written is :mod:`arena.results.files`; what ``games.csv`` holds is
:mod:`arena.results.games_table`.
"""

from __future__ import annotations

TOURNAMENT_FILE = "tournament.toml"
#: The folder's secret deal key, its owner's alone (:mod:`arena.results.dealkey`).
DEAL_KEY_FILE = "deal.key"
#: The file of a results folder that holds its entrants' identities.
IDENTITY_FILE = "entrants.json"
#: The file of a results folder that numbers its tables and says when each entrant joined.
LEAGUE_FILE = "league.json"
#: The records of the games an update dropped, kept rather than lost.
RETIRED_FILE = "retired.jsonl"
GAMES_FILE = "games.csv"
RECORDS_FILE = "records.jsonl"
RECORDS_GZ_FILE = "records.jsonl.gz"
LOG_FILE = "arena.log"
#: What the run wrote, chunk by chunk, for a resume to trust without replaying.
CHECKPOINTS_FILE = "checkpoints.jsonl"
#: What the tables were built from, for ``arena report`` to reuse them while the folder is unchanged.
TABLES_STAMP = "tables.json"
#: The Teams? test's table (every ordered pair of entrants), written and stamped with the tables.
TEAMS_FILE = "teams.csv"
#: The file of a match's results folder that holds its test and verdict.
MATCH_FILE = "match.json"
#: The folder of the bots' logs (their standard error), one file per entrant.
BOTS_FOLDER = "bots"
#: The file a run holds an OS lock on for as long as it writes the folder.
LOCK_FILE = ".arena.lock"
#: The HTML report and the folder of the replay pages it links.
REPORT_FILE = "report.html"
REPLAYS_FOLDER = "games"
#: The folder of the games being played: one small file per local worker, for ``arena serve``.
LIVE_FOLDER = "live"

#: The files that, beside ``tournament.toml``, mark a folder as a results folder of the arena.
RESULTS_FILES = frozenset({RECORDS_FILE, RECORDS_GZ_FILE, GAMES_FILE, IDENTITY_FILE, CHECKPOINTS_FILE, MATCH_FILE})
