"""Who plays which deal from which seat: the round-robin schedule of a tournament.

* **Tables.** With ``k`` players per game, every k-subset of the entrants is a
  table, in lexicographic order of the entrants' positions in the file.  With
  fewer entrants than seats there is one table, filled by repeating the
  entrants in file order (A, B, A, B for two entrants and four seats); each
  seat still gets a bot of its own.
* **Deals.** Every table plays ``deals`` deals.  The seed of a deal is
  ``sha256("uptown-tournament/1:MASTER:TABLE:DEAL")``, its first 8 bytes read
  big-endian and shifted right by one (63 bits, so it fits every JSON reader),
  where TABLE is the entrants' names of the table joined by ``|``.  It never
  depends on the worker, the completion order or a resume.
* **Rotations** (duplicate format).  With ``rotate = true`` a deal is played
  once for every cyclic rotation of the table's seating (rotation ``r`` moves
  the entrant of seat ``s`` to seat ``s + r``), all with the same seed, so
  every entrant plays the same tiles from every seat.  Rotations that would
  repeat a seating already played (a filled table such as A, B, A, B) are
  skipped.  With ``rotate = false`` each deal is played once.

Game ids read ``t{table}-d{deal}-r{rotation}``, zero-padded to widths fixed
by the tournament (``t003-d0012-r2``).  Games are listed deal by deal, so an
interrupted run has played every table about equally.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterator
from typing import NamedTuple

from . import seating as seating_designs
from .config import TournamentConfig

SEED_PREFIX = "uptown-tournament/1"


class Game(NamedTuple):
    """One game of the schedule; ``seats[s]`` is the index (in the file) of the entrant in seat ``s``.

    A plain tuple underneath, so it travels to a worker process as the task itself.
    """

    game_id: str
    table: int
    deal: int
    rotation: int
    seed: int
    seats: tuple[int, ...]


def tables(entrants: int, players: int) -> list[tuple[int, ...]]:
    """The seating (entrant index per seat, before rotation) of every table."""
    if entrants >= players:
        return list(itertools.combinations(range(entrants), players))
    return [tuple(seat % entrants for seat in range(players))]


def rotations(seating: tuple[int, ...], rotate: bool) -> list[tuple[int, tuple[int, ...]]]:
    """``(rotation, seating)`` for every seating a deal of this table is played in."""
    if not rotate:
        return [(0, seating)]
    k = len(seating)
    seen: set[tuple[int, ...]] = set()
    result = []
    for r in range(k):
        rotated = tuple(seating[(seat - r) % k] for seat in range(k))
        if rotated not in seen:
            seen.add(rotated)
            result.append((r, rotated))
    return result


def deal_seatings(seating: tuple[int, ...], config: TournamentConfig) -> list[tuple[int, tuple[int, ...]]]:
    """``(rotation, seating)`` of every game of one deal: the config's seating design, else its ``rotate``."""
    if config.seating is not None:
        return seating_designs.seatings(seating, config.seating)
    return rotations(seating, config.rotate)


def game_seed(master: int, table_key: str, deal: int) -> int:
    """The 63-bit seed of one deal of one table."""
    digest = hashlib.sha256(f"{SEED_PREFIX}:{master}:{table_key}:{deal}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def _width(count: int, minimum: int) -> int:
    return max(minimum, len(str(max(count - 1, 0))))


def schedule(config: TournamentConfig) -> Iterator[Game]:
    """Every game of the tournament, deal by deal, table by table, rotation by rotation."""
    all_tables = tables(len(config.entrants), config.players)
    names = config.names
    keys = ["|".join(names[i] for i in seating) for seating in all_tables]
    table_rotations = [deal_seatings(seating, config) for seating in all_tables]
    tw, dw = _width(len(all_tables), 3), _width(config.deals, 4)
    for deal in range(config.deals):
        for table, (key, seatings) in enumerate(zip(keys, table_rotations)):
            seed = game_seed(config.seed, key, deal)
            for rotation, seats in seatings:
                yield Game(f"t{table:0{tw}d}-d{deal:0{dw}d}-r{rotation}", table, deal, rotation, seed, seats)


def count_games(config: TournamentConfig) -> int:
    """How many games :func:`schedule` lists, without listing them."""
    all_tables = tables(len(config.entrants), config.players)
    return config.deals * sum(len(deal_seatings(seating, config)) for seating in all_tables)
