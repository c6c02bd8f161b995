"""The sandbox: each wall a bot program runs inside, checked from inside it, and a teardown that leaves nothing."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest
from sandbox_levels import JAIL, USERNS, needs_jail  # the levels this machine gives, found once

from arena.isolation import sandbox
from arena.isolation.sandbox import Limits, StartOptions, start


def _open_python() -> str:
    """A Python any uid may run: what a bot of a referee run as root needs where nothing can be staged
    (no namespaces).  The system's, when the referee's own is closed to others (under /root, say)."""
    for python in (sys.executable, "/usr/bin/python3"):
        real = Path(os.path.realpath(python))
        if real.exists() and all(p.stat().st_mode & 0o005 == 0o005 for p in real.parents) and \
                real.stat().st_mode & 0o001:
            return python
    return sys.executable


OPEN_PYTHON = _open_python()
#: The levels with namespaces this machine allows, for the tests of what namespaces give.
NAMESPACED = [pytest.param("jail", marks=needs_jail),
              pytest.param("userns", marks=pytest.mark.skipif(not USERNS, reason="user namespaces are refused here"))]


def run(script: str, *, level: str | None = None, limits: Limits = Limits(), hide: tuple[str, ...] = (),
        env: dict[str, str] | None = None, cwd: str | None = None, timeout: float = 20,
        python: str = sys.executable) -> tuple[int, str, str]:
    """Run a Python script in the sandbox: (exit status, its standard output, its walls line)."""
    box = start([python, "-c", script], StartOptions(level=level, limits=limits, hide=hide, env=env, cwd=cwd,
                stderr=sys.stderr.fileno()))
    try:
        assert box.process.stdout is not None
        out = box.process.stdout.read().decode()
        code = box.wait(timeout)
        assert code is not None, "the program did not end"
        return code, out, box.walls
    finally:
        box.kill()


@pytest.mark.parametrize("level", NAMESPACED)
def test_the_jail_is_pid_1_of_its_own_namespaces_without_network(level):
    code, out, walls = run(
        "import os, socket\n"
        "print(os.getpid(), sorted(p for p in os.listdir('/proc') if p.isdigit()))\n"
        "print(socket.gethostname())\n"
        "try:\n socket.create_connection(('127.0.0.1', 22), timeout=1); print('connected')\n"
        "except OSError as e: print('no network', e.errno)\n",
        level=level,
    )
    pid, hostname, network = out.splitlines()
    assert code == 0 and walls.startswith(f"{level}: ")
    assert pid == "1 ['1']"  # it is alone: no referee, no other bot to see in /proc
    assert hostname == "arena-bot"
    assert network.startswith("no network")


@pytest.mark.parametrize("level", NAMESPACED)
def test_files_are_read_only_but_for_its_private_tmp_and_hidden_paths_are_absent(tmp_path, level):
    secret = tmp_path / "results"
    secret.mkdir()
    (secret / "records.jsonl").write_text("the deal\n")
    marker = f"arena-test-{os.getpid()}"
    code, out, _ = run(
        "import errno, os\n"
        f"print(os.path.exists({str(secret)!r}))\n"
        # Read-only: a write fails with EROFS (statvfs, which would say so, is refused to a bot).
        "def read_only(p):\n"
        "    try:\n"
        "        os.mkdir(p + '/arena-probe')\n"
        "    except OSError as exc:\n"
        "        return exc.errno == errno.EROFS\n"
        "    return False\n"
        "print([read_only(p) for p in ('/', '/usr', '/etc', '/tmp')])\n"
        # Its /tmp is its own: what it writes there never reaches the machine's /tmp.
        f"open('/tmp/{marker}', 'w').write('x')\n"
        "home = os.environ['HOME']; open(os.path.join(home, 'mine'), 'w').write('ok')\n"
        "print(home == os.getcwd() == os.environ['TMPDIR'], open(os.path.join(home, 'mine')).read())\n"
        "print(sorted(os.environ))\n",
        hide=(str(secret),), level=level,
    )
    hidden, read_only, home, names = out.splitlines()
    assert code == 0
    assert hidden == "False"
    assert read_only == "[True, True, True, False]"
    assert home == "True ok"
    assert names == "['HOME', 'LANG', 'PATH', 'PWD', 'TMPDIR']" or names == "['HOME', 'LANG', 'PATH', 'TMPDIR']"
    assert not Path(f"/tmp/{marker}").exists()


@pytest.mark.parametrize("level", NAMESPACED)
def test_a_bot_runs_without_capabilities_as_a_uid_of_its_own_never_root(level):
    code, out, walls = run("import os, pwd\nprint(os.getuid(), pwd.getpwuid(os.getuid()).pw_name)\n"
                           "print(open('/proc/self/status').read())", level=level)
    uid, name = out.splitlines()[0].split()
    status = dict(line.split(":\t", 1) for line in out.splitlines()[1:] if ":\t" in line)
    assert code == 0
    assert status["CapEff"].strip() == status["CapPrm"].strip() == status["CapBnd"].strip() == "0" * 16
    assert status["NoNewPrivs"].strip() == "1"
    assert name == "bot"  # its /etc/passwd names it (Java, for one, asks)
    if level == "jail":
        assert int(uid) >= sandbox.UID_BASE and "a uid of its own" in walls
    else:
        assert uid == "0" and "the user's own uid" in walls  # root of its user namespace only


@needs_jail
def test_an_executable_readable_by_all_runs_under_a_uid_of_its_own():
    box = start(["sh", "-c", "id -u"])
    try:
        assert box.process.stdout is not None
        uid = int(box.process.stdout.read())
        assert uid >= sandbox.UID_BASE and "a uid of its own" in box.walls
    finally:
        box.kill()


@needs_jail
def test_memory_over_the_limit_is_killed_and_said_so():
    box = start([sys.executable, "-c", "x = bytearray(400 << 20); x[::4096] = b'x' * len(x[::4096])"],
                StartOptions(limits=Limits(memory_mb=128)))
    try:
        assert box.wait(30) is not None
        assert box.exit_text() == "killed for using more than its memory limit of 128 MiB"
    finally:
        box.kill()


def test_processes_are_limited():
    code, out, _ = run(
        "import os, time\nn = 0\n"
        "try:\n while n < 500:\n  if os.fork() == 0:\n   time.sleep(30); os._exit(0)\n  n += 1\n"
        "except OSError as e: print('stopped at', n, e.errno)\n",
        limits=Limits(processes=20),
    )
    assert code == 0
    words = out.split()
    assert words[:2] == ["stopped", "at"] and int(words[2]) < 20


def test_open_files_and_file_sizes_are_limited():
    code, out, _ = run(
        "import os, resource\n"
        "print(resource.getrlimit(resource.RLIMIT_NOFILE), resource.getrlimit(resource.RLIMIT_FSIZE),"
        " resource.getrlimit(resource.RLIMIT_CORE))",
        limits=Limits(open_files=32, file_mb=8),
    )
    assert code == 0 and out.strip() == f"(32, 32) ({8 << 20}, {8 << 20}) (0, 0)"


def test_the_weaker_level_still_gets_a_session_limits_and_a_private_folder():
    code, out, walls = run(
        # The session is the jail's, whose outer process is its parent: not the referee's.
        f"import os, resource\nprint(os.getsid(0) == os.getppid() != {os.getsid(0)},"
        " resource.getrlimit(resource.RLIMIT_DATA)[0] >> 20)\n"
        "print(os.getcwd() == os.environ['HOME'], sorted(os.listdir('.')))",
        level="rlimits", limits=Limits(memory_mb=512), python=OPEN_PYTHON,
    )
    assert code == 0 and walls.startswith("rlimits: ")
    assert out.splitlines() == ["True 512", "True []"]


#: Reserves 16 GiB of address space as a JVM's heap or Go's arenas are (PROT_NONE, MAP_NORESERVE), then writes
#: 512 MiB; prints what each got.
RESERVE_THEN_WRITE = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
address = libc.mmap(None, 16 << 30, 0, 0x02 | 0x20 | 0x4000, -1, 0)
print("reserved" if address not in (None, ctypes.c_void_p(-1).value) else "refused")
try:
    held = bytearray(512 << 20)
    print("wrote")
except MemoryError:
    print("MemoryError")
"""


@pytest.mark.parametrize("level", [pytest.param("userns", marks=pytest.mark.skipif(not USERNS, reason="user namespaces "
                                                                                    "are refused here")), "rlimits"])
def test_without_a_memory_cgroup_the_limit_counts_memory_written_not_address_space_reserved(level):
    """Runtimes that reserve gigabytes at start (the JVM, Go, .NET, V8) start; writing past the limit is refused."""
    code, out, walls = run(RESERVE_THEN_WRITE, level=level, limits=Limits(memory_mb=256), python=OPEN_PYTHON)
    assert code == 0 and out.split() == ["reserved", "MemoryError"]
    assert "rlimits memory (RLIMIT_DATA: memory written, not address space reserved)" in walls


def test_as_root_without_namespaces_a_program_others_may_not_read_is_refused_in_one_line(tmp_path):
    """Without a mount namespace nothing can be staged for the bot's uid, and it never runs as root."""
    if os.geteuid() != 0:
        pytest.skip("only a referee run as root gives a bot a uid of its own without namespaces")
    entrant = tmp_path / "entrant"
    entrant.mkdir(mode=0o700)
    (entrant / "bot.py").write_text("print('ran')\n")
    with pytest.raises(sandbox.SandboxError) as refused:
        start([OPEN_PYTHON, str(entrant / "bot.py")], StartOptions(level="rlimits"))
    assert "cannot be read by others" in str(refused.value) and "\n" not in str(refused.value)


@pytest.mark.parametrize("level", ["jail", "rlimits"])
@pytest.mark.slow
def test_kill_ends_everything_it_started_and_removes_its_folder(level):
    if level == "jail" and not JAIL:
        pytest.skip("the jail needs root and Linux namespaces, which this machine refuses")
    marker = f"arena-test-orphan-{os.getpid()}-{level}"
    python = OPEN_PYTHON if level == "rlimits" else sys.executable
    box = start([python, "-c",
                 "import os, subprocess, sys, time\n"
                 f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)', {marker!r}])\n"
                 "if os.fork() == 0:\n os.setsid()\n"
                 f" os.execv(sys.executable, [sys.executable, '-c', 'import time; time.sleep(60)', {marker!r}])\n"
                 "print(os.environ['HOME'], flush=True)\ntime.sleep(60)\n"],
                StartOptions(level=level))
    assert box.process.stdout is not None
    home = box.process.stdout.readline().decode().strip()
    time.sleep(0.3)
    assert _running(marker) >= 1
    box.kill()
    deadline = time.monotonic() + 5
    while _running(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    if level == "rlimits":
        # Without namespaces or cgroups a program that left its session is out of reach: docs/explanation/sandbox.md says so.
        for pid in _pids(marker):
            os.kill(pid, 9)
    else:
        assert _running(marker) == 0
    assert home and not Path(home).exists()
    box.kill()  # twice is harmless


def _pids(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if marker.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                    found.append(int(entry))
            except OSError:
                pass
    return found


def _running(marker: str) -> int:
    return len(_pids(marker))


def test_a_missing_program_is_a_sandbox_error_line():
    box = start(["/no/such/program"], StartOptions(stderr=None))
    try:
        assert box.wait(10) == sandbox.EXIT_JAIL
        assert box.exit_text() == "the sandbox could not start it (see its log)"
    finally:
        box.kill()


def as_nobody(script: str) -> str:
    """Run ``script`` as a user of no rights (nobody) with the system's Python; what it printed."""
    python = "/usr/bin/python3"
    if os.geteuid() != 0 or not os.access(python, os.X_OK) or not Path("/usr/sbin/runuser").exists():
        pytest.skip("needs root (to become nobody), /usr/bin/python3 and runuser")
    import subprocess

    root = Path(sandbox.__file__).resolve().parents[2]
    if not all(parent.stat().st_mode & 0o001 for parent in [root, *root.parents]):
        pytest.skip(f"{root} cannot be reached by nobody")
    done = subprocess.run(["/usr/sbin/runuser", "-u", "nobody", "--", python, "-c", script], cwd="/",
                          env={"PATH": sandbox.PATH, "PYTHONPATH": str(root)}, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_without_root_the_strongest_level_is_a_user_namespace():
    """Without root, the walls come from a user namespace."""
    level, inside = as_nobody(
        "from arena.isolation import sandbox; print(sandbox.walls()); box = sandbox.start(['sh', '-c', 'echo $$; id -u']);"
        "print(box.process.stdout.read().decode().split()); box.kill()").splitlines()
    assert level == ("userns" if USERNS else "rlimits")
    if USERNS:
        assert inside == "['1', '0']"  # PID 1 of its own namespace; uid 0 there is nobody outside


def test_without_root_a_bot_starts_no_more_processes_than_its_limit_whatever_its_user_runs_besides():
    """A user running 30 processes besides: its bot (which tries to start 500) still stops below 20.  In a
    user namespace (Linux 5.14 on) the limit counts that namespace's processes alone, not the user's."""
    forker = ("import os, time\nn = 0\ntry:\n while n < 500:\n  if os.fork() == 0:\n   time.sleep(30); os._exit(0)\n"
              "  n += 1\nexcept OSError as e: print('stopped at', n)\n")
    out = as_nobody(
        "import subprocess; from arena.isolation import sandbox; from arena.isolation.limits import Limits\n"
        "others = [subprocess.Popen(['sleep', '60']) for _ in range(30)]\n"
        f"box = sandbox.start(['/usr/bin/python3', '-c', {forker!r}], sandbox.StartOptions(limits=Limits(processes=20)))\n"
        "print(box.process.stdout.read().decode().strip()); box.kill()\n"
        "for other in others: other.kill()\n")
    words = out.split()
    assert words[:2] == ["stopped", "at"] and int(words[2]) < 20, out
