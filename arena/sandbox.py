"""Start a bot program inside walls, and tear all of it down.

:func:`start` runs a command through ``arena/jail.py`` with the strongest
walls this machine allows, found once per process by :func:`walls`:

* ``jail`` (as root, where namespaces work): the program is PID 1 of PID,
  mount, network, IPC and UTS namespaces of its own, so it sees no other
  process, has no network, and everything it starts dies with it; every
  mount is read-only but for a private tmpfs (its working folder, ``HOME``
  and ``TMPDIR``), the results being written are hidden under empty mounts,
  folders closed to others on the way to its own files show it only the way
  on; it runs as a uid of its own (or, when its own files cannot be read by
  another uid, as root with every capability dropped for good); a cgroup
  caps its memory and processes; resource limits cap open files, file
  sizes, core dumps.
* ``userns`` (not root, where user namespaces are allowed): the same
  namespaces and file walls, made inside a user namespace of its own; no
  capabilities; no cgroups (rlimits instead) and no uid of its own.
* ``rlimits`` (anywhere else): a session of its own, resource limits
  (address space for memory, processes, open files), ``no_new_privs``, a
  private temporary working folder.  What it starts is killed with its
  process group, which a program that calls ``setsid`` can leave; it runs as
  the referee's user and can signal it.

``ARENA_SANDBOX=userns`` or ``=rlimits`` asks for a weaker level even where
a stronger one is possible (tests use it).  The level a bot got is
:attr:`Sandboxed.walls`, reported by the referee, never assumed.
"""

from __future__ import annotations

import errno
import functools
import importlib.util
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

JAIL = str(Path(__file__).with_name("jail.py"))
#: The exit status of the jail when a wall could not be put up.
EXIT_JAIL = 125
#: First uid of the range bot processes run as (one each, so that limits per uid are theirs alone).
UID_BASE = 1_500_000
_CGROUP_ROOT = Path("/sys/fs/cgroup")
#: The PATH a bot program gets (plus what its entrant adds).
PATH = "/usr/local/bin:/usr/bin:/bin"


@dataclass(frozen=True)
class Limits:
    """What one bot process may use."""

    memory_mb: int = 2048
    #: Processes and threads, the program itself included.
    processes: int = 64
    open_files: int = 256
    #: The largest file it may write (its standard error log included).
    file_mb: int = 256
    #: The size of its private ``/tmp``.
    tmp_mb: int = 64


class SandboxError(RuntimeError):
    """A program that cannot be started; the message is one line."""


# -- what this machine allows ----------------------------------------------------------


@dataclass(frozen=True)
class _Cgroups:
    version: int
    #: v1: the memory and pids hierarchies; v2: the arena's parent cgroup.
    bases: tuple[Path, ...]


@functools.lru_cache(maxsize=1)
def _cgroups() -> _Cgroups | None:
    """Where bot cgroups can be made (root only), or None."""
    if os.geteuid() != 0:
        return None
    v1 = (_CGROUP_ROOT / "memory", _CGROUP_ROOT / "pids")
    if all((base / "cgroup.procs").is_file() for base in v1):
        bases = tuple(base / "arena" for base in v1)
        try:
            for base in bases:
                base.mkdir(exist_ok=True)
        except OSError:
            return None
        _sweep(bases)
        return _Cgroups(1, bases)
    if (_CGROUP_ROOT / "cgroup.controllers").is_file():
        base = _CGROUP_ROOT / "arena"
        try:
            if not {"memory", "pids"} <= set((_CGROUP_ROOT / "cgroup.controllers").read_text().split()):
                return None
            (_CGROUP_ROOT / "cgroup.subtree_control").write_text("+memory +pids")
            base.mkdir(exist_ok=True)
            (base / "cgroup.subtree_control").write_text("+memory +pids")
        except OSError:
            return None
        _sweep((base,))
        return _Cgroups(2, (base,))
    return None


def _sweep(bases: tuple[Path, ...]) -> None:
    """Remove the cgroups that arena processes killed outright left behind (``bot-PID-N``, PID gone)."""
    for base in bases:
        for group in base.glob("bot-*-*"):
            pid = group.name.split("-")[1]
            if pid.isdigit() and not Path(f"/proc/{pid}").exists():
                _empty_cgroup(group)


#: The levels, strongest first.
LEVELS = ("jail", "userns", "rlimits")


@functools.lru_cache(maxsize=1)
def walls() -> str:
    """The strongest level this machine allows: ``jail``, ``userns`` or ``rlimits`` (see the module docstring).

    ``ARENA_SANDBOX=LEVEL`` caps it (the weaker one is used when the stronger is possible).
    """
    cap = os.environ.get("ARENA_SANDBOX", "jail")
    if cap not in LEVELS or not sys.platform.startswith("linux"):
        return "rlimits"
    for level in LEVELS[LEVELS.index(cap):-1]:
        if level == "jail" and os.geteuid() != 0:
            continue
        try:
            probe = start(["true"], level=level)
        except SandboxError:
            continue
        code = probe.wait(10)
        probe.kill()
        if code == 0:
            return level
    return "rlimits"


def describe(level: str, uid: int | None = None, cgroup: bool = True) -> str:
    """A line saying what a level's walls are."""
    if level == "jail":
        who = "its own uid" if uid is not None else "root without capabilities"
        limits = "cgroup memory and process limits" if cgroup else "rlimits (no cgroups here)"
        return f"jail: own PID, mount, network and IPC namespaces, read-only files, a private folder, {who}, {limits}"
    if level == "userns":
        return ("userns: own user, PID, mount, network and IPC namespaces, read-only files, a private folder, "
                "no capabilities, rlimits (not root: no cgroups, no uid of its own)")
    return "rlimits: own session, resource limits, private folder (no namespaces: not root, or not allowed here)"


def _open_to_others(path: str) -> bool:
    """Whether a uid of no group may read ``path`` (and list it, for a folder) once it can reach it."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return True  # nothing there to need
    return bool(mode & 0o004) and (not stat.S_ISDIR(mode) or bool(mode & 0o001))


def program_paths(command: list[str], cwd: str | None, env: dict[str, str]) -> list[str]:
    """What a program needs to reach (resolved): its executable, its folder, paths among its
    arguments, and for an interpreter its libraries (for Python: its prefixes and the arena's packages)."""
    base = cwd or os.getcwd()
    exe = shutil.which(command[0], path=env.get("PATH", PATH)) if "/" not in command[0] else command[0]
    paths = [base]
    if exe is not None:
        real = os.path.realpath(os.path.join(base, exe))
        paths += [os.path.abspath(os.path.join(base, exe)), real, os.path.dirname(os.path.dirname(real))]
        if Path(real).name.startswith("python"):
            paths += [sys.prefix, sys.base_prefix]
            for package in ("arena", "arena_bots"):
                found = importlib.util.find_spec(package)
                if found is not None and found.submodule_search_locations:
                    paths += [os.path.dirname(p) for p in found.submodule_search_locations]
    for arg in command[1:]:
        # A path, or the file of a Python bot's ref (path/to/file.py:Name) with the folder it imports from.
        where = arg.rpartition(":")[0]
        for word in {arg, where, os.path.dirname(where) if where.endswith(".py") else ""} - {""}:
            candidate = os.path.join(base, word)
            if not word.startswith("-") and os.path.exists(candidate):
                paths.append(candidate)
    return sorted({os.path.realpath(p) for p in paths} | {os.path.abspath(p) for p in paths})


# -- one sandboxed program -------------------------------------------------------------


_uids = iter(range(1_000_000))


def _new_uid() -> int:
    return UID_BASE + (os.getpid() % 4096) * 64 + next(_uids) % 64


class Sandboxed:
    """A running program: its pipes, its walls, and :meth:`kill` to end all of it."""

    def __init__(self, process: subprocess.Popen[bytes], walls: str, cgroups: list[Path], folder: str,
                 limits: Limits) -> None:
        self.process = process
        #: The line of :func:`describe` for the walls it got.
        self.walls = walls
        self.limits = limits
        self._cgroups = cgroups
        self._folder = folder
        self._dead = False

    def wait(self, timeout: float) -> int | None:
        """Its exit status once it has ended (within ``timeout`` seconds), else None."""
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def out_of_memory(self) -> bool:
        """Whether its cgroup ran out of memory."""
        for group in self._cgroups:
            for name, key in (("memory.oom_control", "oom_kill"), ("memory.events", "oom_kill")):
                try:
                    for line in (group / name).read_text().splitlines():
                        field, _, value = line.partition(" ")
                        if field == key and int(value) > 0:
                            return True
                except (OSError, ValueError):
                    continue
        return False

    def exit_text(self) -> str:
        """How it ended: ``exit code 3``, ``killed by signal 11 (SIGSEGV)``, ``out of memory …``."""
        code = self.process.poll()
        if code is None:
            return "still running"
        if self.out_of_memory():
            return f"killed for using more than its memory limit of {self.limits.memory_mb} MiB"
        if code == EXIT_JAIL:
            return "the sandbox could not start it (see its log)"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = "?"
            return f"killed by signal {-code} ({name})"
        return f"exit code {code}"

    def kill(self) -> None:
        """Kill it and everything it started, and free what it held.  Safe to call twice."""
        if self._dead:
            return
        self._dead = True
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.process.wait()
        for group in self._cgroups:
            _empty_cgroup(group)
        shutil.rmtree(self._folder, ignore_errors=True)


def _empty_cgroup(group: Path) -> None:
    """Kill what is left in a cgroup and remove it (the PID namespace usually did the killing)."""
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
        try:
            group.rmdir()
            return
        except OSError as exc:
            if exc.errno not in (errno.EBUSY, errno.ENOTEMPTY) or time.monotonic() > deadline:
                return
            time.sleep(0.005)


def _make_cgroups(limits: Limits) -> list[Path]:
    found = _cgroups()
    if found is None:
        return []
    name = f"bot-{os.getpid()}-{next(_uids)}"
    made: list[Path] = []
    memory = limits.memory_mb * 1024 * 1024
    try:
        if found.version == 1:
            mem, pids = (base / name for base in found.bases)
            for group in (mem, pids):
                group.mkdir()
                made.append(group)
            (mem / "memory.limit_in_bytes").write_text(str(memory))
            if (mem / "memory.memsw.limit_in_bytes").exists():
                (mem / "memory.memsw.limit_in_bytes").write_text(str(memory))
            (pids / "pids.max").write_text(str(limits.processes))
        else:
            group = found.bases[0] / name
            group.mkdir()
            made.append(group)
            (group / "memory.max").write_text(str(memory))
            if (group / "memory.swap.max").exists():
                (group / "memory.swap.max").write_text("0")
            (group / "pids.max").write_text(str(limits.processes))
    except OSError as exc:
        for group in made:
            _empty_cgroup(group)
        raise SandboxError(f"cannot set up a cgroup for the bot: {exc.strerror or exc}") from None
    return made


@functools.lru_cache(maxsize=1)
def _sweep_folders() -> None:
    """Once per process: remove the private folders of bots whose arena process is gone."""
    for folder in Path(tempfile.gettempdir()).glob("arena-bot-*-*"):
        pid = folder.name.split("-")[2]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            shutil.rmtree(folder, ignore_errors=True)


def _processes_of(uid: int) -> int:
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    count += 1
            except OSError:
                pass
    return count


def start(
    command: list[str],
    *,
    cwd: str | None = None,
    env: dict[str, str] | None = None,
    limits: Limits = Limits(),
    hide: tuple[str, ...] = (),
    stderr: int | None = None,
    level: str | None = None,
    cpu: int | None = None,
) -> Sandboxed:
    """Start ``command`` inside walls, with pipes on its standard input and output.

    ``cwd`` is the folder it starts in (default: its private folder); ``env``
    is added to a minimal environment (``PATH``, ``HOME``, ``LANG``); ``hide``
    are paths it must not see (with the ``jail`` level); ``stderr`` is a file
    descriptor for its standard error (default: discarded); ``cpu`` the one CPU it runs on.
    """
    if not command:
        raise SandboxError("no command to start")
    level = level or walls()
    extra = dict(env or {})
    in_jail = level in ("jail", "userns")
    # The private folder: made here, and in the jail covered by a tmpfs of the bot's own.  Its name
    # holds this process's pid, so that one left by a process killed outright can be swept.
    _sweep_folders()
    folder = home = tempfile.mkdtemp(prefix=f"arena-bot-{os.getpid()}-")
    environment = {"PATH": PATH, "HOME": home, "LANG": "C.UTF-8", "TMPDIR": home, **extra}
    uid: int | None = None
    expose: list[str] = []
    if level != "userns" and os.geteuid() == 0:
        paths = program_paths(command, cwd, environment)
        # In the jail the way to its files is opened for it; elsewhere every folder on the way must be open.
        if all(_open_to_others(p) for p in paths) and (
                in_jail or all(_open_to_others(str(f)) for p in paths for f in Path(p).parents)):
            # A uid of its own; in the jail, folders closed to others on the way are opened for it alone.
            uid = _new_uid()
            os.chown(folder, uid, uid)
            expose = paths if in_jail else []
    cgroups = _make_cgroups(limits) if level == "jail" else []
    rlimits = {"NOFILE": limits.open_files, "FSIZE": limits.file_mb << 20, "CORE": 0}
    if not cgroups:
        rlimits["AS"] = limits.memory_mb << 20
        if uid is not None or os.geteuid() != 0:
            # Counted over the whole uid: its processes now, plus what the bot may start.
            rlimits["NPROC"] = limits.processes + _processes_of(uid if uid is not None else os.geteuid())
    settings = {
        "parent": os.getpid(),
        "namespaces": in_jail,
        "userns": level == "userns",
        "cgroups": [str(group / "cgroup.procs") for group in cgroups],
        "hide": [str(Path(p).resolve()) for p in hide if os.path.exists(p)],
        "expose": expose,
        "tmp_mb": limits.tmp_mb,
        "home": home,
        "uid": uid,
        "rlimits": rlimits,
        "cwd": cwd or home,
        "cpus": [] if cpu is None else [cpu],
        "env": environment,
    }
    try:
        process = subprocess.Popen(
            [sys.executable, "-I", "-S", JAIL, json.dumps(settings), "--", *command],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr if stderr is not None else subprocess.DEVNULL,
            cwd="/", env={"PATH": PATH}, start_new_session=True, close_fds=True, bufsize=0,
        )
    except OSError as exc:
        for group in cgroups:
            _empty_cgroup(group)
        shutil.rmtree(folder, ignore_errors=True)
        raise SandboxError(f"cannot start the sandbox: {exc.strerror or exc}") from None
    return Sandboxed(process, describe(level, uid, bool(cgroups)), cgroups, folder, limits)
