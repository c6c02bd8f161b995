"""Seating designs of a deal (rule T3: turns go round in seat order, so "directly follows" is cyclic)."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from arena.plan.schedule import rotations, tables
from arena.plan.seating import (
    BALANCED_4,
    DESIGNS,
    balanced_designs,
    design,
    filled_tables,
    follow_counts,
    frequencies,
    is_follow_balanced,
    is_seat_balanced,
    keeps_filled_tables,
    seat_counts,
    seatings,
)

# The designs, pinned: p[s] is the position of the table's seating that sits in seat s.
GOLDEN_BALANCED = {
    2: [(0, 1), (1, 0)],
    3: [(0, 1, 2), (2, 0, 1), (1, 2, 0), (0, 2, 1), (2, 1, 0), (1, 0, 2)],
    4: [
        (0, 1, 2, 3), (0, 1, 3, 2), (0, 2, 3, 1), (1, 2, 0, 3), (1, 3, 0, 2), (1, 3, 2, 0),
        (2, 0, 3, 1), (2, 1, 0, 3), (2, 3, 1, 0), (3, 0, 1, 2), (3, 0, 2, 1), (3, 2, 1, 0),
    ],
    5: [
        (0, 1, 2, 3, 4), (4, 0, 1, 2, 3), (3, 4, 0, 1, 2), (2, 3, 4, 0, 1), (1, 2, 3, 4, 0),
        (0, 2, 4, 1, 3), (4, 1, 3, 0, 2), (3, 0, 2, 4, 1), (2, 4, 1, 3, 0), (1, 3, 0, 2, 4),
        (0, 3, 1, 4, 2), (4, 2, 0, 3, 1), (3, 1, 4, 2, 0), (2, 0, 3, 1, 4), (1, 4, 2, 0, 3),
        (0, 4, 3, 2, 1), (4, 3, 2, 1, 0), (3, 2, 1, 0, 4), (2, 1, 0, 4, 3), (1, 0, 4, 3, 2),
    ],
}


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_T3_balanced_design_is_pinned(players):
    assert design("balanced", players) == GOLDEN_BALANCED[players]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_T3_balanced_every_seat_and_every_follow_equally_often(players):
    games = [s for _, s in seatings("ABCDE"[:players], "balanced")]
    assert len(games) == len(set(games)) == players * (players - 1)
    # every entrant in every seat (players - 1) times
    assert seat_counts(games) == {e: [players - 1] * players for e in "ABCDE"[:players]}
    # every ordered pair of distinct entrants adjacent (cyclically) `players` times, nothing else
    follows = follow_counts(games)
    expected = {(x, y): players for x, y in itertools.permutations("ABCDE"[:players], 2)}
    assert dict(follows) == expected
    assert is_seat_balanced(games) and is_follow_balanced(games)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_no_smaller_balanced_design_exists(players):
    # the counting argument of the module docstring, checked: m must be a multiple of k and of k - 1
    m = players * (players - 1)
    smaller = [n for n in range(1, m) if n % players == 0 and n % max(players - 1, 1) == 0]
    assert smaller == []
    if players <= 3:  # and by brute force over all sets of distinct permutations with n % k == 0
        perms = list(itertools.permutations(range(players)))
        for n in range(players, m, players):
            for combo in itertools.combinations(perms, n):
                assert not (is_seat_balanced(combo) and is_follow_balanced(combo))


@pytest.mark.slow
def test_balanced_4_is_the_first_search_result_that_keeps_filled_tables():
    found = list(balanced_designs(4))
    assert len(found) == 48
    assert all(is_seat_balanced(d) and is_follow_balanced(d) for d in found)
    assert [d for d in found if keeps_filled_tables(d)][0] == list(BALANCED_4)
    # no 12-game design holds all 4 rotations of one seating
    rotated = set(design("rotate", 4))
    assert not any(rotated <= set(d) for d in found)


def test_balanced_for_prime_seats_starts_with_the_rotations():
    for players in (2, 3, 5):
        assert design("balanced", players)[:players] == design("rotate", players)


def test_rotate_keeps_the_old_rotations_and_their_indices():
    for players in range(2, 6):
        for entrants in range(1, 8):
            for table in tables(entrants, players)[:3]:
                assert seatings(table, "rotate") == rotations(table, True)
                assert seatings(table, "fixed") == rotations(table, False)


def test_rotate_does_not_balance_who_follows_whom():
    for players in (3, 4, 5):
        games = [s for _, s in seatings(tuple(range(players)), "rotate")]
        assert is_seat_balanced(games) and not is_follow_balanced(games)


@pytest.mark.parametrize("players,count", [(2, 2), (3, 6), (4, 24), (5, 120)])
def test_all_is_every_permutation_in_lexicographic_order(players, count):
    got = seatings(tuple(range(players)), "all")
    assert [i for i, _ in got] == list(range(count))
    assert [s for _, s in got] == list(itertools.permutations(range(players)))
    games = [s for _, s in got]
    assert is_seat_balanced(games) and is_follow_balanced(games)


def test_two_players_alternate_so_each_follows_the_other_in_every_game():
    # T2/T3: two colors each but one seat each; seats 0, 1, 0, 1 ... so A follows B and B follows A once a game
    for name in ("rotate", "all", "balanced"):
        games = [s for _, s in seatings(("A", "B"), name)]
        assert games == [("A", "B"), ("B", "A")]
        assert follow_counts(games) == Counter({("A", "B"): 2, ("B", "A"): 2})


@pytest.mark.parametrize("players", [3, 4, 5])
def test_filled_tables_skip_repeats_and_keep_indices(players):
    for table in filled_tables(players):
        for name in ("all", "balanced"):
            got = seatings(table, name)
            indices = [i for i, _ in got]
            assert indices == sorted(indices) and len(set(s for _, s in got)) == len(got)
            assert set(s for _, s in got) == set(itertools.permutations(table)) or name == "balanced"
            assert is_seat_balanced([s for _, s in got])
        balanced = [s for _, s in seatings(table, "balanced")]
        everything = [s for _, s in seatings(table, "all")]
        assert frequencies(balanced) == frequencies(everything)


def test_filled_table_a_b_a_b():
    got = seatings((0, 1, 0, 1), "balanced")
    assert got == [
        (0, (0, 1, 0, 1)), (1, (0, 1, 1, 0)), (2, (0, 0, 1, 1)), (3, (1, 0, 0, 1)), (4, (1, 1, 0, 0)), (9, (1, 0, 1, 0)),
    ]
    # A, B, C, A: all 12 design seatings are distinct
    assert [i for i, _ in seatings(("A", "B", "C", "A"), "balanced")] == list(range(12))


def test_verifiers_see_an_unbalanced_list():
    assert not is_seat_balanced([("A", "B", "C"), ("A", "C", "B")])
    assert not is_follow_balanced([("A", "B", "C"), ("B", "C", "A")])
    assert seat_counts([("A", "B", "C"), ("A", "C", "B")]) == {"A": [2, 0, 0], "B": [0, 1, 1], "C": [0, 1, 1]}
    assert follow_counts([("A", "B", "C")]) == Counter({("A", "B"): 1, ("B", "C"): 1, ("C", "A"): 1})


def test_bad_design_names_and_sizes():
    with pytest.raises(ValueError, match="unknown seating 'random'"):
        design("random", 3)
    with pytest.raises(ValueError, match="6 seats"):
        design("balanced", 6)
    assert set(DESIGNS) == {"fixed", "rotate", "all", "balanced"}
