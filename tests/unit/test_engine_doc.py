"""docs/explanation/engines.md says what the engines do: its SplitMix64 golden values, its reasons for the pure engine,
and the README links it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from arena.rules import engine as native
from arena.rules.rng import SplitMix64

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "explanation" / "engines.md").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")


def golden() -> list[tuple[int, str, list[int]]]:
    """(seed, call, results) of every row of the golden-values table."""
    rows = re.findall(r"^\| (\d+) \| `([^`]+)` [^|]*\| (.+) \|$", DOC, re.MULTILINE)
    assert len(rows) == 3, rows
    return [(int(seed), call, [int(v, 0) for v in re.findall(r"0x[0-9A-F]+|\d+", values)])
            for seed, call, values in rows]


def test_the_golden_values_are_splitmix64_s() -> None:
    for seed, call, values in golden():
        rng = SplitMix64(seed)
        if call.startswith("next()"):
            assert [rng.next() for _ in values] == values
        elif call.startswith("below(10)"):
            assert [rng.below(10) for _ in values] == values
        else:
            assert call.startswith("shuffle(")
            items = list(range(len(values)))
            rng.shuffle(items)
            assert items == values


def test_the_native_generator_draws_the_golden_values() -> None:
    if native.ENGINE != "native":
        pytest.skip(f"the C extension is not in use here: {native.WHY}")
    for seed, call, values in golden():
        if call.startswith("below(10)"):
            assert native._native.below(seed, 10, len(values)) == (values, _after(seed, 10, len(values)))
        elif call.startswith("next()"):
            # Each below(n > 1) is one next(): the native state after k draws is the pure one's.
            pure = SplitMix64(seed)
            for _ in values:
                pure.next()
            assert native._native.below(seed, 2, len(values))[1] == pure.state


def _after(seed: int, n: int, count: int) -> int:
    rng = SplitMix64(seed)
    for _ in range(count):
        rng.below(n)
    return rng.state


def test_the_doc_gives_the_reasons_the_engine_gives() -> None:
    env = {**os.environ, "ARENA_PURE": "1"}
    done = subprocess.run([sys.executable, "-c", "from arena.rules.engine import WHY; print(WHY)"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert f"`{done.stdout.strip()}`" in DOC
    assert "`the C extension is not built`" in DOC and "`the C extension does not load (...)`" in DOC
    if native.ENGINE == "pure" and native.WHY:
        assert native.WHY.split(" (")[0] in DOC


def test_the_readme_links_the_engine_doc() -> None:
    assert "(docs/explanation/engines.md)" in README and "ARENA_PURE" in README
    assert "ARENA_PURE=1" in DOC
