"""SplitMix64: the generator of playouts and of the ``mcts`` bot, the same in C and Python.

``next()`` is SplitMix64 (Steele, Lea and Flood, 2014) on a 64-bit ``state``::

    state = (state + 0x9E3779B97F4A7C15) mod 2**64
    z = (state ^ (state >> 30)) * 0xBF58476D1CE4E5B9 mod 2**64
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB mod 2**64
    return z ^ (z >> 31)

``below(n)`` is a number from 0 to n - 1 by multiply-shift,
``(next() * n) >> 64`` (bias below n / 2**64, so under 2**-54 for the few
hundred choices of a turn); ``below(1)`` is 0 and draws nothing.
``shuffle`` is Fisher-Yates from the end with ``below``.  The native engine
(``arena/rules/native/engine.h``) draws exactly the same numbers, so a seeded
playout or search gives the same result with either engine.  Golden values:
``SplitMix64(0).next()`` is ``0xE220A8397B1DCDAF``, then ``0x6E789E6AA1B965F4``.
"""

from __future__ import annotations

from typing import Any

_MASK = (1 << 64) - 1


class SplitMix64:
    """A SplitMix64 generator; ``state`` (an int from 0 to 2**64 - 1) is all there is to it."""

    __slots__ = ("state",)

    def __init__(self, seed: int = 0) -> None:
        if type(seed) is not int or not 0 <= seed <= _MASK:
            raise ValueError(f"a SplitMix64 seed is an int from 0 to 2**64 - 1, not {seed!r}")
        self.state = seed

    def next(self) -> int:
        """The next 64-bit number."""
        z = self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A number from 0 to ``n - 1`` (``n`` >= 1); 0 without a draw when ``n`` is 1."""
        if n <= 1:
            return 0
        z = self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return ((z ^ (z >> 31)) * n) >> 64

    def shuffle(self, items: list[Any]) -> None:
        """Shuffle ``items`` in place: Fisher-Yates from the end, ``j = below(i + 1)``."""
        below = self.below
        for i in range(len(items) - 1, 0, -1):
            j = below(i + 1)
            items[i], items[j] = items[j], items[i]

    def __repr__(self) -> str:
        return f"SplitMix64(state={self.state:#018x})"
