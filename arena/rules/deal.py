"""Seeded deals (S1): the draw order of every color from one integer seed.

The derivation is part of the record format's promise that a seed always
gives the same game.  For game seed ``N`` (an integer, written in decimal)
and color name ``C`` (``red`` … ``purple``):

1. ``key = int.from_bytes(sha256(f"uptown-deal/1:{N}:{C}".encode()).digest(), "big")``;
2. ``rng = random.Random(key)`` (Mersenne Twister seeded from the 256-bit key);
3. ``tiles = [0, 1, …, 27]`` is shuffled by Fisher-Yates from the end: for
   ``i`` from 27 down to 1, ``j`` is drawn below ``i + 1`` by rejection
   (``rng.getrandbits((i + 1).bit_length())`` until it is ``<= i``) and
   ``tiles[i]`` and ``tiles[j]`` swap — exactly what ``rng.shuffle(tiles)``
   does;
4. ``tiles`` is the pile in draw order, as tile ids (see :mod:`arena.rules.tiles`).

Integer seeding of ``random.Random`` and ``getrandbits`` are the same on every
machine and every Python 3; the shuffle is written out here so it cannot move
with the standard library.  The built-in ``hash()`` is never used.
"""

from __future__ import annotations

import hashlib
import operator
import random

from arena.rules.base import GameSettings
from arena.rules.tiles import COLORS, N_TILES


def derived_random(*parts: object) -> random.Random:
    """A generator seeded from the SHA-256 of ``parts`` joined by ``:``; the same everywhere."""
    text = ":".join(str(p) for p in parts)
    return random.Random(int.from_bytes(hashlib.sha256(text.encode()).digest(), "big"))


def deal_pile(seed: int, color: int) -> tuple[int, ...]:
    """The 28 tiles of ``color`` in draw order for game seed ``seed`` (any integer)."""
    seed = operator.index(seed)  # an int-like seed (True, numpy ints) means its int; "7" or 7.0 is refused
    getrandbits = derived_random("uptown-deal/1", seed, COLORS[color]).getrandbits
    tiles = list(range(N_TILES))
    for i in range(N_TILES - 1, 0, -1):
        k = (i + 1).bit_length()
        j = getrandbits(k)
        while j > i:
            j = getrandbits(k)
        tiles[i], tiles[j] = tiles[j], tiles[i]
    return tuple(tiles)


def deal(seed: int, settings: GameSettings) -> dict[int, tuple[int, ...]]:
    """The deal of every color in play: ``{color: deal_pile(seed, color)}``."""
    return {color: deal_pile(seed, color) for color in settings.colors}
