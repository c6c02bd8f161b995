"""The strength ladder's page states the figures of its committed run, and the ladder plays through the arena.

The committed summary (docs/reference/strength-ladder.json) is what ``benchmarks/strength.py --ladder``
wrote from a real run's standings; the page must be exactly what the summary gives.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SUMMARY = ROOT / "docs" / "reference" / "strength-ladder.json"
PAGE = ROOT / "docs" / "reference" / "strength-ladder.md"


def ladder() -> ModuleType:
    """benchmarks/ladder.py as a module (benchmarks/ is not a package)."""
    path = ROOT / "benchmarks" / "ladder.py"
    spec = importlib.util.spec_from_file_location("bench_ladder", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_ladder_page_is_the_one_its_committed_run_gives() -> None:
    data = json.loads(SUMMARY.read_text())
    assert PAGE.read_text() == ladder().render_page(data)


def test_the_ladder_page_rates_every_builtin_bot_with_an_interval() -> None:
    data = json.loads(SUMMARY.read_text())
    names = {row["entrant"] for row in data["standings"]}
    assert {"random", "greedy", "lookahead"} <= names
    assert len([n for n in names if n.startswith("mcts-")]) >= 2
    page = PAGE.read_text()
    for row in data["standings"]:
        low, elo, high = (float(row[k]) for k in ("rating_low", "rating", "rating_high"))
        assert low <= elo <= high
        figures = re.escape(f"| {elo:+.0f} | {low:+.0f} to {high:+.0f} |")
        assert re.search(rf"\| `{re.escape(row['entrant'])}` \|.*{figures}", page)
    assert (ROOT / "docs" / "images" / "strength-ladder.png").stat().st_size > 1000
    assert "strength-ladder.md" in (ROOT / "docs" / "reference" / "builtin-bots.md").read_text()


def test_a_tiny_ladder_plays_through_arena_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module = ladder()
    whole = module.entrants

    def tiny(controls: tuple[float, ...], with_openspiel: bool) -> list[dict]:
        # OpenSpiel's ISMCTS at its default budget takes most of a minute here; a few simulations play the same way.
        return [dict(e, options={"simulations": 5}) if e["bot"] == module.OPENSPIEL else e
                for e in whole(controls, with_openspiel)]

    monkeypatch.setattr(module, "entrants", tiny)
    summary = tmp_path / "ladder.json"
    data = module.run(1, 3, 1, (0.001,), tmp_path / "run", summary, "python benchmarks/strength.py --ladder")
    # The standings are the run's own file, read back unchanged.
    with open(tmp_path / "run" / "results" / "standings.csv", newline="") as f:
        ratings = {row["entrant"]: row["rating"] for row in csv.DictReader(f)}
    assert {row["entrant"]: row["rating"] for row in data["standings"]} == ratings
    openspiel = {module.OPENSPIEL} if not module.openspiel_why_not() else set()
    assert set(ratings) == {"random", "greedy", "lookahead", "mcts-0.001s"} | openspiel
    assert json.loads(summary.read_text()) == data
    page = module.render_page(data)
    assert "| `random` |" in page and "0.001 s a move" in page


@pytest.mark.parametrize("argv", [["--ladder", "--controls", "fast"], ["--ladder", "--controls", "0"],
                                  ["--ladder-page", "/nonexistent.json"]])
def test_bad_ladder_arguments_get_a_one_line_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    path = ROOT / "benchmarks" / "strength.py"
    spec = importlib.util.spec_from_file_location("bench_strength", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(SystemExit) as exc:
        module.main(argv)
    assert exc.value.code == 2
    assert "error:" in capsys.readouterr().err
