"""The judges' walls, each checked from inside a real sandboxed program: a fresh root that names nothing
else of the machine, a uid of its own (a staged copy of what others may not read), a /proc of its own processes, no /sys,
a cgroup namespace, the cpuset, the freezer, seccomp, the standard error drained past its cap, and a kill
that leaves nothing behind."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sandbox_levels import JAIL, USERNS, needs_jail  # the levels this machine gives, found once

from arena.isolation import cgroups, sandbox, staging
from arena.isolation.sandbox import Limits, StartOptions, start

ROOT = Path(sandbox.__file__).resolve().parents[2]
NAMESPACED = [pytest.param("jail", marks=needs_jail),
              pytest.param("userns", marks=pytest.mark.skipif(not USERNS, reason="user namespaces are refused here"))]
#: The system's Python, not the referee's: a bot of it is shown nothing of the arena's folders.
SYSTEM_PYTHON = shutil.which("python3", path=sandbox.PATH) or sys.executable
needs_system_python = pytest.mark.skipif(
    os.path.realpath(SYSTEM_PYTHON) == os.path.realpath(sys.executable),
    reason="the system's python3 is the referee's own, which is shown with the arena's folders")
CONTROLS = sandbox.machine_cgroups().controls if JAIL and sandbox.machine_cgroups() is not None else frozenset()


def _open_python() -> str:
    """A Python any uid may run (needed at the rlimits level by a referee run as root)."""
    for python in (sys.executable, SYSTEM_PYTHON):
        real = Path(os.path.realpath(python))
        if all(p.stat().st_mode & 0o005 == 0o005 for p in real.parents) and real.stat().st_mode & 0o001:
            return python
    return sys.executable


ALL_LEVELS = [*NAMESPACED, pytest.param("rlimits")]


def inside(script: str, *args: str, level: str | None = None, hide: tuple[str, ...] = (), cpu: int | None = None,
           python: str = SYSTEM_PYTHON, cwd: str | None = None, host: bool = False) -> tuple[int, str, str]:
    """Run a Python script in the sandbox: (exit status, its standard output, its walls).  ``host``: started
    as the bot host is (``-I -c`` with code that names ``arena.wire.bothost``), which is shown the arena."""
    command = [python, "-I", "-c", "# as arena.wire.bothost\n" + script] if host else [python, "-c", script]
    box = start([*command, *args], StartOptions(level=level, hide=hide, cpu=cpu, cwd=cwd, stderr=sys.stderr.fileno()))
    try:
        assert box.process.stdout is not None
        out = box.process.stdout.read().decode()
        code = box.wait(30)
        assert code is not None, "the program did not end"
        return code, out, box.walls
    finally:
        box.kill()


def _pids(marker: str) -> list[int]:
    """The processes whose last argument is ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")[-2:-1] == [marker.encode()]:
                    found.append(int(entry))
            except OSError:
                pass
    return found


def _cpu_ticks(pid: int) -> int:
    """The CPU time a process has used (user and system, in clock ticks), read from outside it."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return int(fields[11]) + int(fields[12])


# -- the fresh root ------------------------------------------------------------------------


@needs_system_python
@pytest.mark.parametrize("level", NAMESPACED)
def test_mountinfo_names_only_the_fresh_root_and_nothing_hidden(tmp_path, level):
    results = tmp_path / "results"
    results.mkdir()
    code, out, _ = inside("print(open('/proc/self/mountinfo').read())", level=level, hide=(str(results),),
                          cwd=str(tmp_path))
    assert code == 0
    lines = [line.split() for line in out.splitlines() if line]
    points = {fields[4] for fields in lines}
    # What each mount shows of its file system (for /proc/sys, that of proc: "/sys").
    sources = {fields[3] for fields in lines if fields[fields.index("-") + 1] != "proc"}
    assert {"/", "/tmp", "/usr", "/proc", "/dev/null", "/dev/shm"} <= points
    for path in points | sources:
        assert not path.startswith(("/work", "/root", "/home", "/tmp/", "/sys", str(tmp_path))), path
        assert "results" not in path
    assert all(point == "/" or point.startswith(("/tmp", "/usr", "/etc/", "/dev/", "/proc")) for point in points)


@needs_system_python
@pytest.mark.parametrize("level", NAMESPACED)
@pytest.mark.slow
def test_the_machine_s_files_are_absent_but_the_program_s_own(tmp_path, level):
    mine, other = tmp_path / "mine", tmp_path / "other"
    for folder in (mine, other):
        folder.mkdir()
        (folder / "bot.py").write_text("# an entrant\n")
    code, out, _ = inside(
        "import os, sys\n"
        # Named in its arguments, its own file is shown; another entrant's, named only here, is not.
        f"print([p for p in ('/etc/shadow', '/root', '/home', '/work', '/sys', '/var', '/opt', {str(other)!r})"
        " if os.path.exists(p)])\n"
        "print(sorted(os.listdir(os.path.dirname(sys.argv[1]))), open(sys.argv[1]).read().strip())\n"
        "print(sorted(os.listdir('/')))\n",
        str(mine / "bot.py"), level=level,
    )
    present, own, top = out.splitlines()
    assert code == 0
    assert present == "[]"
    assert own == "['bot.py'] # an entrant"
    assert set(eval(top)) <= {"bin", "dev", "etc", "lib", "lib32", "lib64", "libx32", "proc", "sbin", "tmp", "usr"}


@pytest.mark.parametrize("level", NAMESPACED)
def test_the_referee_s_python_sees_the_arena_but_not_a_folder_hidden_in_its_checkout(level):
    """The bot host needs the arena's packages: they are shown, not the rest of the checkout they come
    from (here the tests, hidden besides)."""
    hidden = ROOT / "tests"
    code, out, _ = inside(
        "import os, arena\nprint(arena.__file__)\n"
        f"print(os.path.exists({str(hidden)!r}), os.path.exists({str(ROOT / 'arena' / 'isolation' / 'sandbox.py')!r}),"
        f" os.path.exists({str(ROOT / 'pyproject.toml')!r}))\n"
        "print(open('/proc/self/mountinfo').read())",
        level=level, hide=(str(hidden),), python=sys.executable, host=True,
    )
    first, seen, *mounts = out.splitlines()
    assert code == 0
    assert first == str(ROOT / "arena" / "__init__.py")
    assert seen == "False True False"  # the packages only, not the rest of the checkout
    assert not any(str(hidden) in line for line in mounts)


@pytest.mark.parametrize("level", NAMESPACED)
def test_a_hidden_path_in_a_shown_folder_is_left_out_without_being_named(tmp_path, level):
    """The folder is shown entry by entry, the hidden one left out: a mount over it would name it."""
    entrant = tmp_path / "entrant"
    (entrant / "results").mkdir(parents=True)
    (entrant / "results" / "records.jsonl").write_text("the deal\n")
    (entrant / "bot.py").write_text("# an entrant\n")
    (entrant / "data").mkdir()
    code, out, _ = inside(
        f"import os\nprint(sorted(os.listdir({str(entrant)!r})))\nprint(open('/proc/self/mountinfo').read())",
        f"{entrant / 'bot.py'}:Bot", level=level, hide=(str(entrant / "results"),),
    )
    listed, *mounts = out.splitlines()
    assert code == 0
    assert listed == "['bot.py', 'data']"
    assert not any("results" in line for line in mounts)


@pytest.mark.parametrize("level", NAMESPACED)
@pytest.mark.parametrize("interpreter", ["referee's", "env python3"])
def test_a_script_is_shown_with_the_interpreter_its_first_line_names(tmp_path, level, interpreter):
    if interpreter == "referee's" and any(c.isspace() for c in sys.executable):
        pytest.skip(f"the kernel cuts a #! line at its first space, and this Python's path has one: {sys.executable}")
    script = tmp_path / "bot"
    first = f"#!{sys.executable}" if interpreter == "referee's" else "#!/usr/bin/env python3"
    script.write_text(f"{first}\nimport sys\nprint(sys.prefix)\n")
    script.chmod(0o755)
    box = start([str(script)], StartOptions(level=level, stderr=sys.stderr.fileno()))
    try:
        assert box.process.stdout is not None
        out = box.process.stdout.read().decode().strip()
        assert box.wait(30) == 0
    finally:
        box.kill()
    # `env python3` finds the system's python3 on the jail's PATH: its own prefix, not the referee's
    # virtual environment's, even when that environment was made from the same interpreter.
    system_prefix = subprocess.run([SYSTEM_PYTHON, "-c", "import sys; print(sys.prefix)"], capture_output=True,
                                   text=True, check=True).stdout.strip()
    assert out == (sys.prefix if interpreter == "referee's" else system_prefix)


@pytest.mark.parametrize("level", NAMESPACED)
def test_proc_shows_the_bot_s_own_processes_alone_and_there_is_no_sys(level):
    code, out, _ = inside(
        "import os, subprocess\n"
        "child = subprocess.Popen(['sleep', '5'])\n"
        "print(sorted(os.listdir('/proc')))\n"
        "print([name for name in ('sys', 'meminfo', 'stat', 'loadavg', 'keys', 'cpuinfo', 'net') "
        "if os.path.exists('/proc/' + name)])\n"
        "print(os.path.exists('/sys'), len(open('/proc/self/status').read()) > 0, os.getpid())\n"
        "child.kill()\n",
        level=level,
    )
    listed, machine, rest = out.splitlines()
    assert code == 0
    # Its processes (the program is PID 1 of its namespace, the sleep its child) and the two links.
    assert eval(listed) == sorted(["1", "2", "self", "thread-self"])
    assert eval(machine) == []
    assert rest == "False True 1"


@pytest.mark.parametrize("level", NAMESPACED)
def test_a_bot_sees_only_its_own_cgroup(level):
    code, out, _ = inside("print(open('/proc/self/cgroup').read())", level=level)
    lines = [line for line in out.splitlines() if line]
    assert code == 0 and lines
    assert all(line.endswith(":/") for line in lines), lines


@needs_jail
def test_the_jail_level_asks_the_kernel_to_favor_moves_into_cgroups():
    """With v1 cgroups, a hierarchy of no controller is mounted with ``favordynmods``, once, so that a
    jail's move into its cgroups does not wait for an RCU grace period (docs/explanation/speed.md)."""
    found = sandbox.machine_cgroups()
    if found is None or found.version != 1:
        pytest.skip("no v1 cgroups here: the jail makes no move that waits")
    if not cgroups.favor_moves():
        pytest.skip(f"the kernel refused to mount {cgroups.MOVES} with favordynmods (Linux before 6.0)")
    mounts = [line.split() for line in Path("/proc/self/mountinfo").read_text().splitlines()]
    at_moves = [fields for fields in mounts if fields[4] == str(cgroups.MOVES)]
    assert len(at_moves) == 1, at_moves  # once, not once per process that asked
    assert at_moves[0][-3:-1] == ["cgroup", "cgroup"] and "favordynmods" in at_moves[0][-1].split(",")


# -- a uid of its own, and staging ----------------------------------------------------------------


@needs_jail
def test_every_bot_process_runs_as_a_uid_of_its_own_never_root():
    boxes = [start([SYSTEM_PYTHON, "-c", "import os, sys\nprint(os.getuid(), os.getgid(), flush=True)\nsys.stdin.read()"])
             for _ in range(4)]
    try:
        ids = []
        for box in boxes:
            assert box.process.stdout is not None
            ids.append(tuple(int(n) for n in box.process.stdout.readline().split()))
    finally:
        for box in boxes:
            box.kill()
    uids = [uid for uid, _ in ids]
    assert len(set(uids)) == 4 and min(uids) >= sandbox.UID_BASE
    assert all(gid == uid for uid, gid in ids)


@needs_jail
@pytest.mark.parametrize("form", ["script", "file.py:Name"])
def test_an_entrant_others_may_not_read_runs_staged_under_a_uid_of_its_own(tmp_path, form):
    entrant = tmp_path / "entrant"
    entrant.mkdir(mode=0o700)
    (entrant / "results").mkdir()
    bot = entrant / "bot.py"
    bot.write_text("import os, sys\nprint(os.getuid(), sorted(os.listdir(os.path.dirname(__file__))))\n")
    bot.chmod(0o600)
    if form == "script":
        command = [SYSTEM_PYTHON, str(bot)]
    else:  # the bot host's form: its folder is shown (staged whole, the hidden path left out)
        command = [SYSTEM_PYTHON, "-c", "import runpy, sys; runpy.run_path(sys.argv[1].rpartition(':')[0])",
                   f"{bot}:Bot"]
    outs = []
    for _ in range(2):
        box = start(command, StartOptions(hide=(str(entrant / "results"),), stderr=sys.stderr.fileno()))
        try:
            assert box.process.stdout is not None
            outs.append(box.process.stdout.read().decode().split(maxsplit=1))
            assert box.wait(30) == 0
        finally:
            box.kill()
    (uid, listed), _ = outs
    assert int(uid) >= sandbox.UID_BASE
    assert eval(listed) == ["bot.py"]
    staged = staging.staging_folders[os.getpid()][1]
    assert sum(1 for key in staged if key[0] in (str(bot), str(entrant))) == 1  # copied once, then reused


@needs_jail
def test_an_entrant_s_symbolic_link_never_has_root_copy_what_others_may_not_read(tmp_path):
    """Named in its command, a link of the entrant's to a file of root's is refused, not staged; a link to a
    file others may read shows that file."""
    secret, shared = tmp_path / "secret", tmp_path / "shared"
    secret.write_text("root's\n")
    secret.chmod(0o600)
    shared.write_text("anyone's\n")
    entrant = tmp_path / "entrant"
    entrant.mkdir()
    (entrant / "data").symlink_to(secret)
    (entrant / "open").symlink_to(shared)
    with pytest.raises(sandbox.SandboxError) as refused:
        start([SYSTEM_PYTHON, "-c", "pass", str(entrant / "data")])
    assert "reached through a symbolic link" in str(refused.value)
    code, out, _ = inside("import sys\nprint(open(sys.argv[1]).read().strip())", str(entrant / "open"))
    assert code == 0 and out == "anyone's\n"


@needs_jail
def test_an_entrant_too_large_to_stage_is_refused_in_one_line(tmp_path, monkeypatch):
    bot = tmp_path / "big.py"
    bot.write_text("#" * 4096)
    bot.chmod(0o600)
    monkeypatch.setattr(staging, "STAGE_MB", 0)
    with pytest.raises(sandbox.SandboxError) as refused:
        start([SYSTEM_PYTHON, str(bot)])
    assert "larger than 0 MiB" in str(refused.value) and "\n" not in str(refused.value)


# -- CPU: the cpuset and the freezer -----------------------------------------------------------------


@needs_jail
def test_the_cpuset_keeps_a_bot_on_its_cpu_whatever_affinity_it_asks():
    if "cpuset" not in CONTROLS:
        pytest.skip("this machine has no cpuset cgroup")
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one CPU only: there is nowhere else to go")
    cpu = min(os.sched_getaffinity(0))
    code, out, walls = inside(
        "import os\n"
        "try:\n os.sched_setaffinity(0, range(1024))\nexcept OSError as e: print('refused', e.errno)\n"
        "print(sorted(os.sched_getaffinity(0)))\n",
        cpu=cpu,
    )
    assert code == 0 and "cpuset" in walls
    assert out.splitlines()[-1] == f"[{cpu}]"


def _spinner(marker: str, own_session: bool) -> str:
    """A program that leaves a spinning child (in a session of its own, with ``own_session``) and waits."""
    return ("import os, sys\n"
            "if os.fork() == 0:\n"
            f"    {'os.setsid()' if own_session else 'pass'}\n"
            f"    os.execv(sys.executable, [sys.executable, '-c', 'while True: pass', {marker!r}])\n"
            "print('ready', flush=True)\nsys.stdin.read()\n")


@pytest.mark.parametrize("level", ALL_LEVELS)
@pytest.mark.slow
def test_freeze_stops_every_process_of_a_bot_and_thaw_lets_it_run(level):
    """Its CPU time, read from outside, does not grow while it is frozen.  With the cgroup freezer that
    holds for a child in a session of its own; stopping the process group (the other levels) catches only
    the children that stay in it, as the walls say."""
    freezer = level == "jail" and "freezer" in CONTROLS
    marker = f"arena-test-spin-{os.getpid()}-{level}"
    python = _open_python() if level == "rlimits" else SYSTEM_PYTHON
    box = start([python, "-c", _spinner(marker, own_session=freezer)], StartOptions(level=level))
    try:
        assert box.process.stdout is not None
        assert box.process.stdout.readline() == b"ready\n"
        deadline = time.monotonic() + 5
        while not _pids(marker) and time.monotonic() < deadline:
            time.sleep(0.02)
        (pid,) = _pids(marker)
        time.sleep(0.2)
        box.freeze()
        time.sleep(0.2)  # the kernel finishes freezing on its own
        frozen = _cpu_ticks(pid)
        time.sleep(0.5)
        assert _cpu_ticks(pid) == frozen
        box.thaw()
        time.sleep(0.5)
        assert _cpu_ticks(pid) > frozen
        assert ("cgroup freezer" in box.walls) == freezer and ("SIGSTOP" in box.walls) == (not freezer)
    finally:
        box.kill()


@pytest.mark.parametrize("level", NAMESPACED)
@pytest.mark.slow
def test_kill_of_a_frozen_bot_leaves_no_process_and_no_cgroup(level):
    marker = f"arena-test-frozen-kill-{os.getpid()}-{level}"
    box = start([SYSTEM_PYTHON, "-c", _spinner(marker, own_session=True)], StartOptions(level=level))
    assert box.process.stdout is not None
    assert box.process.stdout.readline() == b"ready\n"
    time.sleep(0.2)
    assert _pids(marker)
    box.freeze()
    time.sleep(0.1)
    groups = list(box.machine_cgroups)
    box.kill()
    deadline = time.monotonic() + 5  # without cgroups to empty, kill() does not wait for the namespace's end
    while _pids(marker) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _pids(marker)
    assert groups == [] or not any(group.exists() for group in groups)
    if level == "jail" and CONTROLS:
        assert len(groups) == len(CONTROLS)


@pytest.mark.parametrize("level", NAMESPACED)
@pytest.mark.slow
def test_a_frozen_bot_dies_with_a_referee_killed_outright(level):
    marker = f"arena-test-orphaned-{os.getpid()}-{level}"
    referee = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time\nfrom arena.isolation import sandbox\n"
         f"box = sandbox.start([{SYSTEM_PYTHON!r}, '-c', {_spinner(marker, own_session=True)!r}], sandbox.StartOptions(level={level!r}))\n"
         "print(box.process.stdout.readline().decode().strip(), flush=True)\n"
         "time.sleep(0.5)\nbox.freeze()\nprint('frozen', flush=True)\ntime.sleep(60)\n"],  # its child started
        stdout=subprocess.PIPE, cwd=ROOT, text=True)
    try:
        assert referee.stdout is not None
        assert referee.stdout.readline() == "ready\n" and referee.stdout.readline() == "frozen\n"
        deadline = time.monotonic() + 5
        while not _pids(marker) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert _pids(marker)
    finally:
        referee.kill()
        referee.wait()
    deadline = time.monotonic() + 5
    while _pids(marker) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _pids(marker)


# -- standard error -------------------------------------------------------------------------------


@pytest.mark.parametrize("level", ALL_LEVELS)
def test_standard_error_past_its_cap_is_drained_and_dropped_with_one_line(tmp_path, level):
    """50 MiB to standard error: the program never blocks, its log holds the cap and one line, and its
    own file-size limit (1 MiB here) does not apply to the log, which the jail writes."""
    log = tmp_path / "bot.log"
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    python = _open_python() if level == "rlimits" else SYSTEM_PYTHON
    try:
        box = start([python, "-c", "import sys\nchunk = b'e' * (1 << 20)\n"
                     "for _ in range(50): sys.stderr.buffer.write(chunk)\nsys.stderr.flush()\nprint('done')"],
                    StartOptions(level=level, stderr=fd, limits=Limits(file_mb=1, log_mb=16)))
    finally:
        os.close(fd)
    try:
        assert box.process.stdout is not None
        assert box.process.stdout.read() == b"done\n"
        assert box.wait(30) == 0
    finally:
        box.kill()
    note = b"--- arena: standard error past 16 MiB dropped ---\n"
    data = log.read_bytes()
    assert len(data) == (16 << 20) + len(note)
    assert data.endswith(note) and data[:16 << 20] == b"e" * (16 << 20)


@pytest.mark.parametrize("level", ALL_LEVELS)
def test_kill_keeps_the_last_words_a_frozen_program_wrote_to_standard_error(tmp_path, level):
    """Frozen with the program, the jail had not yet copied them to the log: kill() lets it first."""
    log = tmp_path / "bot.log"
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    python = _open_python() if level == "rlimits" else SYSTEM_PYTHON
    try:
        box = start([python, "-c", "import sys, time\nsys.stderr.write('w' * 50000 + '\\n'); sys.stderr.flush()\n"
                     "print('ready', flush=True)\ntime.sleep(60)"], StartOptions(level=level, stderr=fd))
    finally:
        os.close(fd)
    assert box.process.stdout is not None
    assert box.process.stdout.readline() == b"ready\n"
    box.freeze()
    box.kill()
    assert log.read_text() == "w" * 50000 + "\n"


# -- seccomp, and the runtimes ---------------------------------------------------------------------


@pytest.mark.parametrize("level", ALL_LEVELS)
def test_every_bot_gets_the_seccomp_filter_where_the_machine_allows_one(level):
    text = sandbox.seccomp_text()
    python = _open_python() if level == "rlimits" else SYSTEM_PYTHON
    code, out, walls = inside("print(open('/proc/self/status').read())", level=level, python=python)
    status = dict(line.split(":\t", 1) for line in out.splitlines() if ":\t" in line)
    assert code == 0
    assert text in walls
    assert status["Seccomp"].strip() == ("0" if text.startswith("no seccomp") else "2")  # 2: a filter


def _runtime(name: str, tmp_path: Path) -> list[str] | None:
    """The command of a small program of each runtime that prints ``ok``, or None where it is missing."""
    if name == "node":
        return ["node", "-e", "console.log(require('fs').existsSync('/proc/self') ? 'ok' : 'no')"] \
            if shutil.which("node", path=sandbox.PATH) else None
    if name == "c":
        cc = shutil.which("cc") or shutil.which("gcc")
        if cc is None:
            return None
        (tmp_path / "bot.c").write_text('#include <stdio.h>\nint main(void) { puts("ok"); return 0; }\n')
        subprocess.run([cc, "-o", str(tmp_path / "bot"), str(tmp_path / "bot.c")], check=True)
        return [str(tmp_path / "bot")]
    if name == "java":
        if not (shutil.which("java", path=sandbox.PATH) and shutil.which("javac")):
            return None
        (tmp_path / "Main.java").write_text(
            'public class Main { public static void main(String[] a) { System.out.println("ok"); } }\n')
        subprocess.run([shutil.which("javac") or "javac", "-d", str(tmp_path), str(tmp_path / "Main.java")],
                       check=True)
        # Without its performance data: the JVM flock()s that file, which the seccomp filter refuses (a
        # channel between bots), and says so on standard output.
        return ["java", "-XX:-UsePerfData", "-cp", str(tmp_path), "Main"]
    rustc = shutil.which("rustc") or (os.path.expanduser("~/.cargo/bin/rustc") if
                                      os.path.exists(os.path.expanduser("~/.cargo/bin/rustc")) else None)
    if rustc is None:
        return None
    (tmp_path / "bot.rs").write_text('fn main() { println!("ok"); }\n')
    subprocess.run([rustc, "-o", str(tmp_path / "rbot"), str(tmp_path / "bot.rs")], check=True, capture_output=True)
    return [str(tmp_path / "rbot")]


@needs_jail
@pytest.mark.parametrize("name", ["node", "c", "java", "rust"])
@pytest.mark.slow
def test_other_runtimes_start_in_the_fresh_root(tmp_path, name):
    command = _runtime(name, tmp_path)
    if command is None:
        pytest.skip(f"no {name} on this machine")
    box = start(command, StartOptions(stderr=sys.stderr.fileno()))
    try:
        assert box.process.stdout is not None
        assert box.process.stdout.read() == b"ok\n"
        assert box.wait(60) == 0
    finally:
        box.kill()


def test_the_walls_line_names_every_wall():
    line = sandbox.describe("jail", 1_500_123, True)
    assert line.startswith("jail: fresh root, a uid of its own, PID/mount/network/IPC/UTS/cgroup namespaces, /proc of its own processes")
    assert sandbox.seccomp_text() in line
    assert "frozen off turn" in line
    assert sandbox.describe("userns").startswith("userns: fresh root, the user's own uid")
    assert "SIGSTOP of its process group" in sandbox.describe("rlimits")
    assert sandbox.walls_report().startswith(sandbox.walls() + ": ")


def test_the_short_walls_line_names_a_missing_or_weaker_wall_as_such(monkeypatch):
    """What a player's terminal shows: the level and a word a wall, never a stronger wall than the long line."""
    assert sandbox.short_walls(sandbox.describe("userns")).startswith("userns (fresh root, user's uid, namespaces, ")
    assert sandbox.short_walls(sandbox.describe("userns")).endswith(", rlimits, SIGSTOP)")
    monkeypatch.setattr(sandbox, "machine_cgroups", lambda: None)
    jail = sandbox.short_walls(sandbox.describe("jail", 1_500_123))
    assert jail.startswith("jail (fresh root, own uid, namespaces, ") and jail.endswith(", rlimits, SIGSTOP)")
    monkeypatch.setattr(sandbox, "seccomp_text", lambda: "no seccomp (libseccomp missing)")
    assert "no seccomp" in sandbox.short_walls(sandbox.describe("jail", 1_500_123))
    assert sandbox.short_walls(sandbox.describe("rlimits")).startswith("rlimits (referee's uid, no namespaces, ")


@needs_jail
def test_without_subset_pid_every_entry_of_proc_but_the_processes_is_masked(tmp_path):
    # A kernel before 5.8 refuses subset=pid: the jail's fallback, taken here by an option no kernel has.
    jail = Path(sandbox.JAIL)
    code = (
        "import importlib.machinery, os, sys\n"
        f"jail = importlib.machinery.SourceFileLoader('jail', {str(jail)!r}).load_module()\n"
        "jail.PROC_OPTIONS = 'arena-no-such-option'\n"
        f"root = {str(tmp_path)!r}\n"
        "jail.call('private', jail.mount(None, '/', None, jail.MS_REC | jail.MS_PRIVATE))\n"
        "os.mkdir(root + '/dev')\n"
        "open(root + '/dev/null', 'w').close()\n"
        "jail.bind('/dev/null', root + '/dev/null', '/dev/null', jail.MS_NOSUID | jail.MS_NOEXEC)\n"
        "jail.make_proc(root)\n"
        "def size(path):\n"
        "    return len(os.listdir(path)) if os.path.isdir(path) else len(open(path, 'rb').read(1 << 16))\n"
        "shown = {n: size(root + '/proc/' + n) for n in os.listdir(root + '/proc') if not n.isdigit() "
        "and not os.path.islink(root + '/proc/' + n)}\n"
        "print(len(shown), sum(shown.values()), open(root + '/proc/meminfo').read() == '')\n"
    )
    done = subprocess.run(["unshare", "--mount", "--pid", "--fork", sys.executable, "-c", code],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    entries, content, meminfo_empty = done.stdout.split()
    assert int(entries) > 20 and content == "0" and meminfo_empty == "True"


@pytest.mark.parametrize("level", NAMESPACED)
def test_a_working_folder_the_command_names_itself_is_shown_whole(tmp_path, monkeypatch, level):
    # As `exec:java -cp . Bot` run from the bot's folder: the folder is the bot's, named by its command.
    for name in ("Bot.class", "Bot$Json.class", "notes.txt"):
        (tmp_path / name).write_text("x")
    tmp_path.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    listing = "import os, sys; print(sorted(os.listdir(sys.argv[1])))"
    code, out, _ = inside(listing, ".", level=level, cwd=str(tmp_path))
    assert code == 0 and eval(out) == ["Bot$Json.class", "Bot.class", "notes.txt"]
    # Naming one file of it shows that file alone: the folder holds more than the command names.
    code, out, _ = inside("import os; print(sorted(os.listdir('.')), open('notes.txt').read())", "notes.txt",
                          level=level, cwd=str(tmp_path))
    assert code == 0 and out.split() == ["['notes.txt']", "x"]
