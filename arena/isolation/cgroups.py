"""The cgroups of bot programs: where this machine lets the arena make them, making, emptying and sweeping them."""

from __future__ import annotations

import ctypes
import errno
import fcntl
import functools
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from arena.errors import os_error_line
from arena.isolation.limits import Limits, SandboxError, serials

_CGROUP_ROOT = Path("/sys/fs/cgroup")


#: The v1 freezer cgroup that is kept frozen and empty (see :func:`machine_cgroups`).
_HOLD = "held-frozen"
#: Where a v1 hierarchy of no controller is mounted with ``favordynmods`` (see :func:`favor_moves`).
MOVES = _CGROUP_ROOT / "arena-moves"
_MOVES_OPTIONS = b"none,name=arena-moves,favordynmods"
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 2, 4, 8


@dataclass(frozen=True)
class Cgroups:
    version: int
    #: v1: the arena's folder in each hierarchy used (memory, pids, and freezer and cpuset where mounted),
    #: by hierarchy; v2: the arena's cgroup, as "unified".
    bases: dict[str, Path]
    #: The walls they give: memory, pids, and freezer, cpuset where the machine has them.
    controls: frozenset[str]


@functools.lru_cache(maxsize=1)
def machine_cgroups() -> Cgroups | None:
    """Where bot cgroups can be made (root only), or None."""
    if os.geteuid() != 0:
        return None
    if all((_CGROUP_ROOT / name / "cgroup.procs").is_file() for name in ("memory", "pids")):
        favor_moves()
        bases: dict[str, Path] = {}
        for name in ("memory", "pids", "freezer", "cpuset"):
            top = _CGROUP_ROOT / name
            if not (top / "cgroup.procs").is_file():
                continue
            base = top / "arena"
            try:
                base.mkdir(exist_ok=True)
                if name == "cpuset":
                    # A v1 cpuset takes no process before it has CPUs and memory nodes: all of the machine's.
                    for setting in ("cpuset.cpus", "cpuset.mems"):
                        if not (base / setting).read_text().strip():
                            (base / setting).write_text((top / setting).read_text())
                if name == "freezer":
                    # An empty cgroup kept frozen: the kernel switches its freezer on (patching its code,
                    # ~90 µs) when a first cgroup freezes and off when the last thaws; with this one
                    # frozen for good, freezing or thawing a bot costs a few µs instead.
                    (base / _HOLD).mkdir(exist_ok=True)
                    (base / _HOLD / "freezer.state").write_text("FROZEN")
            except OSError:
                if name in ("memory", "pids"):
                    return None
                continue
            bases[name] = base
        _sweep(tuple(bases.values()))
        return Cgroups(1, bases, frozenset(bases))
    if (_CGROUP_ROOT / "cgroup.controllers").is_file():
        base = _CGROUP_ROOT / "arena"
        controls = {"memory", "pids"}
        try:
            offered = set((_CGROUP_ROOT / "cgroup.controllers").read_text().split())
            if not controls <= offered:
                return None
            (_CGROUP_ROOT / "cgroup.subtree_control").write_text("+memory +pids")
            base.mkdir(exist_ok=True)
            (base / "cgroup.subtree_control").write_text("+memory +pids")
        except OSError:
            return None
        if "cpuset" in offered:
            try:
                (_CGROUP_ROOT / "cgroup.subtree_control").write_text("+cpuset")
                (base / "cgroup.subtree_control").write_text("+cpuset")
                controls.add("cpuset")
            except OSError:
                pass
        controls.add("freezer")  # cgroup.freeze, in every cgroup but the root
        _sweep((base,))
        return Cgroups(2, {"unified": base}, frozenset(controls))
    return None


def favor_moves() -> bool:
    """Ask the kernel to favor moving processes into cgroups, by mounting a v1 hierarchy of no controller at
    :data:`MOVES` with ``favordynmods`` (Linux 6.0 and later; kept mounted, as the held-frozen cgroup is
    kept).  True when it is mounted.

    Every jail moves a fresh process into its cgroups.  On cgroups v1 the first such move after a quiet
    moment waits for an RCU grace period (``cgroup_threadgroup_rwsem`` taken for writing): 5 to 20 ms of
    every bot start, the largest part of a start to its first instruction.  With ``favordynmods`` a move
    waits for none, at the cost the kernel's documentation names: forks and exits on the machine take a
    slower path.  Linux 6.18 keeps the faster moves once asked, also after the hierarchy is gone.  Where the
    mount is refused (an older kernel, no right to mount), starts pay the wait."""
    try:
        MOVES.mkdir(exist_ok=True)
        held = os.open(MOVES, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return False
    try:
        # One process mounts; one waiting behind it then finds the hierarchy there.
        fcntl.flock(held, fcntl.LOCK_EX)
        if (MOVES / "cgroup.procs").is_file():
            return True
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.mount(b"cgroup", os.fsencode(MOVES), b"cgroup", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC,
                      _MOVES_OPTIONS) == 0:
            return True
    finally:
        os.close(held)
    try:
        MOVES.rmdir()  # nothing left behind where the kernel refused
    except OSError:
        pass
    return False


def _sweep(bases: tuple[Path, ...]) -> None:
    """Remove the cgroups that arena processes killed outright left behind (``bot-PID-N``, PID gone)."""
    for base in bases:
        for group in base.glob("bot-*-*"):
            pid = group.name.split("-")[1]
            if pid.isdigit() and not Path(f"/proc/{pid}").exists():
                empty_cgroup(group)


def empty_cgroup(group: Path) -> None:
    """Kill what is left in a cgroup and those under it, thawed, and remove them (the PID namespace usually
    did the killing)."""
    try:
        # The directory entries' own types: a stat of each of a v1 cgroup's ~20 control files cost a bot's
        # end about 2 ms of the referee's time.
        with os.scandir(group) as entries:
            inner = [Path(entry.path) for entry in entries if entry.is_dir(follow_symlinks=False)]
    except OSError:
        inner = []
    for child in inner:
        empty_cgroup(child)
    deadline = time.monotonic() + 5.0
    while True:
        try:
            pids = [int(p) for p in (group / "cgroup.procs").read_text().split()]
        except OSError:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for name, text in (("freezer.state", "THAWED"), ("cgroup.freeze", "0")):
            if (group / name).exists():
                try:
                    (group / name).write_text(text)
                except OSError:
                    pass
        try:
            group.rmdir()
            return
        except OSError as exc:
            if exc.errno not in (errno.EBUSY, errno.ENOTEMPTY) or time.monotonic() > deadline:
                return
            time.sleep(0.005)


def make_cgroups(limits: Limits, cpus: list[int]) -> tuple[list[Path], frozenset[str], Path | None]:
    """The bot's cgroups, the walls they give, and its freezer's control file (None: no freezer)."""
    found = machine_cgroups()
    if found is None:
        return [], frozenset(), None
    name = f"bot-{os.getpid()}-{next(serials)}"
    made: list[Path] = []
    memory = limits.memory_mb * 1024 * 1024
    cpu_list = ",".join(str(c) for c in sorted(cpus))
    try:
        if found.version == 1:
            groups = {hierarchy: base / name for hierarchy, base in found.bases.items()}
            for group in groups.values():
                group.mkdir()
                made.append(group)
            (groups["memory"] / "memory.limit_in_bytes").write_text(str(memory))
            if (groups["memory"] / "memory.memsw.limit_in_bytes").exists():
                (groups["memory"] / "memory.memsw.limit_in_bytes").write_text(str(memory))
            (groups["pids"] / "pids.max").write_text(str(limits.processes))
            if "cpuset" in groups:
                (groups["cpuset"] / "cpuset.mems").write_text((found.bases["cpuset"] / "cpuset.mems").read_text())
                (groups["cpuset"] / "cpuset.cpus").write_text(cpu_list)
            freezer = groups["freezer"] / "freezer.state" if "freezer" in groups else None
        else:
            group = found.bases["unified"] / name
            group.mkdir()
            made.append(group)
            (group / "memory.max").write_text(str(memory))
            if (group / "memory.swap.max").exists():
                (group / "memory.swap.max").write_text("0")
            (group / "pids.max").write_text(str(limits.processes))
            if "cpuset" in found.controls:
                (group / "cpuset.cpus").write_text(cpu_list)
            # The program in a cgroup of its own under it, frozen without the jail's outer process.
            (group / "program").mkdir()
            made.insert(0, group / "program")
            freezer = group / "program" / "cgroup.freeze"
    except OSError as exc:
        for group in made:
            empty_cgroup(group)
        raise SandboxError(f"cannot set up a cgroup for the bot: {os_error_line(exc)}") from None
    return made, found.controls, freezer
