"""What makes two tournaments play the same games, read from the marks on
:class:`~arena.plan.tournament.TournamentConfig`'s fields rather than listed again: a resume compares every field
that defines the games (all but those marked ``compare=False``), a league's update those marked
:data:`~arena.plan.tournament.MEANING`."""

from __future__ import annotations

from dataclasses import fields

from arena.plan.tournament import TournamentConfig

#: The fields that define a tournament's games, in the order of the class.
DEFINING: tuple[str, ...] = tuple(f.name for f in fields(TournamentConfig) if f.compare)
#: The fields that say what a stored game is: a league's update keeps them.
MEANING_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(TournamentConfig) if f.metadata.get("meaning"))


def differences(a: TournamentConfig, b: TournamentConfig) -> list[str]:
    """The fields that define the games in which ``a`` and ``b`` differ (empty: they play the same games)."""
    return [name for name in DEFINING if getattr(a, name) != getattr(b, name)]
