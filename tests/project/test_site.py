"""The documentation site builds with MkDocs, warnings as errors (broken links, anchors, references)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.tooling
@pytest.mark.slow
def test_the_site_builds_strictly(tmp_path: Path) -> None:
    missing = [name for name in ("mkdocs", "material", "mkdocs_click", "mkdocstrings") if not importlib.util.find_spec(name)]
    if missing:
        pytest.skip(f"the docs extra is not installed ({', '.join(missing)} missing): pip install -e '.[docs]'")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    site = tmp_path / "site"
    assert (site / "index.html").is_file()
    commands = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    for option in ("--seed", "--resume", "--sprt", "--isolation", "--serve"):  # generated from the Click definitions
        assert option in commands, option
    api = (site / "reference" / "python-api" / "index.html").read_text(encoding="utf-8")
    assert "arena.api.bot.Bot.choose" in api and "arena.play.referee.play_game" in api  # from the docstrings
