"""What `pip install .` installs: every package of the source tree (an editable install would hide a missing one)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: The files the HTML pages are built with (arena/display/assets/).
ASSETS = {"replay.css", "replay.js", "icons.svg"}


def test_every_package_of_the_tree_is_installed() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "arena").rglob("__init__.py")}
    assert found <= listed, f"packages pyproject.toml does not install: {sorted(found - listed)}"
    assert config["package-dir"]["arena_bots"] == "bots" and "arena_bots" in listed
    assert listed - {"arena_bots"} <= found, "pyproject.toml lists a package the tree does not have"


def test_the_c_sources_are_built_and_the_stub_is_package_data() -> None:
    """setup.py builds every C source and depends on every header (so they reach the sdist); the stub is packaged."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    setup = (ROOT / "setup.py").read_text(encoding="utf-8")
    for source in sorted((ROOT / "arena" / "rules" / "native").glob("*.[ch]")):
        assert f'"{source.name}"' in setup, f"setup.py does not build or depend on {source.name}"
    assert "_native.pyi" in config["package-data"]["arena.rules"]
    assert (ROOT / "arena" / "rules" / "_native.pyi").is_file()


@pytest.mark.tooling
@pytest.mark.slow
def test_the_sdist_holds_what_the_extension_is_built_from(tmp_path) -> None:
    """An sdist built from the tree (setuptools' own backend, no network) has every C source, header and the stub."""
    tree = tmp_path / "tree"
    for name in ("pyproject.toml", "setup.py", "README.md", "MANIFEST.in"):
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_bytes((ROOT / name).read_bytes())
    for package in ("arena", "bots", "tournaments", "examples"):
        shutil.copytree(ROOT / package, tree / package, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    done = subprocess.run([sys.executable, "-c", "from setuptools import build_meta; print(build_meta.build_sdist('dist'))"],
                          cwd=tree, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    with tarfile.open(tree / "dist" / done.stdout.split()[-1]) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    wanted = {f"arena/rules/native/{p.name}" for p in (ROOT / "arena" / "rules" / "native").glob("*.[ch]")}
    wanted |= {"arena/rules/_native.pyi", "setup.py", "pyproject.toml", "arena/py.typed"}
    wanted |= {f"arena/display/assets/{name}" for name in ASSETS}
    # The tutorial files, which a wheel built from the sdist ships as arena/tutorial/ (arena init).
    wanted |= {"tournaments/quickstart.toml", "examples/protocol/random_bot.js", "examples/example_bot.py"}
    assert wanted <= names, sorted(wanted - names)


def test_the_installed_package_has_the_pages_assets() -> None:
    """The replay page's (and the report's) CSS, script and icons are package data, read with importlib.resources.

    Every file of the tree's arena/display/assets/ is in the imported package with the same bytes: under
    .ci/no-compiler (pytest -P) that is the package `pip install .` installed from its wheel, not the tree.
    """
    from importlib.resources import files

    tree = ROOT / "arena" / "display" / "assets"
    assert ASSETS <= {p.name for p in tree.iterdir()}
    installed = files("arena.display") / "assets"
    for path in tree.iterdir():
        assert (installed / path.name).is_file(), f"{path.name} is not installed with arena.display"
        assert (installed / path.name).read_bytes() == path.read_bytes(), f"the installed {path.name} is not the tree's"
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert "assets/*" in config["package-data"]["arena.display"]
