"""Gauntlets (one challenger and a pool at every table) and max_tables (a seeded, balanced choice of tables)."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from pathlib import Path

import pytest

from arena.cli import main
from arena.plan.config import parse_config
from arena.plan.schedule import (
    choose_tables,
    count_games,
    game_seed,
    gauntlet_tables,
    schedule,
    tables,
    tournament_tables,
)
from arena.plan.seating import is_follow_balanced, is_seat_balanced
from arena.results.verify import without_timing as row_without_timing

#: A deal key for the files of these tests (a results folder keeps its own, :mod:`arena.results.dealkey`).
KEY = "0f" * 32


def tournament(entrants: int, players: int, extra: str = "", deals: int = 1, seed: int = 5) -> str:
    key = "" if "public_deals" in extra else f'deal_key = "{KEY}"\n'
    text = f'name = "g"\nplayers = {players}\ndeals = {deals}\nseed = {seed}\n{key}{extra}\n'
    return text + "".join(f'[[entrants]]\nname = "e{i}"\nbot = "random"\n' for i in range(entrants))


def gauntlet(challengers: list[int], pool: list[int], players: int, extra: str = "", **kw) -> str:
    keys = (f'format = "gauntlet"\nchallengers = {json.dumps([f"e{i}" for i in challengers])}\n'
            f'pool = {json.dumps([f"e{i}" for i in pool])}\n{extra}')
    return tournament(len(challengers) + len(pool), players, keys, **kw)


def counts(chosen: list[tuple[int, ...]], n: int) -> list[int]:
    c = Counter(e for table in chosen for e in table)
    return [c[e] for e in range(n)]


# -- gauntlet tables -----------------------------------------------------------------


def test_every_table_holds_one_challenger_and_players_minus_one_of_the_pool():
    # one new bot against five old ones, four to a table: C(5, 3) = 10 tables, not C(6, 4) = 15
    config = parse_config(gauntlet([5], [0, 1, 2, 3, 4], 4), "g.toml")
    found = tournament_tables(config)
    assert len(found) == 10
    assert all(5 in table and len(set(table)) == 4 for table in found)
    assert sorted({tuple(e for e in t if e != 5) for t in found}) == list(itertools.combinations(range(5), 3))


def test_gauntlet_tables_are_the_round_robin_tables_with_one_challenger_in_the_same_order():
    challengers, pool = [0, 3], [1, 2, 4, 5]
    expected = [t for t in tables(6, 3) if sum(e in challengers for e in t) == 1]
    assert gauntlet_tables(challengers, pool, 3) == expected
    text = tournament(6, 3, 'format = "gauntlet"\nchallengers = ["e0", "e3"]\npool = ["e1", "e2", "e4", "e5"]')
    config = parse_config(text, "g.toml")
    assert tournament_tables(config) == expected
    # a gauntlet table plays the deals it plays in the round-robin of the same entrants
    round_robin = parse_config(tournament(6, 3), "g.toml")
    rr_seed = {(tables(6, 3)[g.table], g.deal, g.rotation): g.seed for g in schedule(round_robin)}
    for g in schedule(config):
        assert g.seed == rr_seed[(expected[g.table], g.deal, g.rotation)]


def test_gauntlet_schedule_is_balanced_and_counted():
    config = parse_config(gauntlet([0, 1], [2, 3, 4, 5, 6], 4, deals=2), "g.toml")
    games = list(schedule(config))
    assert count_games(config) == len(games) == 2 * 2 * 10 * 12  # challengers x C(5, 3) x seatings x deals
    for _, group in itertools.groupby(games, key=lambda g: (g.table, g.deal)):
        seated = [g.seats for g in group]
        assert is_seat_balanced(seated) and is_follow_balanced(seated)
    # challengers never meet; every challenger meets every pool entrant equally often
    met = Counter(pair for g in games if g.rotation == 0 for pair in itertools.combinations(sorted(g.seats), 2))
    assert met[(0, 1)] == 0
    assert len({met[(c, p)] for c in (0, 1) for p in range(2, 7)}) == 1


def test_two_player_gauntlet():
    config = parse_config(gauntlet([0], [1, 2, 3], 2), "g.toml")
    assert tournament_tables(config) == [(0, 1), (0, 2), (0, 3)]
    assert [g.game_id for g in schedule(config)][:2] == ["t000-d0000-r0", "t000-d0000-r1"]


# -- max_tables ---------------------------------------------------------------------


def test_twelve_entrants_at_four_players_capped_to_a_balanced_choice():
    names = [f"e{i}" for i in range(12)]
    every = tables(12, 4)
    assert len(every) == 495
    for n in (3, 30, 99, 100, 247, 248, 400, 494):
        chosen = choose_tables(every, n, 2024, names)
        assert len(chosen) == len(set(chosen)) == n
        assert chosen == sorted(chosen) and set(chosen) <= set(every)
        c = counts(chosen, 12)
        assert max(c) - min(c) <= 1, (n, c)
        pairs = Counter(p for t in chosen for p in itertools.combinations(t, 2))
        together = [pairs[p] for p in itertools.combinations(range(12), 2)]
        mean = n * 6 / 66
        assert max(together) - min(together) <= max(3, mean / 2), (n, min(together), max(together))
    # 99 tables of 4: every entrant in exactly 33, every pair together 8 to 10 times (9 on average)
    chosen = choose_tables(every, 99, 2024, names)
    pairs = Counter(p for t in chosen for p in itertools.combinations(t, 2))
    assert set(counts(chosen, 12)) == {33}
    assert 8 <= min(pairs.values()) and max(pairs.values()) <= 10 and len(pairs) == 66


@pytest.mark.parametrize("n, k", [(5, 3), (6, 3), (6, 4), (7, 3), (7, 4), (8, 4), (6, 2), (7, 5), (8, 3)])
@pytest.mark.slow
def test_entrant_counts_stay_within_one_for_every_cap(n, k):
    names = [f"e{i}" for i in range(n)]
    every = tables(n, k)
    for cap in range(1, len(every)):
        for master in (0, 1):
            c = counts(choose_tables(every, cap, master, names), n)
            assert max(c) - min(c) <= 1, (cap, master, c)


@pytest.mark.parametrize("challengers, pool, k", [(1, 5, 4), (2, 5, 4), (3, 6, 3), (2, 8, 4), (4, 4, 2), (2, 6, 5)])
@pytest.mark.slow
def test_capped_gauntlets_balance_challengers_and_pool_each(challengers, pool, k):
    chal, rest = list(range(challengers)), list(range(challengers, challengers + pool))
    config = parse_config(gauntlet(chal, rest, k), "g")
    every = tournament_tables(config)
    for cap in range(1, len(every)):
        text = gauntlet(chal, rest, k, f"max_tables = {cap}")
        chosen = tournament_tables(parse_config(text, "g"))
        assert len(chosen) == cap and set(chosen) <= set(every)
        c = counts(chosen, challengers + pool)
        for group in (chal, rest):
            assert max(c[e] for e in group) - min(c[e] for e in group) <= 1, (cap, c)


def test_the_choice_is_seeded_and_deterministic():
    text = tournament(9, 3, "max_tables = 20")
    first = [tuple(g) for g in schedule(parse_config(text, "g"))]
    assert first == [tuple(g) for g in schedule(parse_config(text, "g"))]
    chosen = tournament_tables(parse_config(text, "g"))
    assert chosen != tournament_tables(parse_config(text.replace("seed = 5", "seed = 6"), "g"))
    # the chosen tables keep their seeds: TABLE is the entrants' names, not the table's number
    names = [f"e{i}" for i in range(9)]
    for g in schedule(parse_config(text, "g")):
        assert g.seed == game_seed(5, "|".join(names[i] for i in chosen[g.table]), g.deal, g.rotation, KEY)
    assert {g.game_id[:4] for g in schedule(parse_config(text, "g"))} == {f"t{t:03d}" for t in range(20)}


def test_max_tables_above_the_number_of_tables_changes_nothing():
    config = parse_config(tournament(5, 3, "max_tables = 10"), "g")
    assert tournament_tables(config) == tables(5, 3)
    assert [tuple(g) for g in schedule(config)] == [tuple(g) for g in schedule(parse_config(tournament(5, 3), "g"))]


def test_the_documented_tie_break_pins_the_first_choice():
    # 4 entrants, 3 seats, 1 table: every candidate ties on counts and pairs, so the smallest
    # sha256("uptown-tables/1:MASTER:0:TABLE") decides.
    import hashlib

    names = ["e0", "e1", "e2", "e3"]
    every = tables(4, 3)
    key = {t: int.from_bytes(hashlib.sha256(f"uptown-tables/1:7:0:{'|'.join(names[i] for i in t)}".encode())
                             .digest()[:8], "big") >> 1 for t in every}
    assert choose_tables(every, 1, 7, names) == [min(every, key=key.__getitem__)]


# -- bad input -----------------------------------------------------------------------


@pytest.mark.parametrize("extra, message", [
    ('format = "league"', "g.toml: format: must be one of round-robin, gauntlet, not 'league'"),
    ('seating = "shuffle"', "g.toml: seating: must be one of fixed, rotate, all, balanced, not 'shuffle'"),
    ('format = "gauntlet"\npool = ["e0"]', "g.toml: challengers: missing"),
    ('format = "gauntlet"\nchallengers = ["e0"]', "g.toml: pool: missing"),
    ('format = "gauntlet"\nchallengers = ["e0"]\npool = ["e0", "e1", "e2"]', "g.toml: pool: 'e0' is a challenger too"),
    ('format = "gauntlet"\nchallengers = ["e0"]\npool = ["e1"]', "g.toml: pool: entrant 'e2' is in neither"),
    ("max_tables = 0", "g.toml: max_tables: must be a whole number of at least 1, not 0"),
])
def test_bad_input_is_one_line_and_nothing_starts(tmp_path, cli, write_tournament, extra, message):
    path = write_tournament(tournament(3, 2, extra), "g.toml")
    out = tmp_path / "out"
    result = cli.invoke(main, ["run", str(path), "--out", str(out), "-q"])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {path.parent}/{message}"), lines
    assert not out.exists()


# -- a real run ---------------------------------------------------------------------

GAUNTLET = f"""name = "small-gauntlet"
players = 3
deals = 1
seed = 3
deal_key = "{KEY}"  # the same deals in both folders the test compares
time_limit = 5
isolation = "none"
format = "gauntlet"
challengers = ["greedy"]
pool = ["r1", "r2", "r3"]
max_tables = 2
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


@pytest.fixture
def run(cli):
    """``arena run`` with these arguments, quiet, on one worker: it must succeed."""

    def invoke(*args: str):
        result = cli.invoke(main, ["run", *args, "-q", "-j", "1", "--no-compress"])
        assert result.exit_code == 0, result.output
        return result

    return invoke


def without_timing(out: Path) -> list[str]:
    """games.csv without its time-use columns (the last)."""
    return [row_without_timing(line) for line in (out / "games.csv").read_text().splitlines()]


def records(out: Path) -> dict[str, str]:
    return {json.loads(line)["game_id"]: line for line in (out / "records.jsonl").read_text().splitlines()}


@pytest.mark.slow
def test_a_gauntlet_runs_and_resumes_to_the_same_results(tmp_path, cli, write_tournament, run):
    path = write_tournament(GAUNTLET, "gauntlet.toml")
    whole = tmp_path / "whole"
    run(str(path), "--out", str(whole))
    stored = records(whole)
    assert len(stored) == 2 * 6  # 2 of the C(3, 2) = 3 tables, 6 seatings each (balanced at 3 players)
    for line in stored.values():
        names = [p["name"] for p in json.loads(line)["players"]]
        assert names.count("greedy") == 1 and len(set(names)) == 3
    h2h = (whole / "head_to_head.csv").read_text()
    assert "greedy,r1" in h2h or "greedy,r2" in h2h
    assert (whole / "order.csv").exists()

    out = tmp_path / "cut"
    run(str(path), "--out", str(out))
    lines = (out / "records.jsonl").read_text().splitlines(keepends=True)[:7]
    kept = {json.loads(line)["game_id"] for line in lines}
    rows = (out / "games.csv").read_text().splitlines(keepends=True)
    (out / "games.csv").write_text(rows[0] + "".join(r for r in rows[1:] if r.split(",")[0] in kept))
    (out / "records.jsonl").write_text("".join(lines))
    resumed = cli.invoke(main, ["run", str(path), "--out", str(out), "--resume", "-j", "1"])
    assert resumed.exit_code == 0, resumed.output
    assert "played 5 games" in resumed.output and "7 were stored already" in resumed.output
    assert without_timing(out) == without_timing(whole)
    assert records(out) == records(whole)
    for name in ("standings.csv", "head_to_head.csv", "seats.csv", "order.csv"):
        assert (out / name).read_text() == (whole / name).read_text(), name

    # a changed pool is another tournament: refused, naming the key
    other = write_tournament(GAUNTLET.replace('pool = ["r1", "r2", "r3"]\nmax_tables = 2', 'pool = ["r1", "r2", "r3"]'),
                             "other.toml")
    refused = cli.invoke(main, ["run", str(other), "--out", str(out), "--resume", "-q"])
    assert refused.exit_code == 1 and "differs in max_tables" in refused.output
