"""``arena run FILE --resume --update``: bring a results folder's tournament up to an edited file.

:func:`update_folder` reads what the folder holds (its ``tournament.toml``, ``entrants.json``,
``league.json`` and the ids in ``games.csv``), plans the update (:func:`~.league.plan_update`),
refuses one that would change what stored games mean, and then writes, in an order that an
interruption at any point leaves a folder the same update can take up again:

1. ``league.json`` with the tables numbered (new tables get new numbers, old ones keep theirs);
2. the dropped games moved to ``retired.jsonl`` and out of ``games.csv`` and the records;
3. ``entrants.json``: the bots of now;
4. ``tournament.toml``: the edited file;
5. ``league.json`` again, with the update's entry.

The run that follows is an ordinary ``--resume`` of the edited tournament: it checks every game kept,
as any resume does, and plays the games added.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from arena.plan.config import TournamentConfig
from arena.plugins import BotError
from arena.results.dealkey import read_key
from arena.results.dropping import retire_games
from arena.results.files import TOURNAMENT_FILE, RunError
from arena.results.identity import Known, current, store_entrants, stored_entrants
from arena.results.league import (
    League,
    LeagueError,
    folder_numbering,
    meaning_change,
    plan_update,
    read_league,
    start_league,
    stored_game_ids,
    updated_league,
    write_league,
)
from arena.results.tournament_file import read_tournament, write_tournament


def check_update(config: TournamentConfig, out: Path, source: str) -> TournamentConfig | None:
    """Refuse (:class:`~.league.LeagueError`) an update of ``out`` to ``config`` that would change what its
    stored games mean, reading only: a run calls it before any bot starts.  Returns the folder's tournament."""
    if not (out / TOURNAMENT_FILE).exists():
        return None
    old, _ = read_tournament(out)
    problem = meaning_change(old, config, source)
    if problem is not None:
        raise LeagueError(problem)
    if not old.public_deals:
        if old.deal_key is None:
            read_key(out)  # refused in one line: the stored games cannot be told apart without it
        if config.deal_key is not None and config.deal_key != old.deal_key:
            raise LeagueError(f"{source}: deal_key: not the deal key of {out}")
    return old


def update_folder(config: TournamentConfig, text: str, out: Path, source: str, old: TournamentConfig | None,
                  known: Known | None = None) -> tuple[list[str], list[str]]:
    """Update the tournament ``out`` holds (``old``, as :func:`check_update` found it) to ``config`` (the
    text of the file ``source``); ``known``: the bots as :func:`~.identity.check_bots` found them.

    Returns what it does, in lines for the terminal, and the ids of the games it dropped, a line per
    reason, for ``arena.log``.

    A folder that holds no tournament yet is left to the run to start.  Raises :class:`~.league.LeagueError`
    (one line, nothing written) for an edit that would change what stored games mean, and
    :class:`~.files.RunError` for a folder that cannot be read or written.
    """
    if old is None:
        return [], []
    config = replace(config, deal_key=old.deal_key)  # the folder's: its stored games were dealt with it
    try:
        now = current(config, known)
    except BotError as exc:
        raise RunError(str(exc)) from None
    before = stored_entrants(out)
    stored = stored_game_ids(out)
    plan = plan_update(old, config, stored, before, now, folder_numbering(out))
    lines = plan.lines()
    details = [f"update: dropped {len(ids)} game(s), {reason}: {', '.join(sorted(ids))}"
               for reason, ids in plan.dropped.items()]
    if old == config and not plan.changed and not plan.dropped:
        return lines, details  # nothing to change in the folder: a plain resume
    league = read_league(out) or start_league(out, old, out / TOURNAMENT_FILE)
    write_league(out, League(plan.tables, league.entrants, league.updates))
    retire_games(out, [game_id for ids in plan.dropped.values() for game_id in ids])
    store_entrants(out, now)
    write_tournament(out, text)
    write_league(out, updated_league(league, plan))
    return lines, details


__all__ = ["LeagueError", "check_update", "update_folder"]
