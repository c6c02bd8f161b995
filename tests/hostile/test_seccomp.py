"""The seccomp filter (arena/isolation/seccomp.py): what it denies, with which errno, and what a bot still does.

Every filtered check runs in a child Python that sets no_new_privs, installs the filter and then runs
the code under test, so the test process itself is never filtered.  Calls are made by number (looked
up through libseccomp, as the filter does) so that no wrapper of glibc's decides what reaches the kernel.
"""

from __future__ import annotations

import ctypes
import fcntl
import importlib.util
import os
import platform
import random
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import arena

SECCOMP = Path(arena.__file__).parent / "isolation" / "seccomp.py"


def _load():
    spec = importlib.util.spec_from_file_location("arena_seccomp_under_test", SECCOMP)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


seccomp = _load()


def _unloadable() -> str | None:
    try:
        ctypes.CDLL(seccomp.LIBRARY)
    except OSError as exc:
        return f"libseccomp cannot be loaded here: {exc}"
    return None


needs_libseccomp = pytest.mark.skipif(_unloadable() is not None, reason=str(_unloadable()))

# Run in the child before the code under test: `nr(name)`, `call(name, *args)` -> the errno's name or
# "ok", and the filter installed (or not, with FILTER = False, to see what the kernel says unfiltered).
PRELUDE = """
import ctypes, errno, importlib.util, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
lib = ctypes.CDLL("libseccomp.so.2")
lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]

def nr(name):
    number = lib.seccomp_syscall_resolve_name(name.encode())
    assert number >= 0, name
    return number

def call(name, *args):
    result = libc.syscall(nr(name), *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    if result == 0 and name == "clone":
        os._exit(0)  # a child the filter failed to stop
    return "ok" if result >= 0 else errno.errorcode[ctypes.get_errno()]

if FILTER:
    assert libc.prctl(38, 1, 0, 0, 0) == 0
    spec = importlib.util.spec_from_file_location("arena_seccomp", SECCOMP)
    seccomp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(seccomp)
    print(seccomp.install(), file=sys.stderr)
"""


def run(code: str, filtered: bool = True, timeout: float = 60) -> subprocess.CompletedProcess:
    source = f"FILTER = {filtered}\nSECCOMP = {str(SECCOMP)!r}\n" + PRELUDE + textwrap.dedent(code)
    return subprocess.run([sys.executable, "-I", "-c", source], capture_output=True, text=True, timeout=timeout)


def outputs(code: str, filtered: bool = True) -> list[str]:
    result = run(code, filtered)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


CLONE_NEWUSER = 0x1000_0000
SIGCHLD = 17

# (what, code printing the outcome of one call, what it fails with under the filter)
DENIALS = [
    ("keyctl", "print(call('keyctl', 0, -4, 0))", "ENOSYS"),  # KEYCTL_GET_KEYRING_ID of the user keyring
    ("add_key", "print(call('add_key', b'arena-no-such-type', b'arena-test', b'x', 1, -4))", "ENOSYS"),
    ("request_key", "print(call('request_key', b'user', b'arena-test', None, 0))", "ENOSYS"),
    ("unshare CLONE_NEWUSER", f"print(call('unshare', {CLONE_NEWUSER}))", "ENOSYS"),
    ("clone CLONE_NEWUSER", f"print(call('clone', {CLONE_NEWUSER | SIGCHLD}, 0, 0, 0, 0))", "EPERM"),
    ("clone3", "print(call('clone3', None, 0))", "ENOSYS"),
    ("setns", "print(call('setns', -1, 0))", "ENOSYS"),
    ("mount", "print(call('mount', b'none', b'/arena-no-such-folder', b'tmpfs', 0, None))", "ENOSYS"),
    ("umount2", "print(call('umount2', b'/arena-no-such-folder', 0))", "ENOSYS"),
    ("pivot_root", "print(call('pivot_root', b'/arena-no-such-folder', b'/arena-no-such-folder'))", "ENOSYS"),
    # The child keeps off the test's pipe: unfiltered, a traced child can outlive the call's process.
    ("ptrace PTRACE_ATTACH", "import subprocess\nchild = subprocess.Popen(['sleep', '30'], stdout=-3, stderr=-3)\n"
     "print(call('ptrace', 16, child.pid, 0, 0))\nchild.kill()", "ENOSYS"),
    ("process_vm_readv", "print(call('process_vm_readv', os.getppid(), None, 0, None, 0, 0))", "ENOSYS"),
    ("bpf", "print(call('bpf', 5, None, 0))", "ENOSYS"),  # BPF_PROG_LOAD without a program
    ("perf_event_open", "print(call('perf_event_open', None, 0, -1, -1, 0))", "ENOSYS"),
    ("io_uring_setup", "print(call('io_uring_setup', 1, None))", "ENOSYS"),
    ("userfaultfd", "print(call('userfaultfd', 0))", "ENOSYS"),
    ("init_module", "print(call('init_module', None, 0, b''))", "ENOSYS"),
    ("open_by_handle_at", "print(call('open_by_handle_at', -1, None, 0))", "ENOSYS"),
    ("syslog", "print(call('syslog', 10, None, 0))", "ENOSYS"),  # SYSLOG_ACTION_SIZE_BUFFER
    ("clock_settime", "print(call('clock_settime', 0, None))", "ENOSYS"),
    ("sched_setaffinity", "print(call('sched_setaffinity', 0, 0, None))", "EPERM"),
    ("inotify_init1", "print(call('inotify_init1', 0))", "ENOSYS"),
    ("fanotify_init", "print(call('fanotify_init', 0, 0))", "ENOSYS"),
    # Unfiltered, this could make the kernel load the vsock module: checked filtered only.
    ("socket AF_VSOCK", "print(call('socket', 40, 1, 0))", "EAFNOSUPPORT"),
    ("personality ADDR_NO_RANDOMIZE", "print(call('personality', 0x0040000))", "EPERM"),
    # The page cache as a channel (tests/hostile/test_pagecache.py has the bots' side).
    ("mincore", "print(call('mincore', 0, 4096, None))", "ENOSYS"),
    # Machine-wide resources no cgroup charges, and state shared with other processes.
    ("io_setup", "print(call('io_setup', 1, (ctypes.c_ulong * 1)()))", "ENOSYS"),
    ("io_submit", "print(call('io_submit', 0, 0, None))", "ENOSYS"),
    ("memfd_create", "print(call('memfd_create', b'arena', 0))", "ENOSYS"),
    ("msgget", "print(call('msgget', 0, 0o1600))", "ENOSYS"),  # IPC_PRIVATE | IPC_CREAT
    ("shmget", "print(call('shmget', 0, 4096, 0o1600))", "ENOSYS"),
    ("mq_open", "print(call('mq_open', b'arena-test', 0, 0, None))", "ENOSYS"),
    ("sync", "print(call('sync'))", "ENOSYS"),
    ("adjtimex", "print(call('adjtimex', (ctypes.c_char * 208)()))", "ENOSYS"),
    ("socket AF_ALG", "print(call('socket', 38, 5, 0))", "EAFNOSUPPORT"),
    ("socket AF_PACKET", "print(call('socket', 17, 3, 0))", "EAFNOSUPPORT"),
    # Counters of the whole machine a bot could read: a socket's cookie, a pidfd's inode number.
    ("getsockopt SO_COOKIE", "import socket\ns = socket.socket(socket.AF_UNIX)\n"
     "print(call('getsockopt', s.fileno(), 1, 57, (ctypes.c_char * 8)(), ctypes.byref(ctypes.c_int(8))))",
     "ENOPROTOOPT"),
    ("pidfd_open", "print(call('pidfd_open', os.getpid(), 0))", "ENOSYS"),
    ("statfs", "print(call('statfs', b'/', (ctypes.c_char * 120)()))", "ENOSYS"),
    ("clone CLONE_PIDFD", f"print(call('clone', 0x1000 | {SIGCHLD}, 0, (ctypes.c_int * 1)(), 0, 0))", "EPERM"),
    ("socket AF_INET", "print(call('socket', 2, 1, 0))", "EAFNOSUPPORT"),
    ("socket AF_NETLINK", "print(call('socket', 16, 3, 0))", "EAFNOSUPPORT"),
    ("socket past AF_MAX", "print(call('socket', 1000, 1, 0))", "EAFNOSUPPORT"),
    ("preadv2 RWF_NOWAIT", "print(call('preadv2', -1, None, 0, 0, 0, 0x8))", "ENOTSUP"),  # EOPNOTSUPP, as Python names it
    ("pwritev2 RWF_NOWAIT", "print(call('pwritev2', -1, None, 0, 0, 0, (1 << 32) | 0x9))", "ENOTSUP"),
]


@needs_libseccomp
@pytest.mark.parametrize(("what", "code", "expected"), DENIALS, ids=[d[0] for d in DENIALS])
def test_a_denied_call_fails_with_its_errno(what, code, expected):
    assert outputs(code) == [expected]
    if os.geteuid() == 0 and not what.startswith(("socket", "sync", "msgget", "shmget")):
        # Not the kernel's own answer: without the filter, root's same call does something else (another
        # user may get EPERM from the kernel itself).
        unfiltered = outputs(code, filtered=False)
        # A kernel built without the call (init_module without modules) gives ENOSYS itself.
        assert unfiltered != [expected] or what == "init_module"


@needs_libseccomp
def test_clone_with_any_namespace_flag_is_denied_and_plain_clone_is_not():
    flags = [0x80, 0x2_0000, 0x200_0000, 0x400_0000, 0x800_0000, 0x1000_0000, 0x2000_0000, 0x4000_0000]
    code = f"""
    for flag in {flags}:
        print(call('clone', flag | {SIGCHLD}, 0, 0, 0, 0))
    pid = libc.syscall(nr('clone'), ctypes.c_long({SIGCHLD}), 0, 0, 0, 0)
    if pid == 0:
        os._exit(7)
    print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
    """
    assert outputs(code) == ["EPERM"] * len(flags) + ["7"]


@needs_libseccomp
def test_a_command_with_high_bits_set_is_the_same_command_to_the_filter():
    # The kernel reads fcntl's command and personality's value from the low 32 bits only.
    code = """
    import tempfile
    with tempfile.TemporaryFile() as f:
        lock = (ctypes.c_char * 64)()
        lock[0] = 1  # F_WRLCK
        print(call('fcntl', f.fileno(), (1 << 32) | 5, lock))  # F_GETLK
    print(call('personality', (1 << 32) | 0x0040000))
    """
    assert outputs(code) == ["ENOLCK", "EPERM"]


@needs_libseccomp
def test_locks_leases_and_watches_on_a_shared_file_fail():
    code = """
    import fcntl, struct, tempfile
    F_OFD_SETLK, F_SETLEASE, F_NOTIFY = 37, 1024, 1026
    def outcome(action):
        try:
            action()
            return "ok"
        except OSError as exc:
            return errno.errorcode[exc.errno]
    lock = struct.pack("hhqqi4x", fcntl.F_RDLCK, 0, 0, 0, 0)
    with open(sys.executable, "rb") as shared:
        print(outcome(lambda: fcntl.flock(shared, fcntl.LOCK_SH)))
        print(outcome(lambda: fcntl.fcntl(shared, fcntl.F_SETLK, lock)))
        print(outcome(lambda: fcntl.fcntl(shared, fcntl.F_SETLKW, lock)))
        print(outcome(lambda: fcntl.fcntl(shared, fcntl.F_GETLK, lock)))
        print(outcome(lambda: fcntl.fcntl(shared, F_OFD_SETLK, lock)))
        print(outcome(lambda: fcntl.fcntl(shared, F_SETLEASE, fcntl.F_RDLCK)))
        print(outcome(lambda: fcntl.fcntl(shared, fcntl.F_GETFD)))
    folder = os.open(os.path.dirname(sys.executable), os.O_RDONLY)
    print(outcome(lambda: fcntl.fcntl(folder, F_NOTIFY, 1)))  # DN_ACCESS
    """
    # Taking a lock "works" and holds nothing; asking about locks and leases fails.
    assert outputs(code) == ["ok", "ok", "ok", "ENOLCK", "ok", "ENOLCK", "ok", "EINVAL"]
    assert outputs(code, filtered=False)[:5] == ["ok"] * 5


@needs_libseccomp
def test_a_lock_taken_under_the_filter_is_held_by_nobody(tmp_path):
    shared = tmp_path / "shared"
    shared.write_bytes(b"x")
    code = f"""
    import fcntl
    with open({str(shared)!r}, "rb") as f:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        print("held")
        sys.stdout.flush()
        sys.stdin.readline()
    """
    source = f"FILTER = True\nSECCOMP = {str(SECCOMP)!r}\n" + PRELUDE + textwrap.dedent(code)
    holder = subprocess.Popen([sys.executable, "-I", "-c", source], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with open(shared, "rb") as f:  # unfiltered: would fail with EWOULDBLOCK if the lock were held
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        holder.communicate("\n")


@needs_libseccomp
def test_only_dockers_personalities_are_allowed():
    values = [*seccomp.PERSONALITIES, 0x1, 0x0040000, 0x0100000, 0x0400000, 0x8000_0000, 0xFFFF_FFFE, 0x7FFF_FFFF]
    code = f"""
    for value in {values}:
        print(call('personality', value))
        libc.syscall(nr('personality'), ctypes.c_long(0))
    """
    allowed = len(seccomp.PERSONALITIES)
    assert outputs(code) == ["ok"] * allowed + ["EPERM"] * (len(values) - allowed)


def test_the_personality_rules_refuse_exactly_all_but_dockers_values():
    rules = seccomp.RULES["personality"]
    assert all(rule.mask <= 0xFFFF_FFFF for rule in rules)

    def denied(value: int) -> bool:
        return any(value & rule.mask == rule.value for rule in rules)

    # Every value one or two bits away from an allowed one (and from 0), the small ones, and random ones.
    bits = [1 << bit for bit in range(32)]
    near = {allowed ^ a ^ b for allowed in seccomp.PERSONALITIES for a in [0, *bits] for b in [0, *bits]}
    chance = random.Random(20)
    samples = near | set(range(1 << 12)) | {chance.getrandbits(32) for _ in range(100_000)}
    for value in samples:
        assert denied(value) == (value not in seccomp.PERSONALITIES), hex(value)


@needs_libseccomp
def test_what_a_bot_does_still_works():
    code = """
    import mmap, socket, subprocess, threading
    done = []
    thread = threading.Thread(target=lambda: done.append(os.getpid()))
    thread.start(); thread.join()
    print("thread", done == [os.getpid()])
    pid = os.fork()
    if pid == 0:
        os._exit(3)
    print("fork", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 3)
    print("subprocess", subprocess.run([sys.executable, "-c", "print(6 * 7)"], capture_output=True).stdout == b"42\\n")
    memory = mmap.mmap(-1, 1 << 20)
    memory[:5] = b"tiles"
    print("mmap", memory[:5] == b"tiles")
    with open(sys.executable, "rb") as f:
        print("read", f.read(4) == b"\\x7fELF")
    a, b = socket.socketpair()
    a.sendall(b"rack")
    print("socketpair", b.recv(4) == b"rack")
    print("personality", call("personality", 0xFFFFFFFF) == "ok")
    print("ioctl", call("ioctl", 0, 0x5413, (ctypes.c_ushort * 4)()) in ("ok", "ENOTTY"))  # TIOCGWINSZ
    """
    result = run(code)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 8 and all(line.endswith(" True") for line in lines), lines


@needs_libseccomp
def test_multiprocessing_with_fork_works_under_the_filter():
    code = """
    import multiprocessing
    with multiprocessing.get_context("fork").Pool(2) as pool:
        print(sum(pool.map(abs, range(-50, 50))))
    """
    assert outputs(code) == ["2500"]


@needs_libseccomp
@pytest.mark.skipif(platform.machine() != "x86_64", reason="the i386 and x32 ABIs are x86-64's")
def test_a_call_through_another_abi_kills_the_process():
    # `mov eax, 20 (getpid in the i386 ABI); int 0x80; ret`, and an x32 call (bit 30 of the number).
    code = """
    import mmap
    if sys.argv[1:] == ["x32"]:
        libc.syscall(ctypes.c_long((1 << 30) | nr("getpid")))
    else:
        page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
        page.write(bytes([0xB8, 20, 0, 0, 0, 0xCD, 0x80, 0xC3]))
        address = ctypes.addressof(ctypes.c_char.from_buffer(page))
        print(ctypes.CFUNCTYPE(ctypes.c_int)(address)() == os.getpid())
    print("alive")
    """
    unfiltered = run(code, filtered=False)
    if unfiltered.stdout.split() != ["True", "alive"]:
        pytest.skip("this kernel runs no i386 calls (IA32 emulation is off)")
    assert run(code).returncode == -signal.SIGSYS
    source = f"FILTER = True\nSECCOMP = {str(SECCOMP)!r}\n" + PRELUDE + textwrap.dedent(code)
    x32 = subprocess.run([sys.executable, "-I", "-c", source, "x32"], capture_output=True, text=True, timeout=60)
    assert x32.returncode == -signal.SIGSYS


@needs_libseccomp
def test_install_describes_the_filter():
    result = run("pass")
    assert result.returncode == 0, result.stderr
    description = result.stderr.strip()
    assert description.startswith("seccomp (libseccomp 2.") and " system calls allowed, " in description
    allowed = int(description.split(": ")[1].split()[0])
    assert allowed == len(seccomp.allowed_numbers()) <= sum(map(len, seccomp.ALLOWED.values()))
    assert seccomp.describe() == description


@needs_libseccomp
def test_available_here():
    assert seccomp.available() is None


def test_without_the_library_the_filter_is_unavailable(monkeypatch):
    monkeypatch.setattr(seccomp, "LIBRARY", "libseccomp-arena-missing.so.9")
    reason = seccomp.available()
    assert reason is not None and "libseccomp" in reason and "\n" not in reason
    with pytest.raises(seccomp.SeccompUnavailable):
        seccomp.describe()
    code = """
    seccomp.LIBRARY = "libseccomp-arena-missing.so.9"
    try:
        seccomp.install()
        print("installed")
    except seccomp.SeccompUnavailable as exc:
        print("unavailable", "libseccomp" in str(exc))
    print(open("/proc/self/status").read().count("Seccomp:\\t0"))
    """
    source = f"SECCOMP = {str(SECCOMP)!r}\n" + textwrap.dedent("""
    import importlib.util
    spec = importlib.util.spec_from_file_location("arena_seccomp", SECCOMP)
    seccomp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(seccomp)
    """) + textwrap.dedent(code)
    result = subprocess.run([sys.executable, "-I", "-c", source], capture_output=True, text=True, timeout=60)
    assert result.stdout.split() == ["unavailable", "True", "1"], result.stderr

