"""Who plays which deal from which seat: the schedule of a tournament.

* **Tables.** A *round-robin* (the default ``format``) makes every k-subset of
  the entrants a table, ``k`` the players per game, in lexicographic order of
  the entrants' positions in the file.  With fewer entrants than seats there is
  one table, filled by repeating the entrants in file order (A, B, A, B for two
  entrants and four seats); each seat still gets a bot of its own.  A
  *gauntlet* keeps the round-robin tables that hold exactly one challenger (so
  one challenger and ``k - 1`` entrants of the pool), in the same order and
  with the same seating: a table of a gauntlet plays the same deals as that
  table in a round-robin of the same entrants.
* **At most** ``max_tables`` **tables.**  When there are more, N are chosen by
  :func:`choose_tables` (a seeded greedy that keeps every entrant's number of
  tables within 1 of the others', and then spreads the pairs) and kept in the
  order above, numbered again from 0.
* **Deals.** Every table plays ``deals`` *rounds*: one game in every seating of
  the tournament's ``seating`` design (:mod:`.seating`: ``fixed``, ``rotate``,
  ``all``, ``balanced``).  Seatings that would repeat one already played (a
  filled table such as A, B, A, B) are skipped.  A round is the unit the
  statistics treat as independent (the ``deal`` column and the ``d`` of a game
  id number it).
* **Seeds.**  By default every game of a round has a deal of its own: its seed
  is :func:`game_seed` of the master seed, the table, the round and the
  seating's index, so no game can tell anything about another's tiles.  With
  ``duplicate = true`` (the duplicate format, for trusted bots) a round's games
  share one seed, so every entrant plays the same tiles from several seats.
  Unless the file asks for ``public_deals``, every seed is an HMAC-SHA256 keyed
  with the results folder's secret deal key (:mod:`arena.results.dealkey`),
  so nothing a bot is given or can read (the master seed, the names, its own
  tiles) lets it find the seed; with public deals it is a plain SHA-256 of
  public things and the tournament file alone gives every deal.  A seed never
  depends on the worker, the completion order, a resume, or which other tables
  the tournament holds.  A deals file (``deals = "FILE"``, :mod:`.deals`) gives
  round ``d`` of every table its ``d``-th seed instead, the same in any run.

Game ids read ``t{table}-d{deal}-r{index}``, the index the seating's index in
the design (under ``rotate``, the rotation), zero-padded to widths fixed by the
tournament (``t003-d0012-r2``; two digits for the 12 and 20 seatings of
``balanced`` at 4 and 5 players and the 24 of ``all`` at 4, three for the 120
of ``all`` at 5).  Games are listed deal by deal, so an interrupted run has
played every table about equally.  A run plays them in the order of
:func:`by_seating`: within a window of deals, seating by seating, so that a
bot process can play many deals before it must be replaced (no process ever
plays two games of one deal: the referee sees to that; outside the duplicate format
every game is a deal of its own).
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import re
from collections.abc import Container, Iterable, Iterator, Sequence
from typing import NamedTuple

from arena.errors import ArenaError
from arena.plan.config import TournamentConfig
from arena.plan.deals import seating_seed
from arena.plan.seating import design, seatings

SEED_PREFIX = "uptown-tournament/1"
#: The prefix of the tie-break key of :func:`choose_tables`.
TABLES_PREFIX = "uptown-tables/1"


class Game(NamedTuple):
    """One game of the schedule; ``seats[s]`` is the index (in the file) of the entrant in seat ``s``.

    ``rotation`` is the seating's index in the design (the ``r`` of the game id, the
    ``rotation`` column of ``games.csv`` and of the record's ``tournament`` key).
    A plain tuple underneath, so it travels to a worker process as the task itself.
    """

    game_id: str
    table: int
    deal: int
    rotation: int
    seed: int
    seats: tuple[int, ...]


def tables(entrants: int, players: int) -> list[tuple[int, ...]]:
    """The seating (entrant index per seat, before the design moves anyone) of every round-robin table."""
    if entrants >= players:
        return list(itertools.combinations(range(entrants), players))
    return [tuple(seat % entrants for seat in range(players))]


def gauntlet_tables(challengers: Sequence[int], pool: Sequence[int], players: int) -> list[tuple[int, ...]]:
    """The round-robin tables (entrant indices in file order) that hold exactly one of ``challengers``.

    Every other entrant of such a table comes from ``pool``; listed in the
    round-robin's order (lexicographic in the entrants' indices).
    """
    found = {
        tuple(sorted((challenger, *rest)))
        for challenger in challengers
        for rest in itertools.combinations(sorted(pool), players - 1)
    }
    return sorted(found)


def table_key(names: Sequence[str], table: Sequence[int]) -> str:
    """The TABLE part of a deal's seed: the names of the table's entrants joined by ``|``."""
    return "|".join(names[i] for i in table)


#: How many seeded attempts :func:`choose_tables` makes at counts within 1 before it takes its best.
CHOICE_ATTEMPTS = 64


def _tie_break(master: int, attempt: int, key: str) -> int:
    digest = hashlib.sha256(f"{TABLES_PREFIX}:{master}:{attempt}:{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def choose_tables(
    candidates: Sequence[tuple[int, ...]], count: int, master: int, names: Sequence[str],
    groups: Sequence[int] | None = None,
) -> list[tuple[int, ...]]:
    """``count`` of ``candidates`` (tables of distinct entrants): a seeded, balanced choice, in the candidates' order.

    The aim: every entrant at as equal a number of tables as possible (within 1),
    measured within each of ``groups`` (a group index per entrant, default one
    group; a gauntlet balances its challengers and its pool each among
    themselves), then every pair of entrants together about equally often.

    A greedy picks one table at a time (:func:`_greedy`).  When ``count`` is more
    than half the candidates it picks the tables to leave out instead: every
    entrant of a group is in equally many of all the candidates, so leaving out a
    balanced set keeps a balanced set.  Attempt ``a`` breaks ties by the key
    ``sha256("uptown-tables/1:MASTER:a:TABLE")`` (first 8 bytes, TABLE as in the
    deal's seed); the first of :data:`CHOICE_ATTEMPTS` attempts whose counts end
    within 1 in every group is taken, else the attempt with the smallest spread
    (the first of those).  It depends on the master seed and the names only.
    """
    total = len(candidates)
    if count >= total:
        return list(candidates)
    group_of = [0] * len(names) if groups is None else list(groups)
    leave_out = 2 * count > total
    best: tuple[int, list[int]] | None = None
    for attempt in range(CHOICE_ATTEMPTS):
        tie = [_tie_break(master, attempt, table_key(names, c)) for c in candidates]
        picked = _greedy(candidates, total - count if leave_out else count, tie, group_of)
        if leave_out:
            dropped = set(picked)
            picked = [i for i in range(total) if i not in dropped]
        spread = _spread([candidates[i] for i in picked], group_of)
        if best is None or spread < best[0]:
            best = (spread, picked)
        if spread <= 1:
            break
    assert best is not None
    return [candidates[i] for i in sorted(best[1])]


def _spread(chosen: Sequence[tuple[int, ...]], group_of: Sequence[int]) -> int:
    """The largest difference between two entrants' table counts in ``chosen``, within one group."""
    counts = [0] * len(group_of)
    for table in chosen:
        for entrant in table:
            counts[entrant] += 1
    spreads = []
    for g in set(group_of):
        mine = [c for c, h in zip(counts, group_of) if h == g]
        spreads.append(max(mine) - min(mine))
    return max(spreads)


def _greedy(candidates: Sequence[tuple[int, ...]], count: int, tie: Sequence[int], group_of: Sequence[int]) -> list[int]:
    """The indices of ``count`` candidates, picked one at a time by the best of, in turn:

    1. the spread its entrants' table counts would have after it (most tables minus
       fewest, the largest over the groups);
    2. the fewest tables its entrants already have, summed;
    3. the fewest tables its pairs of entrants already share, summed;
    4. the smallest ``tie``.
    """
    import numpy as np  # here alone: a worker process imports this module for Game, and numpy is a tenth of a second

    members = np.array(candidates, dtype=np.int64)
    k = members.shape[1]
    group = np.asarray(group_of, dtype=np.int64)
    n = len(group)
    in_group = {g: group[members] == g for g in sorted(set(group_of))}
    ties = np.asarray(tie, dtype=np.int64)
    pairs = list(itertools.combinations(range(k), 2))
    tables_of = np.zeros(n, dtype=np.int64)
    shared = np.zeros((n, n), dtype=np.int64)
    taken = np.zeros(len(candidates), dtype=bool)
    chosen: list[int] = []
    for _ in range(count):
        counts = tables_of[members]
        spread = np.zeros(len(candidates), dtype=np.int64)
        for g, mask in in_group.items():
            mine = tables_of[group == g]
            low, high = int(mine.min()), int(mine.max())
            at_low = int((mine == low).sum())
            after_high = np.maximum(high, np.where(mask, counts + 1, 0).max(axis=1))
            lifts_low = (mask & (counts == low)).sum(axis=1) == at_low
            spread = np.maximum(spread, after_high - (low + lifts_low))
        together = np.zeros(len(candidates), dtype=np.int64)
        for i, j in pairs:
            together += shared[members[:, i], members[:, j]]
        best = int(np.lexsort((ties, together, counts.sum(axis=1), spread, taken))[0])
        taken[best] = True
        chosen.append(best)
        tables_of[members[best]] += 1
        for i, j in pairs:
            a, b = members[best, i], members[best, j]
            shared[a, b] += 1
            shared[b, a] += 1
    return chosen


def tournament_tables(config: TournamentConfig) -> list[tuple[int, ...]]:
    """The tables of ``config`` in order (format, then ``max_tables``); ``t{table}`` indexes this list."""
    names = config.names
    if config.format == "gauntlet":
        challengers = [names.index(n) for n in config.challengers]
        pool = [names.index(n) for n in config.pool]
        found = gauntlet_tables(challengers, pool, config.players)
        groups = [1 if name in config.challengers else 0 for name in names]
    else:
        found = tables(len(names), config.players)
        groups = None
    if config.max_tables is not None and len(found) > config.max_tables:
        found = choose_tables(found, config.max_tables, config.seed, names, groups)
    return found


def rotations(seating: tuple[int, ...], rotate: bool) -> list[tuple[int, tuple[int, ...]]]:
    """``(rotation, seating)`` for every seating a deal of this table is played in under ``rotate`` / ``fixed``."""
    return seatings(seating, "rotate" if rotate else "fixed")


class DealKeyMissing(ArenaError, ValueError):
    """A tournament whose seeds are keyed (no ``public_deals``) listed without its deal key."""


def game_seed(master: int, table_key: str, deal: int, rotation: int | None = None, key: str | None = None) -> int:
    """The 63-bit seed of a game: of round ``deal`` of one table, in the seating ``rotation`` (None: the
    round's one shared deal, the duplicate format), keyed with the hexadecimal deal ``key`` (None: public).

    The text ``uptown-tournament/1:MASTER:TABLE:DEAL[:ROTATION]`` is hashed with SHA-256 (public) or
    HMAC-SHA256 under the key's 32 bytes; the first 8 bytes of the digest, read big-endian and
    shifted right by one, are the seed (63 bits, so it fits every JSON reader).  A public
    duplicate seed is the one this arena has always given, so older research runs replay.
    """
    text = f"{SEED_PREFIX}:{master}:{table_key}:{deal}" + ("" if rotation is None else f":{rotation}")
    if key is None:
        digest = hashlib.sha256(text.encode()).digest()
    else:
        digest = hmac.new(bytes.fromhex(key), text.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def seed_key(config: TournamentConfig) -> str | None:
    """The deal key ``config``'s seeds are made with: None for public deals; :class:`DealKeyMissing` when
    the tournament is keyed but was given no key (a seed made without it would be a public one)."""
    if config.public_deals:
        return None
    if config.deal_key is None:
        raise DealKeyMissing(f"{config.name}: the deals of this tournament are secret and no deal key was given "
                             f"(the results folder keeps it; or set public_deals = true)")
    return config.deal_key


def _width(count: int, minimum: int) -> int:
    return max(minimum, len(str(max(count - 1, 0))))


def numbered_tables(config: TournamentConfig, numbering: Sequence[str] = ()) -> list[tuple[int, tuple[int, ...]]]:
    """``(number, table)`` of every table of ``config``, by number: the ``t{table}`` of its game ids.

    A tournament numbers its tables by their place in :func:`tournament_tables`.  A league that
    grew keeps, in its results folder, the table keys by number (``numbering``, see
    :mod:`arena.results.league`): a table keeps the number it had when it was first played, and a
    table it never had gets the next free number, in that order.
    """
    found = tournament_tables(config)
    if not numbering:
        return list(enumerate(found))
    known = {key: number for number, key in enumerate(numbering)}
    free = len(numbering)
    numbered = []
    for table in found:
        number = known.get(table_key(config.names, table))
        if number is None:
            number, free = free, free + 1
        numbered.append((number, table))
    return sorted(numbered)


_GAME_ID = re.compile(r"t(\d+)-d(\d+)-r(\d+)")


class Schedule:
    """Every game of a tournament, worked out once: iterated, counted, looked up by id, and what is left.

    ``numbering`` is a league's table numbers (empty: tables numbered by their place).  Listing the
    games needs the deal key of a keyed tournament (:class:`DealKeyMissing`); counting them does not.
    """

    def __init__(self, config: TournamentConfig, numbering: Sequence[str] = ()) -> None:
        self.config = config
        self.numbering = tuple(numbering)
        #: ``(number, table)`` of every table, by number.
        self.tables = numbered_tables(config, numbering)
        self._seatings = [seatings(table, config.seating) for _, table in self.tables]
        self._numbers = {number: place for place, (number, _) in enumerate(self.tables)}
        self._keys = [table_key(config.names, table) for _, table in self.tables]
        highest = self.tables[-1][0] if self.tables else 0
        self._widths = (_width(max(highest + 1, len(self.numbering)), 3), _width(config.deals, 4),
                        _width(len(design(config.seating, config.players)), 1))

    def __len__(self) -> int:
        return self.config.deals * sum(len(seated) for seated in self._seatings)

    def __iter__(self) -> Iterator[Game]:
        """Round by round, table by table, seating by seating."""
        secret = seed_key(self.config)
        for deal in range(self.config.deals):
            for place in range(len(self.tables)):
                yield from self._round(place, deal, secret)

    def _round(self, place: int, deal: int, secret: str | None) -> Iterator[Game]:
        config, key = self.config, self._keys[place]
        given = config.deal_seeds[deal] if config.deal_seeds else None
        if given is not None:  # a deals file's round: the same tiles in any run (see .deals)
            shared = given
        else:
            shared = game_seed(config.seed, key, deal, None, secret) if config.duplicate else 0
        for index, seats in self._seatings[place]:
            if config.duplicate:
                seed = shared
            elif given is not None:
                seed = seating_seed(given, index)
            else:
                seed = game_seed(config.seed, key, deal, index, secret)
            yield Game(self.game_id(self.tables[place][0], deal, index), self.tables[place][0], deal, index, seed, seats)

    def game_id(self, table: int, deal: int, index: int) -> str:
        """The id of the game of table number ``table``, round ``deal``, seating ``index``."""
        tw, dw, rw = self._widths
        return f"t{table:0{tw}d}-d{deal:0{dw}d}-r{index:0{rw}d}"

    def game(self, game_id: str) -> Game | None:
        """The game ``game_id`` names, None when it is no game of this schedule (read from the id, not listed)."""
        found = _GAME_ID.fullmatch(game_id)
        if found is None:
            return None
        table, deal, index = (int(part) for part in found.groups())
        place = self._numbers.get(table)
        if place is None or deal >= self.config.deals or self.game_id(table, deal, index) != game_id:
            return None
        secret = seed_key(self.config)
        return next((game for game in self._round(place, deal, secret) if game.rotation == index), None)

    def games(self, ids: Iterable[str]) -> dict[str, Game]:
        """The games of ``ids`` that are games of this schedule, by id."""
        found = {game_id: self.game(game_id) for game_id in ids}
        return {game_id: game for game_id, game in found.items() if game is not None}

    def pending(self, done: Container[str]) -> Iterator[Game]:
        """The games not in ``done``, in the order a run plays them (:func:`by_seating`)."""
        return by_seating(game for game in self if game.game_id not in done)


def schedule(config: TournamentConfig, numbering: Sequence[str] = ()) -> Iterator[Game]:
    """Every game of the tournament, round by round, table by table, seating by seating (:class:`Schedule`).

    Raises :class:`DealKeyMissing` for a keyed tournament without its key.
    """
    return iter(Schedule(config, numbering))


#: Games a run reads ahead of the schedule to order them by seating (a few hundred kilobytes).
PLAY_WINDOW = 4096


def by_seating(games: Iterable[Game], window: int = PLAY_WINDOW) -> Iterator[Game]:
    """``games`` in the order a run plays them: each ``window`` of them by seating index (then in
    schedule order), so that consecutive games are of different deals.

    A bot process never plays two games of one deal (a bot may learn within a game, never across
    the games of a deal): listed deal by deal, every game would need fresh processes, while here a
    process can play up to ``window / seatings`` games before it meets a deal again.  The order
    changes no game: each is seeded by itself, and the games file is sorted when the run ends.
    """
    iterator = iter(games)
    while block := list(itertools.islice(iterator, window)):
        block.sort(key=lambda game: game.rotation)  # stable: schedule order within a seating
        yield from block


def count_games(config: TournamentConfig) -> int:
    """How many games :func:`schedule` lists, without listing them."""
    return len(Schedule(config))
