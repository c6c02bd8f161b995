"""Put up the walls around a bot program, then become it.

Run by :mod:`arena.sandbox` as ``python -I -S jail.py SETTINGS -- COMMAND...``
(standard library only, never imported by the arena), as root when the
machine allows it.  SETTINGS is a JSON object (see ``sandbox.py``).  In order:

1. die with the referee (``PR_SET_PDEATHSIG``), join the bot's cgroups;
2. with ``namespaces``: new PID, mount, network, IPC and UTS namespaces (and,
   with ``userns``, a user namespace first, so that no root is needed); the
   process forks, the child is PID 1 of the new PID namespace (when it ends
   the kernel kills everything it started) and the parent only waits for it
   and passes its exit status on;
3. in the child: a fresh ``/proc``, a private tmpfs on ``home`` (the bot's
   folder), the way shown through closed folders to the program's own files
   (``expose``), tmpfs over every ``hide`` path, every other mount read-only;
4. resource limits; then the bot's uid, or (when its files are not
   readable by another uid) root with every capability dropped for good;
   ``no_new_privs`` either way;
5. the clean environment and working folder, and ``exec`` of the command.

Any step that fails ends the process with status 125 and one line on
standard error: a wall is never silently missing.
"""

import ctypes
import json
import os
import resource
import signal
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MS_NOATIME, MS_NODIRATIME, MS_RELATIME = 1024, 2048, 1 << 21
PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_SET_SECUREBITS, PR_SET_NO_NEW_PRIVS = 1, 24, 28, 38
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
MNT_DETACH = 2
# SECBIT_NOROOT, NO_SETUID_FIXUP, KEEP_CAPS and NO_CAP_AMBIENT_RAISE, each with its lock.
SECURE_BITS = 0x01 | 0x02 | 0x04 | 0x08 | 0x10 | 0x20 | 0x40 | 0x80
EXIT_JAIL = 125
_FLAGS = {"nosuid": MS_NOSUID, "nodev": MS_NODEV, "noexec": MS_NOEXEC, "noatime": MS_NOATIME,
          "nodiratime": MS_NODIRATIME, "relatime": MS_RELATIME}

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
    return None if text is None else text.encode()


def mount(source, target, fstype, flags, data=None):
    return libc.mount(_bytes(source), _bytes(target), _bytes(fstype), ctypes.c_ulong(flags), _bytes(data))


def mount_points():
    """Every mount point of this namespace, from /proc/self/mountinfo, with its per-mount flags."""
    points = []
    with open("/proc/self/mountinfo") as info:
        for line in info:
            fields = line.split()
            path = fields[4].encode().decode("unicode_escape")
            flags = 0
            for option in fields[5].split(","):
                flags |= _FLAGS.get(option, 0)
            points.append((path, flags))
    return points


def build_walls(settings):
    """Step 3: what the bot may see of the file system."""
    call("making mounts private", mount(None, "/", None, MS_REC | MS_PRIVATE))
    call("mounting /proc", mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC))
    home = settings["home"]
    uid = settings["uid"] if settings["uid"] is not None else 0
    call("mounting the private folder", mount("arena-home", home, "tmpfs", MS_NOSUID | MS_NODEV,
                                              f"size={settings['tmp_mb']}m,mode=700,uid={uid},gid={uid}"))
    show_the_way(settings["expose"], home)
    for path in settings["hide"]:
        if os.path.isdir(path):
            call(f"hiding {path}", mount("arena-hidden", path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                                         "size=4k,nr_inodes=1,mode=000"))
        elif os.path.exists(path):
            call(f"hiding {path}", mount("/dev/null", path, None, MS_BIND))
    for path, flags in sorted(mount_points(), key=lambda p: p[0].count("/")):
        if path.startswith("/proc/") or path == home or not os.path.isdir(path) and not os.path.isfile(path):
            continue
        result = mount(None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY | flags)
        if result != 0 and path == "/":
            fail("making / read-only", ctypes.get_errno())


def show_the_way(paths, hold):
    """Let a uid of its own reach each of ``paths``: every folder on the way that others may not enter
    (such as /root) is covered by a tmpfs that holds only the way on, each step a bind of the original.
    Whatever else such a folder holds stays out of sight."""
    closed = {}  # folder -> the names in it on the way to a path
    for path in paths:
        folder = "/"
        for name in path.strip("/").split("/"):
            if not name or not os.path.exists(folder):
                break
            if folder in closed or not os.stat(folder).st_mode & 0o001:
                closed.setdefault(folder, set()).add(name)
            folder = os.path.join(folder, name)
    for n, folder in enumerate(sorted(closed, key=lambda f: f.count("/") if f != "/" else 0)):
        held = os.path.join(hold, f".way-{n}")
        os.mkdir(held)
        call(f"holding {folder}", mount(folder, held, None, MS_BIND))
        call(f"covering {folder}", mount("arena-way", folder, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=755"))
        for name in sorted(closed[folder]):
            source, target = os.path.join(held, name), os.path.join(folder, name)
            if os.path.isdir(source):
                os.mkdir(target)
            else:
                open(target, "w").close()
            call(f"showing {target}", mount(source, target, None, MS_BIND | MS_REC))
        call(f"letting go of {folder}", libc.umount2(held.encode(), MNT_DETACH))
        os.rmdir(held)


def drop_privileges(settings):
    """Step 4: limits, then a uid without rights, or root without capabilities."""
    for name, value in settings["rlimits"].items():
        try:
            resource.setrlimit(getattr(resource, "RLIMIT_" + name), (value, value))
        except (OSError, ValueError) as exc:
            fail(f"setting the limit {name}", str(exc))
    uid = settings["uid"]
    if os.geteuid() == 0:
        # No capability now or after exec, and none to regain: the secure bits are locked and the
        # bounding set is empty, whether root stays root in name only or gives way to the bot's uid.
        call("locking the secure bits", libc.prctl(PR_SET_SECUREBITS, SECURE_BITS, 0, 0, 0))
        cap = 0
        while libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0:
            cap += 1
        libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
        if uid is not None:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        header = (ctypes.c_uint32 * 2)(0x20080522, 0)
        data = (ctypes.c_uint32 * 6)()
        call("dropping capabilities", libc.capset(header, data))
    call("setting no_new_privs", libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
    # A change of credentials clears the parent-death signal: set it again.
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def find(name, path, cwd):
    """The file ``name`` runs, looked up as the shell would (done before the walls hide the library)."""
    if "/" in name:
        return os.path.join(cwd, name)
    for folder in path.split(":"):
        candidate = os.path.join(folder or ".", name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    fail(f"starting {name}", "no such program on PATH " + path)


def wait_for(child):
    """The outer process: wait for PID 1 of the namespace and end the same way it did."""
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_IGN)
    while True:
        try:
            _, status = os.waitpid(child, 0)
            break
        except ChildProcessError:
            os._exit(EXIT_JAIL)
        except InterruptedError:
            continue
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig not in (signal.SIGKILL, signal.SIGSTOP):  # those two cannot be caught: already the default
            signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else EXIT_JAIL)


def main():
    settings = json.loads(sys.argv[1])
    command = sys.argv[3:]
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != settings["parent"]:
        os._exit(EXIT_JAIL)  # the referee is already gone
    if settings["cpus"]:
        try:
            os.sched_setaffinity(0, settings["cpus"])
        except OSError as exc:
            fail("keeping to the referee's CPU", exc.strerror)
    for procs in settings["cgroups"]:
        try:
            with open(procs, "w") as f:
                f.write("0")
        except OSError as exc:
            fail(f"joining the cgroup {os.path.dirname(procs)}", exc.strerror)
    if settings["namespaces"]:
        flags = CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
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
        child = os.fork()
        if child:
            wait_for(child)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        libc.sethostname(b"arena-bot", 9)
        build_walls(settings)
    executable = find(command[0], settings["env"].get("PATH", ""), settings["cwd"])
    drop_privileges(settings)
    try:
        os.chdir(settings["cwd"])
    except OSError as exc:
        fail(f"entering the folder {settings['cwd']}", exc.strerror)
    try:
        os.execve(executable, command, settings["env"])
    except OSError as exc:
        fail(f"starting {command[0]}", exc.strerror)


if __name__ == "__main__":
    main()
