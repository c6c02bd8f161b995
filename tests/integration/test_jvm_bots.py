"""A Java bot, ``examples/protocol/RandomBot.java``, run the tutorial's ways (its source as it is, its compiled class
by its class path) under the default sandbox at every level this machine gives, as root and as a user without
root: a runtime that reserves gigabytes of address space at start plays, and one that cannot get its memory says
so in its own words.  Skipped, saying so, where ``java`` or ``javac`` is missing."""

from __future__ import annotations

import importlib.util
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from sandbox_levels import JAIL, USERNS

from arena.isolation import sandbox
from arena.play.referee import play_game

ROOT = Path(__file__).parents[2]
EXAMPLES = ROOT / "examples" / "protocol"
JAVA, JAVAC = shutil.which("java", path=sandbox.PATH), shutil.which("javac", path=sandbox.PATH)
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(JAVA is None or JAVAC is None,
                                 reason=f"java and javac are not both on the bots' PATH ({sandbox.PATH})")]
LEVELS = [pytest.param("jail", marks=pytest.mark.skipif(not JAIL, reason="the jail needs root and namespaces")),
          pytest.param("userns", marks=pytest.mark.skipif(not USERNS, reason="user namespaces are refused here")),
          "rlimits"]
SYSTEM_PYTHON = "/usr/bin/python3"


@pytest.fixture(scope="module")
def bots() -> Iterator[Path]:
    """A folder any user may read (a bot of a referee run as root runs as a uid of its own; ``nobody`` plays
    too) holding ``RandomBot.java``, its compiled classes in ``classes/``, an empty ``lib/`` and its Python and
    Node twins ``random_bot.py`` and ``random_bot.js``."""
    folder = Path(tempfile.mkdtemp(prefix="arena-test-jvm-", dir="/tmp"))
    try:
        folder.chmod(0o755)
        for name in ("RandomBot.java", "random_bot.py", "random_bot.js"):
            shutil.copy(EXAMPLES / name, folder / name)
        subprocess.run([JAVAC, "-d", str(folder / "classes"), str(folder / "RandomBot.java")], check=True,
                       capture_output=True, timeout=120)
        (folder / "lib").mkdir()  # a class path of two folders
        for path in folder.rglob("*"):
            path.chmod(0o755 if path.is_dir() else 0o644)
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def tournament(folder: Path, java: list[str], memory_mb: int | None = None) -> Path:
    """A tournament file of the Java bot (its ``command``) against its Python twin: 2 deals, 4 games."""
    path = folder / f"java-{os.getpid()}.toml"
    memory = f"memory_mb = {memory_mb}\n" if memory_mb is not None else ""
    path.write_text(f'name = "java"\nplayers = 2\ndeals = 2\nseed = 5\ntime_limit = 5.0\npublic_deals = true\n'
                    f'[[entrants]]\nname = "java"\ncommand = {json.dumps(java)}\n{memory}'
                    f'[[entrants]]\nname = "py"\ncommand = ["python3", "random_bot.py"]\n')
    return path


def arena(args: list[str], level: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "ARENA_SANDBOX": level})


@pytest.mark.parametrize("level", LEVELS)
def test_a_java_bot_plays_a_few_games_at_every_level(bots, tmp_path, level):
    path = tournament(bots, ["java", "-XX:+UseSerialGC", "-cp", "lib:classes", "RandomBot"])
    try:
        done = arena(["run", str(path), "--out", str(tmp_path / "out")], level, bots)
    finally:
        path.unlink()
    assert done.returncode == 0, done.stderr[-3000:]
    assert "all 4 games stored (4 played now), 0 fault(s)" in (tmp_path / "out" / "arena.log").read_text()
    walls = (tmp_path / "out" / "arena.log").read_text().partition("bot programs run in ")[2]
    assert walls.startswith(f"{level}: ")
    if level != "jail":
        assert "rlimits memory (RLIMIT_DATA: memory written, not address space reserved)" in walls


def test_the_java_bot_run_from_its_source_plays_the_moves_of_its_python_twin(bots):
    """The tutorial's first way, ``exec:java RandomBot.java``: the same seed, the same moves as random_bot.py."""
    moves = {}
    for name, spec in (("java", f"exec:java {bots / 'RandomBot.java'}:captures=false"),
                       ("python", f"exec:python3 {bots / 'random_bot.py'}:captures=false")):
        outcome = play_game([spec, "random"], 11, time=10.0)
        assert outcome.faults == []
        moves[name] = outcome.record["moves"]
    assert moves["java"] == moves["python"]


@pytest.mark.parametrize("level", [pytest.param("userns", marks=pytest.mark.skipif(not USERNS, reason="user "
                                                                                   "namespaces are refused here")),
                                   "rlimits"])
def test_a_jvm_that_cannot_get_its_memory_says_so_in_its_own_words(bots, tmp_path, level):
    """Without a memory cgroup its heap is refused past the limit: the JVM's own lines reach the user."""
    path = tournament(bots, ["java", "-Xms600m", "-cp", "classes", "RandomBot"], memory_mb=256)
    try:
        done = arena(["run", str(path), "--out", str(tmp_path / "out")], level, bots)
    finally:
        path.unlink()
    assert done.returncode != 0
    line = done.stderr.strip()
    assert "\n" not in line, line
    assert "wrote a line that is not JSON: '#'" in line
    assert "its standard output began: # | # There is insufficient memory for the Java Runtime Environment" in line
    assert "its memory limit is 256 MiB (memory_mb in a tournament file)" in line


def _nobody_can_run_the_arena(site: Path) -> str | None:
    """Why ``nobody`` cannot run the arena here (None: it can), with the arena's dependencies that are not in
    the system's Python copied into ``site``."""
    if os.geteuid() != 0 or not os.access(SYSTEM_PYTHON, os.X_OK) or not Path("/usr/sbin/runuser").exists():
        return "needs root (to become nobody), /usr/bin/python3 and runuser"
    if not all(parent.stat().st_mode & 0o001 for parent in [ROOT, *ROOT.parents]):
        return f"{ROOT} cannot be reached by nobody"
    for package in ("click", "tqdm"):
        found = importlib.util.find_spec(package)
        if found is None or found.origin is None:
            return f"{package} is not installed"
        shutil.copytree(Path(found.origin).parent, site / package)
    return None


def test_the_example_bots_of_every_language_play_for_a_user_without_root(bots):
    """As ``nobody``, with the system's Python: the sandbox's strongest level there (a user namespace where the
    machine allows one), no cgroup, and the Java, Python and Node examples play."""
    site = Path(tempfile.mkdtemp(prefix="arena-test-site-", dir="/tmp"))
    try:
        why = _nobody_can_run_the_arena(site)
        if why is not None:
            pytest.skip(why)
        for path in [site, *site.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        (site / "home").mkdir()
        nobody = pwd.getpwnam("nobody")
        os.chown(site / "home", nobody.pw_uid, nobody.pw_gid)  # its home, where its bots' logs go
        results = []
        for seed in (3, 4):
            results.append(subprocess.run(
                ["/usr/sbin/runuser", "-u", "nobody", "--", SYSTEM_PYTHON, "-m", "arena", "play",
                 "exec:java -cp classes RandomBot", "exec:python3 random_bot.py",
                 *(["exec:node random_bot.js"] if shutil.which("node", path=sandbox.PATH) else []), "--seed", str(seed),
                 "--logs",
                 str(site / "home" / f"logs-{seed}"), "--record", str(site / "home" / f"game-{seed}.json")],
                cwd=bots, capture_output=True, text=True, timeout=300,
                env={"PATH": sandbox.PATH, "HOME": str(site / "home"), "PYTHONPATH": f"{site}:{ROOT}", "LANG": "C.UTF-8"}))
            assert results[-1].returncode == 0, results[-1].stderr[-3000:]
            assert f"bots ran in {'userns' if USERNS else 'rlimits'} (" in results[-1].stdout
            record = json.loads((site / "home" / f"game-{seed}.json").read_text())
            assert record["faults"] == [] and len(record["moves"]) > 40
    finally:
        shutil.rmtree(site, ignore_errors=True)
