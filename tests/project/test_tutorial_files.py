"""The tutorials' tournament files work where the tutorial says to save them, from a fresh folder."""

from __future__ import annotations

import itertools
import re
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main

ROOT = Path(__file__).resolve().parents[2]


def toml_block(page: str, name_line: str) -> str:
    """The ```toml block of ``page`` whose text holds ``name_line``."""
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    return next(block for block in re.findall(r"```toml\n(.*?)```", text, re.DOTALL) if name_line in block)


def test_the_first_tournament_file_has_a_name_of_its_own() -> None:
    """Saved beside the quickstart, it must not collide with the README's run (results/quickstart)."""
    block = toml_block("tutorials/first-tournament.md", 'name = "my-first"')
    assert 'name = "quickstart"' not in block


@pytest.mark.slow
def test_the_first_tournament_file_runs_saved_in_tournaments(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """tutorials/first-tournament.md: saved as tournaments/my-first.toml of a checkout, its program entrant
    (a Node.js bot, found from the file's folder) plays; one deal instead of twenty keeps it short."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the tutorial's program entrant is a Node.js bot")
    checkout = tmp_path / "checkout"
    shutil.copytree(ROOT / "examples" / "protocol", checkout / "examples" / "protocol")
    block = toml_block("tutorials/first-tournament.md", 'name = "my-first"')
    short = re.sub(r"^deals = \d+", "deals = 1", block, flags=re.MULTILINE)
    assert short != block
    (checkout / "tournaments").mkdir()
    (checkout / "tournaments" / "my-first.toml").write_text(short, encoding="utf-8")
    monkeypatch.chdir(checkout)
    result = CliRunner().invoke(main, ["run", "tournaments/my-first.toml", "-q"])
    assert result.exit_code == 0, result.output
    games = (checkout / "results" / "my-first" / "games.csv").read_text(encoding="utf-8")
    assert "random-js" in games and "mcts-50" in games


def test_the_round_robin_of_the_match_tutorial_is_every_four_of_six() -> None:
    """tutorials/first-sprt.md: a round robin of N entrants at k seats is a tournament file; its example
    (six bots at four seats) makes all 15 tables of four, and runs saved in tournaments/."""
    from arena.plan.config import parse_config, with_isolation
    from arena.plan.schedule import Schedule
    from arena.results.identity import check_bots

    block = toml_block("tutorials/first-sprt.md", 'name = "six-at-four"')
    config = parse_config(block, "tournaments/six-at-four.toml", base=ROOT / "tournaments")
    check_bots(with_isolation(config, "none"), "six-at-four.toml")  # every bot loads
    assert len(config.entrants) == 6 and config.players == 4
    schedule = Schedule(replace(config, public_deals=True))  # tables and seats, without a deal key
    assert len(schedule.tables) == 15
    assert {tuple(sorted(game.seats)) for game in schedule} == set(itertools.combinations(range(6), 4))


def test_arena_match_help_says_where_a_round_robin_of_more_bots_is_written() -> None:
    result = CliRunner().invoke(main, ["match", "--help"], terminal_width=100)
    text = " ".join(result.output.split())
    assert "A match is one table" in text and "players = k" in text and "arena run FILE" in text
