"""The collusion calibration benchmark runs in its quick mode and prints a line per case.

Not a check of the figures (a quick run is far too small); the full run's figures are in
docs/explanation/statistics.md.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_quick_mode_prints_every_case() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "collusion_calibration.py"), "--quick"],
                            capture_output=True, text=True, check=True, timeout=900, cwd=ROOT)
    out = result.stdout
    assert "24 four-player games:" in out
    assert "honest     family-wise false positives" in out
    for case in ("team of 5", "team of 6", "half team"):
        line = next(line for line in out.splitlines() if line.strip().startswith(case))
        assert "power" in line and "false positives among the honest pairs" in line
