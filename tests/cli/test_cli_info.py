"""``arena info`` and ``arena --version``: the version, Python, the rules engine in use (and why it is
pure), the sandbox level and the optional extras."""

from __future__ import annotations

import importlib.machinery
import importlib.metadata
import importlib.util
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena import __version__
from arena.cli import main
from arena.isolation.sandbox import LEVELS, walls
from arena.rules import engine as native

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def run(cli):
    """The output of ``arena`` with these arguments, which must succeed."""

    def invoke(*args: str) -> str:
        result = cli.invoke(main, list(args), prog_name="arena")
        assert result.exit_code == 0, result.output
        return result.output

    return invoke


def lines_of(output: str) -> dict[str, str]:
    """``key: value`` lines by key."""
    return dict(line.split(": ", 1) for line in output.splitlines() if ": " in line)


def test_version_names_the_engine_in_use(run) -> None:
    out = run("--version").splitlines()
    assert out[0] == f"arena, version {importlib.metadata.version('uptown-arena')}"
    assert out[1] == native.engine_line()


def test_info_says_version_python_engine_sandbox_and_extras(run) -> None:
    info = lines_of(run("info"))
    assert info["arena"] == __version__ == importlib.metadata.version("uptown-arena")
    assert info["python"].startswith(f"{platform.python_implementation()} {platform.python_version()} ")
    assert sys.executable in info["python"]
    assert "rules engine: " + info["rules engine"] == native.engine_line()
    assert info["sandbox"].split(":")[0] == walls() and walls() in LEVELS
    for extra, module in (("dask", "distributed"), ("playwright", "playwright"), ("mkdocs-material", "mkdocs-material")):
        try:
            expected = importlib.metadata.version(module)
        except importlib.metadata.PackageNotFoundError:
            expected = "not installed"
        assert expected in info[extra], (extra, info[extra])
    for extra, distributions in (("openspiel", ("open-spiel",)), ("rl", ("pettingzoo", "gymnasium"))):
        for distribution in distributions:
            try:
                expected = f"{distribution} {importlib.metadata.version(distribution)}"
            except importlib.metadata.PackageNotFoundError:
                expected = f"{distribution} missing"
            assert expected in info[extra], (extra, info[extra])


def test_info_names_the_native_engine_when_it_is_built(run) -> None:
    if native.ENGINE != "native":
        pytest.skip(f"the C extension is not in use here: {native.WHY}")
    info = lines_of(run("info"))
    assert info["rules engine"].startswith("native (C extension ")
    assert native._native.__file__ in info["rules engine"]


def _arena(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True, env=env,
                          timeout=120, cwd=ROOT)


@pytest.mark.slow
def test_arena_pure_forces_the_pure_engine_and_says_why() -> None:
    env = {**os.environ, "ARENA_PURE": "1", "ARENA_SANDBOX": "rlimits"}
    done = _arena(env, "info")
    assert done.returncode == 0, done.stderr
    info = lines_of(done.stdout)
    assert info["rules engine"] == "pure Python (ARENA_PURE is set)"
    assert info["sandbox"].startswith("rlimits:")
    version = _arena(env, "--version")
    assert version.stdout.splitlines()[1] == "rules engine: pure Python (ARENA_PURE is set)"


def test_arena_pure_0_keeps_the_engine_that_is_built() -> None:
    done = _arena({**os.environ, "ARENA_PURE": "0"}, "--version")
    assert done.returncode == 0, done.stderr
    built = importlib.util.find_spec("arena.rules._native") is not None
    assert done.stdout.splitlines()[1].startswith("rules engine: " + ("native" if built else "pure Python"))


def test_help_lists_info(run) -> None:
    assert "info" in run("--help")
    assert run("info", "--help").startswith("Usage: arena info")


def test_without_the_extension_info_says_it_is_not_built(tmp_path) -> None:
    """The package as a build without a compiler leaves it (no _native*.so): pure, and the reason is plain."""
    shutil.copytree(ROOT / "arena", tmp_path / "arena", ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
    env = {key: value for key, value in os.environ.items() if key != "ARENA_PURE"}
    env.update(PYTHONPATH=str(tmp_path), ARENA_SANDBOX="rlimits")
    done = subprocess.run([sys.executable, "-P", "-m", "arena", "info"], capture_output=True, text=True, env=env,
                          timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert lines_of(done.stdout)["rules engine"] == "pure Python (the C extension is not built)"


def test_an_extension_that_does_not_load_is_named_with_its_error(tmp_path) -> None:
    shutil.copytree(ROOT / "arena", tmp_path / "arena", ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
    (tmp_path / "arena" / "rules" / f"_native{importlib.machinery.EXTENSION_SUFFIXES[0]}").write_bytes(b"not a library")
    env = {key: value for key, value in os.environ.items() if key != "ARENA_PURE"}
    env.update(PYTHONPATH=str(tmp_path), ARENA_SANDBOX="rlimits")
    done = subprocess.run([sys.executable, "-P", "-m", "arena", "--version"], capture_output=True, text=True, env=env,
                          timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1].startswith("rules engine: pure Python (the C extension does not load (")


def test_info_says_whether_the_browser_of_the_browser_tests_is_on_path(run, tmp_path, monkeypatch) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert lines_of(run("info"))["chromium"] == (
        "not found on PATH (the browser tests skip without it; apt-get install chromium)")
    browser = empty / "chromium"
    browser.write_text("#!/bin/sh\n")
    browser.chmod(0o755)
    assert lines_of(run("info"))["chromium"] == f"{browser} (the browser tests)"
