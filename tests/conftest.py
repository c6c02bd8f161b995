"""What the arena's tests share: the CLI runner, a tournament-file writer, a results folder, and the markers.

The folders say what a test is: ``unit/`` (the rules engine, records, configuration, tables: no
process of its own), ``cli/`` (the commands through Click's runner), ``integration/`` (real
tournaments, worker processes, the cluster, the browser), ``hostile/`` (the sandbox and bots that
attack it), ``project/`` (the README, the docs, the packaging and the types).  Every test under
``hostile/`` is marked ``hostile``; ``slow``, ``cluster``, ``browser`` and ``tooling`` are set in the test files.

A ``tooling`` test runs a tool of the project's own (mypy, the site's build, an sdist build): it runs only
with ``--tooling`` (``.ci/run`` runs them once, in a step of their own), and skips in the README's command
and in ``-m "not slow"`` alike (an ``-m`` on the command line replaces one in addopts, so a marker
expression in pyproject.toml could not keep them out).  Hypothesis runs the ``dev`` profile's few examples,
or with ``CI`` set the ``ci`` profile's full counts (tests/fuzzing.py).
"""

from __future__ import annotations

import fcntl
import gc
import os
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

import tests.fuzzing  # noqa: F401  (registers and loads the Hypothesis profile before any test module asks)

# pytest rewrites every test module's asserts (for their failure messages) and keeps the result in
# __pycache__: where the environment asks for no bytecode (PYTHONDONTWRITEBYTECODE), every run, on every
# pytest-xdist worker, would rewrite them all again, about 7 s of CPU each.  The test modules, imported
# while the tests are collected, are kept; nothing imported after is (a bot file a test rewrites within
# the second, at the same size, would load from its stale cache).
_NO_BYTECODE = sys.dont_write_bytecode
sys.dont_write_bytecode = False

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
FIXTURES = TESTS / "fixtures"
GOLDEN = TESTS / "golden"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--tooling", action="store_true",
                     help="also run the tests marked tooling (mypy, the site's build, the sdist): .ci/run's step")


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups off the items
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    hostile = TESTS / "hostile"
    tooling = config.getoption("--tooling")
    left_out = pytest.mark.skip(reason="a tooling test: .ci/run runs it in a step of its own; --tooling runs it here")
    for item in items:
        if item.path.is_relative_to(hostile):
            item.add_marker(pytest.mark.hostile)
            # A hostile file's tests on one worker (--dist loadgroup): its module fixtures, tournaments of
            # hostile bots, are played once.  Files run side by side: each test looks for leftovers among
            # its own worker's processes and the orphans, never another worker's (tests/processes.py).
            item.add_marker(pytest.mark.xdist_group(f"hostile-{item.path.stem}"))
        if not tooling and item.get_closest_marker("tooling"):
            item.add_marker(left_out)
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # The files that hold tests that take seconds first, so that the workers end together instead of one
        # waiting for the other's last long test.  Whole files, in their order: a module's fixtures are still
        # made once a worker.
        slow = {item.path for item in items if item.get_closest_marker("slow")}
        items.sort(key=lambda item: item.path not in slow)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker more than the CPUs this process may use.  A worker spends much of its time
    waiting on other processes (bots and programs, time limits running out, a browser's page updating),
    which the extra worker fills; with it the machine is busy throughout, and two more cost more in
    collection and contention than they fill (docs/explanation/architecture.md, "Tests and checks")."""
    from arena.isolation.cpus import usable_cpus

    return usable_cpus() + 1


def pytest_collection_finish(session: pytest.Session) -> None:
    sys.dont_write_bytecode = _NO_BYTECODE
    # A worker keeps what it collected (modules, pandas, matplotlib …) to its end: frozen, the garbage
    # collector's full passes no longer walk it, and rarer passes over the tests' own objects (which
    # the run's many small tournaments make by the million) cost less.  Over `-m "not slow"` the workers
    # spent 7.1 of their 52.6 CPU-s collecting, and 3.2 so.
    gc.collect()
    gc.freeze()
    gc.set_threshold(5000, 10, 10)


@pytest.fixture(scope="session", autouse=True)
def _no_plots_unless_asked() -> Iterator[None]:
    """``arena run`` and ``arena match`` draw no pictures here (``ARENA_PLOTS=0``, as ``--no-plots``): drawing
    them takes a small run's seconds, over a hundred runs.  The tests of the pictures ask with ``--plots``."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ARENA_PLOTS", "0")
        yield


@pytest.fixture(scope="session", autouse=True)
def _no_columns_from_outside() -> Iterator[None]:
    """The width tables are fitted to is the test's choice: a ``COLUMNS`` of the shell (or the one
    pytest-xdist gives its workers, 80) would cut every table a test expects whole.  Tests that want
    a width set it themselves (``CliRunner(env={"COLUMNS": "80"})``, ``monkeypatch.setenv``)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("COLUMNS", raising=False)
        yield


@pytest.fixture
def cli() -> CliRunner:
    """Click's runner for ``arena`` commands: ``cli.invoke(main, [...])``."""
    return CliRunner()


@pytest.fixture
def write_tournament(tmp_path: Path) -> Callable[..., Path]:
    """``write_tournament(text, name="t.toml")``: the tournament file ``text`` in this test's folder."""

    def write(text: str, name: str = "t.toml") -> Path:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    return write


@pytest.fixture
def results_dir(tmp_path: Path) -> Path:
    """A results folder of this test's own (never the checkout's ``results/``, which other
    workers and other runs share); not created, as ``arena run --out`` finds it."""
    return tmp_path / "results"


@pytest.fixture(scope="session")
def shared_folder(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, Callable[[Path], None]], Path]:
    """``shared_folder(name, make)``: a folder that ``make(folder)`` fills once for the whole run, in whichever
    pytest-xdist worker asks first; the other workers wait for it and get the same folder.  For an expensive
    run that several tests only read (a test that writes copies it first)."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the run's folder, above each worker's own

    def get(name: str, make: Callable[[Path], None]) -> Path:
        folder = root / f"shared-{name}"
        with open(root / f"shared-{name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also if make() fails
            done = root / f"shared-{name}.done"
            if not done.exists():
                shutil.rmtree(folder, ignore_errors=True)  # what a make() that failed left
                folder.mkdir()
                make(folder)
                done.touch()
        return folder

    return get
