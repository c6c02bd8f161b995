"""benchmarks/bridges.py runs and prints its figures (never judged by their size: timings are noisy)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_bridges_benchmark_prints_every_loop() -> None:
    pytest.importorskip("pyspiel", reason="the openspiel extra is not installed (pip install '.[openspiel]')")
    pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install '.[rl]')")
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bridges.py"), "--games", "1", "--rounds", "1"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    for loop in ("engine ", "engine+spaces", "pettingzoo ", "openspiel ", "pettingzoo floor", "openspiel floor"):
        assert any(line.startswith(loop) and "us/move" in line for line in lines), (loop, done.stdout)
    assert re.fullmatch(r"[\d.]+x engine per move \(pettingzoo\), [\d.]+x \(openspiel\)", lines[-1])
    assert re.fullmatch(r"the frameworks alone \(a game that does nothing\): [\d.]+x engine per move "
                        r"\(pettingzoo\), [\d.]+x \(openspiel\)", lines[-2])
