"""The schedule: tables, the fill rule, seat rotations and the other seating designs, seeds and game ids."""

from __future__ import annotations

import hashlib
import hmac
import itertools
from collections import Counter

import pytest

from arena.plan.config import Entrant, TournamentConfig
from arena.plan.schedule import (
    DealKeyMissing,
    by_seating,
    count_games,
    game_seed,
    rotations,
    schedule,
    tables,
    tournament_tables,
)
from arena.plan.seating import DESIGNS

#: A results folder's deal key, as :mod:`arena.results.dealkey` makes one.
KEY = "0f" * 32


def config(entrants: int, players: int, deals: int = 3, rotate: bool = True, seed: int = 5,
           seating: str | None = None, **more) -> TournamentConfig:
    if not more.get("public_deals"):
        more.setdefault("deal_key", KEY)
    return TournamentConfig(
        name="s", players=players, deals=deals, seed=seed,
        seating=seating or ("rotate" if rotate else "fixed"),
        entrants=tuple(Entrant(f"e{i}", "random") for i in range(entrants)), **more,
    )


def test_every_k_subset_is_a_table():
    assert tables(5, 3) == list(itertools.combinations(range(5), 3))
    assert len(tables(6, 4)) == 15


def test_fewer_entrants_than_seats_repeat_in_file_order():
    assert tables(2, 4) == [(0, 1, 0, 1)]
    assert tables(3, 5) == [(0, 1, 2, 0, 1)]


def test_rotations_move_every_entrant_through_every_seat():
    rots = rotations((0, 1, 2, 3), True)
    assert [r for r, _ in rots] == [0, 1, 2, 3]
    assert rots[1][1] == (3, 0, 1, 2)  # rotation 1 moves the entrant of seat s to seat s + 1
    for seat in range(4):
        assert sorted(seating[seat] for _, seating in rots) == [0, 1, 2, 3]


def test_repeated_seatings_are_played_once():
    assert rotations((0, 1, 0, 1), True) == [(0, (0, 1, 0, 1)), (1, (1, 0, 1, 0))]
    assert rotations((0, 1, 2, 3), False) == [(0, (0, 1, 2, 3))]


def test_duplicate_format_same_seed_for_every_rotation():
    games = list(schedule(config(4, 3, duplicate=True)))
    by_deal: dict[tuple[int, int], set[int]] = {}
    for game in games:
        by_deal.setdefault((game.table, game.deal), set()).add(game.seed)
    assert all(len(seeds) == 1 for seeds in by_deal.values())
    # different deals and tables get different seeds
    assert len({next(iter(s)) for s in by_deal.values()}) == len(by_deal)


def test_each_entrant_plays_each_deal_from_every_seat():
    games = list(schedule(config(4, 3, deals=2)))
    for (table, deal), group in itertools.groupby(games, key=lambda g: (g.table, g.deal)):
        group = list(group)
        seen = Counter((entrant, seat) for g in group for seat, entrant in enumerate(g.seats))
        assert all(count == 1 for count in seen.values())
        assert len(seen) == 9  # 3 entrants x 3 seats


def test_game_seed_is_documented_sha256():
    digest = hashlib.sha256(b"uptown-tournament/1:5:e0|e1:7").digest()
    assert game_seed(5, "e0|e1", 7) == int.from_bytes(digest[:8], "big") >> 1
    assert 0 <= game_seed(2**80, "x", 0) < 2**63
    digest = hashlib.sha256(b"uptown-tournament/1:5:e0|e1:7:3").digest()
    assert game_seed(5, "e0|e1", 7, 3) == int.from_bytes(digest[:8], "big") >> 1


def test_a_keyed_game_seed_is_the_documented_hmac():
    digest = hmac.new(bytes.fromhex(KEY), b"uptown-tournament/1:5:e0|e1:7:3", hashlib.sha256).digest()
    assert game_seed(5, "e0|e1", 7, 3, KEY) == int.from_bytes(digest[:8], "big") >> 1
    assert game_seed(5, "e0|e1", 7, 3, KEY) != game_seed(5, "e0|e1", 7, 3)
    assert game_seed(5, "e0|e1", 7, 3, KEY) != game_seed(5, "e0|e1", 7, 3, "1" * 64)


def test_a_keyed_schedule_without_its_key_is_refused():
    with pytest.raises(DealKeyMissing, match="deal key"):
        list(schedule(config(3, 2, deal_key=None)))
    # public deals need none: the file alone gives every seed (S1 with a public seed)
    public = list(schedule(config(3, 2, public_deals=True)))
    assert all(g.seed == game_seed(5, f"e{g.seats[0] if g.rotation == 0 else g.seats[1]}|"
                                      f"e{g.seats[1] if g.rotation == 0 else g.seats[0]}", g.deal, g.rotation)
               for g in public)


@pytest.mark.parametrize("seating", DESIGNS)
@pytest.mark.parametrize("n, k", [(2, 2), (4, 3), (2, 4), (5, 4), (6, 5)])
def test_by_default_no_two_games_share_a_deal(seating, n, k):
    for more in ({}, {"public_deals": True}):
        seeds = [g.seed for g in schedule(config(n, k, deals=3, seating=seating, **more))]
        assert len(set(seeds)) == len(seeds)


def test_a_gauntlet_and_a_capped_tournament_share_no_deal_either():
    gauntlet = config(6, 4, deals=2, seating="balanced", format="gauntlet", challengers=("e0", "e1"),
                      pool=("e2", "e3", "e4", "e5"))
    capped = config(8, 4, deals=2, seating="all", max_tables=5)
    for c in (gauntlet, capped):
        seeds = [g.seed for g in schedule(c)]
        assert len(set(seeds)) == len(seeds)


@pytest.mark.parametrize("seating", DESIGNS)
def test_duplicate_rounds_share_one_deal_each(seating):
    games = list(schedule(config(4, 3, deals=3, seating=seating, duplicate=True)))
    rounds: dict[tuple[int, int], set[int]] = {}
    for g in games:
        rounds.setdefault((g.table, g.deal), set()).add(g.seed)
    assert all(len(seeds) == 1 for seeds in rounds.values())
    assert len({min(seeds) for seeds in rounds.values()}) == len(rounds)
    # the duplicate format with public deals keeps the seeds this arena has always given
    public = list(schedule(config(4, 3, deals=1, seating=seating, duplicate=True, public_deals=True)))
    assert public[0].seed == game_seed(5, "e0|e1|e2", 0)


def test_seeds_do_not_depend_on_other_tables():
    # Adding an entrant adds tables but keeps the seeds of the tables that were already there.
    small = {g.game_id: g.seed for g in schedule(config(3, 2))}
    large = {(g.table, g.deal): g.seed for g in schedule(config(4, 2))}
    assert small["t000-d0001-r1"] == large[(0, 1)]


def test_game_ids_are_unique_stable_and_padded():
    games = list(schedule(config(4, 3, deals=12)))
    ids = [g.game_id for g in games]
    assert len(set(ids)) == len(ids) == count_games(config(4, 3, deals=12))
    assert ids[0] == "t000-d0000-r0"
    assert "t003-d0011-r2" in ids
    assert [g.game_id for g in schedule(config(4, 3, deals=12))] == ids
    wide = [g.game_id for g in schedule(config(2, 2, deals=12345))]
    assert wide[-1] == "t000-d12344-r1"


def test_schedule_goes_deal_by_deal():
    deals = [g.deal for g in schedule(config(5, 3, deals=3))]
    assert deals == sorted(deals)


def test_count_games():
    assert count_games(config(4, 4, deals=10)) == 40
    assert count_games(config(5, 3, deals=2, rotate=False)) == 20
    assert count_games(config(2, 4, deals=3)) == 6
    for n, k in [(2, 2), (3, 4), (5, 5), (6, 2)]:
        assert count_games(config(n, k)) == len(list(schedule(config(n, k))))


@pytest.mark.parametrize("seating", DESIGNS)
@pytest.mark.parametrize("n, k", [(2, 2), (3, 2), (2, 3), (3, 3), (4, 3), (2, 4), (3, 4), (5, 4), (4, 5), (6, 5)])
def test_count_games_agrees_with_the_schedule_for_every_seating(seating, n, k):
    c = config(n, k, deals=2, seating=seating)
    games = list(schedule(c))
    assert count_games(c) == len(games) == len({g.game_id for g in games})


def test_count_games_agrees_with_the_schedule_for_gauntlets_and_capped_tables():
    gauntlet = config(6, 4, deals=2, seating="balanced", format="gauntlet", challengers=("e0", "e1"),
                      pool=("e2", "e3", "e4", "e5"))
    capped = config(8, 4, deals=2, seating="all", max_tables=5)
    for c in (gauntlet, capped, config(8, 4, seating="fixed", max_tables=100)):
        assert count_games(c) == len(list(schedule(c)))
    assert count_games(gauntlet) == 2 * 2 * 4 * 12  # 2 challengers x C(4, 3) pool triples, 12 seatings
    assert count_games(capped) == 2 * 5 * 24


@pytest.mark.parametrize("seating, players, last", [
    ("rotate", 4, "r3"), ("fixed", 3, "r0"), ("all", 2, "r1"), ("all", 3, "r5"), ("all", 4, "r23"),
    ("all", 5, "r119"), ("balanced", 3, "r5"), ("balanced", 4, "r11"), ("balanced", 5, "r19"),
])
def test_the_index_field_is_as_wide_as_the_design_needs(seating, players, last):
    ids = [g.game_id for g in schedule(config(players, players, deals=1, seating=seating))]
    width = len(last) - 1
    assert ids[0] == "t000-d0000-r" + "0" * width
    assert ids[-1] == "t000-d0000-" + last
    assert all(len(i) == len(ids[0]) for i in ids)
    assert ids == sorted(ids)  # text order is schedule order (sort_games_file relies on it)


def test_tables_of_the_schedule_are_tournament_tables():
    c = config(7, 3, deals=1, max_tables=9)
    chosen = tournament_tables(c)
    assert len(chosen) == 9 and chosen == sorted(chosen)
    assert {g.table for g in schedule(c)} == set(range(9))
    names = c.names
    for g in schedule(c):
        assert g.seed == game_seed(5, "|".join(names[i] for i in chosen[g.table]), g.deal, g.rotation, KEY)


@pytest.mark.parametrize("window", [1, 7, 4096])
def test_by_seating_plays_every_game_once_and_spaces_out_a_deals_games(window):
    games = list(schedule(config(4, 4, deals=25, seating="balanced", duplicate=True)))
    played = list(by_seating(games, window))
    assert sorted(played) == sorted(games)
    # Within a window the games go seating by seating, so a deal comes back only after every
    # other deal of the window has had its game of that seating.
    for start in range(0, len(played), window):
        block = played[start:start + window]
        assert [g.rotation for g in block] == sorted(g.rotation for g in block)
        assert sorted(block) == sorted(games[start:start + window])
    if window == 4096:
        last: dict[int, int] = {}
        gaps = []
        for i, game in enumerate(played):
            if game.seed in last:
                gaps.append(i - last[game.seed])
            last[game.seed] = i
        assert min(gaps) == 25  # a deal returns only after all 25 deals were played
