"""Put up the walls around a bot program, then become it.

Run by :mod:`arena.isolation.sandbox` as ``python -I -S jail.py SETTINGS -- COMMAND...``
(standard library only), or forked from the fork server (``forkserver.py``, :func:`run`), as root when
the machine allows it.  SETTINGS is a dict of plain data (see ``sandbox.py``),
marshalled and written in hexadecimal (no ``json`` import to slow a start).  In order:

1. die with the referee (``PR_SET_PDEATHSIG``), keep to its CPUs, join the
   bot's cgroups but the freezer's and a v1 memory cgroup's (the outer
   process is never the one the OOM killer picks: ``oom_score_adj`` -1000
   where the machine allows it, the program's +1000); with ``namespaces``: new PID, network,
   IPC and UTS namespaces (and, with ``userns``, a user namespace first, so
   that no root is needed);
2. fork, at every level.  The outer process copies the program's standard
   error into the log (its own standard error) up to ``log_mb`` MiB, then
   reads and drops the rest, saying so in one line, so that the program
   never blocks on it and no file-size limit of the program's applies to
   its log; it ends as the program ends.  On SIGUSR1 (from the referee, or
   its own parent-death signal where a cgroup freezer holds the program) it
   kills the program and thaws it, then takes the rest of its standard
   error and ends: how a program ends without losing its last words, and
   how a frozen one still dies with the referee.  The child joins the freezer's cgroup and the memory one, and is PID 1 of the new
   PID namespace: when it ends the kernel kills everything it started;
3. the child makes mount and cgroup namespaces of its own (it sees its
   cgroups as ``/``; the outer process keeps the machine's files), and
   builds a fresh root on a tmpfs: the private tmpfs as ``/tmp`` (``home``
   in it), the ``binds`` read-only (``nosuid``, ``nodev``), the ``links``
   and the generated ``files`` (its ``/etc/passwd`` …), a ``/dev`` of a few
   bound nodes, a fresh ``/proc`` of the bot's own processes alone (:func:`make_proc`); no ``/sys``.  Then
   ``pivot_root`` into it, let go of the old root, and every mount but
   ``/tmp`` and ``/dev/shm`` read-only;
4. resource limits; then the bot's uid and its groups (at the ``userns``
   level, the user's own uid, root of the namespace only); no capability
   and none to regain; ``no_new_privs``; the seccomp filter of
   ``seccomp.py`` (next to this file) when the machine allows one;
5. the clean environment and working folder, and ``exec`` of the command (from the fork server, a
   Python bot's host runs in place, after closing every descriptor but its pipes).

Python, ``node``, C, Java and Rust programs start under these masks (the C library counts CPUs with
``sched_getaffinity``; Java's ``sysinfo`` is answered with the bot's own figures by ``seccomp.Answers``);
``node``'s ``os.cpus()`` is empty (``os.availableParallelism()`` is right), ``free`` and ``uptime`` fail.

Any step that fails ends the process with status 125 and one line on
standard error: a wall is never silently missing.  ``jail.py --seccomp``
only loads the seccomp filter into itself and prints what it allows (and
whether ``sysinfo`` is answered or refused): how the referee learns once
what a bot gets.
"""

import _socket
import ctypes
import importlib.machinery
import marshal
import os
import resource
import select
import signal
import struct
import sys

CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x02000000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MS_NOATIME, MS_NODIRATIME, MS_RELATIME = 1024, 2048, 1 << 21
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_SECUREBITS, PR_SET_NO_NEW_PRIVS = 1, 4, 24, 28, 38
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
MNT_DETACH = 2
# SECBIT_NOROOT, NO_SETUID_FIXUP, KEEP_CAPS and NO_CAP_AMBIENT_RAISE, each with its lock.
SECURE_BITS = 0x01 | 0x02 | 0x04 | 0x08 | 0x10 | 0x20 | 0x40 | 0x80
EXIT_JAIL = 125
#: Where the v1 memory hierarchy's cgroups are (the bot's own, under it, holds the program alone).
MEMORY_V1 = "/sys/fs/cgroup/memory/"
#: pivot_root has no C library wrapper: its system call number by machine.
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "ppc64": 203, "s390x": 217,
                  "i686": 217, "i386": 217, "armv7l": 218, "armv6l": 218, "loongarch64": 41}
# The per-mount flags that statvfs reports (ST_RELATIME differs from MS_RELATIME); a remount in a user
# namespace must keep those it inherited.
_ST_FLAGS = ((1, MS_RDONLY), (2, MS_NOSUID), (4, MS_NODEV), (8, MS_NOEXEC), (1024, MS_NOATIME),
             (2048, MS_NODIRATIME), (4096, MS_RELATIME))
_OPTIONS = {"nosuid": MS_NOSUID, "nodev": MS_NODEV, "noexec": MS_NOEXEC, "noatime": MS_NOATIME,
            "nodiratime": MS_NODIRATIME, "relatime": MS_RELATIME}
#: The fresh /proc: the bot's own processes and nothing of the machine (``subset=pid``, Linux 5.8 on: no
#: ``/proc/sys``, ``meminfo``, ``stat`` … at all; ``hidepid=invisible``: no process of another uid).
PROC_OPTIONS = "subset=pid,hidepid=invisible"
#: The devices a program gets, bound from the machine's /dev.
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
#: What is written to the log, in place of standard error past its cap.
NOTE = "--- arena: standard error past {mb:g} MiB dropped ---\n"

libc = ctypes.CDLL(None, use_errno=True)


def fail(what, error=None):
    reason = os.strerror(error) if isinstance(error, int) else (error or "")
    sys.stderr.write(f"arena sandbox: {what}{': ' + reason if reason else ''}\n")
    sys.stderr.flush()
    os._exit(EXIT_JAIL)


def call(what, result):
    if result != 0:
        fail(what, ctypes.get_errno())


def _bytes(text):
    return None if text is None else os.fsencode(text)


def mount(source, target, fstype, flags, data=None):
    return libc.mount(_bytes(source), _bytes(target), _bytes(fstype), ctypes.c_ulong(flags), _bytes(data))


def kept_flags(path):
    """The per-mount flags of the mount holding ``path``, as mount(2) takes them."""
    found = os.statvfs(path).f_flag
    return sum(flag for st, flag in _ST_FLAGS if found & st)


def read_only(path, what, flags=MS_NOSUID | MS_NODEV):
    """Make the mount at ``path`` read-only (its other flags kept, ``flags`` added)."""
    call(f"making {what} read-only",
         mount(None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY | flags | kept_flags(path)))


def bind(source, target, what, flags=MS_NOSUID | MS_NODEV):
    call(f"showing {what}", mount(source, target, None, MS_BIND | MS_REC))
    read_only(target, what, flags)


# -- the fresh root -----------------------------------------------------------------------


def place(root, path, folder, ours):
    """Make ``root + path`` (a folder, or an empty file to mount on) unless it is there, with the folders on
    the way; only ever inside the fresh root's own tmpfs mounts (devices ``ours``), never following a link."""
    where = root
    names = [name for name in path.split("/") if name]
    for n, name in enumerate(names):
        where = os.path.join(where, name)
        last = n == len(names) - 1
        try:
            found = os.lstat(where)
        except FileNotFoundError:
            if os.lstat(os.path.dirname(where)).st_dev not in ours:
                fail(f"placing {path}", "it would be made inside a folder shown read-only")
            if last and not folder:
                os.close(os.open(where, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
            else:
                os.mkdir(where, 0o755)
            continue
        if found.st_mode & 0o170000 == 0o120000:
            fail(f"placing {path}", f"{where[len(root):]} is a symbolic link")
    return where


def make_tmp(root, settings):
    """The private tmpfs as /tmp, the bot's home in it (or bound from it where home is elsewhere)."""
    home, uid = settings["home"], settings["uid"] or 0
    tmp = root + "/tmp"
    os.mkdir(tmp, 0o755)
    call("mounting the private folder", mount("arena-home", tmp, "tmpfs", MS_NOSUID | MS_NODEV,
                                              f"size={settings['tmp_mb']}m,mode=700,uid={uid},gid={uid}"))
    ours = {os.lstat(root).st_dev, os.lstat(tmp).st_dev}
    if home.startswith("/tmp/"):
        place(root, home, True, ours)
        os.chown(root + home, uid, uid)
        os.chmod(root + home, 0o700)
        return ours, set()
    inside = os.path.join(tmp, os.path.basename(home))
    os.mkdir(inside, 0o700)
    os.chown(inside, uid, uid)
    call("showing the private folder", mount(inside, place(root, home, True, ours), None, MS_BIND))
    return ours, {home}


def make_dev(root, ours):
    dev = root + "/dev"
    os.mkdir(dev, 0o755)
    for name in DEVICES:
        if os.path.exists("/dev/" + name):
            bind("/dev/" + name, place(root, "/dev/" + name, False, ours), "/dev/" + name, MS_NOSUID | MS_NOEXEC)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                         ("stderr", "/proc/self/fd/2")):
        os.symlink(target, os.path.join(dev, name))
    os.mkdir(dev + "/shm")
    call("mounting /dev/shm", mount("arena-shm", dev + "/shm", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                                    "size=16m,mode=1777"))


def make_proc(root):
    """A procfs of the bot's PID namespace that shows its processes alone: an allow-list by construction, as
    every machine-wide file (``/proc/sys``, ``meminfo``, ``stat``, ``loadavg`` …) is absent, and whatever a
    newer kernel adds with them.  No runtime the arena runs needs one: glibc counts CPUs with
    ``sched_getaffinity`` and memory with ``sysinfo`` (answered with the bot's own figures).  A kernel before
    5.8 has no ``subset=pid``: every entry that is not a process is then masked, whatever its name (an empty
    file or folder over each), and the walls line says so."""
    proc = root + "/proc"
    os.mkdir(proc, 0o555)
    flags = MS_NOSUID | MS_NODEV | MS_NOEXEC
    if mount("proc", proc, "proc", flags, PROC_OPTIONS) == 0:
        return
    call("mounting /proc", mount("proc", proc, "proc", flags, "hidepid=2"))
    for name in os.listdir(proc):
        path = os.path.join(proc, name)
        if name.isdigit() or name in ("self", "thread-self") or os.path.islink(path):
            continue
        if os.path.isdir(path):
            call(f"masking /proc/{name}", mount("arena-masked", path, "tmpfs", MS_RDONLY | flags,
                                                "size=4k,nr_inodes=2,mode=555"))
        else:
            call(f"masking /proc/{name}", mount(root + "/dev/null", path, None, MS_BIND))


def mount_points():
    """Every mount point of this namespace under its root, with its per-mount options, from mountinfo."""
    points = []
    with open("/proc/self/mountinfo", "rb") as info:
        for line in info:
            fields = line.split()
            # Octal escapes (\040 for a space) in the path, as the kernel writes it.
            raw = fields[4]
            path = bytearray()
            i = 0
            while i < len(raw):
                if raw[i:i + 1] == b"\\" and raw[i + 1:i + 4].isdigit():
                    path.append(int(raw[i + 1:i + 4], 8))
                    i += 4
                else:
                    path.append(raw[i])
                    i += 1
            points.append((os.fsdecode(bytes(path)), fields[5].decode().split(",")))
    return points


def build_root(settings):
    """Step 3: the only files the program sees."""
    call("making mounts private", mount(None, "/", None, MS_REC | MS_PRIVATE))
    # The private folder's name on the machine, unused by the bot there, is where the new root is made.
    root = settings["home"]
    call("making the fresh root", mount("arena-root", root, "tmpfs", MS_NOSUID | MS_NODEV,
                                        "size=4m,nr_inodes=65536,mode=755"))
    ours, writable = make_tmp(root, settings)
    for path, source in settings["binds"]:
        bind(source, place(root, path, os.path.isdir(source), ours), path)
    for path, target in settings["links"]:
        place(root, os.path.dirname(path), True, ours)
        os.symlink(target, root + path)
    for path, text in settings["files"].items():
        with open(place(root, path, False, ours), "w") as f:
            f.write(text)
    make_dev(root, ours)
    make_proc(root)
    place(root, settings["cwd"], True, ours)
    machine = os.uname().machine
    if machine not in SYS_PIVOT_ROOT:
        fail("entering the fresh root", f"pivot_root is not known on {machine}")
    os.chdir(root)
    call("entering the fresh root", libc.syscall(SYS_PIVOT_ROOT[machine], b".", b"."))
    call("letting go of the machine's root", libc.umount2(b".", MNT_DETACH))
    os.chdir("/")
    writable |= {"/tmp", "/dev/shm"}
    for path, options in mount_points():
        if "ro" in options or path in writable or path == "/proc" or path.startswith("/proc/"):
            continue
        flags = sum(_OPTIONS.get(option, 0) for option in options)
        call(f"making {path} read-only", mount(None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | flags))


# -- the program's rights -------------------------------------------------------------------


def load_seccomp():
    """The seccomp module next to this file (loaded before the fresh root hides it), or the reason why not."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seccomp.py")
    if not os.path.isfile(path):
        return "arena/isolation/seccomp.py is missing"
    # Its loader alone: importlib.util would cost every bot's start a few milliseconds more.
    loader = importlib.machinery.SourceFileLoader("arena_jail_seccomp", path)
    module = type(sys)(loader.name)
    module.__file__ = path
    try:
        loader.exec_module(module)
    except Exception as exc:  # its own failure to load, reported as the reason there is no filter
        return f"arena/isolation/seccomp.py cannot be loaded: {exc}"
    return module


def filter_calls(seccomp):
    """Load the filter (after no_new_privs): its description, or ``no seccomp (why)``.  The calls it hands
    over (sysinfo) wait on ``seccomp.listener``, for the outer process to answer."""
    if isinstance(seccomp, str):
        return f"no seccomp ({seccomp})"
    try:
        return seccomp.install(answer=True)
    except seccomp.SeccompUnavailable as exc:
        return f"no seccomp ({exc})"


def hand_over(seccomp, answers):
    """Send the filter's listener to the outer process through ``answers`` (then close ours): from now on
    the program's sysinfo calls wait for it to answer them.  Without a listener, nothing is sent, and the
    outer process sees the socket close at exec."""
    listener = getattr(seccomp, "listener", -1)
    if listener < 0 or answers is None:
        return
    try:
        answers.sendmsg([b"l"], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, struct.pack("i", listener))])
    except OSError as exc:
        fail("handing the seccomp listener to the jail", exc.strerror)
    os.close(listener)


def drop_privileges(settings, seccomp, answers=None, dumpable=False):
    """Step 4: limits, then the bot's uid without rights; no_new_privs; the seccomp filter.  ``dumpable``:
    what an exec would do, for a program that is not exec'd (its ``/proc/self`` its own again)."""
    for name, value in settings["rlimits"].items():
        try:
            resource.setrlimit(getattr(resource, "RLIMIT_" + name), (value, value))
        except (OSError, ValueError) as exc:
            fail(f"setting the limit {name}", str(exc))
    uid = settings["uid"]
    if os.geteuid() == 0:
        # No capability now or after exec, and none to regain: the secure bits are locked and the
        # bounding set is empty.
        call("locking the secure bits", libc.prctl(PR_SET_SECUREBITS, SECURE_BITS, 0, 0, 0))
        cap = 0
        while libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0:
            cap += 1
        libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
        if uid is not None:
            os.setgroups(settings["gids"])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        if dumpable:
            call("making the program dumpable", libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
        header = (ctypes.c_uint32 * 2)(0x20080522, 0)
        data = (ctypes.c_uint32 * 6)()
        call("dropping capabilities", libc.capset(header, data))
    call("setting no_new_privs", libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
    # A change of credentials clears the parent-death signal: set it again.
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    filter_calls(seccomp)
    hand_over(seccomp, answers)


def find(name, path, cwd):
    """The file ``name`` runs, looked up as the shell would."""
    if "/" in name:
        return os.path.join(cwd, name)
    for folder in path.split(":"):
        candidate = os.path.join(folder or ".", name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    fail(f"starting {name}", "no such program on PATH " + path)


# -- the outer process ------------------------------------------------------------------------


def write_all(fd, data):
    """Write all of ``data``; a log that cannot be written loses it (the program must not wait for it)."""
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view):]
        except OSError:
            return


def pump(source, child, log_mb, answers=None):
    """Copy the program's standard error to ours up to ``log_mb`` MiB, then drop it saying so, until the
    program has ended (not waiting for what it left running, outside a PID namespace, that holds the pipe)."""
    cap, seen = int(log_mb * (1 << 20)), 0

    def keep(data):
        nonlocal seen
        if seen < cap:
            write_all(2, data[:cap - seen])
        if seen <= cap < seen + len(data):
            write_all(2, NOTE.format(mb=log_mb).encode())
        seen += len(data)

    # Meanwhile answer the program's sysinfo calls (``answers``); ``source`` None: no standard error to copy.
    poller = select.poll()
    if source is not None:
        poller.register(source, select.POLLIN)
    if answers is not None:
        answers.watch(poller)
    try:
        ended = os.pidfd_open(child)
        poller.register(ended, select.POLLIN)
    except OSError:
        ended = -1  # a kernel before 5.3: until the pipe closes
        if source is None:
            return
    while True:
        events = poller.poll()
        ready = {fd for fd, _ in events}
        if answers is not None:
            answers.serve(poller, events)
        if source in ready:
            data = os.read(source, 1 << 16)
            if data:
                keep(data)
            elif ended < 0:
                return
            else:  # the program closed its standard error: its calls are still answered until it ends
                poller.unregister(source)
                source = None
        elif ended in ready:
            if source is not None:
                os.set_blocking(source, False)
                try:
                    while data := os.read(source, 1 << 16):
                        keep(data)
                except BlockingIOError:
                    pass
            return


def join(procs):
    """Move this process into the cgroup of the ``cgroup.procs`` file ``procs``."""
    try:
        with open(procs, "w") as f:
            f.write("0")
    except OSError as exc:
        fail(f"joining the cgroup {os.path.dirname(procs)}", exc.strerror)


def oom_score(value):
    """Set this process's ``oom_score_adj``: -1000, never picked by the OOM killer, +1000, picked first.  Any
    process may raise its own; lowering needs root outside a user namespace, and where it is refused the
    program's +1000 still makes the program the one picked."""
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write(str(value))
    except OSError:
        pass


def outer(child, errors, settings, seccomp, answers=None):
    """The outer process: pump the program's standard error and answer its sysinfo calls (``seccomp.Answers``),
    wait for it and end the same way it did."""
    # Never picked by the OOM killer (where the machine lets root lower a score): a v2 memory cgroup holds
    # this process with the program, and a machine-wide shortage must not end the drain before the program.
    oom_score(-1000)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_IGN)

    def end_program(*_):
        try:
            os.kill(child, signal.SIGKILL)
        except OSError:
            pass
        if settings["freezer"] is not None:  # a frozen program dies only once thawed
            _, control, thawed = settings["freezer"]
            try:
                with open(control, "w") as f:
                    f.write(thawed)
            except OSError:
                pass

    # SIGUSR1, from the referee: kill the program, take the rest of its standard error, end.  With a
    # cgroup freezer also on the referee's death: the program may be frozen.  Without one, this process
    # may be stopped with its group, and dies of SIGKILL (its child, PID 1 of the program's namespace, of
    # its own parent-death signal), as SIGUSR1 would wait.
    signal.signal(signal.SIGUSR1, end_program)
    if settings["freezer"] is not None:
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGUSR1, 0, 0, 0)
        if os.getppid() != settings["parent"]:
            end_program()
    # Let go of the program's pipes: its end of them is its own.
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    served = None if answers is None else seccomp.Answers(
        answers, [os.path.dirname(procs) for procs in settings["cgroups"]], settings["rlimits"].get("DATA", settings["rlimits"].get("AS")))
    if errors is not None or served is not None:
        pump(errors, child, settings["log_mb"] if errors is not None else 0, served)
    if served is not None:
        served.close()  # what the program left running gets ENOSYS rather than wait
    while True:
        try:
            _, status = os.waitpid(child, 0)
            break
        except ChildProcessError:
            os._exit(EXIT_JAIL)
        except InterruptedError:
            continue
    signal.signal(signal.SIGUSR1, signal.SIG_IGN)  # its pid is free again
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig not in (signal.SIGKILL, signal.SIGSTOP):  # those two cannot be caught: already the default
            signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else EXIT_JAIL)


# -- all of it --------------------------------------------------------------------------------


def probe_seccomp():
    """``jail.py --seccomp``: print what the filter gives a bot here."""
    seccomp = load_seccomp()
    call("setting no_new_privs", libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
    print(filter_calls(seccomp))


def main():
    if sys.argv[1] == "--seccomp":
        probe_seccomp()
        return
    run(marshal.loads(bytes.fromhex(sys.argv[1])), sys.argv[3:], load_seccomp())


def run(settings, command, seccomp, host=None):
    """Steps 1 to 5 for ``command``; with ``host`` (a function, from the fork server of
    ``forkserver.py``), call it in place of the exec, and end with what it returns."""
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != settings["parent"]:
        os._exit(EXIT_JAIL)  # the referee is already gone
    try:
        os.sched_setaffinity(0, settings["cpus"])
    except OSError as exc:
        fail("keeping to the referee's CPUs", exc.strerror)
    # The outer process stays out of a v1 memory cgroup (the program joins it alone, below): what the
    # program writes to its tmpfs counts there but to no process's score, and the OOM killer would pick
    # the outer process instead, whose last words are the program's.
    memory = [procs for procs in settings["cgroups"] if procs.startswith(MEMORY_V1)]
    for procs in settings["cgroups"]:
        if procs not in memory:
            join(procs)
    if settings["namespaces"]:
        # The mount namespace is the child's alone (see below): pivot_root moves every process of a
        # namespace into the new root, and the outer process keeps the machine's.
        flags = CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
        uid, gid = os.getuid(), os.getgid()
        if settings["userns"]:
            flags |= CLONE_NEWUSER
        call("making namespaces", libc.unshare(flags))
        if settings["userns"]:
            # Without root: the user's own uid, seen as root inside, rights only over the new namespaces.
            for name, text in (("uid_map", f"0 {uid} 1"), ("setgroups", "deny"), ("gid_map", f"0 {gid} 1")):
                try:
                    with open(f"/proc/self/{name}", "w") as f:
                        f.write(text)
                except OSError as exc:
                    fail(f"mapping the user namespace ({name})", exc.strerror)
    errors, into = os.pipe() if settings["log_mb"] is not None else (None, None)
    # The child hands the seccomp filter's listener to the outer process through this pair.
    answers, handing = _socket.socketpair(_socket.AF_UNIX, _socket.SOCK_SEQPACKET) \
        if not isinstance(seccomp, str) else (None, None)
    child = os.fork()
    if child:
        if into is not None:
            os.close(into)
        if handing is not None:
            handing.close()
        outer(child, errors, settings, seccomp, answers)
    if answers is not None:
        answers.close()
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    oom_score(1000)  # the first process the OOM killer picks, and everything it starts
    if into is not None:
        os.dup2(into, 2)
        os.close(into)
        os.close(errors)
    for procs in memory + ([settings["freezer"][0]] if settings["freezer"] is not None else []):
        join(procs)
    executable = find(command[0], settings["env"].get("PATH", ""), settings["cwd"])
    if settings["namespaces"]:
        call("making mount and cgroup namespaces", libc.unshare(CLONE_NEWNS | CLONE_NEWCGROUP))
        libc.sethostname(b"arena-bot", 9)
        build_root(settings)
    drop_privileges(settings, seccomp, handing, dumpable=host is not None)
    try:
        os.chdir(settings["cwd"])
    except OSError as exc:
        fail(f"entering the folder {settings['cwd']}", exc.strerror)
    if host is not None:
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))  # as an exec closes ours (all close on exec)
        os.environ.clear()
        os.environ.update(settings["env"])
        code = host()
        sys.stderr.flush()
        os._exit(code)
    try:
        os.execve(executable, command, settings["env"])
    except OSError as exc:
        fail(f"starting {command[0]}", exc.strerror)


if __name__ == "__main__":
    main()
