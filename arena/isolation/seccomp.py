"""A seccomp filter for a bot: an allow-list of system calls, every other one refused by the kernel.

Loaded by ``arena/isolation/jail.py`` by file path, just before it becomes the bot (so: standard library only,
nothing from the arena).  The filter is written with libseccomp (``libseccomp.so.2``, through ctypes),
never as hand-assembled BPF.  Once loaded it holds for the bot and everything it starts, across
``exec``, and nothing can take it off.

A call is allowed only when :data:`ALLOWED` lists it: Docker's default profile without what carries state
shared with other processes or takes a machine-wide resource that no cgroup charges (AIO, io_uring, SysV
and POSIX message IPC, inotify, memfd, ``sync``, the clock's settings …).  Every other call fails with
``ENOSYS``, as on a kernel without it, so runtimes fall back (libuv from io_uring to threads, glibc from
``clone3`` to ``clone``).  :data:`REFUSED_AS` gives a few refusals another answer, and :data:`RULES` refuses
some arguments of allowed calls.  The reasons are in the docs (the sandbox's threat model).

The calls :data:`ANSWERED` (``sysinfo``) wait for the jail's outer process, which :class:`Answers` them with
the bot's own figures.

Calls made through another ABI than the machine's own (on x86-64: ``int 0x80``, the i386 ABI, or
x32's numbers) kill the whole process: libseccomp's filter compares the architecture of every call first.
"""

from __future__ import annotations

import _socket
import ctypes
import os
import select
import struct
import time
from errno import EAFNOSUPPORT, EFAULT, EINVAL, ENOLCK, ENOPROTOOPT, ENOSYS, EOPNOTSUPP, EPERM

#: The shared library; a test points it at a missing one.
LIBRARY = "libseccomp.so.2"
#: libseccomp 2.5 added the filter attributes used here (the kernel's own error codes, the binary tree).
MINIMUM_VERSION = (2, 5, 0)


class SeccompUnavailable(RuntimeError):
    """The filter cannot be put on this machine (one line saying why)."""


class When:
    """A refusal for some arguments only: ``errno`` when ``argument & mask == value`` (or, with ``at_least``,
    when ``argument >= value``).

    The kernel reads ``int`` arguments (commands, flags) from the low 32 bits of their register, so every
    mask stays within those bits: a value with high bits set is the same command to the kernel and
    must be the same to the filter.  (A plain class: ``typing.NamedTuple`` would cost every bot's start the
    import of ``typing``, a few milliseconds.)"""

    __slots__ = ("errno", "argument", "mask", "value", "at_least")

    def __init__(self, errno: int, argument: int, mask: int, value: int, at_least: bool = False) -> None:
        self.errno, self.argument, self.mask, self.value, self.at_least = errno, argument, mask, value, at_least

    def __repr__(self) -> str:
        return f"When({self.errno}, {self.argument}, {self.mask:#x}, {self.value:#x}, {self.at_least})"


#: What a bot may call, by family.  Names this machine or its libseccomp does not know are skipped (and
#: counted); the same call under another name (``fstat64``) is listed where a machine has it.
ALLOWED: dict[str, tuple[str, ...]] = {
    "files": (
        "read", "readv", "pread64", "preadv", "preadv2", "write", "writev", "pwrite64", "pwritev", "pwritev2",
        "open", "openat", "openat2", "creat", "close", "close_range", "lseek", "_llseek", "dup", "dup2", "dup3",
        "fcntl", "fcntl64", "ioctl", "access", "faccessat", "faccessat2", "stat", "lstat", "fstat", "newfstatat",
        "statx", "stat64", "lstat64", "fstat64", "fstatat64", "getdents", "getdents64", "readlink", "readlinkat",
        "getcwd", "chdir", "fchdir", "umask",
        "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat", "rename", "renameat", "renameat2", "link", "linkat",
        "symlink", "symlinkat", "mknod", "mknodat", "chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown",
        "fchownat", "lchown", "chown32", "fchown32", "lchown32", "truncate", "ftruncate", "truncate64",
        "ftruncate64", "fallocate", "fsync", "fdatasync", "sync_file_range", "utime", "utimes", "utimensat",
        "futimesat", "getxattr", "lgetxattr", "fgetxattr", "listxattr", "llistxattr", "flistxattr", "setxattr",
        "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr", "copy_file_range", "sendfile",
        "sendfile64", "splice", "tee", "vmsplice", "readahead", "fadvise64", "fadvise64_64"),
    "memory": (
        "brk", "mmap", "mmap2", "munmap", "mremap", "mprotect", "madvise", "msync", "mlock", "mlock2", "munlock",
        "mlockall", "munlockall", "remap_file_pages", "membarrier", "pkey_alloc", "pkey_free", "pkey_mprotect",
        "map_shadow_stack", "mseal"),
    "processes and threads": (
        "clone", "fork", "vfork", "execve", "execveat", "exit", "exit_group", "wait4", "waitid", "waitpid",
        "getpid", "getppid", "gettid", "getpgid", "getpgrp", "setpgid", "getsid", "setsid", "set_tid_address",
        "set_robust_list", "get_robust_list", "futex", "futex_time64", "futex_waitv", "futex_wake", "futex_wait",
        "futex_requeue", "rseq", "arch_prctl", "prctl", "personality",
        "sched_yield", "sched_getaffinity", "sched_getparam", "sched_getscheduler", "sched_setparam",
        "sched_setscheduler", "sched_getattr", "sched_setattr", "sched_get_priority_max", "sched_get_priority_min",
        "sched_rr_get_interval", "getpriority", "setpriority", "ioprio_get", "ioprio_set", "getcpu",
        "getrusage", "times", "getrlimit", "ugetrlimit", "setrlimit", "prlimit64", "pidfd_send_signal", "process_mrelease", "seccomp", "landlock_create_ruleset", "landlock_add_rule",
        "landlock_restrict_self"),
    "identity": (
        "getuid", "geteuid", "getgid", "getegid", "getresuid", "getresgid", "getgroups", "getuid32", "geteuid32",
        "getgid32", "getegid32", "getresuid32", "getresgid32", "getgroups32", "setuid", "setgid", "setreuid",
        "setregid", "setresuid", "setresgid", "setfsuid", "setfsgid", "setuid32", "setgid32", "setreuid32",
        "setregid32", "setresuid32", "setresgid32", "setfsuid32", "setfsgid32", "setgroups", "setgroups32",
        "capget", "capset", "uname", "getrandom"),
    "signals and timers": (
        "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigreturn", "rt_sigpending", "rt_sigsuspend",
        "rt_sigtimedwait", "rt_sigtimedwait_time64", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "sigaltstack",
        "kill", "tkill", "tgkill", "signalfd", "signalfd4", "pause", "restart_syscall", "alarm", "getitimer",
        "setitimer", "timer_create", "timer_settime", "timer_settime64", "timer_gettime", "timer_gettime64",
        "timer_getoverrun", "timer_delete", "timerfd_create", "timerfd_settime", "timerfd_settime64",
        "timerfd_gettime", "timerfd_gettime64", "clock_gettime", "clock_gettime64", "clock_getres",
        "clock_getres_time64", "clock_nanosleep", "clock_nanosleep_time64", "nanosleep", "gettimeofday", "time"),
    "waiting": (
        "poll", "ppoll", "ppoll_time64", "select", "_newselect", "pselect6", "pselect6_time64", "epoll_create",
        "epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait", "epoll_pwait2", "eventfd", "eventfd2"),
    "pipes and sockets": (
        "pipe", "pipe2", "socket", "socketpair", "bind", "listen", "accept", "accept4", "connect", "getsockname",
        "getpeername", "getsockopt", "setsockopt", "sendto", "sendmsg", "sendmmsg", "recvfrom", "recvmsg",
        "recvmmsg", "recvmmsg_time64", "shutdown"),
}

#: The "errno" of a call that returns 0 without being made (seccomp's ERRNO action with 0).
UNHELD = 0
#: Calls outside :data:`ALLOWED` refused with another answer than ENOSYS: a lock that "succeeds" and holds
#: nothing (:data:`UNHELD`: the JVM's performance file and SQLite lock as they start, and fail loudly when
#: refused), so no bot ever sees another's lock on a file they both read; CPU affinity refused as a cpuset
#: refuses it (the wall where no cpuset cgroup keeps a bot on its CPU).
REFUSED_AS: dict[str, int] = {"flock": UNHELD, "sched_setaffinity": EPERM}
#: The calls answered by the jail's outer process (seccomp's user notification), with figures of the bot's
#: own; where the kernel or libseccomp cannot notify, they are allowed (the walls line says so).
ANSWERED = ("sysinfo",)

_LOW_32 = 0xFFFF_FFFF
_NAMESPACE_FLAGS = {
    "CLONE_NEWTIME": 0x0000_0080, "CLONE_NEWNS": 0x0002_0000, "CLONE_NEWCGROUP": 0x0200_0000,
    "CLONE_NEWUTS": 0x0400_0000, "CLONE_NEWIPC": 0x0800_0000, "CLONE_NEWUSER": 0x1000_0000,
    "CLONE_NEWPID": 0x2000_0000, "CLONE_NEWNET": 0x4000_0000,
}
CLONE_PIDFD = 0x0000_1000
SO_COOKIE, SO_NETNS_COOKIE = 57, 71
#: clone's flags are its first argument, but on s390 its second.
_CLONE_FLAGS = 1 if os.uname().machine.startswith("s390") else 0
# The numbers below are those of x86, Arm, RISC-V and s390 (not of MIPS, PowerPC or SPARC).
_LOCK_COMMANDS = {"F_GETLK": 5, "F_SETLK": 6, "F_SETLKW": 7, "F_OFD_GETLK": 36, "F_OFD_SETLK": 37, "F_OFD_SETLKW": 38,
                  "F_SETLEASE": 1024, "F_GETLEASE": 1025}
F_NOTIFY = 1026
#: The fcntl commands that take or drop a lock: they "succeed" without doing anything.
_TAKE_LOCK = ("F_SETLK", "F_SETLKW", "F_OFD_SETLK", "F_OFD_SETLKW")
TIOCSTI, TIOCLINUX = 0x5412, 0x541C
#: posix_fadvise's advice that drops a file's cached pages, or ages them to be dropped first.
POSIX_FADV_DONTNEED, POSIX_FADV_NOREUSE = 4, 5
#: madvise's advice that pushes pages out of memory (a file's from the page cache).
MADV_COLD, MADV_PAGEOUT = 20, 21
#: preadv2/pwritev2's flag "fail with EAGAIN rather than wait for the disk": whether a page is cached.
RWF_NOWAIT = 0x8
#: The socket families a bot may open: local sockets alone.  Its network namespace has no interface up, so IP
#: carries nothing, while an IP socket moves counters of the whole machine (``/proc/net/sockstat``'s TCP
#: ``alloc``) and netlink's automatic port ids come from one counter of the whole machine; AF_VSOCK is not
#: confined by the namespace at all.  Every other family fails as on a kernel without it.
SOCKET_FAMILIES = (1,)
#: One past the highest socket family Linux has (AF_MAX); families at or above it are refused too.
_AF_MAX = 46
#: personality(2) values Docker allows: PER_LINUX, PER_LINUX32, UNAME26 alone and with PER_LINUX32, and
#: 0xffffffff, which only asks for the current one.
PERSONALITIES = (0x0, 0x8, 0x20000, 0x20008, 0xFFFF_FFFF)


def _personality_rules() -> tuple[When, ...]:
    """Refuse every personality but :data:`PERSONALITIES`, in rules of one masked comparison each.

    libseccomp ORs rules but takes one comparison per argument in a rule, so "none of these five" is
    written as a cover of its complement.  A value is refused when it sets a bit outside 0x20008 (so it
    is not one of the first four) and clears some bit (so it is not 0xffffffff).  Such a value either
    has, among the 30 bits outside 0x20008 taken in a ring, a set bit followed by a clear one (one rule
    per neighbour pair), or has all 30 set and bit 3 or bit 17 clear (two more rules)."""
    kept = PERSONALITIES[3]
    ring = [bit for bit in range(32) if not kept >> bit & 1]
    pairs = [(bit, ring[(n + 1) % len(ring)]) for n, bit in enumerate(ring)]
    pairs += [(ring[0], bit) for bit in range(32) if kept >> bit & 1]
    return tuple(When(EPERM, 0, 1 << set_bit | 1 << clear_bit, 1 << set_bit) for set_bit, clear_bit in pairs)


#: Arguments of allowed calls that are refused: a call's name -> the rules, each with the errno it fails with.
RULES: dict[str, tuple[When, ...]] = {
    # New namespaces: each one gives the bot every capability over it.  clone3 passes its flags in memory,
    # where a filter cannot read them, so it is not allowed (glibc, Go and Rust then use clone).  A pidfd
    # (CLONE_PIDFD, as pidfd_open, which is not allowed) has an inode number of pidfs, counted over every process
    # the machine starts: a channel between bots (runtimes fall back to waitpid).
    "clone": tuple(When(EPERM, _CLONE_FLAGS, flag, flag) for flag in (*_NAMESPACE_FLAGS.values(), CLONE_PIDFD)),
    # A socket's cookie comes from one counter of the whole machine, as does its network namespace's.
    "getsockopt": (When(ENOPROTOOPT, 2, _LOW_32, SO_COOKIE), When(ENOPROTOOPT, 2, _LOW_32, SO_NETNS_COOKIE)),
    "personality": _personality_rules(),
    # Faking keyboard input on a terminal (as bubblewrap and Flatpak refuse it).
    "ioctl": (When(EPERM, 1, _LOW_32, TIOCSTI), When(EPERM, 1, _LOW_32, TIOCLINUX)),
    "socket": tuple(When(EAFNOSUPPORT, 0, _LOW_32, family) for family in range(_AF_MAX)
                    if family not in SOCKET_FAMILIES) + (When(EAFNOSUPPORT, 0, 0, _AF_MAX, at_least=True),),
    # Locks and leases on files every bot reads, and watches on them (F_NOTIFY).
    "fcntl": tuple(When(UNHELD if name in _TAKE_LOCK else ENOLCK, 1, _LOW_32, command)
                   for name, command in _LOCK_COMMANDS.items())
    + (When(EINVAL, 1, _LOW_32, F_NOTIFY),),
    # The page cache of the files every bot is shown: dropping another's pages does nothing, asking
    # whether a page is cached fails as on a file system without RWF_NOWAIT.  fadvise's advice is its fourth
    # argument on x86-64, Arm and RISC-V (the only fadvise64 there); preadv2's flags its sixth.
    "fadvise64": (When(UNHELD, 3, _LOW_32, POSIX_FADV_DONTNEED), When(UNHELD, 3, _LOW_32, POSIX_FADV_NOREUSE)),
    "madvise": (When(UNHELD, 2, _LOW_32, MADV_COLD), When(UNHELD, 2, _LOW_32, MADV_PAGEOUT)),
    "preadv2": (When(EOPNOTSUPP, 5, RWF_NOWAIT, RWF_NOWAIT),),
    "pwritev2": (When(EOPNOTSUPP, 5, RWF_NOWAIT, RWF_NOWAIT),),
}
RULES["fcntl64"] = RULES["fcntl"]

SCMP_ACT_ALLOW = 0x7FFF_0000
SCMP_ACT_KILL_PROCESS = 0x8000_0000
SCMP_ACT_NOTIFY = 0x7FC0_0000
SCMP_FLTATR_ACT_BADARCH = 2
SCMP_FLTATR_CTL_OPTIMIZE = 8
SCMP_FLTATR_API_SYSRAWRC = 9
SCMP_CMP_GE = 5
SCMP_CMP_MASKED_EQ = 7
#: seccomp_api_get()'s level at which the kernel can kill a whole process (Linux 4.14).
_API_KILL_PROCESS = 4
#: seccomp_api_get()'s level at which the kernel and libseccomp can hand a call to another process (Linux 5.0).
_API_NOTIFY = 5
#: The listener of the calls :data:`ANSWERED` left by :func:`install` (``answer=True``): a file descriptor
#: (close-on-exec) for the process that answers them, or -1.
listener = -1


def _errno_action(error: int) -> int:
    """libseccomp's SCMP_ACT_ERRNO: fail with ``error``."""
    return 0x0005_0000 | error & 0xFFFF


class _Comparison(ctypes.Structure):
    """libseccomp's ``struct scmp_arg_cmp``."""

    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64),
                ("datum_b", ctypes.c_uint64)]


class _Version(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint), ("minor", ctypes.c_uint), ("micro", ctypes.c_uint)]


def _library() -> tuple[ctypes.CDLL, str]:
    """libseccomp with its functions declared, and its version; or why it cannot serve."""
    try:
        lib = ctypes.CDLL(LIBRARY)
    except OSError as exc:
        raise SeccompUnavailable(f"libseccomp cannot be loaded: {exc}") from None
    wanted = ".".join(map(str, MINIMUM_VERSION))
    try:
        lib.seccomp_version.restype = ctypes.POINTER(_Version)
        lib.seccomp_api_get.restype = ctypes.c_uint
        lib.seccomp_init.restype = ctypes.c_void_p
    except AttributeError:  # seccomp_version came with 2.3, seccomp_api_get with 2.4
        raise SeccompUnavailable(f"the libseccomp in {LIBRARY} is older than {wanted}") from None
    found = lib.seccomp_version().contents
    version = (found.major, found.minor, found.micro)
    name = ".".join(map(str, version))
    if version < MINIMUM_VERSION:
        raise SeccompUnavailable(f"libseccomp {name} is older than {wanted}")
    if lib.seccomp_api_get() < _API_KILL_PROCESS:
        raise SeccompUnavailable("this kernel's seccomp cannot kill a process (Linux 4.14 and later can)")
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint,
                                           ctypes.POINTER(_Comparison)]
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_notify_fd.argtypes = [ctypes.c_void_p]
    return lib, name


def _can_notify(lib: ctypes.CDLL) -> bool:
    return lib.seccomp_api_get() >= _API_NOTIFY


class _Plan:
    """The filter as this machine's numbers: the calls allowed, refused otherwise, answered, and ruled."""

    def __init__(self, lib: ctypes.CDLL) -> None:
        def number(name: str) -> int:
            # Negative: a call of another architecture (a pseudo-number), or newer than this libseccomp.
            return lib.seccomp_syscall_resolve_name(name.encode())

        names = [name for family in ALLOWED.values() for name in family]
        self.allowed = {number(name): name for name in names if number(name) >= 0}
        self.absent = len(names) - len(self.allowed)
        self.refused_as = {number(name): error for name, error in REFUSED_AS.items() if number(name) >= 0}
        self.answered = [number(name) for name in ANSWERED if number(name) >= 0]
        self.rules = {number(name): rules for name, rules in RULES.items()
                      if number(name) in self.allowed}


def allowed_numbers() -> dict[int, str]:
    """The calls :data:`ALLOWED` by their numbers on this machine (what a probe of the filter must find)."""
    return dict(_Plan(_library()[0]).allowed)


def answered_numbers() -> list[int]:
    """The calls :data:`ANSWERED` by their numbers on this machine."""
    return list(_Plan(_library()[0]).answered)


def refused_as_numbers() -> dict[int, int]:
    """The calls of :data:`REFUSED_AS` by their numbers on this machine, with the errno each fails with."""
    return dict(_Plan(_library()[0]).refused_as)


def _description(version: str, plan: _Plan, answered: bool, can_notify: bool) -> str:
    lacking = f" ({plan.absent} more listed are unknown on {os.uname().machine} here)" if plan.absent else ""
    sysinfo = ""
    if plan.answered:
        sysinfo = ("; sysinfo answered with the bot's own figures" if answered else
                   "; sysinfo open, the machine's figures" +
                   ("" if can_notify else " (this kernel or libseccomp cannot hand it over)"))
    return (f"seccomp (libseccomp {version}): {len(plan.allowed)} system calls allowed, {len(plan.rules)} of them "
            f"not for some arguments{lacking}, every other refused{sysinfo}")


def available() -> str | None:
    """None when :func:`install` can put the filter on, else one line saying why not (loads no filter)."""
    try:
        _library()
    except SeccompUnavailable as exc:
        return str(exc)
    return None


def describe(answer: bool = False) -> str:
    """What :func:`install` (with ``answer``) would return, without loading the filter."""
    lib, version = _library()
    can = _can_notify(lib)
    return _description(version, _Plan(lib), answer and can, can)


def install(answer: bool = False) -> str:
    """Load the filter into the calling process, for good; returns what :func:`describe` says.

    Two filters, as libseccomp gives an unconditional rule precedence over conditional ones of the same
    call: the allow-list (default ENOSYS), then the rules on arguments of allowed calls (default allow);
    the kernel takes the stronger answer of the two.  The caller has set ``no_new_privs``, has built every
    other wall (``mount``, ``unshare`` and ``sethostname`` are refused to it too) and has started no thread
    (the filter covers the calling thread and what it starts afterwards).  With ``answer``, the calls
    :data:`ANSWERED` wait for another process to answer them through :data:`listener` (where the machine
    can: else, and without ``answer``, they are allowed).  Raises :class:`SeccompUnavailable` when
    libseccomp is missing or too old, or the kernel refuses the filter."""
    global listener
    lib, version = _library()
    plan = _Plan(lib)
    can_notify = _can_notify(lib)
    answer = answer and can_notify
    calls: list[tuple[int, int, When | None]] = [(number, SCMP_ACT_ALLOW, None) for number in plan.allowed]
    calls += [(number, _errno_action(error), None) for number, error in plan.refused_as.items()]
    calls += [(number, SCMP_ACT_NOTIFY if answer else SCMP_ACT_ALLOW, None) for number in plan.answered]
    listener = _load(lib, _errno_action(ENOSYS), calls, answer)
    _load(lib, SCMP_ACT_ALLOW, [(number, _errno_action(when.errno), when)
                                for number, rules in plan.rules.items() for when in rules])
    return _description(version, plan, answer, can_notify)


def _load(lib: ctypes.CDLL, default: int, rules: list[tuple[int, int, When | None]], listen: bool = False) -> int:
    """Load one filter of ``default`` and ``rules`` (a call's number, its action, the argument it is for); with
    ``listen``, return its listener, else -1."""
    context = lib.seccomp_init(default)
    if not context:
        raise SeccompUnavailable("libseccomp could not start a filter")
    try:
        for attribute, value in ((SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS),
                                 # Errors as the kernel gave them, not libseccomp's -ECANCELED.
                                 (SCMP_FLTATR_API_SYSRAWRC, 1),
                                 # A binary search on the call's number instead of a list walked in order.
                                 (SCMP_FLTATR_CTL_OPTIMIZE, 2)):
            _check(lib.seccomp_attr_set(context, attribute, value), f"setting the filter's attribute {attribute}")
        for number, action, when in rules:
            if when is None:
                _check(lib.seccomp_rule_add_array(context, action, number, 0, None), f"adding call {number}")
                continue
            comparison = _Comparison(when.argument, SCMP_CMP_GE if when.at_least else SCMP_CMP_MASKED_EQ,
                                     when.value if when.at_least else when.mask, when.value)
            _check(lib.seccomp_rule_add_array(context, action, number, 1, ctypes.byref(comparison)),
                   f"adding a rule of call {number}")
        result = lib.seccomp_load(context)
        if result < 0:
            raise SeccompUnavailable(f"the kernel refused the seccomp filter: {os.strerror(-result)}")
        if not listen:
            return -1
        found = lib.seccomp_notify_fd(context)
        if found < 0:
            raise SeccompUnavailable(f"libseccomp gave no listener: {os.strerror(-found)}")
        return found
    finally:
        lib.seccomp_release(context)


def _check(result: int, what: str) -> None:
    if result < 0:
        raise SeccompUnavailable(f"libseccomp failed {what}: {os.strerror(-result)}")


# -- the calls ANSWERED, answered ------------------------------------------------------------------------------

#: The ioctls of a seccomp listener (linux/seccomp.h): receive a call, answer it, is it still waiting.
NOTIF_RECV, NOTIF_SEND, NOTIF_ID_VALID = 0xC0502100, 0xC0182101, 0x40082102
#: The size of struct seccomp_notif (id, pid, flags, then seccomp_data: nr, arch, ip, args[6]), and the offset of
#: the call's first argument in it.
NOTIF_SIZE, FIRST_ARGUMENT = 80, 32
#: struct sysinfo: uptime, loads[3], totalram, freeram, sharedram, bufferram, totalswap, freeswap, procs, pad,
#: totalhigh, freehigh, mem_unit, and the padding to its 112 bytes.
SYSINFO = "@l3L6LHHLLI4x"
#: The cgroup files (v1 and v2) of a bot's memory use and limit and of its tasks.
_CGROUP_FILES = (("memory.usage_in_bytes", "use"), ("memory.current", "use"), ("memory.limit_in_bytes", "limit"),
                 ("memory.max", "limit"), ("pids.current", "tasks"))


class _Iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("length", ctypes.c_size_t)]


class Answers:
    """The program's sysinfo calls, handed over by its filter, answered by the jail's outer process with its own
    figures: its memory limit as the total, the limit less its cgroup's use as free, its cgroup's tasks (but the
    outer process) as the processes, its age as the uptime; no load, swap, shared or buffer memory.  The machine's
    figures would change with every other bot's work.  Without cgroups (the weaker levels), the use and tasks are
    those of the calling process.

    The outer process is never frozen, so a frozen program never waits on it; once it is gone (or has called
    :meth:`close`) the kernel fails the calls with ENOSYS."""

    def __init__(self, sock: _socket.socket, cgroups: list[str], memory_limit: int | None) -> None:
        #: The jail's child sends the listener (:data:`listener`) through ``sock``, or closes it unsent.
        self.sock = sock
        self.listener = -1
        self.cgroups = cgroups
        self.memory_limit = memory_limit
        self.started = time.monotonic()
        self.files: dict[str, str] | None = None  # found at the first call
        self.libc = ctypes.CDLL(None, use_errno=True)

    def watch(self, poller: select.poll) -> None:
        poller.register(self.sock.fileno(), select.POLLIN)

    def close(self) -> None:
        """No more answers: the calls still to come fail (ENOSYS)."""
        if self.listener >= 0:
            os.close(self.listener)
            self.listener = -1

    def serve(self, poller: select.poll, events: list[tuple[int, int]]) -> None:
        """Take the listener when it comes, answer one call when one waits."""
        for fd, event in events:
            if fd == self.sock.fileno():
                poller.unregister(fd)
                try:
                    _, extra, _, _ = self.sock.recvmsg(1, _socket.CMSG_LEN(4))
                except OSError:
                    extra = []
                self.sock.close()
                for level, kind, data in extra:
                    if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS and len(data) >= 4:
                        self.listener = struct.unpack("i", data[:4])[0]
                        poller.register(self.listener, select.POLLIN)
            elif fd == self.listener >= 0:
                if event & select.POLLIN:
                    self.answer()
                elif event & (select.POLLHUP | select.POLLERR):  # no process of the program is left
                    poller.unregister(fd)
                    self.close()

    def _valid(self, ident: int) -> bool:
        return self.libc.ioctl(self.listener, ctypes.c_ulong(NOTIF_ID_VALID), ctypes.byref(ctypes.c_uint64(ident))) == 0

    def answer(self) -> None:
        """Take one call, write the caller's figures into its ``struct sysinfo``, let it return (EFAULT where its
        pointer does not lead to writable memory, as the kernel's own call would)."""
        notification = ctypes.create_string_buffer(NOTIF_SIZE)
        if self.libc.ioctl(self.listener, ctypes.c_ulong(NOTIF_RECV), notification) != 0:
            return  # the caller was killed, or its call interrupted
        ident, pid = struct.unpack_from("QI", notification.raw)
        (address,) = struct.unpack_from("Q", notification.raw, FIRST_ARGUMENT)
        figures = ctypes.create_string_buffer(self.figures(pid), struct.calcsize(SYSINFO))
        # Still waiting, so ``pid`` is still the caller's (a pid is free again only once its process is gone).
        if not self._valid(ident):
            return
        local, remote = _Iovec(ctypes.addressof(figures), len(figures)), _Iovec(address, len(figures))
        written = self.libc.process_vm_writev(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
        if not self._valid(ident):
            return  # gone meanwhile: nothing to answer
        error = 0 if written == len(figures) else -EFAULT
        self.libc.ioctl(self.listener, ctypes.c_ulong(NOTIF_SEND), struct.pack("QqiI", ident, 0, error, 0))

    def figures(self, pid: int) -> bytes:
        """The ``struct sysinfo`` of the bot whose process ``pid`` asks."""
        if self.files is None:
            self.files = {kind: os.path.join(folder, name) for folder in self.cgroups for name, kind in _CGROUP_FILES
                          if os.path.exists(os.path.join(folder, name))}
        page = os.sysconf("SC_PAGE_SIZE")
        machine = os.sysconf("SC_PHYS_PAGES") * page
        limit = _number(self.files["limit"]) if "limit" in self.files else 0  # 0: none, or "max"
        total = min(limit or self.memory_limit or machine, machine)
        used = _number(self.files["use"]) if "use" in self.files else _number(f"/proc/{pid}/statm", 1) * page
        if "tasks" in self.files:
            procs = _number(self.files["tasks"]) - 1  # the outer process is counted there too
        else:
            try:
                procs = len(os.listdir(f"/proc/{pid}/task"))
            except OSError:
                procs = 1
        uptime = int(time.monotonic() - self.started)
        return struct.pack(SYSINFO, uptime, 0, 0, 0, total, max(total - used, 0), 0, 0, 0, 0,
                           min(max(procs, 1), 0xFFFF), 0, 0, 0, 1)


def _number(path: str, field: int = 0) -> int:
    """The ``field``-th number in a small file (0 when it cannot be read, or says ``max``)."""
    try:
        with open(path, "rb") as f:
            return int(f.read().split()[field])
    except (OSError, ValueError, IndexError):
        return 0
