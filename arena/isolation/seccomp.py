"""A seccomp filter for a bot: the system calls it has no use for, refused by the kernel.

Loaded by ``arena/isolation/jail.py`` by file path, just before it becomes the bot (so: standard library only,
nothing from the arena).  The filter is written with libseccomp (``libseccomp.so.2``, through ctypes),
never as hand-assembled BPF.  Once loaded it holds for the bot and everything it starts, across
``exec``, and nothing can take it off.

It is a list of denials over a default of "allow", not Docker's list of what is allowed: a bot may be
any program in any language, and the walls around it (namespaces, a uid of its own, no capabilities,
``no_new_privs``) already refuse it what needs privilege.  What the filter takes away is what those walls
leave open: kernel interfaces a bot never needs that have a history of exploits (new namespaces, BPF,
io_uring, ``userfaultfd`` …), and the kernel's shared state through which two bots could talk (keys,
file locks, watches on files they both read).  :data:`DENIED` says what is denied and why.

The calls :data:`ANSWERED` (``sysinfo``) wait for the jail's outer process, which :class:`Answers` them with
the bot's own figures.

Calls made through another ABI than the machine's own (on x86-64: ``int 0x80``, the i386 ABI, or
x32's numbers) are not checked rule by rule: libseccomp's filter compares the architecture of every
call first, and gives any other the "bad architecture" action, which is set here to kill the whole
process (libseccomp's default would kill only the calling thread).
"""

from __future__ import annotations

import _socket
import ctypes
import os
import select
import struct
import time
from errno import EAFNOSUPPORT, EFAULT, EINVAL, ENOLCK, ENOSYS, EOPNOTSUPP, EPERM

#: The shared library; a test points it at a missing one.
LIBRARY = "libseccomp.so.2"
#: libseccomp 2.5 added the filter attributes used here (the kernel's own error codes, the binary tree).
MINIMUM_VERSION = (2, 5, 0)


class SeccompUnavailable(RuntimeError):
    """The filter cannot be put on this machine (one line saying why)."""


class When:
    """A denial for some arguments only: ``errno`` when ``argument & mask == value``.

    The kernel reads ``int`` arguments (commands, flags) from the low 32 bits of their register, so every
    mask stays within those bits: a value with high bits set is the same command to the kernel and
    must be the same to the filter.  (A plain class: ``typing.NamedTuple`` would cost every bot's start the
    import of ``typing``, a few milliseconds.)"""

    __slots__ = ("errno", "argument", "mask", "value")

    def __init__(self, errno: int, argument: int, mask: int, value: int) -> None:
        self.errno, self.argument, self.mask, self.value = errno, argument, mask, value

    def __repr__(self) -> str:
        return f"When({self.errno}, {self.argument}, {self.mask:#x}, {self.value:#x})"


_LOW_32 = 0xFFFF_FFFF
_NAMESPACE_FLAGS = {
    "CLONE_NEWTIME": 0x0000_0080, "CLONE_NEWNS": 0x0002_0000, "CLONE_NEWCGROUP": 0x0200_0000,
    "CLONE_NEWUTS": 0x0400_0000, "CLONE_NEWIPC": 0x0800_0000, "CLONE_NEWUSER": 0x1000_0000,
    "CLONE_NEWPID": 0x2000_0000, "CLONE_NEWNET": 0x4000_0000,
}
#: clone's flags are its first argument, but on s390 its second.
_CLONE_FLAGS = 1 if os.uname().machine.startswith("s390") else 0
# The numbers below are those of x86, Arm, RISC-V and s390 (not of MIPS, PowerPC or SPARC).
_LOCK_COMMANDS = {"F_GETLK": 5, "F_SETLK": 6, "F_SETLKW": 7, "F_OFD_GETLK": 36, "F_OFD_SETLK": 37, "F_OFD_SETLKW": 38,
                  "F_SETLEASE": 1024, "F_GETLEASE": 1025}
F_NOTIFY = 1026
#: The fcntl commands that take or drop a lock: they "succeed" without doing anything.
_TAKE_LOCK = ("F_SETLK", "F_SETLKW", "F_OFD_SETLK", "F_OFD_SETLKW")
#: The "errno" of a call that returns 0 without being made (seccomp's ERRNO action with 0).
UNHELD = 0
#: The "errno" of a call answered by the jail's outer process (seccomp's user notification), with figures of
#: the bot's own; where the kernel or libseccomp cannot notify, or nothing answers, it fails with ENOSYS.
ANSWERED = -1
TIOCSTI, TIOCLINUX = 0x5412, 0x541C
#: posix_fadvise's advice that drops a file's cached pages, or ages them to be dropped first.
POSIX_FADV_DONTNEED, POSIX_FADV_NOREUSE = 4, 5
#: madvise's advice that pushes pages out of memory (a file's from the page cache).
MADV_COLD, MADV_PAGEOUT = 20, 21
#: preadv2/pwritev2's flag "fail with EAGAIN rather than wait for the disk": whether a page is cached.
RWF_NOWAIT = 0x8
AF_VSOCK = 40
#: personality(2) values Docker allows: PER_LINUX, PER_LINUX32, UNAME26 alone and with PER_LINUX32, and
#: 0xffffffff, which only asks for the current one.
PERSONALITIES = (0x0, 0x8, 0x20000, 0x20008, 0xFFFF_FFFF)


def _personality_rules() -> tuple[When, ...]:
    """Deny every personality but :data:`PERSONALITIES`, in rules of one masked comparison each.

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


#: What the filter denies: a system call's name -> the errno it fails with, or the rules that deny it
#: for some arguments only.  Names this machine does not have are skipped (and counted).
DENIED: dict[str, int | tuple[When, ...]] = {
    # Kernel keys: a key outlives the bot, and another uid can find it in /proc/keys and read it; the
    # route by which two entrants of one team shared their racks.
    "keyctl": EPERM, "add_key": EPERM, "request_key": EPERM,
    # New namespaces: each one gives the bot every capability over it, a kernel attack surface the walls
    # do not need it to have.  Plain clone (threads, fork) stays; clone3 passes its flags in memory,
    # where a filter cannot read them, so it fails as if the kernel were older: glibc, Go and Rust then
    # use clone, which the filter can check (Docker does the same).  clone's CSIGNAL byte can never
    # hold CLONE_NEWTIME's bit (a signal number is at most 64): checking it costs nothing.
    "unshare": EPERM, "setns": EPERM, "clone3": ENOSYS,
    "clone": tuple(When(EPERM, _CLONE_FLAGS, flag, flag) for flag in _NAMESPACE_FLAGS.values()),
    # Mounts and the root: the bot's file tree is built for it before it starts and is not its to change.
    "mount": EPERM, "umount": EPERM, "umount2": EPERM, "pivot_root": EPERM, "chroot": EPERM,
    "fsopen": EPERM, "fsconfig": EPERM, "fsmount": EPERM, "fspick": EPERM, "move_mount": EPERM,
    "open_tree": EPERM, "mount_setattr": EPERM,
    # Other processes' memory and files: reading or steering another process (the referee's, another
    # bot's where uids match) is never a bot's business.
    "ptrace": EPERM, "process_vm_readv": EPERM, "process_vm_writev": EPERM, "kcmp": EPERM,
    "pidfd_getfd": EPERM, "process_madvise": EPERM, "migrate_pages": EPERM, "move_pages": EPERM,
    # Programs and counters in the kernel: BPF programs and perf events see the whole machine.
    "bpf": EPERM, "perf_event_open": EPERM, "lookup_dcookie": EPERM,
    # Kernel code.
    "kexec_load": EPERM, "kexec_file_load": EPERM, "init_module": EPERM, "finit_module": EPERM,
    "delete_module": EPERM,
    # Interfaces with a long record of kernel exploits that no bot needs: runtimes that try io_uring
    # (libuv) fall back to threads when it is refused.
    "userfaultfd": EPERM, "io_uring_setup": EPERM, "io_uring_enter": EPERM, "io_uring_register": EPERM,
    # Files by handle: a handle reaches a file without the path, so past the walls of the file tree.
    "open_by_handle_at": EPERM, "name_to_handle_at": EPERM,
    # The machine's settings, clock, log, devices and accounting: the administrator's, not a bot's.
    "acct": EPERM, "swapon": EPERM, "swapoff": EPERM, "reboot": EPERM, "syslog": EPERM,
    "settimeofday": EPERM, "stime": EPERM, "clock_settime": EPERM, "clock_adjtime": EPERM, "adjtimex": EPERM,
    "quotactl": EPERM, "quotactl_fd": EPERM, "vhangup": EPERM, "iopl": EPERM, "ioperm": EPERM,
    "sethostname": EPERM, "setdomainname": EPERM, "nfsservctl": EPERM,
    # Obsolete interfaces a current program never calls (denied by Docker too).  Calls the kernel does
    # not implement at all (afs_syscall, tuxcall …) are left out: they fail with ENOSYS anyway.
    "uselib": EPERM, "ustat": EPERM, "sysfs": EPERM, "_sysctl": EPERM,
    # Personalities other than Docker's few: flags like ADDR_NO_RANDOMIZE and READ_IMPLIES_EXEC only
    # weaken the bot's own defences, MMAP_PAGE_ZERO has served kernel exploits.
    "personality": _personality_rules(),
    # Faking keyboard input on a terminal (as bubblewrap and Flatpak refuse it): a bot has no terminal.
    "ioctl": (When(EPERM, 1, _LOW_32, TIOCSTI), When(EPERM, 1, _LOW_32, TIOCLINUX)),
    # vsock is not confined by the network namespace: it reaches the virtual machine's host.
    "socket": (When(EAFNOSUPPORT, 0, _LOW_32, AF_VSOCK),),
    # CPU: the jail keeps a bot on the CPU its worker was given; it may not move itself off it (the wall
    # where no cpuset cgroup holds it there).
    "sched_setaffinity": EPERM,
    # Channels between bots through files they all read (/usr/bin/python3 …): a lock, a lease or a
    # watch on a shared file tells one bot what another does with it.  Taking a lock succeeds and holds
    # nothing (:data:`UNHELD`: the JVM's performance file and SQLite lock as they start, and fail loudly
    # when refused), so no bot ever sees another's lock; asking who holds one and leases fail as when
    # the kernel's lock table is full; watches (inotify, fanotify, dnotify's F_NOTIFY) fail as when the
    # kernel has none.  cachestat shows which pages of a file are cached, which another bot's reading
    # changes (Linux 6.18 refuses it to a reader that cannot write the file; older kernels do not).
    "flock": UNHELD,
    "fcntl": tuple(When(UNHELD if name in _TAKE_LOCK else ENOLCK, 1, _LOW_32, command)
                   for name, command in _LOCK_COMMANDS.items())
    + (When(EINVAL, 1, _LOW_32, F_NOTIFY),),
    "inotify_init": ENOSYS, "inotify_init1": ENOSYS, "fanotify_init": ENOSYS, "cachestat": ENOSYS,
    # The page cache of the files every bot is shown (/usr …) is the machine's: one bot caching a page
    # (a read) and dropping it, another seeing whether it is cached, carry bits between them.  Dropping:
    # fadvise's DONTNEED (which any reader may give) and NOREUSE, madvise's COLD and PAGEOUT succeed
    # and do nothing (programs ignore what advice returns); madvise's DONTNEED stays, as malloc needs
    # it, and on a file's mapping it drops the process's own view of the pages, never the cached pages.
    # Seeing: RWF_NOWAIT fails as on a file system without it (callers then read as usual); mincore
    # fails as on a kernel without it (HotSpot and libunwind check for that and do without; Go uses it
    # only where it finds no auxiliary vector, glibc, Python and Node not at all).  fadvise's advice is
    # its fourth argument on x86-64, Arm and RISC-V (the only fadvise64 there); preadv2's flags its sixth.
    "fadvise64": (When(UNHELD, 3, _LOW_32, POSIX_FADV_DONTNEED), When(UNHELD, 3, _LOW_32, POSIX_FADV_NOREUSE)),
    "madvise": (When(UNHELD, 2, _LOW_32, MADV_COLD), When(UNHELD, 2, _LOW_32, MADV_PAGEOUT)),
    "preadv2": (When(EOPNOTSUPP, 5, RWF_NOWAIT, RWF_NOWAIT),),
    "pwritev2": (When(EOPNOTSUPP, 5, RWF_NOWAIT, RWF_NOWAIT),),
    "mincore": ENOSYS,
    # sysinfo's figures are the machine's: free memory and the count of processes change with every
    # other bot's work, a channel between them.  The jail's outer process answers it with the bot's own
    # (its memory limit and use, its processes, its age); glibc's sysconf(_SC_PHYS_PAGES), Node's
    # os.totalmem and the JVM's default heap then size themselves by the bot's limit.
    "sysinfo": ANSWERED,
}

SCMP_ACT_ALLOW = 0x7FFF_0000
SCMP_ACT_KILL_PROCESS = 0x8000_0000
SCMP_ACT_NOTIFY = 0x7FC0_0000
SCMP_FLTATR_ACT_BADARCH = 2
SCMP_FLTATR_CTL_OPTIMIZE = 8
SCMP_FLTATR_API_SYSRAWRC = 9
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


def _resolved(lib: ctypes.CDLL) -> tuple[dict[int, tuple[str, int | tuple[When, ...]]], int]:
    """The calls of :data:`DENIED` this machine has, by number, and how many it does not have."""
    found: dict[int, tuple[str, int | tuple[When, ...]]] = {}
    for name, rule in DENIED.items():
        # Negative: a call of another architecture (a pseudo-number), or newer than this libseccomp.
        number = lib.seccomp_syscall_resolve_name(name.encode())
        if number >= 0:
            found[number] = (name, rule)
    return found, len(DENIED) - len(found)


def _description(version: str, found: dict[int, tuple[str, int | tuple[When, ...]]], absent: int,
                 answered: bool, can_notify: bool) -> str:
    partly = sum(not isinstance(rule, int) for _, rule in found.values())
    lacking = f" ({absent} more listed are not on {os.uname().machine})" if absent else ""
    sysinfo = ""
    if any(rule == ANSWERED for _, rule in found.values()):
        sysinfo = ("; sysinfo answered with the bot's own figures" if answered else
                   "; sysinfo open, the machine's figures" +
                   ("" if can_notify else " (this kernel or libseccomp cannot hand it over)"))
    return (f"seccomp (libseccomp {version}): {len(found) - answered} system calls denied, {partly} of them for some "
            f"arguments{lacking}{sysinfo}")


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
    return _description(version, *_resolved(lib), answer and can, can)


def install(answer: bool = False) -> str:
    """Load the filter into the calling process, for good; returns what :func:`describe` says.

    The caller has set ``no_new_privs``, has built every other wall (the filter denies ``mount``,
    ``unshare`` and ``sethostname`` to it too) and has started no thread (the filter covers the calling
    thread and what it starts afterwards).  With ``answer``, the calls :data:`ANSWERED` wait for another
    process to answer them through :data:`listener` (where the machine can: else, and without ``answer``,
    they are left open).  Raises :class:`SeccompUnavailable` when libseccomp is missing or too old, or
    the kernel refuses the filter."""
    global listener
    lib, version = _library()
    found, absent = _resolved(lib)
    can_notify = _can_notify(lib)
    answer = answer and can_notify
    context = lib.seccomp_init(SCMP_ACT_ALLOW)
    if not context:
        raise SeccompUnavailable("libseccomp could not start a filter")
    try:
        for attribute, value in ((SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS),
                                 # Errors as the kernel gave them, not libseccomp's -ECANCELED.
                                 (SCMP_FLTATR_API_SYSRAWRC, 1),
                                 # A binary search on the call's number instead of a list walked in order.
                                 (SCMP_FLTATR_CTL_OPTIMIZE, 2)):
            _check(lib.seccomp_attr_set(context, attribute, value), f"setting the filter's attribute {attribute}")
        for number, (name, rule) in found.items():
            if rule == ANSWERED:
                # Refused, glibc's sysconf(_SC_PHYS_PAGES) reads an uninitialised struct and the JVM
                # sizes its heap by it: where no one can answer, the call is left open (a slow channel,
                # written down in the threat model) rather than break every runtime.
                if answer:
                    _check(lib.seccomp_rule_add_array(context, SCMP_ACT_NOTIFY, number, 0, None), f"answering {name}")
                continue
            if isinstance(rule, int):
                _check(lib.seccomp_rule_add_array(context, _errno_action(rule), number, 0, None), f"denying {name}")
                continue
            for when in rule:
                comparison = _Comparison(when.argument, SCMP_CMP_MASKED_EQ, when.mask, when.value)
                _check(lib.seccomp_rule_add_array(context, _errno_action(when.errno), number, 1,
                                                  ctypes.byref(comparison)), f"denying {name} for some arguments")
        result = lib.seccomp_load(context)
        if result < 0:
            raise SeccompUnavailable(f"the kernel refused the seccomp filter: {os.strerror(-result)}")
        if answer:
            listener = lib.seccomp_notify_fd(context)
            if listener < 0:
                raise SeccompUnavailable(f"libseccomp gave no listener: {os.strerror(-listener)}")
    finally:
        lib.seccomp_release(context)
    return _description(version, found, absent, answer, can_notify)


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
