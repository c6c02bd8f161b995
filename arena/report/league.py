"""The league section of ``arena report``: each entrant's games and when it joined, left or changed its bot."""

from __future__ import annotations

from typing import Any

from arena.display.terminal import Column, fit_table, wrap
from arena.results.league import League


def _when(text: Any) -> str:
    """A time of ``league.json`` as a reader takes it in: ``2026-12-02 15:00``."""
    return str(text)[:16].replace("T", " ") if text else "-"


def league_lines(league: League, games: dict[str, int], width: int | None = None) -> list[str]:
    """The section's text lines: a title, then per entrant (in the order they joined) its games stored,
    when it joined, when its bot last changed and when it left; empty for a folder no update has grown."""
    if not league.updates:
        return []
    names = sorted(league.entrants, key=lambda name: (str(league.entrants[name].get("joined", "")), name))
    info = [league.entrants[name] for name in names]
    columns = [
        Column("entrant", names, left=True, shrink=True),
        Column("games", [str(games.get(name, 0)) for name in names]),
        Column("joined", [_when(i.get("joined")) for i in info], left=True),
        Column("bot changed", [_when(i.get("changed")) for i in info], left=True, short="changed", drop=1),
        Column("left", [_when(i.get("left")) for i in info], left=True, drop=0),
    ]
    title = f"League ({len(league.updates)} update(s), the last {_when(league.updates[-1].get('at'))})"
    return [*wrap(title, width), *fit_table(columns, width).lines]
