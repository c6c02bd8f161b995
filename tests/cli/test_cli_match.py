"""``arena match``: the verdict and its evidence on the terminal, the folder ``arena report`` reads, one-line errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from arena.cli import main

ROOT = Path(__file__).resolve().parents[2]
MIXED = f"{ROOT / 'benchmarks' / 'match_bots.py'}:MixedBot"


@pytest.fixture
def invoke(cli):
    """``arena match`` with these arguments."""
    return lambda *args: cli.invoke(main, ["match", *args])


@pytest.mark.slow
def test_a_match_prints_its_verdict_and_evidence_and_report_reads_its_folder(tmp_path, invoke, invoke_report):
    out = tmp_path / "m"
    result = invoke("greedy", "random", "--sprt", "elo0=0,elo1=200", "--isolation", "none", "-j", "2",
                    "--out", str(out))
    assert result.exit_code == 0, result.output
    match = json.loads((out / "match.json").read_text())
    assert match["verdict"] == "H1"
    text = result.output
    assert re.search(r"^seed (\d+) \(random; repeat the match with --seed \1\)$", text, re.MULTILINE)
    assert str(match["seed"]) in text
    assert f"greedy vs random: {match['games']} games ({match['deals']} game pairs), verdict H1" in text
    assert "H1 accepted: greedy is at least 200 Elo better" in text
    assert f"pentanomial LL 0, LD 0, DD+WL 0, WD 0, WW {match['deals']}" in text
    assert "bounds -2.944 and 2.944" in text
    for name in ("games.csv", "records.jsonl.gz", "arena.log", "tournament.toml", "standings.csv"):
        assert (out / name).exists()

    report = invoke_report(out)
    assert report.exit_code == 0, report.output
    assert "partial" not in report.output
    assert re.search(rf"\bgreedy\s+{match['games']}\b", report.output)  # the games the test counted
    assert "verdict H1" in report.output and "H1 accepted" in report.output
    # The match's own page opens on a summary that gives the verdict in words.
    page = (out / "report.html").read_text(encoding="utf-8")
    summary = page.split('<section id="summary">', 1)[1].split("</section>", 1)[0]
    assert "verdict H1" in summary and "H1 accepted: greedy is at least 200 Elo better" in summary


@pytest.fixture
def invoke_report(cli):
    """``arena report`` of the folder ``out``."""
    return lambda out: cli.invoke(main, ["report", str(out)])


@pytest.mark.slow
def test_a_fixed_table_of_three_and_its_report(tmp_path, invoke, invoke_report):
    out = tmp_path / "m"
    result = invoke(f"{MIXED}:salt=1", f"{MIXED}:salt=2", f"{MIXED}:salt=3", "--games", "7", "--seed", "4",
                    "--isolation", "none", "-j", "1", "--out", str(out), "-q")
    assert result.exit_code == 0, result.output
    assert "seed" not in result.output  # --quiet: the verdict and standings only
    head = "MixedBot-salt-1 vs the field (MixedBot-salt-2, MixedBot-salt-3): 12 games (2 rounds)"
    assert head in result.output
    report = invoke_report(out)
    assert head in report.output and re.search(r"\bMixedBot-salt-1\s+12\b", report.output)


@pytest.mark.slow
def test_an_interrupted_match_is_resumed_with_the_stored_seed(tmp_path, invoke):
    out = tmp_path / "m"
    first = invoke("random", "random", "--games", "4", "--isolation", "none", "-j", "1", "--out", str(out))
    seed = json.loads((out / "match.json").read_text())["seed"]
    assert first.exit_code == 0
    again = invoke("random", "random", "--games", "4", "--isolation", "none", "-j", "1", "--out", str(out))
    assert again.exit_code == 1 and "--resume" in again.output
    resumed = invoke("random", "random", "--games", "4", "--isolation", "none", "-j", "1", "--out", str(out),
                     "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert f"seed {seed} (the stored match's, from {out})\n" in resumed.output
    assert "played 0 games" in resumed.output
    other = invoke("random", "random", "--games", "6", "--isolation", "none", "--out", str(out), "--resume")
    assert other.exit_code == 1 and other.output.count("\n") == 1 and "other parameters" in other.output


@pytest.mark.parametrize(("args", "message"), [
    (["greedy", "random", "--sprt", "elo0=20,elo1=0"], "Error: --sprt: elo0 must be less than elo1"),
    (["greedy", "random", "--sprt", "elo0=0,elo1=20,alpha=1"], "Error: --sprt: alpha must be between 0 and 1"),
    (["greedy", "random", "--sprt", "elo0=0,elo1=20,beta=-0.1"], "Error: --sprt: beta must be between 0 and 1"),
    (["greedy", "random", "--sprt", "elo0=0,elo1=20,delta=3"], "Error: --sprt: unknown key 'delta'"),
    (["greedy", "random", "--sprt", "elo1=20"], "Error: --sprt: elo0 is missing"),
    (["greedy", "random", "random", "--sprt", "elo0=0,elo1=20,model=normalized"],
     "Error: --sprt: model normalized is for two players"),
    (["greedy", "random", "--games", "10", "--sprt", "elo0=0,elo1=20"], "Error: give either --games N or --sprt"),
    (["greedy", "random"], "Error: give --games N or --sprt"),
    (["greedy", "--games", "10"], "Error: A B [C ...]: a match takes 2 to 5 bots, not 1"),
    (["greedy"] * 6 + ["--games", "10"], "Error: A B [C ...]: a match takes 2 to 5 bots, not 6"),
    (["nosuch", "random", "--games", "10"], "Error: A ('nosuch'): bot 'nosuch': unknown bot"),
    (["greedy", "mcts:depth=3", "--games", "10"], "Error: bot 2 ('mcts:depth=3'): bot 'mcts': takes no option 'depth'"),
    (["greedy", "random", "--games", "0"], "Error: --games must be at least 1, not 0"),
    (["greedy", "random", "--sprt", "elo0=0,elo1=20", "--max-games", "30000"], "Error: --max-games: at most 20000"),
    (["greedy", "random", "--games", "2", "--time-limit", "0"], "Error: --time-limit: must be a number of seconds"),
])
def test_bad_input_is_one_line_and_starts_nothing(tmp_path, args, message, invoke):
    out = tmp_path / "never"
    result = invoke(*args, "--isolation", "none", "--out", str(out))
    assert result.exit_code == 1, result.output
    assert result.output.startswith(message) and result.output.count("\n") == 1, result.output
    assert "Traceback" not in result.output
    assert not out.exists()


def test_an_interrupted_match_is_continued_by_the_same_command_with_its_seed_and_resume() -> None:
    from arena.commands.match import _again

    given = {"bots": ("greedy", "my bot.py"), "games": None, "sprt": "elo0=0,elo1=50", "max_games": 400,
             "deals_file": "deals.txt", "duplicate": True, "public_deals": False, "out": "results/m"}
    assert _again(given, 77) == ("arena match greedy 'my bot.py' --sprt elo0=0,elo1=50 --max-games 400 --deals deals.txt "
                                 "--seed 77 --duplicate --resume --out results/m")
    fixed = {**given, "games": 24, "deals_file": None, "duplicate": False, "public_deals": True, "out": None}
    assert _again(fixed, 5) == "arena match greedy 'my bot.py' --games 24 --seed 5 --public-deals --resume"
