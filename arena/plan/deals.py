"""A deals file: a fixed list of game seeds that tournaments and matches play, round by round (the role an
opening book has in chess), so that two runs on different days meet the same tiles.

The file holds one seed a line, a whole number from 0 to 2**63 - 1; ``#`` starts a comment, and blank
lines are skipped.  Round ``d`` of every table plays the file's ``d``-th seed: in the duplicate format
every seating of the round is dealt that seed as it is (``arena play --seed SEED`` deals the same
tiles); otherwise seating ``r`` is dealt :func:`seating_seed` of it, so every game still has a deal of
its own.  Neither depends on the master seed, the table, the entrants or the results folder's deal key:
the same file gives the same tiles in any run.  Whoever holds the file can therefore deal every game,
as with public deals; the folder's deal key still keys each bot's own seed (its random stream).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from arena.errors import ArenaError, shorten
from arena.inputfiles import InputFileError, read_input

#: The prefix of :func:`seating_seed`'s hash.
DEALS_PREFIX = "uptown-deals/1"
#: The largest seed a deals file may hold: game seeds are 63-bit (they fit every JSON reader).
MAX_SEED = (1 << 63) - 1
#: The largest deals file read: a million seeds with a comment each.
DEALS_FILE_MB = 64


class DealsError(ArenaError, ValueError):
    """A deals file that cannot be played: the message is one line naming the file and, where it is one, the line."""


def seating_seed(seed: int, seating: int) -> int:
    """The seed of seating ``seating`` of a round dealt ``seed`` from a deals file (outside the duplicate
    format): the first 8 bytes of SHA-256 of ``uptown-deals/1:SEED:SEATING``, big-endian, shifted right by one."""
    digest = hashlib.sha256(f"{DEALS_PREFIX}:{seed}:{seating}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def parse_deals(text: str, source: str, unit: str = "line") -> tuple[int, ...]:
    """The seeds of a deals file's ``text``, in order; :class:`DealsError` naming ``source`` and the line
    (``unit``: what a line is called in the message)."""
    seeds: list[int] = []
    seen: dict[int, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        word = line.split("#", 1)[0].strip()
        if not word:
            continue
        try:
            seed = int(word, 10)
        except ValueError:
            raise DealsError(f"{source} {unit} {number}: {shorten(word, 40)} is not a whole number "
                             f"(a deals file holds one game seed a line, # for comments)") from None
        if not 0 <= seed <= MAX_SEED:
            raise DealsError(f"{source} {unit} {number}: {shorten(word, 40)} is not a seed from 0 to {MAX_SEED}")
        if seed in seen:
            raise DealsError(f"{source} {unit} {number}: seed {seed} is there already ({unit} {seen[seed]}; each deal once)")
        seen[seed] = number
        seeds.append(seed)
    if not seeds:
        raise DealsError(f"{source}: holds no deal (one game seed a line, # for comments)")
    return tuple(seeds)


def read_deals(path: str | os.PathLike[str], base: str | os.PathLike[str] | None = None) -> tuple[int, ...]:
    """The seeds of the deals file ``path`` (a relative one read from ``base``, default the folder the
    arena runs in); :class:`DealsError` (one line) when it is missing, unreadable or not a deals file."""
    given = Path(path)
    found = given if base is None or given.is_absolute() else Path(base) / given
    try:
        data = read_input(found, "a deals file", DEALS_FILE_MB << 20, shown=given)
    except FileNotFoundError:
        where = f" (read from {base})" if base is not None and not given.is_absolute() else ""
        raise DealsError(f"{given}: no such deals file{where}") from None
    except InputFileError as exc:
        raise DealsError(str(exc)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise DealsError(f"{given}: not a text file (a deals file holds one game seed a line)") from None
    return parse_deals(text, str(given))


def first_deals(seeds: tuple[int, ...], count: int, source: str, asked: str) -> tuple[int, ...]:
    """The first ``count`` of ``seeds``; :class:`DealsError` when the file holds fewer (``asked`` says who asks)."""
    if len(seeds) < count:
        raise DealsError(f"{source} holds {len(seeds)} deal{'' if len(seeds) == 1 else 's'}, fewer than the "
                         f"{count} {asked}")
    return seeds[:count]


def deal_list(value: Any, base: str | os.PathLike[str] | None) -> tuple[tuple[int, ...], str | None] | None:
    """A tournament file's ``deals`` value as ``(seeds, file)``: a deals file's path (read from ``base``: every
    seed it holds), ``{ file = "FILE", count = N }`` (its first N) or an array of seeds (what a results folder
    keeps; no file).  None for anything else (a number of rounds); :class:`DealsError` for a bad one."""
    if isinstance(value, str):
        return read_deals(value, base), value
    if isinstance(value, dict):
        count = value.get("count")
        if set(value) != {"file", "count"} or not isinstance(value["file"], str) or not (
                isinstance(count, int) and not isinstance(count, bool) and count >= 1):
            raise DealsError('a deals file is given as "FILE" or { file = "FILE", count = N }, N at least 1')
        return first_deals(read_deals(value["file"], base), count, value["file"], "asked (deals.count)"), value["file"]
    if isinstance(value, list):
        if not all(isinstance(seed, int) and not isinstance(seed, bool) for seed in value):
            raise DealsError("an array of deals holds whole numbers (game seeds) only")
        return parse_deals("\n".join(str(seed) for seed in value), "the array of deals,", "item"), None
    return None
