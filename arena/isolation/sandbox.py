"""Start a bot program inside walls, and tear all of it down.

:func:`start` runs a command through ``arena/isolation/jail.py`` (forked by this process's fork server,
:mod:`~arena.isolation.forkserver`, behind namespaces) with the strongest walls this machine allows,
found once per process by :func:`walls`:

* ``jail`` (as root, where namespaces work), the walls of the judges (isolate, nsjail, bubblewrap): a
  fresh root of read-only system folders, its own files (staged where others may not read them,
  :mod:`~arena.isolation.staging`) and a private tmpfs; a ``/proc`` of its own processes alone, no
  ``/sys``; a uid of its own, never 0; PID, mount, network, IPC, UTS and cgroup namespaces; cgroups of
  its own (memory, processes, a cpuset of its CPU, a freezer); no capability, ``no_new_privs`` and the
  seccomp allow-list of ``arena/isolation/seccomp.py``;
* ``userns`` (not root, where user namespaces are allowed): the same in a user namespace, but the
  user's own uid, rlimits instead of cgroups, and freezing by stopping its process group;
* ``rlimits`` (anywhere else): a session of its own, resource limits, ``no_new_privs``, seccomp and
  freezing by process group; it sees the machine's files and processes.

Whatever the level, the jail's outer process copies the program's standard error into its log up to
:attr:`Limits.log_mb` MiB and drops the rest, saying so in one line.  ``ARENA_SANDBOX=userns`` or
``=rlimits`` asks for a weaker level (tests use it).  The walls a bot got are :attr:`Sandboxed.walls`, one
line naming each (:func:`walls_report` for this machine), reported by the referee, never assumed.  The
reasons for each wall are in the docs (the sandbox's threat model, isolation and walls).
"""

from __future__ import annotations

import functools
import marshal
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.errors import os_error_line
from arena.isolation import forkserver
from arena.isolation.cgroups import empty_cgroup, machine_cgroups, make_cgroups
from arena.isolation.forkserver import Forked
from arena.isolation.limits import MEMORY_RLIMIT, UID_BASE, Limits, SandboxError, counted_processes, kernel, serials
from arena.isolation.named import named_paths
from arena.isolation.rootfs import (
    PATH,
    Layout,
    etc_files,
    is_closed,
    layout_of,
    open_to_others,
    program_paths,
    shared_place,
)
from arena.isolation.staging import sweep_folders

JAIL = str(Path(__file__).with_name("jail.py"))

#: The exit status of the jail when a wall could not be put up.
EXIT_JAIL = 125

#: How long :meth:`Sandboxed.kill` waits for the jail to end the program and take the last of its standard
#: error (a few milliseconds, unless something stopped the jail) before killing all of it outright.
_DRAIN_SECONDS = 0.5

#: The levels, strongest first.
LEVELS = ("jail", "userns", "rlimits")

#: How long a bot frozen after its answer has to stop.  A task inside a system call the freezer cannot
#: interrupt (``madvise(MADV_POPULATE_WRITE)`` over a large range, ``munmap`` of one, a large write to its
#: tmpfs) runs on until the call returns.  The next seat's clock starts only once every other bot has
#: stopped, so this bound costs no one time: past it, the bot is killed (its next turn is a ``crash`` fault).
FREEZE_SECONDS = 1.0
#: Each step of that wait counts at most this long, so that a referee that got no CPU (a loaded machine, a
#: paused virtual machine) does not count its delay against the bot; past :data:`_FREEZE_CAP` it is killed.
_STEP_SECONDS = 0.02
_FREEZE_CAP = 10 * FREEZE_SECONDS

#: How many times :func:`settle` yields the CPU to a bot on its way into the freezer before it sleeps.
_YIELDS = 200

#: This process's bots frozen since the last :func:`settle` (each once, while alive), with when each was frozen.
_freezing: dict[int, tuple[Sandboxed, float]] = {}


def settle() -> None:
    """Return once every bot this process froze since the last call has stopped (its cgroup reads
    frozen); one that has not within :data:`FREEZE_SECONDS` of its freezing is killed.

    Called before a seat's clock starts, so that a seat thinks only while every other bot is frozen.
    A bot frozen by SIGSTOP (no cgroup freezer) stops before the signal returns: nothing to wait for."""
    while _freezing:
        _, (box, since) = _freezing.popitem()
        box._settle(since)


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
            probe = start(["true"], StartOptions(level=level))
        except SandboxError:
            continue
        code = probe.wait(10)
        probe.kill()
        if code == 0:
            return level
    return "rlimits"


#: What the walls line says of the memory limit where no cgroup charges it (:data:`MEMORY_RLIMIT`).
_RLIMIT_MEMORY = f"rlimits memory (RLIMIT_{MEMORY_RLIMIT}: memory written, not address space reserved)"

#: What the walls line says of sysinfo where the jail answers it (else ``sysinfo open``, and why).
_ANSWERED = "sysinfo answered with the bot's own figures"


@functools.lru_cache(maxsize=1)
def seccomp_text() -> str:
    """What the seccomp filter of ``arena/isolation/seccomp.py`` does here, as its ``install()`` says it (``seccomp:
    47 system calls denied`` becomes ``seccomp (47 system calls denied)``), with whether ``sysinfo`` is answered
    or open, or ``no seccomp (why)``.  Found once per process by loading the filter into a jail process of its
    own, as every bot's jail does."""
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
    found = machine_cgroups() if level == "jail" and cgroup else None
    return _describe(level, uid, found.controls if found is not None else frozenset())


def walls_report() -> str:
    """The walls a bot program started now gets on this machine, for ``arena info``."""
    return describe(walls())


def short_walls(line: str) -> str:
    """:func:`describe`'s line in a few words for a player's terminal (``jail (fresh root, own uid, namespaces,
    seccomp, cgroups, freezer)``), a missing or weaker wall named as such; ``arena info`` prints it whole.

    >>> short_walls("rlimits: own session, the referee's uid, no seccomp (not Linux), rlimits memory/processes/files, "
    ...             "frozen off turn (SIGSTOP of its process group; a child in a session of its own escapes); no namespaces")
    "rlimits (referee's uid, no namespaces, no seccomp, rlimits, SIGSTOP)"
    """
    level = line.partition(":")[0]
    words = [
        "fresh root" if "fresh root" in line else "",
        "own uid" if "a uid of its own" in line else "user's uid" if "the user's own uid" in line else "referee's uid",
        "no namespaces" if "no namespaces" in line else "namespaces",
        "no seccomp" if "no seccomp" in line else "seccomp",
        "cgroups" if "cgroup memory" in line else "rlimits",
        "freezer" if "cgroup freezer" in line else "SIGSTOP",
    ]
    return f"{level} ({', '.join(word for word in words if word)})"


def _describe(level: str, uid: int | None, controls: frozenset[str]) -> str:
    seccomp = seccomp_text()
    if _ANSWERED in seccomp and not (level == "jail" and {"memory", "pids"} <= controls):
        # No cgroup to count: sysinfo's figures are those of the calling process (its memory, its threads).
        seccomp += " (those of the calling process: no cgroups)"
    stop = "frozen off turn (SIGSTOP of its process group; a child in a session of its own escapes)"
    if level == "jail":
        who = "a uid of its own"  # one per process: the number would make every process's line differ
        limits = (f"cgroup {'/'.join(c for c in ('memory', 'pids', 'cpuset') if c in controls)}"
                  if {"memory", "pids"} <= controls else f"{_RLIMIT_MEMORY}/processes (no cgroups here)")
        if "cpuset" not in controls:
            limits += ", CPU affinity (no cpuset cgroup)"
        frozen = "frozen off turn (cgroup freezer)" if "freezer" in controls else stop
        return (f"jail: fresh root, {who}, PID/mount/network/IPC/UTS/cgroup namespaces, {_proc()}, {seccomp}, "
                f"{limits}, {frozen}")
    if level == "userns":
        return (f"userns: fresh root, the user's own uid without capabilities, user/PID/mount/network/IPC/UTS/cgroup "
                f"namespaces, {_proc()}, {seccomp}, {_RLIMIT_MEMORY}/processes (not root: no cgroups), {stop}")
    who = "a uid of its own" if uid is not None else "the referee's uid"
    return (f"rlimits: own session, {who}, {seccomp}, {_RLIMIT_MEMORY}/processes/files, {stop}; "
            "no namespaces: it sees the machine's files and processes")


def _proc() -> str:
    """What a fresh root's ``/proc`` shows (``subset=pid`` came with Linux 5.8)."""
    if kernel() >= (5, 8):
        return "/proc of its own processes alone"
    return "/proc of its own processes, the machine's entries masked one by one (Linux before 5.8)"


def _new_uid() -> int:
    return UID_BASE + (os.getpid() % 4096) * 64 + next(serials) % 64


class Sandboxed:
    """A running program: its pipes, its walls, :meth:`freeze` and :meth:`thaw`, and :meth:`kill` to end
    all of it."""

    def __init__(self, process: subprocess.Popen[bytes] | Forked, walls: str, cgroups: list[Path], folder: str,
                 limits: Limits, freezer: Path | None = None, freezer_fd: int = -1) -> None:
        self.process = process
        #: The line of :func:`describe` for the walls it got.
        self.walls = walls
        self.limits = limits
        self.machine_cgroups = cgroups
        self._folder = folder
        self._dead = False
        self._frozen = False
        # The freezer's control file (``freezer``), kept open as ``freezer_fd``: freezing is one write.
        self._freezer = freezer_fd
        self._v2 = freezer is not None and freezer.name == "cgroup.freeze"
        # Where the freezer says whether every task has stopped: v1's state file itself, v2's events.
        self._state = -1
        if freezer is not None:
            self._state = freezer_fd if not self._v2 else os.open(freezer.with_name("cgroup.events"), os.O_RDONLY)
        #: Killed for running on after it was frozen (see :data:`FREEZE_SECONDS`).
        self.unstoppable = False

    def freeze(self) -> None:
        """Stop every process it has until :meth:`thaw` (its cgroup's freezer, else SIGSTOP of its process
        group).  Returns at once: the kernel finishes freezing on its own."""
        if self._frozen or self._dead:
            return
        self._frozen = True
        if self._freezer >= 0:
            os.write(self._freezer, b"1" if self._v2 else b"FROZEN")
            _freezing[id(self)] = (self, time.monotonic())
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

    def _stopped(self) -> bool:
        """Whether every task of its freezer cgroup has stopped (reading the state makes the v1 kernel
        check each task)."""
        os.lseek(self._state, 0, os.SEEK_SET)
        text = os.read(self._state, 256)
        return b"frozen 1" in text if self._v2 else text.startswith(b"FROZEN")

    def _settle(self, since: float) -> None:
        """Wait until it has stopped, or kill it once the wait has counted :data:`FREEZE_SECONDS` since
        ``since`` (its freezing, ``time.monotonic``)."""
        if self._dead or not self._frozen or self._state < 0:
            return
        pause, yields = 50e-6, 0
        deadline, last = since + FREEZE_SECONDS, time.monotonic()
        while not self._stopped():
            now = time.monotonic()
            deadline += max(0.0, now - last - _STEP_SECONDS)  # the part of a step the referee did not count
            last = now
            left = min(deadline, since + _FREEZE_CAP) - now
            if yields < _YIELDS:
                # The bot stops once it runs into the freezer, usually on the referee's own CPU (its worker's
                # cpuset): yielding it the CPU costs two context switches, a sleep the timer's slack (50 us+).
                os.sched_yield()
                yields += 1
                continue
            if left <= 0:
                # Killed by the jail's outer process, its pipes left open: the referee's next read or write
                # to it ends, and its seat is faulted with :meth:`exit_text`.
                self.unstoppable = True
                try:
                    os.kill(self.process.pid, signal.SIGUSR1)
                except ProcessLookupError:
                    pass
                return
            time.sleep(min(pause, left))
            pause = min(pause * 2, 0.005)

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
        for group in self.machine_cgroups:
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
        if self.unstoppable:
            return (f"killed for running on {FREEZE_SECONDS:g} s after its answer, when every other bot must "
                    "stop (a system call the freezer cannot interrupt)")
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
        for group in self.machine_cgroups:
            empty_cgroup(group)
        _freezing.pop(id(self), None)
        if self._state >= 0 and self._state != self._freezer:
            os.close(self._state)
        self._state = -1
        if self._freezer >= 0:
            os.close(self._freezer)
            self._freezer = -1
        shutil.rmtree(self._folder, ignore_errors=True)


@dataclass(frozen=True)
class StartOptions:
    """How :func:`start` starts a program.

    ``cwd`` is the folder it starts in (default: its private folder); ``env`` is added to a minimal
    environment (``PATH``, ``HOME``, ``LANG``); ``show`` are more of its own files than its command names;
    ``hide`` are paths it must not see; ``stderr`` is a file descriptor for its standard error (default:
    discarded), written by the jail up to ``limits.log_mb`` (or ``log_bytes``, when less is left of its
    entrant's share); ``level`` the walls (default: :func:`walls`); ``cpu`` the one CPU it runs on
    (default: the referee's); ``host`` the ref of a Python bot whose ``command`` is the bot host's: a fork
    server (:mod:`~arena.isolation.forkserver`) runs the host in place of the command, in the same walls.
    """

    cwd: str | None = None
    env: Mapping[str, str] | None = None
    limits: Limits = Limits()
    hide: tuple[str, ...] = ()
    show: tuple[str, ...] = ()
    stderr: int | None = None
    log_bytes: int | None = None
    level: str | None = None
    cpu: int | None = None
    host: str | None = None


@dataclass
class _Made:
    """What a start makes before the program runs (its private folder, its cgroups), undone if it cannot run."""

    folder: str
    cgroups: list[Path] = field(default_factory=list)
    controls: frozenset[str] = frozenset()
    freezer: Path | None = None
    freezer_fd: int = -1

    def make_cgroups(self, limits: Limits, cpus: list[int]) -> None:
        self.cgroups, self.controls, self.freezer = make_cgroups(limits, cpus)
        if self.freezer is not None:
            self.freezer_fd = os.open(self.freezer, os.O_RDWR)

    def undo(self) -> None:
        """Free what a start that failed had made."""
        if self.freezer_fd >= 0:
            os.close(self.freezer_fd)
        for group in self.cgroups:
            empty_cgroup(group)
        shutil.rmtree(self.folder, ignore_errors=True)


def start(command: list[str], options: StartOptions = StartOptions()) -> Sandboxed:
    """Start ``command`` inside walls (:class:`StartOptions`), with pipes on its standard input and output."""
    if not command:
        raise SandboxError("no command to start")
    level = options.level or walls()
    # The private folder: made here; in a fresh root its name is that of a folder in the private /tmp.  Its
    # name holds this process's pid, so that one left by a process killed outright can be swept.
    sweep_folders()
    made = _Made(tempfile.mkdtemp(prefix=f"arena-bot-{os.getpid()}-"))
    home = made.folder
    environment = {"PATH": PATH, "HOME": home, "LANG": "C.UTF-8", "TMPDIR": home, **(options.env or {})}
    cpus = [options.cpu] if options.cpu is not None else sorted(os.sched_getaffinity(0))
    uid = _new_uid() if level == "jail" or level == "rlimits" and os.geteuid() == 0 else None
    try:
        layout = _layout(command, options, environment, level, uid)
        if uid is not None:
            os.chown(home, uid, uid)
        if level == "jail":
            made.make_cgroups(options.limits, cpus)
    except BaseException as exc:
        made.undo()
        if isinstance(exc, OSError):
            raise SandboxError(f"cannot set up the sandbox: {os_error_line(exc)}") from None
        raise
    settings = _jail_settings(made, options, level, layout, uid, cpus, environment)
    try:
        process = _launch(settings, command, options)
    except OSError as exc:
        made.undo()
        raise SandboxError(f"cannot start the sandbox: {os_error_line(exc)}") from None
    return Sandboxed(process, _describe(level, uid, made.controls), made.cgroups, made.folder, options.limits,
                     made.freezer, made.freezer_fd)


def _launch(settings: dict[str, Any], command: list[str], options: StartOptions) -> subprocess.Popen[bytes] | Forked:
    """The jail around ``command``: forked by this process's fork server behind namespaces (no interpreter
    to start, and none to import the bot host into), else ``python jail.py`` of its own."""
    server = forkserver.server() if settings["namespaces"] else None
    if server is not None:
        return server.spawn(settings, command, options.host, options.stderr)
    return subprocess.Popen(
        [sys.executable, "-I", "-S", JAIL, marshal.dumps(settings).hex(), "--", *command],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=options.stderr if options.stderr is not None else subprocess.DEVNULL,
        cwd="/", env={"PATH": PATH}, start_new_session=True, close_fds=True, bufsize=0,
    )


def _layout(command: list[str], options: StartOptions, environment: dict[str, str], level: str,
            uid: int | None) -> Layout:
    """What a fresh root shows the program (an empty layout at the other levels); without namespaces, a
    :class:`SandboxError` when a bot run as a uid of its own could not read its files."""
    # As named and resolved: a folder shown may hold it under either name.
    hidden = sorted({os.path.abspath(p) for p in options.hide if os.path.exists(p)} |
                    {os.path.realpath(p) for p in options.hide if os.path.exists(p)})
    own, runtime = program_paths(command, options.cwd, environment)
    own = sorted({*own, *named_paths(command, options.cwd),
                  *(os.path.abspath(p) for p in options.show if os.path.exists(p))})
    if level in ("jail", "userns"):
        return layout_of(own, runtime, hidden, stage=uid is not None)
    if uid is not None:
        # No namespaces and no staging: every folder on the way to its files must be open to others.  A
        # shared place (a home folder, /tmp) that holds them is not the entrant's to open.
        named = [p for p in own if not os.path.isdir(p)]
        for path in own + runtime:
            if path in own and shared_place(path, named):
                continue
            if is_closed(path, whole=path in own) or not all(open_to_others(str(f)) for f in Path(path).parents):
                raise SandboxError(f"{path} cannot be read by others, and without namespaces a bot run by "
                                   "root runs as a uid of its own that reads only what others may: keep the "
                                   "bot in a folder of its own that others may read, outside any home folder")
    return Layout([], [], [])


def _jail_settings(made: _Made, options: StartOptions, level: str, layout: Layout, uid: int | None,
                   cpus: list[int], environment: dict[str, str]) -> dict[str, Any]:
    """What the jail (:mod:`arena.isolation.jail`) is told to build around the program."""
    limits, home, freezer = options.limits, made.folder, made.freezer
    fresh_root = level in ("jail", "userns")
    rlimits = {"NOFILE": limits.open_files, "FSIZE": limits.file_mb << 20, "CORE": 0}
    if not made.cgroups:
        rlimits[MEMORY_RLIMIT] = limits.memory_mb << 20
        if uid is not None or os.geteuid() != 0:
            # What the limit counts now (the uid's processes, or its user namespace's), plus what the bot may start.
            rlimits["NPROC"] = limits.processes + counted_processes(uid if uid is not None else os.geteuid(),
                                                                    level == "userns")
    return {
        "parent": os.getpid(),
        "namespaces": fresh_root,
        "userns": level == "userns",
        # The outer process joins all but the freezer's: frozen, it could not end the program when the
        # referee is gone (a frozen process dies only once thawed); the program joins that one.
        "cgroups": [str(group / "cgroup.procs") for group in made.cgroups if freezer is None or group != freezer.parent],
        "freezer": None if freezer is None else
        (str(freezer.with_name("cgroup.procs")), str(freezer), "0" if freezer.name == "cgroup.freeze" else "THAWED"),
        "binds": layout.binds,
        "links": layout.links,
        "files": etc_files(uid, home, layout.gids) if fresh_root else {},
        "tmp_mb": limits.tmp_mb,
        "home": home,
        "uid": uid,
        "gids": layout.gids,
        "rlimits": rlimits,
        "cwd": options.cwd or home,
        "cpus": cpus,
        "env": environment,
        "log_mb": None if options.stderr is None else limits.log_mb if options.log_bytes is None else
        min(limits.log_mb, options.log_bytes / (1 << 20)),
    }
