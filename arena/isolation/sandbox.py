"""Start a bot program inside walls, and tear all of it down.

:func:`start` runs a command through ``arena/isolation/jail.py`` with the strongest
walls this machine allows, found once per process by :func:`walls`:

* ``jail`` (as root, where namespaces work), the walls of the judges
  (isolate, nsjail, bubblewrap):

  - a **fresh root**: a tmpfs holding, read-only, only the system folders
    (:data:`SYSTEM`, merged-``/usr`` symlinks kept as symlinks), a minimal
    ``/etc`` (:data:`ETC` and a ``passwd``, ``group`` and ``hosts`` of its
    own), a ``/dev`` of ``null``, ``zero``, ``full``, ``random``, ``urandom``,
    ``tty`` and a private ``/dev/shm``, a fresh ``/proc`` with the files that
    show the machine or other users masked (see ``jail.py``), no ``/sys``,
    its runtime's folders and its own files (:func:`program_paths`) at their
    own paths, and its private tmpfs as ``/tmp``, ``HOME`` and ``TMPDIR``.
    Nothing else of the machine: no ``/root``, ``/home``, other entrants, the
    tournament or the results; ``/proc/self/mountinfo`` names only these (a
    folder shown that holds a ``hide`` path is shown entry by entry, the
    hidden one left out).  Its working folder is made empty in the fresh
    root when nothing shown holds it (so relative paths in its command work);
  - **never uid 0**: every bot process runs as a uid of its own; an
    entrant whose files others may not read is *staged*: copied once per
    referee process (at most :data:`STAGE_MB` MiB) into a folder of root's,
    readable by a group of that entrant, and shown at its own path; the bot
    gets that group;
  - PID, mount, network, IPC, UTS and **cgroup namespaces**, so it sees no
    other process, no network, and only its own cgroup; everything it
    starts dies with it;
  - **cgroups** of its own: memory, processes and threads, a **cpuset** of
    the CPU it was given (``sched_setaffinity`` cannot leave it) and a
    **freezer**: :meth:`Sandboxed.freeze` stops every process it has while
    another bot thinks;
  - no capability and none to regain, ``no_new_privs``, the **seccomp**
    filter of ``arena/isolation/seccomp.py``, resource limits (open files, file sizes,
    core dumps).
* ``userns`` (not root, where user namespaces are allowed): what an
  unprivileged user namespace allows of the same: the fresh root, the
  namespaces, the masked ``/proc``, no capabilities, seccomp; but the user's
  own uid (it reads what the user can read, if it can reach it), rlimits
  for memory and processes instead of cgroups, and freezing by stopping its
  process group (which a child in a session of its own escapes).
* ``rlimits`` (anywhere else): a session of its own, resource limits,
  ``no_new_privs``, seccomp, freezing by stopping its process group, a
  private temporary working folder.  It sees the machine's files and
  processes; it runs as the referee's user, or, for a referee run as root,
  as a uid of its own (a program whose files others may not read is then
  refused: without namespaces nothing can be staged).

Whatever the level, the jail's outer process copies the program's standard
error into its log up to :attr:`Limits.log_mb` MiB and drops the rest,
saying so in one line: a bot never blocks on its standard error.

``ARENA_SANDBOX=userns`` or ``=rlimits`` asks for a weaker level even where
a stronger one is possible (tests use it).  The walls a bot got are
:attr:`Sandboxed.walls`, one line naming each (:func:`walls_report` for
this machine), reported by the referee, never assumed.
"""

from __future__ import annotations

import atexit
import errno
import functools
import glob
import importlib.util
import itertools
import marshal
import os
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

JAIL = str(Path(__file__).with_name("jail.py"))
#: The exit status of the jail when a wall could not be put up.
EXIT_JAIL = 125
#: First uid of the range bot processes run as (one each, so that limits per uid are theirs alone).
UID_BASE = 1_500_000
#: First gid of the groups that may read a staged copy (one per staged path).
GID_BASE = 1_400_000
#: The most a staged entrant (a program or folder others may not read) may weigh.
STAGE_MB = 256
_CGROUP_ROOT = Path("/sys/fs/cgroup")
#: The v1 freezer cgroup that is kept frozen and empty (see :func:`_cgroups`).
_HOLD = "held-frozen"
#: The PATH a bot program gets (plus what its entrant adds).
PATH = "/usr/local/bin:/usr/bin:/bin"
#: The system folders of every fresh root, read-only (a symlink, as on a merged-/usr system, stays a symlink).
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: What of /etc a program needs: the dynamic loader's cache, name service switch, the time zone, the
#: alternatives (``java`` and others are reached through them) and Java's configuration.
ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/nsswitch.conf", "/etc/host.conf",
       "/etc/localtime", "/etc/alternatives", "/etc/java-*")


@dataclass(frozen=True)
class Limits:
    """What one bot process may use."""

    memory_mb: int = 2048
    #: Processes and threads, the program itself (and, in the jail, the jail's outer process) included.
    processes: int = 64
    open_files: int = 256
    #: The largest file it may write (its standard error log is written for it, see ``log_mb``).
    file_mb: int = 256
    #: The size of its private ``/tmp``.
    tmp_mb: int = 64
    #: How much of its standard error reaches its log; past it the rest is read and dropped.
    log_mb: int = 16


class SandboxError(RuntimeError):
    """A program that cannot be started; the message is one line."""


# -- what this machine allows ----------------------------------------------------------


@dataclass(frozen=True)
class _Cgroups:
    version: int
    #: v1: the arena's folder in each hierarchy used (memory, pids, and freezer and cpuset where mounted),
    #: by hierarchy; v2: the arena's cgroup, as "unified".
    bases: dict[str, Path]
    #: The walls they give: memory, pids, and freezer, cpuset where the machine has them.
    controls: frozenset[str]


@functools.lru_cache(maxsize=1)
def _cgroups() -> _Cgroups | None:
    """Where bot cgroups can be made (root only), or None."""
    if os.geteuid() != 0:
        return None
    if all((_CGROUP_ROOT / name / "cgroup.procs").is_file() for name in ("memory", "pids")):
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
        return _Cgroups(1, bases, frozenset(bases))
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
        return _Cgroups(2, {"unified": base}, frozenset(controls))
    return None


def _sweep(bases: tuple[Path, ...]) -> None:
    """Remove the cgroups that arena processes killed outright left behind (``bot-PID-N``, PID gone)."""
    for base in bases:
        for group in base.glob("bot-*-*"):
            pid = group.name.split("-")[1]
            if pid.isdigit() and not Path(f"/proc/{pid}").exists():
                _empty_cgroup(group)


#: How long :meth:`Sandboxed.kill` waits for the jail to end the program and take the last of its standard
#: error (a few milliseconds, unless something stopped the jail) before killing all of it outright.
_DRAIN_SECONDS = 0.5

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


@functools.lru_cache(maxsize=1)
def seccomp_text() -> str:
    """What the seccomp filter of ``arena/isolation/seccomp.py`` does here, as its ``install()`` says it (``seccomp:
    47 system calls denied`` becomes ``seccomp (47 system calls denied)``), or ``no seccomp (why)``.  Found once per process by loading the filter into a jail process of its own,
    as every bot's jail does."""
    if not Path(JAIL).with_name("seccomp.py").is_file():
        return "no seccomp (arena/isolation/seccomp.py is missing)"
    try:
        done = subprocess.run([sys.executable, "-I", "-S", JAIL, "--seccomp"], capture_output=True, text=True,
                              timeout=30, cwd="/", env={"PATH": PATH}, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"no seccomp (its probe did not run: {exc})"
    line = done.stdout.strip()
    if done.returncode != 0 or not line:
        why = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        return f"no seccomp (its probe failed: {why[0]})"
    return f"seccomp ({line.removeprefix('seccomp: ')})" if line.startswith("seccomp: ") else line


def describe(level: str, uid: int | None = None, cgroup: bool = True) -> str:
    """The line naming every wall a bot program gets at ``level`` on this machine (with ``uid``, the uid it
    runs as; ``cgroup=False``: as if there were no cgroups)."""
    found = _cgroups() if level == "jail" and cgroup else None
    return _describe(level, uid, found.controls if found is not None else frozenset())


def walls_report() -> str:
    """The walls a bot program started now gets on this machine, for ``arena info``."""
    return describe(walls())


def _describe(level: str, uid: int | None, controls: frozenset[str]) -> str:
    seccomp = seccomp_text()
    stop = "frozen off turn (SIGSTOP of its process group; a child in a session of its own escapes)"
    if level == "jail":
        who = "a uid of its own"  # one per process: the number would make every process's line differ
        limits = (f"cgroup {'/'.join(c for c in ('memory', 'pids', 'cpuset') if c in controls)}"
                  if {"memory", "pids"} <= controls else "rlimits memory/processes (no cgroups here)")
        if "cpuset" not in controls:
            limits += ", CPU affinity (no cpuset cgroup)"
        frozen = "frozen off turn (cgroup freezer)" if "freezer" in controls else stop
        return (f"jail: fresh root, {who}, PID/mount/network/IPC/UTS/cgroup namespaces, masked /proc, {seccomp}, "
                f"{limits}, {frozen}")
    if level == "userns":
        return (f"userns: fresh root, the user's own uid without capabilities, user/PID/mount/network/IPC/UTS/cgroup "
                f"namespaces, masked /proc, {seccomp}, rlimits memory/processes (not root: no cgroups), {stop}")
    who = "a uid of its own" if uid is not None else "the referee's uid"
    return (f"rlimits: own session, {who}, {seccomp}, rlimits memory/processes/files, {stop}; "
            "no namespaces: it sees the machine's files and processes")


# -- what a program needs to see --------------------------------------------------------


def _open_to_others(path: str) -> bool:
    """Whether a uid of no group may read ``path`` (list and enter it, for a folder; run it, for a program)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return True  # nothing there to need
    if stat.S_ISDIR(mode):
        return mode & 0o005 == 0o005
    return bool(mode & 0o004) and (not mode & 0o100 or bool(mode & 0o001))


#: How many entries of an entrant's folder are looked at for one closed to others.
WALK_ENTRIES = 10_000


@functools.lru_cache(maxsize=256)
def _closed_within(path: str, key: tuple[int, int, int]) -> bool:
    """Whether anything among the first :data:`WALK_ENTRIES` in the folder ``path`` is closed to others
    (cached by its inode, mtime and size: once per referee process)."""
    seen = 0
    for folder, names, files in os.walk(path):
        for name in names + files:
            entry = os.path.join(folder, name)
            if not os.path.islink(entry) and not _open_to_others(entry):
                return True
            seen += 1
            if seen >= WALK_ENTRIES:
                return False
    return False


def _closed(path: str, whole: bool) -> bool:
    """Whether ``path`` (and, with ``whole``, everything in it) is closed to others."""
    if not _open_to_others(path):
        return True
    try:
        found = os.stat(path)
    except OSError:
        return False
    return whole and stat.S_ISDIR(found.st_mode) and _closed_within(
        path, (found.st_ino, found.st_mtime_ns, found.st_size))


@functools.lru_cache(maxsize=1)
def _python_packages() -> tuple[str, ...]:
    """The arena's own packages (the bot host needs them), and the metadata of a checkout installed in
    development mode (its entry points).  The packages' folders only: a checkout holds much else (the
    results of earlier runs, for one) that no bot may read."""
    found = []
    for package in ("arena", "arena_bots"):
        spec = importlib.util.find_spec(package)
        if spec is not None and spec.submodule_search_locations:
            for folder in spec.submodule_search_locations:
                found += [folder, *glob.glob(os.path.join(os.path.dirname(folder), "*.egg-info"))]
    return tuple(found)


def program_paths(command: list[str], cwd: str | None, env: dict[str, str]) -> tuple[list[str], list[str]]:
    """What a program needs to see besides the system: ``(its own files, its runtime's folders)``.

    Its own: its executable, and the entrant's folder that holds it (for a program not installed in a
    ``bin`` folder), every argument that names a path, and for a file (a script, a Python bot's
    ``file.py:Name``) its folder too, as a script imports what lies beside it: keep each entrant in a
    folder of its own.  Its runtime: for the referee's own Python (the bot host), ``sys.prefix``,
    ``sys.base_prefix``, the arena's packages and ``PYTHONPATH``; for a program in a ``bin`` folder, that
    folder's prefix; for a script, its interpreter's (``#!``, through ``env`` too).  Absolute; its own as
    named (:func:`_layout` adds what they resolve to), its runtime's both as named and resolved.  Its
    working folder is not among them: it starts in an empty folder of that name unless something shown
    holds it.
    """
    base = cwd or os.getcwd()
    search = env.get("PATH", PATH)
    own: list[str] = []
    runtime: list[str] = []
    name = command[0]
    exe = os.path.join(base, name) if "/" in name else shutil.which(name, path=search)
    if exe is not None:
        real = os.path.realpath(exe)
        own.append(os.path.abspath(exe))
        # The arena's own packages for its bot host only: another program of the same Python has no use
        # for them, and their folders would name where the arena is installed.
        host = len(command) > 3 and command[1:3] == ["-I", "-c"] and "arena.isolation.bothost" in command[3]
        if not _runtime(real, runtime, env, host):
            own.append(os.path.dirname(os.path.abspath(exe)))
        interpreter = _interpreter(real, search)
        if interpreter is not None:
            runtime.append(interpreter)
            _runtime(os.path.realpath(interpreter), runtime, env, False)
    for arg in command[1:]:
        if arg.startswith("-"):
            continue
        where = arg.rpartition(":")[0]
        path = os.path.join(base, where if where.endswith(".py") else arg)
        if os.path.isfile(path):
            own += [path, os.path.dirname(path)]
        elif os.path.exists(path):
            own.append(path)

    return (sorted({os.path.abspath(p) for p in own}),
            sorted({os.path.abspath(p) for p in runtime} | {os.path.realpath(p) for p in runtime}))


def _runtime(real: str, runtime: list[str], env: dict[str, str], host: bool) -> bool:
    """Add the folders the installed program ``real`` (resolved) runs from (with ``host``: and the arena's
    packages, for the bot host); False for an entrant's own."""
    if real == os.path.realpath(sys.executable):
        runtime += [sys.prefix, sys.base_prefix, *(_python_packages() if host else ())]
        runtime += [p for p in env.get("PYTHONPATH", "").split(":") if os.path.isabs(p)]
        return True
    if os.path.basename(os.path.dirname(real)) in ("bin", "sbin"):
        runtime.append(os.path.dirname(os.path.dirname(real)))
        return True
    return False


def _interpreter(path: str, search: str) -> str | None:
    """The interpreter a script names on its ``#!`` line (``/usr/bin/env NAME``: NAME on ``search``)."""
    try:
        with open(path, "rb") as script:
            first = script.read(256).partition(b"\n")[0]
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = os.fsdecode(first[2:]).split()
    if words[:1] == ["/usr/bin/env"] and len(words) > 1:
        return shutil.which(words[1], path=search)
    return words[0] if words and os.path.isabs(words[0]) else None


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


@functools.lru_cache(maxsize=1)
def _system() -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """The system part of every fresh root: ``(binds, symlinks)``, each ``(path, source or target)``."""
    binds, links = [], []
    for path in [*SYSTEM, *(found for pattern in ETC for found in sorted(glob.glob(pattern)))]:
        if os.path.islink(path):
            links.append((path, os.readlink(path)))
        elif os.path.exists(path):
            binds.append((path, path))
    return tuple(binds), tuple(links)


@dataclass
class _Layout:
    """A fresh root's parts besides /dev, /proc and /tmp, made by the jail in this order."""

    #: ``(path, source)``: ``source`` bound read-only at ``path`` (parents before what they hold).
    binds: list[tuple[str, str]]
    #: ``(path, target)``: symlinks.
    links: list[tuple[str, str]]
    #: The groups that may read its staged copies.
    gids: list[int]


def _layout(own: list[str], runtime: list[str], hidden: list[str], stage: bool) -> _Layout:
    """What the fresh root shows of the machine: the system, then the runtime's folders and the program's
    own files (a staged copy for what others may not read, with ``stage``), never a hidden path.

    What an own path resolves to through a symbolic link is shown too, but never staged: the copy is made
    as root, and a link would let an entrant choose what root copies for it."""
    system_binds, system_links = _system()
    layout = _Layout(list(system_binds), list(system_links), [])
    shown: dict[str, bool] = {path: False for path, _ in [*system_binds, *system_links]}  # path -> staged
    wanted = {(p, p in own, False) for p in own + runtime if os.path.lexists(p)}
    wanted |= {(os.path.realpath(p), True, True) for p in own
               if os.path.exists(p) and os.path.realpath(p) != p}
    for path, is_own, via_link in sorted(wanted):
        if any(_under(path, h) for h in hidden):
            continue
        holder = max((f for f in shown if _under(path, f)), key=len, default=None)
        if holder is not None and shown[holder]:
            continue  # in the staged copy of its folder
        closed = stage and _closed(path, whole=is_own)
        if holder is not None and (not closed or os.path.islink(path)):
            continue  # shown with its folder (a link there too: what it points to is a path of its own)
        if via_link and (closed or any(_under(h, path) for h in hidden)):
            raise SandboxError(f"{path} is reached through a symbolic link and "
                               f"{'others may not read it' if closed else 'holds a hidden path'}: name it as it "
                               f"is{', readable by others' if closed else ''}")
        if os.path.islink(path):
            layout.links.append((path, os.readlink(path)))
        elif closed:
            copy, gid = _stage(path, tuple(h for h in hidden if _under(h, path)))
            layout.binds.append((path, copy))
            if gid not in layout.gids:
                layout.gids.append(gid)
        else:
            _show(path, hidden, layout)
        shown[path] = closed
    return layout


def _show(path: str, hidden: list[str], layout: _Layout) -> None:
    """Bind ``path``, or, when it holds a hidden path, each of its entries but the hidden ones (a mount over a
    hidden path would name it in the bot's mountinfo)."""
    inside = [h for h in hidden if _under(h, path) and h != path]
    if not inside or not os.path.isdir(path):
        layout.binds.append((path, path))
        return
    for entry in sorted(os.listdir(path)):
        child = os.path.join(path, entry)
        if child in hidden:
            continue
        if os.path.islink(child):
            layout.links.append((child, os.readlink(child)))
        else:
            _show(child, hidden, layout)


# -- staging ----------------------------------------------------------------------------


#: Per referee process: its staging folder, and the copies in it by (path, hidden paths): (copy, gid, fingerprint).
_staging: dict[int, tuple[str, dict[tuple[str, tuple[str, ...]], tuple[str, int, tuple[Any, ...]]]]] = {}
_stages = itertools.count()


def _fingerprint(path: str, hidden: tuple[str, ...]) -> tuple[tuple[Any, ...], int, bool]:
    """What a stage of ``path`` depends on: every file's name, inode, size and times; the bytes it holds;
    and whether a file changed so lately that a change to come might keep its times (a file system's
    clock ticks in milliseconds: two writes within a tick can leave the same times and size)."""
    entries: list[tuple[Any, ...]] = []
    size = 0
    recent = time.time() - 2.0
    racy = False
    for folder, names, files in os.walk(path) if os.path.isdir(path) else [(os.path.dirname(path), [],
                                                                              [os.path.basename(path)])]:
        names[:] = [n for n in names if os.path.join(folder, n) not in hidden]
        for name in sorted(names + files):
            item = os.path.join(folder, name)
            if item in hidden:
                continue
            found = os.lstat(item)
            entries.append((item, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns))
            size += found.st_size
            racy = racy or max(found.st_mtime, found.st_ctime) >= recent
    return tuple(entries), size, racy


def _stage(path: str, hidden: tuple[str, ...]) -> tuple[str, int]:
    """A copy of ``path`` owned by root and readable by a group of its own (made once per referee process,
    again when anything in it changes), and that group."""
    pid = os.getpid()
    if pid not in _staging:
        folder = tempfile.mkdtemp(prefix=f"arena-stage-{pid}-")
        atexit.register(shutil.rmtree, folder, True)
        _staging[pid] = (folder, {})
    folder, copies = _staging[pid]
    entries, size, racy = _fingerprint(path, hidden)
    key = (path, hidden)
    kept = copies.get(key)
    if kept is not None and kept[2] == entries and not racy:
        return kept[0], kept[1]
    if size > STAGE_MB << 20:
        raise SandboxError(f"{path} is not readable by others and larger than {STAGE_MB} MiB, too large to "
                           f"stage for the bot's uid: make it readable (chmod -R o+rX {path})")
    found = os.stat(path)
    index = next(_stages)
    gid = kept[1] if kept is not None else GID_BASE + (pid % 4096) * 64 + len(copies) % 64
    copy = os.path.join(folder, str(index), os.path.basename(path) or "root")
    os.makedirs(os.path.dirname(copy))
    try:
        if stat.S_ISDIR(found.st_mode):
            shutil.copytree(path, copy, symlinks=True,
                            ignore=lambda d, names: [n for n in names if os.path.join(d, n) in hidden])
        else:
            shutil.copy2(path, copy)
        for item in [copy, *(os.path.join(d, n) for d, names, files in os.walk(copy) for n in names + files)]:
            mode = os.lstat(item).st_mode
            if stat.S_ISLNK(mode):
                continue
            os.chown(item, 0, gid)
            os.chmod(item, 0o750 if stat.S_ISDIR(mode) or mode & 0o111 else 0o640)
    except OSError as exc:
        raise SandboxError(f"cannot stage {path} for the bot's uid: {exc.strerror or exc}") from None
    # An older copy stays for the bots that run from it; it goes with the staging folder.
    copies[key] = (copy, gid, entries)
    return copy, gid


# -- one sandboxed program -------------------------------------------------------------


_uids = iter(range(1_000_000))


def _new_uid() -> int:
    return UID_BASE + (os.getpid() % 4096) * 64 + next(_uids) % 64


class Sandboxed:
    """A running program: its pipes, its walls, :meth:`freeze` and :meth:`thaw`, and :meth:`kill` to end
    all of it."""

    def __init__(self, process: subprocess.Popen[bytes], walls: str, cgroups: list[Path], folder: str,
                 limits: Limits, freezer: Path | None = None, freezer_fd: int = -1) -> None:
        self.process = process
        #: The line of :func:`describe` for the walls it got.
        self.walls = walls
        self.limits = limits
        self._cgroups = cgroups
        self._folder = folder
        self._dead = False
        self._frozen = False
        # The freezer's control file (``freezer``), kept open as ``freezer_fd``: freezing is one write.
        self._freezer = freezer_fd
        self._v2 = freezer is not None and freezer.name == "cgroup.freeze"

    def freeze(self) -> None:
        """Stop every process it has until :meth:`thaw` (its cgroup's freezer, else SIGSTOP of its process
        group).  Returns at once: the kernel finishes freezing on its own."""
        if self._frozen or self._dead:
            return
        self._frozen = True
        if self._freezer >= 0:
            os.write(self._freezer, b"1" if self._v2 else b"FROZEN")
        else:
            self._signal(signal.SIGSTOP)

    def thaw(self) -> None:
        """Let it run again after :meth:`freeze`."""
        if not self._frozen or self._dead:
            return
        self._frozen = False
        if self._freezer >= 0:
            os.write(self._freezer, b"0" if self._v2 else b"THAWED")
        else:
            self._signal(signal.SIGCONT)

    def _signal(self, sig: int) -> None:
        try:
            os.killpg(self.process.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def wait(self, timeout: float) -> int | None:
        """Its exit status once it has ended (within ``timeout`` seconds), else None.  A frozen program is
        thawed first: frozen, it could not end."""
        self.thaw()
        return self._ended(timeout)

    def _ended(self, timeout: float) -> int | None:
        code = self.process.poll()
        if code is not None:
            return code
        try:
            # Woken the moment it ends: Popen.wait with a timeout polls, up to 50 ms late.
            ended = os.pidfd_open(self.process.pid)
        except (AttributeError, OSError):  # not Linux 5.3 or later
            try:
                return self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                return None
        try:
            if not select.select([ended], [], [], timeout)[0]:
                return None
        finally:
            os.close(ended)
        return self.process.wait()

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
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass
        if self.process.poll() is None:
            # The jail's outer process kills the program, then thaws it (a frozen program dies only once
            # thawed: killed first, it runs no more), and copies to its log what the program wrote to
            # standard error that it had not yet taken.
            try:
                os.kill(self.process.pid, signal.SIGUSR1)
            except ProcessLookupError:
                pass
            if self._freezer < 0:
                self._signal(signal.SIGCONT)  # the outer process, stopped with its group
            self._ended(_DRAIN_SECONDS)
        # What is left: an outer process that did not end in time, what the program started in its group.
        self._signal(signal.SIGKILL)
        self.thaw()
        self._dead = True
        self.process.wait()
        for group in self._cgroups:
            _empty_cgroup(group)
        if self._freezer >= 0:
            os.close(self._freezer)
            self._freezer = -1
        shutil.rmtree(self._folder, ignore_errors=True)


def _empty_cgroup(group: Path) -> None:
    """Kill what is left in a cgroup and those under it, thawed, and remove them (the PID namespace usually
    did the killing)."""
    if group.is_dir():
        for inner in group.iterdir():
            if inner.is_dir():
                _empty_cgroup(inner)
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


def _make_cgroups(limits: Limits, cpus: list[int]) -> tuple[list[Path], frozenset[str], Path | None]:
    """The bot's cgroups, the walls they give, and its freezer's control file (None: no freezer)."""
    found = _cgroups()
    if found is None:
        return [], frozenset(), None
    name = f"bot-{os.getpid()}-{next(_uids)}"
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
            _empty_cgroup(group)
        raise SandboxError(f"cannot set up a cgroup for the bot: {exc.strerror or exc}") from None
    return made, found.controls, freezer


@functools.lru_cache(maxsize=1)
def _sweep_folders() -> None:
    """Once per process: remove the private and staging folders of arena processes that are gone."""
    for folder in [*Path(tempfile.gettempdir()).glob("arena-bot-*-*"),
                   *Path(tempfile.gettempdir()).glob("arena-stage-*-*")]:
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


def _etc(uid: int | None, home: str, gids: list[int]) -> dict[str, str]:
    """The generated files of the fresh root's /etc: ``passwd`` and ``group`` naming the bot, ``hosts``."""
    me = uid if uid is not None else 0  # in a user namespace the user is root of it, and only of it
    users = {0: "root", me: "bot", 65534: "nobody"}
    passwd = "".join(f"{name}:x:{n}:{n}:{name}:{home if n == me else '/nonexistent'}:/usr/sbin/nologin\n"
                     for n, name in users.items())
    group = "".join(f"{name}:x:{n}:\n" for n, name in users.items())
    group += "".join(f"entrant{k}:x:{gid}:bot\n" for k, gid in enumerate(gids))
    hosts = "127.0.0.1\tlocalhost arena-bot\n::1\tlocalhost ip6-localhost ip6-loopback\n"
    return {"/etc/passwd": passwd, "/etc/group": group, "/etc/hosts": hosts}


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
    show: tuple[str, ...] = (),
) -> Sandboxed:
    """Start ``command`` inside walls, with pipes on its standard input and output.

    ``cwd`` is the folder it starts in (default: its private folder); ``env``
    is added to a minimal environment (``PATH``, ``HOME``, ``LANG``); ``show``
    are more of its own files than its command names; ``hide`` are paths it must not see; ``stderr`` is a file descriptor for its
    standard error (default: discarded), written by the jail up to
    ``limits.log_mb``; ``cpu`` the one CPU it runs on (default: the referee's).
    """
    if not command:
        raise SandboxError("no command to start")
    level = level or walls()
    fresh_root = level in ("jail", "userns")
    # The private folder: made here; in a fresh root its name is that of a folder in the private /tmp.  Its
    # name holds this process's pid, so that one left by a process killed outright can be swept.
    _sweep_folders()
    folder = home = tempfile.mkdtemp(prefix=f"arena-bot-{os.getpid()}-")
    environment = {"PATH": PATH, "HOME": home, "LANG": "C.UTF-8", "TMPDIR": home, **(env or {})}
    # As named and resolved: a folder shown may hold it under either name.
    hidden = sorted({os.path.abspath(p) for p in hide if os.path.exists(p)} |
                    {os.path.realpath(p) for p in hide if os.path.exists(p)})
    cpus = [cpu] if cpu is not None else sorted(os.sched_getaffinity(0))
    uid = _new_uid() if level == "jail" or level == "rlimits" and os.geteuid() == 0 else None
    cgroups: list[Path] = []
    freezer_fd = -1
    try:
        own, runtime = program_paths(command, cwd, environment)
        own = sorted({*own, *(os.path.abspath(p) for p in show if os.path.exists(p))})
        layout = _Layout([], [], [])
        if fresh_root:
            layout = _layout(own, runtime, hidden, stage=uid is not None)
        elif uid is not None:
            # No namespaces and no staging: every folder on the way to its files must be open to others.
            for path in own + runtime:
                if _closed(path, whole=path in own) or not all(_open_to_others(str(f)) for f in Path(path).parents):
                    raise SandboxError(f"{path} cannot be read by others, and without namespaces a bot run by "
                                       "root runs as a uid of its own: make it readable (chmod o+rX)")
        if uid is not None:
            os.chown(folder, uid, uid)
        cgroups, controls, freezer = _make_cgroups(limits, cpus) if level == "jail" else ([], frozenset(), None)
        if freezer is not None:
            freezer_fd = os.open(freezer, os.O_WRONLY)
    except BaseException as exc:
        _undo(cgroups, freezer_fd, folder)
        if isinstance(exc, OSError):
            raise SandboxError(f"cannot set up the sandbox: {exc.strerror or exc}") from None
        raise
    rlimits = {"NOFILE": limits.open_files, "FSIZE": limits.file_mb << 20, "CORE": 0}
    if not cgroups:
        rlimits["AS"] = limits.memory_mb << 20
        if uid is not None or os.geteuid() != 0:
            # Counted over the whole uid: its processes now, plus what the bot may start.
            rlimits["NPROC"] = limits.processes + _processes_of(uid if uid is not None else os.geteuid())
    settings = {
        "parent": os.getpid(),
        "namespaces": fresh_root,
        "userns": level == "userns",
        # The outer process joins all but the freezer's: frozen, it could not end the program when the
        # referee is gone (a frozen process dies only once thawed); the program joins that one.
        "cgroups": [str(group / "cgroup.procs") for group in cgroups if freezer is None or group != freezer.parent],
        "freezer": None if freezer is None else
        (str(freezer.with_name("cgroup.procs")), str(freezer), "0" if freezer.name == "cgroup.freeze" else "THAWED"),
        "binds": layout.binds,
        "links": layout.links,
        "files": _etc(uid, home, layout.gids) if fresh_root else {},
        "tmp_mb": limits.tmp_mb,
        "home": home,
        "uid": uid,
        "gids": layout.gids,
        "rlimits": rlimits,
        "cwd": cwd or home,
        "cpus": cpus,
        "env": environment,
        "log_mb": limits.log_mb if stderr is not None else None,
    }
    try:
        process = subprocess.Popen(
            [sys.executable, "-I", "-S", JAIL, marshal.dumps(settings).hex(), "--", *command],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr if stderr is not None else subprocess.DEVNULL,
            cwd="/", env={"PATH": PATH}, start_new_session=True, close_fds=True, bufsize=0,
        )
    except OSError as exc:
        _undo(cgroups, freezer_fd, folder)
        raise SandboxError(f"cannot start the sandbox: {exc.strerror or exc}") from None
    return Sandboxed(process, _describe(level, uid, controls), cgroups, folder, limits, freezer, freezer_fd)


def _undo(cgroups: list[Path], freezer_fd: int, folder: str) -> None:
    """Free what a start that failed had made."""
    if freezer_fd >= 0:
        os.close(freezer_fd)
    for group in cgroups:
        _empty_cgroup(group)
    shutil.rmtree(folder, ignore_errors=True)
