"""Seating designs: in which seat orders one deal of a table is played (duplicate format).

A *design* for ``k`` seats is a list of permutations ``p`` of ``range(k)``; the
game of design index ``i`` seats, in seat ``s``, the entrant the table's own
seating has in position ``p[s]`` (``seating[s] = table[p[s]]``).  The index
``i`` is stable: it is the ``r{i}`` of the game id, and a seating that repeats
one already listed (a filled table such as A, B, A, B) is skipped without
renumbering the others, as :func:`arena.plan.schedule.rotations` does.

Designs
-------

``fixed``
    One game, the table's own seating (what ``rotate = false`` plays).
``rotate``
    The ``k`` cyclic rotations: index ``r`` moves every entrant ``r`` seats on
    (``p[s] = s - r mod k``).  Exactly the seatings and indices of
    :func:`~arena.plan.schedule.rotations`, so old tournaments keep their
    game ids.  Every entrant sits in every seat once, but who follows whom never
    changes: with rotations alone, a bot always moves right after the same rival.
``all``
    Every permutation, in lexicographic order of ``p`` (2, 6, 24, 120 games for
    2-5 seats; index 0 is the table's own seating).
``balanced``
    Over the games of a deal every entrant sits in every seat equally often
    *and* directly follows every other entrant equally often, in the fewest
    games that can do it: 2, 6, 12, 20 for 2, 3, 4, 5 seats.

"Directly follows" is cyclic (rule T3: seat 0 moves first, turns go round in
seat order, after seat ``k-1`` comes seat 0 again), so a game of ``k`` seats
has ``k`` ordered pairs (seat ``s``, seat ``s+1 mod k``).  With 2 players each
player has two colors (T2) but still one seat, and the seats alternate
(0, 1, 0, 1, ...), so each entrant directly follows the other in every game
whichever seat it has: only the seat (who moves first) can be unbalanced, and
the 2 rotations balance it.  ``balanced`` is therefore ``rotate`` for 2 seats.

Why ``k(k-1)`` games are the fewest (for ``k >= 2`` distinct entrants)
-------------------------------------------------------------------------

Let a deal be played ``m`` times.  Seat balance: entrant ``e`` sits in seat 0
in ``m / k`` of the games, since each game puts exactly one of the ``k``
entrants there and all must be equal; so ``k | m``.  Follow balance: each game
has ``k`` cyclic adjacencies, ``m k`` in all, shared equally by the
``k (k-1)`` ordered pairs of distinct entrants, so each pair gets
``m / (k-1)`` and ``(k-1) | m``.  As ``gcd(k, k-1) = 1``, ``k (k-1) | m``,
hence ``m >= k (k-1)``.  The designs below reach the bound (for ``k = 2`` the
bound is 2 and the pair condition is void), so they are the smallest.

Constructions
-------------

* ``k`` prime (2, 3, 5): the affine maps ``p(s) = a s + b mod k`` with
  ``a = 1..k-1`` and ``b = 0..k-1``, ``k (k-1)`` of them.  Seat balance: for a
  seat ``s`` and position ``x`` each ``a`` has exactly one ``b`` with
  ``a s + b = x``, so every entrant sits in every seat ``k - 1`` times.  Follow
  balance: seats ``s, s+1`` hold positions ``(a s + b, a s + b + a)``, whose
  difference is ``a``; an ordered pair ``(x, y)`` fixes ``a = y - x != 0`` and,
  for each of the ``k`` values of ``b``, exactly one seat ``s``, so every pair
  is adjacent ``k`` times.  Index ``(a-1) k + r`` holds ``b = -r mod k``: the
  first ``k`` games (``a = 1``) are the rotations, with the same indices as
  ``rotate``.  For 3 seats these are all 6 permutations.
* ``k = 4``: 4 is not prime.  A design made of whole rotation classes would
  split the 12 ordered pairs into 3 directed Hamilton cycles of the complete
  digraph on 4 vertices, which do not exist (Tillson, 1980), and the search in
  the tests finds no 12-game design that holds all 4 rotations of one seating,
  so ``balanced`` cannot start with the ``rotate`` games here.  Of the 48 sets
  of 12 distinct permutations that balance both (a deterministic backtracking
  search over permutations in lexicographic order, :func:`balanced_designs`),
  the design is the lexicographically first that also leaves the filled
  tables A, B, A, B and A, B, C, A the seat and follow frequencies ``all``
  gives them (:func:`keeps_filled_tables`); it is written out below as
  :data:`BALANCED_4` and the tests run the search again and compare.

Repeated entrants (fewer entrants than seats, A, B, A, B) keep the design's
indices and drop the seatings already listed.  The seatings ``balanced``
leaves on such a table have the same seat and follow frequencies as those
``all`` leaves (every distinct arrangement once), the most balance a table with
an entrant in two seats allows: every entrant still sits in every seat equally
often, while an entrant with two seats is necessarily adjacent more often.
``rotate`` still balances the seats there.
:func:`seat_counts` and :func:`follow_counts` count what a list of seatings
balances; they also serve ``seats.csv`` and ``order.csv``.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Hashable, Iterable, Iterator, Sequence
from fractions import Fraction
from typing import TypeVar

T = TypeVar("T", bound=Hashable)

#: The designs a tournament's ``seating`` key can name.
DESIGNS: tuple[str, ...] = ("fixed", "rotate", "all", "balanced")

#: ``p`` of the 4-seat balanced design (see the module docstring), index by index.
BALANCED_4: tuple[tuple[int, ...], ...] = (
    (0, 1, 2, 3), (0, 1, 3, 2), (0, 2, 3, 1), (1, 2, 0, 3),
    (1, 3, 0, 2), (1, 3, 2, 0), (2, 0, 3, 1), (2, 1, 0, 3),
    (2, 3, 1, 0), (3, 0, 1, 2), (3, 0, 2, 1), (3, 2, 1, 0),
)


def _is_prime(n: int) -> bool:
    return n >= 2 and all(n % d for d in range(2, int(n**0.5) + 1))


def design(name: str, players: int) -> list[tuple[int, ...]]:
    """The permutations ``p`` (``seating[s] = table[p[s]]``) of design ``name`` for ``players`` seats, by index."""
    if name not in DESIGNS:
        raise ValueError(f"unknown seating {name!r}: expected one of {', '.join(DESIGNS)}")
    if players < 1:
        raise ValueError(f"a seating needs at least 1 seat, not {players}")
    k = players
    if name == "fixed" or k == 1:
        return [tuple(range(k))]
    if name == "rotate":
        return [tuple((s - r) % k for s in range(k)) for r in range(k)]
    if name == "all":
        return list(itertools.permutations(range(k)))
    if _is_prime(k):
        return [tuple((a * s - r) % k for s in range(k)) for a in range(1, k) for r in range(k)]
    if k == 4:
        return list(BALANCED_4)
    raise ValueError(f"no balanced seating is defined for {k} seats (the arena seats 2 to 5)")


def seatings(table: Sequence[T], name: str) -> list[tuple[int, tuple[T, ...]]]:
    """``(index, seating)`` for every seating one deal of ``table`` is played in under design ``name``.

    ``table`` is the entrant (index or name) of each seat before the design moves
    anyone.  A seating equal to one listed before it is skipped; the indices of
    the others do not change.
    """
    seen: set[tuple[T, ...]] = set()
    result = []
    for index, p in enumerate(design(name, len(table))):
        seating = tuple(table[position] for position in p)
        if seating not in seen:
            seen.add(seating)
            result.append((index, seating))
    return result


def seat_counts(games: Iterable[Sequence[T]]) -> dict[T, list[int]]:
    """For each entrant, how many of ``games`` (seatings) put it in seat 0, 1, ..."""
    games = [tuple(g) for g in games]
    k = len(games[0]) if games else 0
    counts: dict[T, list[int]] = {}
    for seating in games:
        if len(seating) != k:
            raise ValueError("seatings of different sizes cannot be counted together")
        for seat, entrant in enumerate(seating):
            counts.setdefault(entrant, [0] * k)[seat] += 1
    return counts


def follow_counts(games: Iterable[Sequence[T]]) -> Counter[tuple[T, T]]:
    """How often ``(before, after)``: the entrant ``after`` moves directly after ``before`` (cyclic, rule T3).

    A game of ``k >= 2`` seats adds its ``k`` pairs (seat ``s``, seat ``s+1 mod k``).
    """
    counts: Counter[tuple[T, T]] = Counter()
    for seating in games:
        k = len(seating)
        if k < 2:
            continue
        for seat in range(k):
            counts[(seating[seat], seating[(seat + 1) % k])] += 1
    return counts


def is_seat_balanced(games: Iterable[Sequence[T]]) -> bool:
    """Whether every entrant sits in every seat equally often (its own count; repeated entrants sit more)."""
    return all(len(set(row)) == 1 for row in seat_counts(games).values())


def is_follow_balanced(games: Iterable[Sequence[T]]) -> bool:
    """Whether every ordered pair of distinct entrants is adjacent (one right after the other) equally often."""
    games = [tuple(g) for g in games]
    entrants = sorted({e for g in games for e in g}, key=repr)
    counts = follow_counts(games)
    pairs = [counts[(x, y)] for x in entrants for y in entrants if x != y]
    return len(set(pairs)) <= 1


def balanced_designs(players: int) -> Iterator[list[tuple[int, ...]]]:
    """Every set of ``players * (players - 1)`` distinct permutations that balances both, in lexicographic order.

    A deterministic backtracking search over the permutations in lexicographic
    order (48 sets for 4 seats); used for :data:`BALANCED_4` and by the tests.
    """
    k = players
    size = k * (k - 1)
    per_seat, per_pair = size // k, size // max(k - 1, 1)
    perms = list(itertools.permutations(range(k)))
    seat: Counter[tuple[int, int]] = Counter()
    pair: Counter[tuple[int, int]] = Counter()
    chosen: list[tuple[int, ...]] = []

    def fits(p: tuple[int, ...]) -> bool:
        return all(seat[(s, p[s])] < per_seat for s in range(k)) and all(
            pair[(p[s], p[(s + 1) % k])] < per_pair for s in range(k)
        )

    def add(p: tuple[int, ...], step: int) -> None:
        for s in range(k):
            seat[(s, p[s])] += step
            pair[(p[s], p[(s + 1) % k])] += step

    def extend(start: int) -> Iterator[list[tuple[int, ...]]]:
        if len(chosen) == size:
            yield list(chosen)
            return
        for i in range(start, len(perms)):
            p = perms[i]
            if fits(p):
                add(p, 1)
                chosen.append(p)
                yield from extend(i + 1)
                chosen.pop()
                add(p, -1)

    yield from extend(0)


def frequencies(games: Sequence[Sequence[T]]) -> tuple[dict[T, list[Fraction]], dict[tuple[T, T], Fraction]]:
    """Seat and follow counts of ``games`` as shares of the number of games (to compare designs of any size)."""
    n = len(games)
    seats = {e: [Fraction(c, n) for c in row] for e, row in seat_counts(games).items()}
    follows = {pair: Fraction(c, n) for pair, c in follow_counts(games).items()}
    return seats, follows


def keeps_filled_tables(candidate: Sequence[tuple[int, ...]]) -> bool:
    """Whether the seatings ``candidate`` leaves on every filled table have the frequencies ``all`` leaves."""
    k = len(candidate[0])
    everything = list(itertools.permutations(range(k)))
    for table in filled_tables(k):
        mine = _distinct(table, candidate)
        if frequencies(mine) != frequencies(_distinct(table, everything)):
            return False
    return True


def filled_tables(players: int) -> list[tuple[int, ...]]:
    """The tables with repeated entrants a schedule makes for ``players`` seats (2 to ``players - 1`` entrants)."""
    return [tuple(seat % entrants for seat in range(players)) for entrants in range(2, players)]


def _distinct(table: Sequence[T], perms: Iterable[Sequence[int]]) -> list[tuple[T, ...]]:
    seen: dict[tuple[T, ...], None] = {}
    for p in perms:
        seen.setdefault(tuple(table[x] for x in p), None)
    return list(seen)
