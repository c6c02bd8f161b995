"""What the tests that follow the pages need: a shell whose ``arena`` and ``python`` are this checkout's."""

from __future__ import annotations

import os
import sys
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
