"""Seating designs in tournaments: balance over each deal's games, game ids, old files, order.csv, real runs."""

from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.plan.config import parse_config
from arena.plan.schedule import count_games, schedule
from arena.plan.seating import (
    follow_counts,
    frequencies,
    is_follow_balanced,
    is_seat_balanced,
    seatings,
)
from arena.report.columns import ORDER_COLUMNS
from arena.report.tables import order, with_tournament_ranks
from arena.results.verify import without_timing as row_without_timing

#: A deal key for the files of these tests (a results folder keeps its own, :mod:`arena.results.dealkey`).
KEY = "0f" * 32


def tournament(entrants: int, players: int, deals: int = 2, extra: str = "", seed: int = 5) -> str:
    key = "" if "public_deals" in extra else f'deal_key = "{KEY}"\n'
    text = f'name = "s"\nplayers = {players}\ndeals = {deals}\nseed = {seed}\n{key}{extra}\n'
    return text + "".join(f'[[entrants]]\nname = "e{i}"\nbot = "random"\n' for i in range(entrants))


def by_deal(games) -> dict[tuple[int, int], list[tuple[int, ...]]]:
    groups: dict[tuple[int, int], list[tuple[int, ...]]] = {}
    for game in games:
        groups.setdefault((game.table, game.deal), []).append(game.seats)
    return groups


# -- balance in real schedules ----------------------------------------------------


@pytest.mark.parametrize("entrants, players", [(3, 3), (5, 3), (4, 4), (6, 4), (5, 5), (7, 5)])
def test_default_seating_balances_seats_and_followers_over_each_deal(entrants, players):
    config = parse_config(tournament(entrants, players), "s.toml")
    assert config.seating == "balanced"
    groups = by_deal(schedule(config))
    assert len(groups) == 2 * len(list(itertools.combinations(range(entrants), players)))
    for seated in groups.values():
        assert len(seated) == players * (players - 1)
        assert is_seat_balanced(seated), seated
        assert is_follow_balanced(seated), seated
        follows = follow_counts(seated)
        # every ordered pair of the table's entrants, each right after the other k times
        assert len(follows) == players * (players - 1) and set(follows.values()) == {players}


def test_rotate_balances_seats_but_never_who_follows_whom():
    config = parse_config(tournament(4, 4, extra="rotate = true"), "s.toml")
    for seated in by_deal(schedule(config)).values():
        assert is_seat_balanced(seated) and not is_follow_balanced(seated)
        assert set(follow_counts(seated)) == {(0, 1), (1, 2), (2, 3), (3, 0)}


def test_two_players_default_to_rotate_which_is_already_balanced():
    config = parse_config(tournament(3, 2), "s.toml")
    assert config.seating == "rotate"
    for seated in by_deal(schedule(config)).values():
        assert len(seated) == 2 and is_seat_balanced(seated) and is_follow_balanced(seated)
    balanced = parse_config(tournament(3, 2, extra='seating = "balanced"'), "s.toml")
    assert [tuple(g) for g in schedule(balanced)] == [tuple(g) for g in schedule(config)]


@pytest.mark.parametrize("players, per_deal", [(2, 2), (3, 6), (4, 24), (5, 120)])
def test_all_plays_every_permutation_of_each_deal(players, per_deal):
    config = parse_config(tournament(players, players, deals=1, extra='seating = "all"'), "s.toml")
    seated = [g.seats for g in schedule(config)]
    assert len(seated) == per_deal == count_games(config)
    assert sorted(seated) == list(itertools.permutations(range(players)))
    assert len({g.seed for g in schedule(config)}) == per_deal  # every game a deal of its own
    duplicate = parse_config(tournament(players, players, deals=1, extra='seating = "all"\nduplicate = true'), "s")
    assert len({g.seed for g in schedule(duplicate)}) == 1  # one deal: the duplicate format


def test_fixed_plays_each_deal_once():
    config = parse_config(tournament(4, 3, extra='seating = "fixed"'), "s.toml")
    assert [g.seats for g in schedule(config)][:4] == list(itertools.combinations(range(4), 3))
    assert count_games(config) == 4 * 2


def test_balanced_on_a_filled_table_balances_what_it_can():
    # Two entrants, four seats: A, B, A, B. Every distinct arrangement once, as `all` would.
    config = parse_config(tournament(2, 4, deals=1), "s.toml")
    games = list(schedule(config))
    assert [g.rotation for g in games] == [0, 1, 2, 3, 4, 9]
    assert [g.game_id for g in games][-1] == "t000-d0000-r09"
    seated = [g.seats for g in games]
    assert is_seat_balanced(seated)
    assert frequencies(seated) == frequencies([s for _, s in seatings((0, 1, 0, 1), "all")])


def test_the_games_of_a_deal_share_its_seed_and_ids_are_the_design_index():
    config = parse_config(tournament(5, 4, deals=3, extra="duplicate = true"), "s.toml")
    games = list(schedule(config))
    for (table, deal), group in itertools.groupby(games, key=lambda g: (g.table, g.deal)):
        group = list(group)
        assert len({g.seed for g in group}) == 1
        assert [g.game_id for g in group] == [f"t{table:03d}-d{deal:04d}-r{r:02d}" for r in range(12)]
    assert [g.deal for g in games] == sorted(g.deal for g in games)  # deal by deal


# -- old files keep their games ---------------------------------------------------

# Digests of [tuple(game) for game in schedule] as the arena listed them before the seating
# key (rotate = true / false), for tournament(n, k, deals=3, seed=5): the duplicate format with
# public deals, which it was then, gives them still.
OLD_SCHEDULES = [
    (4, 3, "rotate = true", 36, "71bcb4d095179892", ("t001-d0000-r2", 1, 0, 2, 7510483727681750194, (1, 3, 0))),
    (2, 4, "rotate = true", 6, "11d5135c4be1820e", ("t000-d0002-r1", 0, 2, 1, 1056102965517917984, (1, 0, 1, 0))),
    (5, 5, "rotate = true", 15, "6e441c1dec0396f2", ("t000-d0001-r0", 0, 1, 0, 8005603628244484380, (0, 1, 2, 3, 4))),
    (3, 2, "rotate = true", 18, "e1e123b68b04052b", ("t002-d0000-r1", 2, 0, 1, 8351131930537985951, (2, 1))),
    (5, 3, "rotate = false", 30, "f627c3dc3972ed71", ("t005-d0000-r0", 5, 0, 0, 6147470311714372244, (0, 3, 4))),
    (3, 2, "", 18, "e1e123b68b04052b", ("t002-d0000-r1", 2, 0, 1, 8351131930537985951, (2, 1))),
]


@pytest.mark.parametrize("entrants, players, key, count, digest, sixth", OLD_SCHEDULES)
def test_old_rotate_files_give_the_same_game_ids_and_seeds(entrants, players, key, count, digest, sixth):
    extra = f"{key}\nduplicate = true\npublic_deals = true"
    config = parse_config(tournament(entrants, players, deals=3, extra=extra), "s.toml")
    games = [tuple(g) for g in schedule(config)]
    assert len(games) == count == count_games(config)
    assert games[5] == sixth
    assert hashlib.sha256(repr(games).encode()).hexdigest()[:16] == digest


def test_balanced_keeps_the_rotations_where_it_can():
    # 3 and 5 seats: the first k seatings of balanced are the rotations, with their indices
    # (and at 3 seats their ids; at 5 the index field is two digits wide: r03, not r3).
    for players in (3, 5):
        old = {tuple(g) for g in schedule(parse_config(tournament(players, players, extra="rotate = true"), "s"))}
        new = {tuple(g) for g in schedule(parse_config(tournament(players, players), "s"))}
        if players == 3:
            assert old < new
        assert {g[1:] for g in old} < {g[1:] for g in new}


# -- order.csv ----------------------------------------------------------------------


def frame(rows: list[tuple[str, int, str, int, int, int]]) -> pd.DataFrame:
    """Games from (game_id, seat, entrant, uptown_rank, blockers_rank, faulted) rows."""
    games = pd.DataFrame(rows, columns=["game_id", "seat", "entrant", "uptown_rank", "blockers_rank", "faulted"])
    return with_tournament_ranks(games)


def row(table: pd.DataFrame, before: str, after: str) -> dict:
    found = table[(table["before"] == before) & (table["after"] == after)]
    assert len(found) == 1, (before, after)
    return found.iloc[0].to_dict()


def test_order_table_on_hand_made_games():
    games = frame([
        ("g1", 0, "A", 1, 3, 0), ("g1", 1, "B", 2, 1, 0), ("g1", 2, "C", 3, 2, 0),
        ("g2", 0, "A", 2, 1, 0), ("g2", 1, "C", 1, 2, 0), ("g2", 2, "B", 3, 3, 0),
        # B faulted: it ranks last whatever the game says, A and C share first place under uptown
        ("g3", 0, "B", 1, 1, 1), ("g3", 1, "A", 2, 3, 0), ("g3", 2, "C", 2, 2, 0),
    ])
    table = order(games, "uptown")
    assert list(table.columns) == list(ORDER_COLUMNS)
    assert list(zip(table["before"], table["after"])) == [
        ("A", "B"), ("A", "C"), ("B", "A"), ("B", "C"), ("C", "A"), ("C", "B")]
    assert row(table, "A", "B") == {
        "before": "A", "after": "B", "games": 1, "ahead": 0, "tied": 0, "behind": 1, "ahead_share": 0.0,
        "after_win_share_uptown": 0.0, "after_mean_rank_uptown": 2.0,
        "after_win_share_blockers": 1.0, "after_mean_rank_blockers": 1.0,
    }
    ac = row(table, "A", "C")  # g2: C ahead of A; g3: level
    assert (ac["games"], ac["ahead"], ac["tied"], ac["behind"], ac["ahead_share"]) == (2, 1, 1, 0, 0.5)
    assert (ac["after_win_share_uptown"], ac["after_mean_rank_uptown"]) == (1.0, 1.0)
    assert (ac["after_win_share_blockers"], ac["after_mean_rank_blockers"]) == (0.5, 1.5)
    ba = row(table, "B", "A")  # g2 and g3: A ahead of B
    assert (ba["games"], ba["ahead"], ba["ahead_share"], ba["after_mean_rank_uptown"]) == (2, 2, 1.0, 1.5)
    cb = row(table, "C", "B")
    assert (cb["games"], cb["behind"], cb["after_win_share_uptown"], cb["after_mean_rank_uptown"]) == (2, 2, 0.0, 3.0)
    assert (row(table, "C", "A")["ahead"], row(table, "B", "C")["behind"]) == (1, 1)
    # under the other scoring the same pairs, counted by blockers ranks
    blockers = order(games, "blockers")
    assert (row(blockers, "A", "B")["ahead"], row(blockers, "A", "C")["ahead"]) == (1, 1)


def test_order_table_with_two_players_and_a_filled_table():
    two = order(frame([("g", 0, "A", 1, 1, 0), ("g", 1, "B", 2, 2, 0)]), "uptown")
    assert [(r.before, r.after, r.games, r.ahead, r.behind) for r in two.itertuples()] == [
        ("A", "B", 1, 0, 1), ("B", "A", 1, 1, 0)]
    # A, B, A, B: each pair is adjacent twice in the game, which counts once, by the majority
    filled = order(frame([("g", s, "AB"[s % 2], s + 1, s + 1, 0) for s in range(4)]), "uptown")
    ab, ba = row(filled, "A", "B"), row(filled, "B", "A")
    assert (ab["games"], ab["behind"], ab["after_mean_rank_uptown"]) == (1, 1, 3.0)
    assert (ba["games"], ba["tied"], ba["after_mean_rank_uptown"]) == (1, 1, 2.0)
    assert order(frame([]).astype({"seat": int}), "uptown").empty


# -- real runs -----------------------------------------------------------------------


def run(*args: str):
    """``arena run``, quiet, on one worker: it must succeed.  A module-wide runner, as ``balanced_run`` uses it."""
    result = CliRunner().invoke(main, ["run", *args, "-q", "-j", "1", "--no-compress"])
    assert result.exit_code == 0, result.output
    return result


def without_timing(out: Path) -> list[str]:
    """games.csv without its time-use columns (the last)."""
    return [row_without_timing(line) for line in (out / "games.csv").read_text().splitlines()]


def records(out: Path) -> dict[str, str]:
    return {json.loads(line)["game_id"]: line for line in (out / "records.jsonl").read_text().splitlines()}


def keep_games(out: Path, kept: int) -> None:
    """Cut a finished run's results back to its first ``kept`` records (as if interrupted there)."""
    lines = (out / "records.jsonl").read_text().splitlines(keepends=True)[:kept]
    ids = {json.loads(line)["game_id"] for line in lines}
    rows = (out / "games.csv").read_text().splitlines(keepends=True)
    (out / "games.csv").write_text(rows[0] + "".join(r for r in rows[1:] if r.split(",")[0] in ids))
    (out / "records.jsonl").write_text("".join(lines))
    for name in ("standings.csv", "head_to_head.csv", "seats.csv", "order.csv"):
        (out / name).unlink()


SMALL_BALANCED = f"""name = "small-balanced"
players = 4
deals = 1
seed = 12
deal_key = "{KEY}"  # the same deals in every folder these tests compare
time_limit = 5
isolation = "none"
[[entrants]]
name = "r1"
bot = "random"
[[entrants]]
name = "greedy"
bot = "greedy"
[[entrants]]
name = "r2"
bot = "random"
[[entrants]]
name = "r3"
bot = "random"
"""


@pytest.fixture(scope="module")
def balanced_run(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("balanced")
    path = folder / "small.toml"
    path.write_text(SMALL_BALANCED)
    run(str(path), "--out", str(folder / "whole"))
    return path, folder / "whole"


@pytest.mark.slow
def test_a_balanced_run_writes_order_csv_and_balanced_seats(balanced_run):
    _, out = balanced_run
    assert len(records(out)) == 12
    games = pd.read_csv(out / "games.csv")
    assert sorted(games["game_id"].unique())[-1] == "t000-d0000-r11"
    order_csv = pd.read_csv(out / "order.csv")
    assert list(order_csv.columns) == list(ORDER_COLUMNS)
    # every ordered pair of the 4 entrants, each after the other in 4 of the 12 games
    assert len(order_csv) == 12 and set(order_csv["games"]) == {4}
    assert set(order_csv["ahead"] + order_csv["tied"] + order_csv["behind"]) == {4}
    seats_csv = pd.read_csv(out / "seats.csv")
    assert list(seats_csv["seat"]) == [0, 1, 2, 3] and set(seats_csv["games"]) == {12}
    per_seat = games.groupby(["entrant", "seat"]).size()
    assert set(per_seat) == {3} and len(per_seat) == 16  # each entrant 3 times in each seat


@pytest.mark.slow
def test_a_cut_balanced_run_resumes_to_the_same_results(balanced_run, tmp_path):
    path, whole = balanced_run
    out = tmp_path / "cut"
    run(str(path), "--out", str(out))
    keep_games(out, 5)
    run(str(path), "--out", str(out), "--resume")
    assert without_timing(out) == without_timing(whole)
    assert records(out) == records(whole)
    for name in ("standings.csv", "head_to_head.csv", "seats.csv", "order.csv"):
        assert (out / name).read_text() == (whole / name).read_text(), name


@pytest.mark.slow
def test_resume_after_a_change_of_seating_keeps_only_games_of_the_new_schedule(balanced_run, tmp_path, cli,
                                                                                write_tournament):
    # A folder played with rotations whose file then names no seating (4 players: balanced by
    # default): the ids of the balanced games are two digits wide, so no stored game is kept.
    path, whole = balanced_run
    rotated = write_tournament(SMALL_BALANCED.replace('isolation = "none"', 'isolation = "none"\nseating = "rotate"'),
                               "rotated.toml")
    out = tmp_path / "old"
    run(str(rotated), "--out", str(out))
    assert len(records(out)) == 4
    (out / "tournament.toml").write_text(path.read_text())
    result = cli.invoke(main, ["run", str(path), "--out", str(out), "--resume", "-j", "1"])
    assert result.exit_code == 0, result.output
    assert "removed 20 line(s) that belong to no game of this tournament" in result.output
    assert without_timing(out) == without_timing(whole)
    assert records(out) == records(whole)


@pytest.mark.slow
def test_resume_checks_each_record_is_the_game_the_schedule_seats(tmp_path, cli, write_tournament):
    # 3 players, rotations, then all permutations: the ids r0-r2 stay, but only r0 seats the
    # entrants as `all` does; r1 and r2 are replayed, checked against the schedule and dropped.
    text = SMALL_BALANCED.replace("players = 4", "players = 3").split('[[entrants]]\nname = "r3"')[0]
    rotated = write_tournament(text.replace("seed = 12", 'seed = 12\nseating = "rotate"'), "rotated.toml")
    everything = write_tournament(text.replace("seed = 12", 'seed = 12\nseating = "all"'), "all.toml")
    run(str(everything), "--out", str(tmp_path / "whole"))
    out = tmp_path / "changed"
    run(str(rotated), "--out", str(out))
    (out / "tournament.toml").write_text(everything.read_text())
    result = cli.invoke(main, ["run", str(everything), "--out", str(out), "--resume", "-j", "1"])
    assert result.exit_code == 0, result.output
    assert "dropped 2 game(s) to play again: record not the game the schedule plays" in result.output
    assert without_timing(out) == without_timing(tmp_path / "whole")
    assert records(out) == records(tmp_path / "whole")
