"""Seeded deals (S1): the draw order of every color from one integer seed.

The derivation is part of the record format's promise that a seed always
gives the same game: for seed ``N`` and color name ``C`` the pile is
``list(range(28))`` shuffled by ``random.Random(int.from_bytes(sha256(b"uptown-deal/1:N:C").digest(), "big"))``,
then read as tile ids (see :mod:`arena.rules.tiles`).  Integer seeding of
``random.Random`` and ``shuffle`` are stable across machines and Python
versions; the built-in ``hash()`` is not, and is never used.
"""

from __future__ import annotations

import hashlib
import operator
import random

from .state import GameSettings
from .tiles import COLORS, N_TILES


def derived_random(*parts: object) -> random.Random:
    """A generator seeded from the SHA-256 of ``parts`` joined by ``:``; the same everywhere."""
    text = ":".join(str(p) for p in parts)
    return random.Random(int.from_bytes(hashlib.sha256(text.encode()).digest(), "big"))


def deal_pile(seed: int, color: int) -> tuple[int, ...]:
    """The 28 tiles of ``color`` in draw order for game seed ``seed`` (any integer)."""
    seed = operator.index(seed)  # an int-like seed (True, numpy ints) means its int; "7" or 7.0 is refused
    tiles = list(range(N_TILES))
    derived_random("uptown-deal/1", seed, COLORS[color]).shuffle(tiles)
    return tuple(tiles)


def deal(seed: int, settings: GameSettings) -> dict[int, tuple[int, ...]]:
    """The deal of every color in play."""
    return {color: deal_pile(seed, color) for color in settings.colors}
