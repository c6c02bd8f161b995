"""The files the tutorials use ship inside the package: a wheel's build copies tournaments/ and examples/ into
arena/tutorial/, where arena init finds them after pip install."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_built_package_holds_every_tutorial_file_and_reads_them_from_there(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    for name in ("pyproject.toml", "setup.py", "README.md", "MANIFEST.in"):
        tree.mkdir(exist_ok=True)
        shutil.copy2(ROOT / name, tree / name)
    for folder in ("arena", "bots", "tournaments", "examples"):
        shutil.copytree(ROOT / folder, tree / folder, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    built = tmp_path / "built"
    done = subprocess.run([sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(built)], cwd=tree,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    shipped = built / "arena" / "tutorial"
    for folder in ("tournaments", "examples"):
        for path in (ROOT / folder).rglob("*"):
            relative = path.relative_to(ROOT)
            if path.is_file() and "__pycache__" not in relative.parts and path.name != "trained.json":
                assert (shipped / relative).read_bytes() == path.read_bytes(), relative
    # The built package reads them from itself, not from a checkout.
    found = subprocess.run([sys.executable, "-c", "import arena.tutorial_files as t; print(t.source())"],
                           cwd=tmp_path, env={"PYTHONPATH": str(built), "PATH": "/usr/bin:/bin"},
                           capture_output=True, text=True, timeout=60)
    assert found.returncode == 0, found.stderr
    assert Path(found.stdout.strip()) == shipped
