"""The statistics calibration benchmark runs and prints every figure it promises.

Not a check of the figures themselves (a small run is too small to hold them to their targets; the
full run's figures are in docs/explanation/statistics.md): a check that the script runs and reports,
at the smallest sizes that still reach every case and every line (two runs a case, where ``--quick``
does twenty).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_a_small_run_prints_every_case() -> None:
    sizes = ["--runs", "2", "--tournaments", "2", "--long", "500", "--million", "1200"]
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "stats_calibration.py"), *sizes],
                            capture_output=True, text=True, check=True, timeout=600)
    out = result.stdout
    assert "false positives" in out and "power at exactly elo1" in out and "against Wald's" in out
    for case in ("3 players, tight", "4 players, tight", "5 players, tight", "3 players, loose",
                 "4 players, loose", "5 players, loose", "one rival at -600"):
        assert case in out
    for elo in ("0", "10", "20"):
        assert f"at normalized {elo}: stopping-aware 95% interval holds it" in out
    for games in ("120 games", "300 games", "1200 games"):
        line = next(line for line in out.splitlines() if games in line)
        assert "gap bias" in line and "95% coverage" in line and "mean se" in line and "sd" in line
    assert "four-player games" in out and "s CPU" in out
