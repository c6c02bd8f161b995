"""The tutorials' tournament files work where the tutorial says to save them, from a fresh folder."""

from __future__ import annotations

import re
import shutil
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
