"""benchmarks/protocol.py runs on tiny sizes (its whole commands aside: two quickstarts) and prints every
target of the fast walls with its verdict.  Not timed: it checks what the script prints, never how fast
anything is."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from sandbox_levels import needs_jail

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.slow, needs_jail]


def test_every_target_is_printed_with_met_or_not_met() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "protocol.py"), "--games", "2", "--rounds", "1",
                           "--starts", "2", "--skip-quickstart"], capture_output=True, text=True, timeout=600,
                          cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    verdicts = re.findall(r"^  target (.+): [\d.]+ (?:us|ms|x) against <= [\d.]+ (?:us|ms|x), (met|not met)$",
                          done.stdout, re.MULTILINE)
    assert [what.split(",")[0] for what, _ in verdicts] == [
        "a move over in process", "a move over in process", "a move over in process",
        "a start to its first instruction", "a start to the handshake", "a start to the handshake"], done.stdout
    assert "fork server" in done.stdout and "python jail.py" in done.stdout
    assert re.search(r"^  the floor: the stdlib example started with no wall, .*: [\d.]+ ms", done.stdout, re.MULTILINE)
    # The Python floor, beside the C one: what a Python program that parses nothing costs a move.
    assert re.search(r"^  the Python floor: .*: -?[\d.]+ us pinned, -?[\d.]+ us not$", done.stdout, re.MULTILINE), \
        done.stdout
