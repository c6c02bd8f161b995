"""The ``uptown-game/1`` format's constants and its one error type (docs/reference/game-record.md)."""

from __future__ import annotations

from arena.errors import ArenaError

FORMAT = "uptown-game/1"

#: The keys this module writes itself, in the order it writes them.
STANDARD_KEYS = ("format", "scoring", "penalty", "seed", "players", "deal", "moves", "result")
#: The fields of one result row (RULES.md, Scoring), in the order they are written.
RESULT_FIELDS = (
    "seat", "groups", "captures", "captured_total", "blockers_penalty", "blockers_score",
    "uptown_rank", "blockers_rank",
)


class RecordError(ArenaError, ValueError):
    """A record that cannot be read or is not a valid game; the message is one line."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(str(message).split()))
