"""What the tests that follow the pages need: a shell whose ``arena`` and ``python`` are this checkout's."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def shell_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of a page's shell: ``arena`` and ``python`` are this checkout's, under test, on an
    80-column terminal, without colors."""
    bin_dir = tmp_path_factory.mktemp("page-bin")
    for name, run in (("arena", f'"{sys.executable}" -m arena "$@"'), ("python", f'"{sys.executable}" "$@"')):
        script = bin_dir / name
        script.write_text(f"#!/bin/sh\nexec {run}\n", encoding="utf-8")
        script.chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": str(ROOT),
            "COLUMNS": "80", "NO_COLOR": "1"}


#: The README's tournament, which its first command runs and two tutorials open with.
QUICKSTART = "arena run tournaments/quickstart.toml"


@pytest.fixture(scope="session")
def readme_quickstart(shell_env: dict[str, str], shared_folder: Callable[[str, Callable[[Path], None]], Path]
                      ) -> tuple[Path, str]:
    """The README's tournament run once for the whole run, sandboxed, as a newcomer runs it: in a fresh folder
    holding only ``tournaments/quickstart.toml``.  The folder (``results/quickstart`` in it) and what the command
    printed; a test that writes there copies it first."""

    def make(folder: Path) -> None:
        fresh = folder / "fresh"
        (fresh / "tournaments").mkdir(parents=True)
        shutil.copy2(ROOT / "tournaments" / "quickstart.toml", fresh / "tournaments")
        done = subprocess.run(["bash", "-c", QUICKSTART], cwd=fresh, env=shell_env, capture_output=True, text=True,
                              timeout=900, stdin=subprocess.DEVNULL)
        assert done.returncode == 0, f"{QUICKSTART}: exit status {done.returncode}\n{done.stdout}{done.stderr}"
        (folder / "stdout.txt").write_text(done.stdout, encoding="utf-8")

    folder = shared_folder("readme-quickstart", make)
    return folder / "fresh", (folder / "stdout.txt").read_text(encoding="utf-8")
