"""What makes two tournaments play the same games, read from the marks on
:class:`~arena.plan.tournament.TournamentConfig`'s fields rather than listed again: a resume compares every field
that defines the games (all but those marked ``compare=False``), a league's update those marked
:data:`~arena.plan.tournament.MEANING`.  A difference is named by the tournament file's key: a time control is
compared key by key (``time_limit``, ``clock``, ``overage``)."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from arena.plan.tournament import TournamentConfig
from arena.timecontrol import TimeControl

#: The fields that define a tournament's games, in the order of the class.
DEFINING: tuple[str, ...] = tuple(f.name for f in fields(TournamentConfig) if f.compare)
#: The fields that say what a stored game is: a league's update keeps them.
MEANING_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(TournamentConfig) if f.metadata.get("meaning"))


def keyed(config: TournamentConfig, names: tuple[str, ...] = DEFINING) -> dict[str, Any]:
    """The values of the fields ``names`` of ``config``, by the tournament file's keys."""
    values: dict[str, Any] = {}
    for name in names:
        value = getattr(config, name)
        values.update(value.file_keys() if isinstance(value, TimeControl) else {name: value})
    return values


def differences(a: TournamentConfig, b: TournamentConfig, names: tuple[str, ...] = DEFINING) -> list[str]:
    """The keys of the fields ``names`` in which ``a`` and ``b`` differ (empty: they play the same games)."""
    before, after = keyed(a, names), keyed(b, names)
    return [key for key, value in before.items() if value != after[key]]
