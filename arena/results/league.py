"""A league: a results folder whose tournament grows, and what an update keeps, drops and adds.

``league.json`` in a results folder keeps what a tournament file cannot say:

* ``tables``: the key of every table ever scheduled (:func:`~arena.plan.schedule.table_key`,
  the entrants' names in seat order joined by ``|``), by table number.  A game id names its table by
  this number (``t003-d0012-r2``), so a stored game keeps its id whatever entrants join or leave
  later and wherever the file lists them; a table first scheduled by an update gets the next free
  number, and the number of a table that left the schedule is never given again.
* ``entrants``: when each entrant joined (and left, if it did), and when its bot last changed.
* ``updates``: every update, with the entrants it added, removed and changed.

A fresh run numbers its tables by their place in the schedule, as a tournament always has: a
league's numbers differ from a fresh run's only for tables that joined later.  A folder written
before leagues existed has no ``league.json``; its numbering is then that of its own tournament
file, which is what its game ids already say.

:func:`plan_update` compares the stored tournament with an edited one and says, game by game, what
an update keeps, drops and adds.  A stored game is *kept* when its table (the same entrants in the
same seats, so the same seed) and seating are still in the schedule and none of its entrants
changed; every other stored game is *dropped* (moved to ``retired.jsonl``), and every game of the
new schedule not kept is *added* (played by the run that follows).  An edit that would change what
a stored game means — its players, seed, scoring, penalty, time limit, seating design or name, or
the order of two entrants (which decides seats and seeds) — is refused (:class:`LeagueError`) in one
line naming the key, before anything is written.
"""

from __future__ import annotations

import collections
import datetime
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.api.options import format_option
from arena.inputfiles import read_input
from arena.plan.config import TournamentConfig
from arena.plan.marks import MEANING_FIELDS, differences, keyed
from arena.plan.schedule import schedule, table_key, tournament_tables
from arena.results.files import GAMES_FILE, LEAGUE_FILE, RunError, write_atomically
from arena.results.games_table import game_ids_in

FORMAT = "arena-league/1"
#: The largest league file read: a key of about 40 bytes for each of a million tables.
LEAGUE_FILE_MB = 64



class LeagueError(RunError):
    """An update that would change what stored games mean; the message is one line naming the key."""


def now_text() -> str:
    """The time now, as ``league.json`` writes it (UTC, to the second)."""
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class League:
    """What ``league.json`` holds (see the module docstring)."""

    tables: list[str] = field(default_factory=list)
    entrants: dict[str, dict[str, Any]] = field(default_factory=dict)
    updates: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps({"format": FORMAT, "tables": self.tables, "entrants": self.entrants,
                           "updates": self.updates}, indent=2, sort_keys=True) + "\n"


def read_league(out: Path) -> League | None:
    """The league of ``out``, None when it has no ``league.json`` or one that cannot be read."""
    try:
        data = json.loads(read_input(out / LEAGUE_FILE, "a league file", LEAGUE_FILE_MB << 20))
    except (OSError, ValueError):  # an InputFileError and a UnicodeDecodeError are ValueErrors
        return None
    if (not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("tables"), list)
            or not all(isinstance(key, str) for key in data["tables"])
            or not isinstance(data.get("entrants"), dict) or not isinstance(data.get("updates", []), list)):
        return None
    return League(list(data["tables"]), dict(data["entrants"]), list(data.get("updates", [])))


def write_league(out: Path, league: League) -> None:
    text = league.to_json()
    write_atomically(out / LEAGUE_FILE, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def own_numbering(config: TournamentConfig) -> list[str]:
    """The table keys of ``config`` by table number when nothing else numbers them: their place in the schedule."""
    return [table_key(config.names, table) for table in tournament_tables(config)]


def folder_numbering(out: Path) -> tuple[str, ...]:
    """The table keys by number that ``out`` keeps (empty when it keeps none: tables numbered by their place)."""
    league = read_league(out)
    return tuple(league.tables) if league is not None else ()


def _since(out: Path, config_file: Path) -> str:
    """When the games of a folder without ``league.json`` began: its tournament file's time, else now."""
    try:
        stamp = config_file.stat().st_mtime
    except OSError:
        return now_text()
    return datetime.datetime.fromtimestamp(stamp, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def start_league(out: Path, config: TournamentConfig, config_file: Path) -> League:
    """The league of ``out``, written first from ``config`` (whose games the folder holds) when it has none."""
    league = read_league(out)
    if league is not None:
        return league
    since = _since(out, config_file)
    league = League(own_numbering(config), {name: {"joined": since} for name in config.names}, [])
    write_league(out, league)
    return league


# -- an update ------------------------------------------------------------------------------


def _shown(value: Any) -> str:
    if value is None:
        return "none"
    return format_option(value) if isinstance(value, (bool, int, float, str)) else str(value)


def meaning_change(old: TournamentConfig, new: TournamentConfig, source: str) -> str | None:
    """The one line that refuses an update changing what stored games mean, or None when it changes none."""
    changed = differences(old, new, MEANING_FIELDS)
    if changed:
        key = changed[0]
        was, now = keyed(old, MEANING_FIELDS)[key], keyed(new, MEANING_FIELDS)[key]
        return (f"{source}: {key}: {_shown(was)} -> {_shown(now)} would change what the stored games are "
                f"(they were played with {key} = {_shown(was)}); an update keeps it, or start a new folder "
                f"with --out, or again with --overwrite")
    both = [name for name in old.names if name in new.names]
    order = [name for name in new.names if name in old.names]
    if both != order:
        first = next(i for i, (a, b) in enumerate(zip(both, order)) if a != b)
        return (f"{source}: entrants: {order[first]!r} now comes before {both[first]!r}; the order of the entrants "
                f"sets their seats and the deals' seeds, so an update keeps it (move new entrants, not old ones)")
    return None


def stored_game_ids(out: Path) -> list[str]:
    """The ids of the games ``games.csv`` holds rows of, in the order first met."""
    return game_ids_in(out / GAMES_FILE)


@dataclass
class UpdatePlan:
    """What an update keeps, drops and adds, game by game, with the reason of each."""

    kept: set[str]
    #: Dropped stored games: their ids, by reason.
    dropped: dict[str, list[str]]
    #: Games of the new schedule to play: how many, by reason.
    added: collections.Counter[str]
    #: The table keys by number after the update.
    tables: list[str]
    joined: list[str]
    left: list[str]
    changed: dict[str, str]

    def lines(self) -> list[str]:
        """What the update does, in words: a summary line, then one line per reason."""
        dropped = sum(len(ids) for ids in self.dropped.values())
        lines = [f"update: keeps {len(self.kept)} stored game(s), drops {dropped}, adds {sum(self.added.values())} "
                 f"to play"]
        lines += [f"  drops {len(ids)}: {reason}" for reason, ids in self.dropped.items()]
        lines += [f"  adds {count}: {reason}" for reason, count in self.added.items()]
        return lines


def plan_update(
    old: TournamentConfig, new: TournamentConfig, stored: Iterable[str],
    before: Mapping[str, Any] | None, now: Mapping[str, Any], numbering: Sequence[str] = (),
) -> UpdatePlan:
    """What updating a folder that holds the games ``stored`` of ``old`` to ``new`` does.

    ``numbering`` is the folder's (:func:`folder_numbering`); ``before`` and ``now`` are the entrants'
    identities as stored and as they are (:func:`arena.results.identity.current`; None: not stored,
    taken as unchanged).
    """
    from arena.results.identity import differences

    old_numbering = tuple(numbering)
    numbering = list(numbering) or own_numbering(old)
    known = set(numbering)
    for table in tournament_tables(new):
        key = table_key(new.names, table)
        if key not in known:
            numbering.append(key)
            known.add(key)
    joined = [name for name in new.names if name not in old.names]
    left = [name for name in old.names if name not in new.names]
    changed: dict[str, str] = {}
    for name in new.names:
        if name in old.names and before is not None and name in before and before[name] != now[name]:
            changed[name] = (differences(before[name], now[name])
                             or f"its spec {before[name].get('spec')} -> {now[name].get('spec')}")

    def players(config: TournamentConfig, seats: tuple[int, ...]) -> list[str]:
        return [config.names[i] for i in seats]

    old_games = {game.game_id: game for game in schedule(old, old_numbering)}
    new_games = {game.game_id: game for game in schedule(new, numbering)}
    old_keys = {table_key(old.names, table) for table in tournament_tables(old)}
    kept: set[str] = set()
    dropped: dict[str, list[str]] = {}
    for game_id in stored:
        game = old_games.get(game_id)
        if game is None:
            continue  # no game of the stored tournament: the resume check removes it
        names = players(old, game.seats)
        reason = next((f"entrant {name!r} left" for name in names if name in left), None)
        reason = reason or next((f"entrant {name!r} changed: {changed[name]}" for name in names if name in changed), None)
        if reason is None:
            twin = new_games.get(game_id)
            if twin is not None and twin.seed == game.seed and players(new, twin.seats) == names:
                kept.add(game_id)
                continue
            reason = "no longer in the schedule (fewer deals, or another choice of tables)"
        dropped.setdefault(reason, []).append(game_id)
    added: collections.Counter[str] = collections.Counter()
    for game_id, game in new_games.items():
        if game_id in kept:
            continue
        names = players(new, game.seats)
        reason = next((f"entrant {name!r} joined" for name in names if name in joined), None)
        reason = reason or next((f"entrant {name!r} changed" for name in names if name in changed), None)
        if reason is None:
            key = numbering[game.table]
            if key not in old_keys:
                reason = "a table new to the schedule"
            elif game.deal >= old.deals:
                reason = f"deals {old.deals} -> {new.deals}"
            else:
                reason = "not stored yet"
        added[reason] += 1
    return UpdatePlan(kept, dropped, added, numbering, joined, left, changed)


def updated_league(league: League, plan: UpdatePlan) -> League:
    """``league`` after ``plan``: its tables numbered, who joined, left and changed, and the update's entry."""
    at = now_text()
    entrants = {name: dict(info) for name, info in league.entrants.items()}
    for name in plan.joined:
        entrants[name] = {"joined": at}
    for name in plan.left:
        entrants.setdefault(name, {})["left"] = at
    for name in plan.changed:
        entrants.setdefault(name, {"joined": at})["changed"] = at
    update = {"at": at, "added": plan.joined, "removed": plan.left, "changed": sorted(plan.changed),
              "kept": len(plan.kept), "dropped": sum(len(ids) for ids in plan.dropped.values()),
              "to_play": sum(plan.added.values())}
    return League(list(plan.tables), entrants, [*league.updates, update])
