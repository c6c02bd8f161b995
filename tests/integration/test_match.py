"""Matches (:mod:`arena.tournament.match`): deals counted in deal order, the test's verdict, the folder it leaves.

Real games throughout use isolation ``none`` (in-process bots, fast); the bots of known strength are
``benchmarks/match_bots.py:MixedBot`` (greedy with probability p, else random; ``salt`` changes its
moves, not its strength).  A match played here draws no pictures (``plots=False``, as ``arena match`` with
the tests' ``ARENA_PLOTS=0``) unless the pictures are what the test checks.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.plan.config import load_config
from arena.plan.schedule import schedule
from arena.report.tables import load_games
from arena.results.files import MATCH_FILE
from arena.results.rows import SeatTime, game_rows_text
from arena.results.verify import without_timing
from arena.rules.state import SeatResult
from arena.stats.field import FIELD_MIN_DEALS
from arena.stats.hypotheses import SprtParameters
from arena.stats.sprt import Pentanomial, sprt
from arena.timecontrol import time_control
from arena.tournament.match.feed import MatchFeed, run_match
from arena.tournament.match.plan import MatchError, MatchPlan, entrant_names, match_time, parse_sprt
from arena.tournament.match.tally import MatchTally
from arena.tournament.run.runner import RunOptions
from tests.stored import record_lines

ROOT = Path(__file__).resolve().parents[2]
MIXED = f"{ROOT / 'benchmarks' / 'match_bots.py'}:MixedBot"


#: A results folder's deal key: matches these tests compare across folders play the same deals.
KEY = "0f" * 32


def plan(*specs: str, **kw) -> MatchPlan:
    kw.setdefault("seed", 7)
    kw.setdefault("isolation", "none")
    if not kw.get("public_deals"):
        kw.setdefault("deal_key", KEY)
    return MatchPlan(tuple(specs), **kw)


def games_rows(out: Path) -> list[str]:
    """games.csv without its timing column."""
    return [without_timing(line) for line in (out / "games.csv").read_text().splitlines()]


def record_ids(out: Path) -> list[str]:
    return sorted(json.loads(line)["game_id"] for line in record_lines(out))


# -- counting, on hand-made rows --------------------------------------------------------


def rows_of(p: MatchPlan, deal: int, rotation: int, ranks_by_name: dict[str, int], faulted: set[str] = frozenset()) -> str:
    """The games.csv rows of one game of ``p``'s schedule with these ranks (by entrant name)."""
    game = next(g for g in schedule(p.config()) if g.deal == deal and g.rotation == rotation)
    names = [p.names[i] for i in game.seats]
    results = [SeatResult(seat, ranks_by_name[n], {}, 0, 0, ranks_by_name[n], ranks_by_name[n], ranks_by_name[n])
               for seat, n in enumerate(names)]
    bad = {seat for seat, n in enumerate(names) if n in faulted}
    return game_rows_text(game._replace(table=0), names, names, results, [1] * len(names), bad, [SeatTime(0.0)] * len(names),
                          p.scoring)


def test_a_deal_is_counted_only_when_whole_and_only_after_every_deal_before_it():
    p = plan("a", "b", sprt=SprtParameters(0, 50))
    a, b = p.names
    tally = MatchTally(p)
    # deal 1 complete first (a won both): it waits for deal 0
    tally.add_rows(rows_of(p, 1, 1, {a: 1, b: 2}) + rows_of(p, 1, 0, {a: 1, b: 2}))
    assert tally.deals == 0 and tally.counts == Pentanomial()
    tally.add_rows(rows_of(p, 0, 0, {a: 2, b: 1}))  # half of deal 0: still nothing
    assert tally.deals == 0
    tally.add_rows(rows_of(p, 0, 1, {a: 1, b: 1}))  # deal 0 whole: a lost one, drew one (LD); deal 1 follows (WW)
    assert tally.deals == 2
    assert tally.counts == Pentanomial(ll=0, ld=1, dd_wl=0, wd=0, ww=1)
    assert [g for g, _ in tally.history] == [2, 4]
    assert tally.history[-1][1] == pytest.approx(sprt(Pentanomial(0, 1, 0, 0, 1), p.sprt).llr)


def test_a_fault_is_a_loss_and_a_shared_first_place_a_draw():
    p = plan("a", "b", games=4)
    a, b = p.names
    tally = MatchTally(p)
    # deal 0: a ranked first but faulted (a loss), then a shared first (a draw): LD
    tally.add_rows(rows_of(p, 0, 0, {a: 1, b: 2}, faulted={a}) + rows_of(p, 0, 1, {a: 1, b: 1}))
    # deal 1: both faulted, a's game rank decides: a win; b faulted: a win: WW
    tally.add_rows(rows_of(p, 1, 0, {a: 1, b: 2}, faulted={a, b}) + rows_of(p, 1, 1, {a: 2, b: 1}, faulted={b}))
    assert tally.counts == Pentanomial(0, 1, 0, 0, 1)
    assert tally.done and tally.verdict is None  # a fixed count has no verdict


def test_the_field_score_of_a_deal_is_the_share_of_rivals_finished_behind():
    p = plan("a", "b", "c", sprt=parse_sprt("elo0=0,elo1=50", 3))
    a, b, c = p.names
    tally = MatchTally(p)
    text = ""
    for rotation in range(6):  # a first in three games, last in three; b and c share a place in the first
        ranks = {a: 1, b: 2, c: 2} if rotation < 3 else {a: 3, b: 1, c: 2}
        text += rows_of(p, 0, rotation, ranks)
    tally.add_rows(text)
    assert tally.deals == 1 and tally.scores == [pytest.approx(0.5)]


def test_the_gate_hands_out_games_in_deal_order_and_no_further_than_the_lookahead():
    p = plan("a", "b", sprt=SprtParameters(0, 50))
    feed = MatchFeed(p, workers=1)  # lookahead 2 deals
    a, b = p.names
    done = {"t000-d0000-r1"}
    gate = feed.tasks(done)
    given = [g.game_id for g in gate]
    assert given == ["t000-d0000-r0", "t000-d0001-r0", "t000-d0001-r1"]  # dry: deal 2 waits for deal 0
    assert list(gate) == []
    feed.stored(rows_of(p, 0, 0, {a: 1, b: 2}) + rows_of(p, 0, 1, {a: 1, b: 2}))
    assert [g.game_id for g in gate] == ["t000-d0002-r0", "t000-d0002-r1"]  # it fills again


def test_sprt_options_and_their_errors_name_the_option():
    assert parse_sprt("elo0=0,elo1=20", 2) == SprtParameters(0, 20, 0.05, 0.05, "normalized")
    assert parse_sprt("elo0=-5, elo1=5, alpha=0.1, beta=0.2, model=logistic", 2) == SprtParameters(-5, 5, 0.1, 0.2,
                                                                                                   "logistic")
    assert parse_sprt("elo0=0,elo1=20", 3).model == "logistic"
    for text, message in [
        ("elo0=20,elo1=0", "elo0 must be less than elo1"),
        ("elo0=0,elo1=0", "elo0 must be less than elo1"),
        ("elo0=0,elo1=20,alpha=1.5", "alpha must be between 0 and 1"),
        ("elo0=0,elo1=20,beta=0", "beta must be between 0 and 1"),
        ("elo0=0,elo1=20,gamma=1", "unknown key 'gamma'"),
        ("elo0=0", "elo1 is missing"),
        ("elo0=0,elo1=x", "elo1 must be a number"),
        ("elo0=0,elo1=20,elo1=30", "elo1 is given twice"),
        ("elo0=0,elo1", "is not key=value"),
        ("elo0=0,elo1=20,model=bayes", "model must be one of"),
    ]:
        with pytest.raises(MatchError, match=message) as caught:
            parse_sprt(text, 2)
        assert str(caught.value).startswith("--sprt: ")
    with pytest.raises(MatchError, match="takes model=logistic"):
        parse_sprt("elo0=0,elo1=20,model=normalized", 4)


def test_a_plan_refuses_what_makes_no_match():
    with pytest.raises(MatchError, match="2 to 5 bots"):
        plan("random", sprt=SprtParameters(0, 20))
    with pytest.raises(MatchError, match="2 to 5 bots"):
        plan(*["random"] * 6, games=10)
    with pytest.raises(MatchError, match="not both"):
        plan("random", "greedy", games=10, sprt=SprtParameters(0, 20))
    with pytest.raises(MatchError, match="--games N or --sprt"):
        plan("random", "greedy")
    with pytest.raises(MatchError, match="--max-games: at most 20000 games"):
        plan("random", "greedy", sprt=SprtParameters(0, 20), max_games=20_001)
    with pytest.raises(MatchError, match="--time-limit"):
        match_time(0.0, None, None)
    with pytest.raises(MatchError, match="--clock"):
        match_time(5.0, "sixty", None)
    with pytest.raises(MatchError, match="--overage"):
        match_time(5.0, None, -1.0)
    assert match_time(2.0, "60+1", 3.0) == time_control("60+1", 3.0, limit=2.0)


def test_names_and_the_tournament_a_match_is():
    assert entrant_names(["greedy", "greedy", f"{MIXED}:p=0.5", "mcts:iterations=50"]) == (
        "greedy", "greedy-2", "MixedBot-p-0.5", "mcts-iterations-50")
    p = plan("greedy", "random", "random", sprt=SprtParameters(0, 20, model="logistic"), max_games=100)
    config = p.config()
    assert (config.name, config.players, config.deals, config.seating) == (
        "match-greedy-vs-random-random-2", 3, 17, "balanced")  # 100 games: 17 deals of 6
    assert p.games_per_deal == 6
    assert plan("a", "b", games=9).deals == 5  # rounded up to whole deals


def test_a_tournament_file_names_its_seating_design():
    from arena.plan.config import ConfigError, parse_config

    text = f'name = "t"\nplayers = 3\ndeals = 1\nseed = 1\ndeal_key = "{KEY}"\nseating = "SEATING"\n' + \
        "".join(f'[[entrants]]\nbot = "{b}"\nname = "{b}{i}"\n' for i, b in enumerate(["random"] * 3))
    config = parse_config(text.replace("SEATING", "balanced"))
    assert [g.rotation for g in schedule(config)] == [0, 1, 2, 3, 4, 5]
    with pytest.raises(ConfigError, match="seating: must be one of fixed, rotate, all, balanced"):
        parse_config(text.replace("SEATING", "spiral"))


@pytest.mark.parametrize("bots", [2, 3, 5])
def test_no_two_games_of_a_match_share_a_deal_unless_it_is_duplicate(bots):
    # S1: every game of a match its own deal; --duplicate: one deal for the seatings of a round
    p = plan(*["random"] * bots, games=3 * len(plan(*["random"] * bots, games=1).config().names) * 20)
    seeds = [g.seed for g in schedule(p.config())]
    assert len(seeds) == p.deals * p.games_per_deal and len(set(seeds)) == len(seeds)
    duplicate = plan(*["random"] * bots, games=p.games, duplicate=True)
    rounds: dict[int, set[int]] = {}
    for g in schedule(duplicate.config()):
        rounds.setdefault(g.deal, set()).add(g.seed)
    assert all(len(found) == 1 for found in rounds.values()) and len(rounds) == p.deals
    assert "duplicate = true" in duplicate.config_text() and "duplicate" not in p.config_text()


# -- real matches ------------------------------------------------------------------------


@pytest.mark.slow
def test_greedy_against_random_reaches_h1_in_a_few_games(tmp_path):
    out = tmp_path / "m"
    result = run_match(plan("greedy", "random", sprt=parse_sprt("elo0=0,elo1=200", 2)), out, RunOptions(workers=2),
                       plots=False)
    match = json.loads((out / MATCH_FILE).read_text())
    assert match == result.match
    assert match["verdict"] == "H1" and match["state"] == "done"
    assert match["games"] <= 20 and match["games"] == 2 * match["deals"]
    assert match["pentanomial"]["WW"] == match["deals"]
    assert match["llr"] >= match["upper"] > 0 > match["lower"]
    assert all(b < match["upper"] for b in match["history"]["llr"][:-1])  # it stopped at the first crossing
    assert match["history"]["games"] == list(range(2, match["games"] + 1, 2))
    # the folder holds exactly the deals counted, and says so
    assert load_config(out / "tournament.toml").deals == match["deals"]
    assert len(games_rows(out)) - 1 == 2 * match["games"]
    assert record_ids(out) == sorted({line.split(",")[0] for line in games_rows(out)[1:]})


@pytest.mark.slow
def test_random_against_greedy_accepts_h0(tmp_path):
    result = run_match(plan("random", "greedy", sprt=parse_sprt("elo0=0,elo1=200", 2)), tmp_path / "m", RunOptions(workers=1),
                       plots=False)
    assert result.match["verdict"] == "H0" and result.match["pentanomial"]["LL"] == result.match["deals"]


@pytest.mark.slow
def test_equal_bots_for_a_fixed_number_of_games(tmp_path):
    """Two copies of one bot replay each other's game from the other seat (the duplicate format): every pair is
    one win, one loss."""
    result = run_match(plan("random", "random", games=9, duplicate=True), tmp_path / "m", RunOptions(workers=2),
                       plots=False)
    match = result.match
    assert match["games"] == 10 and match["deals"] == 5  # 9 games, rounded up to whole deals
    assert match["verdict"] is None and match["llr"] is None and match["history"]["llr"] == []
    assert match["pentanomial"]["DD+WL"] == 5 and match["score"] == 0.5
    assert load_config(tmp_path / "m" / "tournament.toml").deals == 5


@pytest.mark.slow
def test_a_test_that_reaches_the_cap_is_inconclusive(tmp_path):
    p = plan(f"{MIXED}:salt=1", f"{MIXED}:salt=2", sprt=parse_sprt("elo0=0,elo1=20", 2), max_games=7)
    match = run_match(p, tmp_path / "m", RunOptions(workers=2), plots=False).match
    assert match["verdict"] == "inconclusive" and match["games"] == 8 and match["deals"] == 4
    assert match["lower"] < match["llr"] < match["upper"]


EQUAL = (f"{MIXED}:p=0.3,salt=1", f"{MIXED}:p=0.3,salt=2")


#: The test of the two equal bots: elo1 80 and seed 3 decide after 24 deals (seed 11 at elo1 60: 121).
EQUAL_SPRT, EQUAL_SEED = "elo0=0,elo1=80", 3


@pytest.fixture(scope="module")
def equal_matches(shared_folder) -> dict[int, tuple[Path, dict]]:
    """One match of two equal bots, played with 1 worker and with 2: {workers: (folder, match.json)}.
    Read only: a test that writes to one works on a copy."""

    def play(base: Path) -> None:
        params = parse_sprt(EQUAL_SPRT, 2)
        for workers in (1, 2):
            run_match(plan(*EQUAL, sprt=params, seed=EQUAL_SEED), base / f"w{workers}", RunOptions(workers=workers),
                      plots=False)

    base = shared_folder("equal-matches", play)
    return {workers: (base / f"w{workers}", json.loads((base / f"w{workers}" / MATCH_FILE).read_text()))
            for workers in (1, 2)}


@pytest.mark.slow
def test_the_verdict_and_the_games_do_not_depend_on_the_workers(equal_matches):
    (w1, one), (w2, two) = equal_matches[1], equal_matches[2]
    assert one["verdict"] in ("H0", "H1") and one["deals"] > 10
    assert {k: v for k, v in one.items()} == {k: v for k, v in two.items()}
    assert games_rows(w1) == games_rows(w2)
    assert record_ids(w1) == record_ids(w2)
    assert len(load_games(w2 / "games.csv", 2)) == 2 * two["games"]


@pytest.mark.slow
def test_a_match_s_games_counted_in_any_order_give_its_verdict(equal_matches):
    """Two workers store games in the order they finish, which the machine's load decides: the match's own
    rows, counted game by game last deal first, give the verdict, the deals and the LLRs it stored."""
    folder, match = equal_matches[2]
    lines = (folder / "games.csv").read_text().splitlines()[1:]
    games = sorted(lines[i:i + match["players"]] for i in range(0, len(lines), match["players"]))  # by game id
    tally = MatchTally(plan(*EQUAL, sprt=parse_sprt(EQUAL_SPRT, 2), seed=EQUAL_SEED))
    for game in reversed(games):
        tally.add_rows(game)
        assert tally.deals == 0 or game is games[0]  # nothing is counted before deal 0 is whole
    assert (tally.verdict, tally.deals) == (match["verdict"], match["deals"])
    assert [g for g, _ in tally.history] == match["history"]["games"]
    assert [llr for _, llr in tally.history] == pytest.approx(match["history"]["llr"])


@pytest.mark.slow
def test_the_field_test_of_three_players(tmp_path):
    out = tmp_path / "m"
    match = run_match(plan("greedy", "random", "random", sprt=parse_sprt("elo0=0,elo1=100", 3)), out, RunOptions(workers=2),
                      plots=False).match
    assert match["verdict"] == "H1" and match["test"] == "field" and match["seating"] == "balanced"
    assert match["games_per_deal"] == 6 and match["games"] == 6 * match["deals"]
    assert match["pentanomial"] is None and match["score"] == 1.0
    # every deal scores 1, no spread: the corrected bounds meet half-way and the first deal allowed decides
    assert match["deals"] == FIELD_MIN_DEALS and match["lower"] == match["upper"] == 0.0
    games = load_games(out / "games.csv", 3)
    assert sorted(games.groupby("deal")["rotation"].nunique().unique()) == [6]
    assert games["deal"].max() == match["deals"] - 1


@pytest.mark.slow
def test_a_fixed_table_of_equal_bots(tmp_path):
    match = run_match(plan(*EQUAL, f"{MIXED}:p=0.3,salt=3", games=12), tmp_path / "m", RunOptions(workers=2),
                      plots=False).match
    assert match["games"] == 12 and match["deals"] == 2 and match["verdict"] is None
    assert 0.0 < match["score"] < 1.0


@pytest.mark.slow
def test_resume_goes_on_from_the_stored_deals_and_a_finished_match_stays_finished(tmp_path, equal_matches):
    params = parse_sprt(EQUAL_SPRT, 2)
    whole = equal_matches[2][1]  # the match played with 2 workers
    out = tmp_path / "again"
    shutil.copytree(equal_matches[1][0], out)  # and a copy of the one played with 1
    first = json.loads((out / MATCH_FILE).read_text())
    assert first == equal_matches[1][1]
    # resumed once finished: the same verdict, nothing played
    again = run_match(plan(*EQUAL, sprt=params, seed=EQUAL_SEED), out, RunOptions(workers=2, resume=True), plots=False)
    assert again.summary.played == 0 and again.match == first == whole
    from arena.results.files import RunError

    with pytest.raises(RunError, match="other parameters"):
        run_match(plan(*EQUAL, sprt=parse_sprt("elo0=0,elo1=30", 2), seed=EQUAL_SEED), out, RunOptions(resume=True))
    with pytest.raises(RunError, match="--resume"):
        run_match(plan(*EQUAL, sprt=params, seed=EQUAL_SEED), out)


def _start(args: list[str]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", "from arena.cli import main; main()", "match", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )


@pytest.mark.slow
def test_a_match_killed_mid_run_resumes_to_the_same_verdict(tmp_path):
    # 58 deals to a verdict (elo1 40, seed 3: 208): killed after 10 deals, the run is far from its end
    args = [*EQUAL, "--sprt", "elo0=0,elo1=80", "--seed", "2", "--isolation", "none", "--quiet", "--deal-key", KEY]
    whole = tmp_path / "whole"
    done = subprocess.run([sys.executable, "-m", "arena", "match", *args, "--out", str(whole), "-j", "2"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    expected = json.loads((whole / MATCH_FILE).read_text())
    assert expected["deals"] > 40

    out = tmp_path / "killed"
    proc = _start([*args, "--out", str(out), "-j", "2"])
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        path = out / "games.csv"
        if path.exists() and path.read_bytes().count(b"\n") > 2 * 20:
            break
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGKILL)  # the parent and its workers, at once
    proc.communicate(timeout=60)
    assert json.loads((out / MATCH_FILE).read_text())["state"] == "running"
    assert load_config(out / "tournament.toml").deals == 10_000  # the cap: the match was not over

    resumed = subprocess.run([sys.executable, "-m", "arena", "match", *args, "--out", str(out), "-j", "1",
                              "--resume"], capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    match = json.loads((out / MATCH_FILE).read_text())
    assert match == expected
    assert games_rows(out) == games_rows(whole)
    assert record_ids(out) == record_ids(whole)


@pytest.mark.slow
def test_a_match_draws_its_tables_and_the_llr_of_its_test(tmp_path):
    """The pictures of arena run, and for a sequential test llr.png from the very match.json written."""
    from arena.report.plots import llr_plot

    out = tmp_path / "m"
    result = run_match(plan("greedy", "random", sprt=parse_sprt("elo0=0,elo1=200", 2)), out)
    assert result.match == json.loads((out / MATCH_FILE).read_text())
    assert {p.name for p in result.plots} >= {"win_share.png", "head_to_head.png", "seats.png", "llr.png"}
    llr_plot(result.match, tmp_path / "again.png")
    assert (tmp_path / "again.png").read_bytes() == (out / "llr.png").read_bytes()
    fixed = run_match(plan("greedy", "random", games=2), tmp_path / "fixed")  # a fixed count has no LLR to draw
    assert "llr.png" not in {p.name for p in fixed.plots} and not (tmp_path / "fixed" / "llr.png").exists()
