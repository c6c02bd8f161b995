"""The built-in bots page's doubling tables are what the committed summary gives, and a row plays through the arena.

docs/reference/doubling.json is what ``benchmarks/doubling.py --play`` wrote from the real matches' folders
(their match.json, time_use.csv and standings.csv); the page's tables must be exactly what it gives.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest
from test_benchmarks_native import script  # the test modules next to this one: a benchmarks/ script as a module

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "reference" / "builtin-bots.md"


def doubling() -> ModuleType:
    """benchmarks/doubling.py as a module."""
    return script("doubling")


def test_the_page_shows_the_tables_of_the_committed_summary() -> None:
    module = doubling()
    rows = module.read_summary(module.SUMMARY)
    # Every row of the design is there, played to its games, each with its command.
    assert sorted((r["players"], r["a"], r["b"], r["games"]) for r in rows) == sorted(module.ROWS)
    assert all(r["command"] == module.command(r["players"], r["a"], r["b"], r["games"]) for r in rows)
    assert all(r["low"] <= r["elo"] <= r["high"] for r in rows)
    page = PAGE.read_text()
    assert module.render_tables(rows) in page
    assert "python benchmarks/doubling.py --play" in page
    assert (ROOT / "docs" / "images" / "doubling.png").stat().st_size > 1000


@pytest.mark.slow
def test_a_tiny_row_plays_through_arena_match_into_the_summary(tmp_path: Path) -> None:
    module = doubling()
    summary = tmp_path / "doubling.json"
    summary.write_text(json.dumps({"rows": [{"players": 4, "a": 0.04, "b": 0.02, "kept": True}]}))
    out = module.play(tmp_path / "runs", (2, 0.002, 0.001, 2), 1)
    assert module.done(out)
    # What the summary needs and what plays the match again; records and pages are not kept.
    assert sorted(p.name for p in out.iterdir()) == sorted(module.KEPT)
    rows = module.summarize(tmp_path / "runs", summary)
    match = json.loads((out / "match.json").read_text())
    row = rows[0]
    assert (row["players"], row["games"], row["a"], row["b"], row["score"]) == (2, 2, 0.002, 0.001, match["score"])
    assert row["command"].startswith('arena match "mcts:iterations=0,seconds=0.002" "mcts:iterations=0,seconds=0.001"')
    # A row of another folder stays in the summary.
    assert rows[1] == {"players": 4, "a": 0.04, "b": 0.02, "kept": True}
    assert module.read_summary(summary) == rows
    assert "| 0.002 vs 0.001 | 2 |" in module.render_tables(rows[:1])
    module.render_plot(rows[:1], tmp_path / "doubling.png")
    assert (tmp_path / "doubling.png").stat().st_size > 1000
    # A done folder is not played again.
    stamp = (out / "match.json").stat().st_mtime_ns
    module.play(tmp_path / "runs", (2, 0.002, 0.001, 2), 1)
    assert (out / "match.json").stat().st_mtime_ns == stamp


@pytest.mark.parametrize(("rows", "message"), [("0.3/0.1", "no row 0.3/0.1"), ("fast", "--rows takes A/B")])
def test_a_bad_row_gets_a_one_line_error(rows: str, message: str) -> None:
    with pytest.raises(SystemExit) as exc:
        doubling().main(["--play", "--rows", rows])
    assert message in str(exc.value)


def test_a_match_cut_short_gets_a_one_line_error_that_says_how_to_resume(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    module = doubling()

    def interrupted(*args: object, **kwargs: object) -> None:
        raise module.subprocess.CalledProcessError(130, args[0])

    monkeypatch.setattr(module.subprocess, "run", interrupted)
    with pytest.raises(SystemExit) as exc:
        module.main(["--play", "--rows", "1/0.5", "--folder", str(tmp_path), "--summary", str(tmp_path / "s.json")])
    assert str(exc.value) == "doubling.py: arena match stopped (exit 130); run the same command again to resume"
    assert not (tmp_path / "s.json").exists()
