"""What `pip install .` installs: every package of the source tree (an editable install would hide a missing one)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_of_the_tree_is_installed() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "arena").rglob("__init__.py")}
    assert found <= listed, f"packages pyproject.toml does not install: {sorted(found - listed)}"
    assert config["package-dir"]["arena_bots"] == "bots" and "arena_bots" in listed
    assert listed - {"arena_bots"} <= found, "pyproject.toml lists a package the tree does not have"
