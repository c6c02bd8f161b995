"""The leftover finder the hostile tests end with (``tests/processes.py``): which orphans are a test's own."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid

import pytest

from arena.isolation.cgroups import empty_cgroup, machine_cgroups
from tests.processes import parent_of, processes_with

CGROUPS = machine_cgroups()


def orphan(mark: str, cgroup_procs: str | None) -> int:
    """A process (``mark`` in its command line) whose parent has ended, in the cgroup of ``cgroup_procs``."""
    script = f"""
import os, sys
pid = os.fork()
if pid:
    print(pid, flush=True)
    os._exit(0)
null = os.open(os.devnull, os.O_RDWR)
for fd in (0, 1, 2):
    os.dup2(null, fd)
if {cgroup_procs!r}:
    with open({cgroup_procs!r}, "w") as f:
        f.write(str(os.getpid()))
os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(60)", {mark!r}])
"""
    started = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=30)
    return int(started.stdout)


@pytest.mark.skipif(CGROUPS is None, reason="needs cgroups the arena may make (root)")
@pytest.mark.skipif(os.getppid() == 1, reason="this test process was adopted by init: it has no tree above it")
def test_an_orphan_in_a_bot_cgroup_of_a_live_referee_beside_this_test_is_not_its_leftover():
    """A jailed bot's processes adopted by init while another worker's referee (a process outside this test's
    tree, in the tree this test runs in) empties its cgroup are that worker's; one in a cgroup this process
    made, or in none, is this test's."""
    assert CGROUPS is not None
    base = next(iter(CGROUPS.bases.values()))
    tag = uuid.uuid4().hex
    makers = {"beside": os.getppid(), "mine": os.getpid()}
    groups = {name: base / f"bot-{maker}-{900_000 + index}" for index, (name, maker) in enumerate(makers.items())}
    names = ("beside", "mine", "none")
    pids: list[int] = []
    try:
        for group in groups.values():
            group.mkdir()
        pids = [orphan(f"leftover-{name}-{tag}", str(groups[name] / "cgroup.procs") if name in groups else None)
                for name in names]
        adopters = {parent_of(pid) for pid in pids}
        if adopters != {1}:
            pytest.skip(f"orphans here are adopted by a subreaper ({sorted(adopters)}), not init")
        deadline = time.monotonic() + 10
        while not all(str(pid) in (groups[name] / "cgroup.procs").read_text().split()
                      for pid, name in zip(pids, names, strict=True) if name in groups):
            assert time.monotonic() < deadline, "the orphans did not join their cgroups"
            time.sleep(0.01)
        found = {pid for pid, _ in processes_with(tag.encode())}
        assert found == {pid for pid, name in zip(pids, names, strict=True) if name != "beside"}
    finally:
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for group in groups.values():
            empty_cgroup(group)
