"""What a bot program is shown in its fresh root: the system folders, a minimal ``/etc``, its runtime and its own files."""

from __future__ import annotations

import functools
import glob
import importlib.util
import os
import pwd
import shutil
import stat
import sys
from collections.abc import Iterable
from dataclasses import dataclass

from arena.isolation.limits import SandboxError
from arena.isolation.staging import stage_copy

#: The PATH a bot program gets (plus what its entrant adds).
PATH = "/usr/local/bin:/usr/bin:/bin"


#: The system folders of every fresh root, read-only (a symlink, as on a merged-/usr system, stays a symlink).
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


#: What of /etc a program needs: the dynamic loader's cache, name service switch, the time zone, the
#: alternatives (``java`` and others are reached through them) and Java's configuration.
ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/nsswitch.conf", "/etc/host.conf",
       "/etc/localtime", "/etc/alternatives", "/etc/java-*")


def open_to_others(path: str) -> bool:
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
            if not os.path.islink(entry) and not open_to_others(entry):
                return True
            seen += 1
            if seen >= WALK_ENTRIES:
                return False
    return False


def is_closed(path: str, whole: bool) -> bool:
    """Whether ``path`` (and, with ``whole``, everything in it) is closed to others."""
    if not open_to_others(path):
        return True
    try:
        found = os.stat(path)
    except OSError:
        return False
    return whole and stat.S_ISDIR(found.st_mode) and _closed_within(
        path, (found.st_ino, found.st_mtime_ns, found.st_size))


@functools.lru_cache(maxsize=1)
def _passwd_homes() -> frozenset[str]:
    """The home folder of every user of this machine, as named and resolved."""
    homes = {user.pw_dir for user in pwd.getpwall() if os.path.isabs(user.pw_dir)}
    return frozenset({os.path.abspath(h) for h in homes} | {os.path.realpath(h) for h in homes})


def home_folders() -> set[str]:
    """Every user's home folder, and the referee's own (``~``: ``HOME`` when set)."""
    mine = os.path.expanduser("~")
    return set(_passwd_homes()) | ({os.path.abspath(mine), os.path.realpath(mine)} if os.path.isabs(mine) else set())


def _working_folder() -> set[str]:
    try:
        here = os.getcwd()
    except OSError:
        return set()
    return {here, os.path.realpath(here)}


def shared_place(path: str, named: Iterable[str] = ()) -> bool:
    """Whether ``path`` is a place where users keep all sorts of things, never shown whole to a bot nor staged:
    the root folder, a home folder (:func:`home_folders`), a folder others may write (``/tmp``, ``/var/tmp``,
    ``/dev/shm``), or the working folder when it holds anything but ``named`` (the files the command names)
    and their ``__pycache__``, unless the command names the working folder itself.  In one, a bot is shown only the files its command names."""
    path = os.path.abspath(path)
    if path == "/" or path in home_folders():
        return True
    try:
        found = os.stat(path)
    except OSError:
        return False
    if not stat.S_ISDIR(found.st_mode):
        return False
    if found.st_mode & 0o002:
        return True
    if path in _working_folder():
        mine = {os.path.abspath(n) for n in named} | {os.path.realpath(n) for n in named}
        if path in mine:  # named by the command itself
            return False
        try:
            return any(name != "__pycache__" and os.path.join(path, name) not in mine for name in os.listdir(path))
        except OSError:
            return True
    return False


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
    folder of its own (a shared place, :func:`shared_place`, is never shown for a file in it).  Its runtime: for the referee's own Python (the bot host), ``sys.prefix``,
    ``sys.base_prefix``, the arena's packages and ``PYTHONPATH``; for a program in a ``bin`` folder, that
    folder's prefix; for a script, its interpreter's (``#!``, through ``env`` too).  Absolute; its own as
    named (:func:`layout_of` adds what they resolve to), its runtime's both as named and resolved.  Its
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
        host = len(command) > 3 and command[1:3] == ["-I", "-c"] and "arena.wire.bothost" in command[3]
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
class Layout:
    """A fresh root's parts besides /dev, /proc and /tmp, made by the jail in this order."""

    #: ``(path, source)``: ``source`` bound read-only at ``path`` (parents before what they hold).
    binds: list[tuple[str, str]]
    #: ``(path, target)``: symlinks.
    links: list[tuple[str, str]]
    #: The groups that may read its staged copies.
    gids: list[int]


def layout_of(own: list[str], runtime: list[str], hidden: list[str], stage: bool) -> Layout:
    """What the fresh root shows of the machine: the system, then the runtime's folders and the program's
    own files, never a hidden path.

    With ``stage`` (a bot run as a uid of its own), a path others may read (by its own mode) is bound as it
    is: what it holds that others may not read stays closed to the bot.  A path others may not read is
    staged (:func:`~arena.isolation.staging.stage_copy`): a copy holding the entrant's files and what others
    may read, never another's file closed to others nor a results folder, and always what the command names.
    A shared place (:func:`shared_place`: the root folder, a home folder, ``/tmp``, a busy working folder)
    is neither bound nor staged: only the files the command names in it are shown, each on its own.

    What an own path resolves to through a symbolic link is shown too, but never staged: the copy is made
    as root, and a link would let an entrant choose what root copies for it."""
    system_binds, system_links = _system()
    layout = Layout(list(system_binds), list(system_links), [])
    shown: dict[str, bool] = {path: False for path, _ in [*system_binds, *system_links]}  # path -> staged
    wanted = {(p, p in own, False) for p in own + runtime if os.path.lexists(p)}
    wanted |= {(os.path.realpath(p), True, True) for p in own
               if os.path.exists(p) and os.path.realpath(p) != p}
    # The files the command names (and what the sandbox is asked to show): the entrant's, always shown; and
    # the folders it names itself (``java -cp .``), not as the folder of a file it names: shown whole, even the
    # working folder.
    named = tuple(sorted({p for p in own if os.path.lexists(p) and not os.path.isdir(p)}))
    named += tuple(p for p in own if os.path.isdir(p) and not any(os.path.dirname(n) == p for n in named))
    left_out: list[str] = []  # shared places inside a folder shown: not shown with it
    for path, is_own, via_link in sorted(wanted):
        if any(_under(path, h) for h in hidden):
            continue
        if not os.path.islink(path) and (shared_place(path, named) if is_own else _shared_runtime(path)):
            continue  # only what the command names in it, each on its own
        holder = max((f for f in shown if _under(path, f) and not any(_under(path, s) and _under(s, f)
                                                                          for s in left_out)), key=len, default=None)
        if holder is not None and shown[holder]:
            continue  # in the staged copy of its folder
        closed = stage and not open_to_others(path)
        if holder is not None and (not closed or os.path.islink(path)):
            continue  # shown with its folder (a link there too: what it points to is a path of its own)
        if via_link and (closed or any(_under(h, path) for h in hidden)):
            raise SandboxError(f"{path} is reached through a symbolic link and "
                               f"{'others may not read it' if closed else 'holds a hidden path'}: name it as it "
                               f"is{', readable by others' if closed else ''}")
        if os.path.islink(path):
            layout.links.append((path, os.readlink(path)))
        elif closed:
            inside = tuple(p for p in own if _under(p, path))
            copy, gid = stage_copy(path, tuple(h for h in hidden if _under(h, path)), inside,
                                   _shared_within(path, named))
            layout.binds.append((path, copy))
            if gid not in layout.gids:
                layout.gids.append(gid)
        else:
            shared = list(_shared_within(path, named))
            _show(path, hidden + shared, layout)
            left_out += shared
        shown[path] = closed
    return layout


def _shared_within(path: str, named: tuple[str, ...]) -> tuple[str, ...]:
    """The shared places inside the folder ``path`` (a home folder, a busy working folder): shown with it only
    as a folder holding what the command names."""
    return tuple(sorted(p for p in home_folders() | _working_folder()
                        if _under(p, path) and p != path and shared_place(p, named)))


def _shared_runtime(path: str) -> bool:
    """Whether a runtime's folder is a shared place: the root folder, a home folder, a folder others may write."""
    return path == "/" or path in home_folders() or (os.path.isdir(path) and bool(os.stat(path).st_mode & 0o002))


def _show(path: str, hidden: list[str], layout: Layout) -> None:
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


def etc_files(uid: int | None, home: str, gids: list[int]) -> dict[str, str]:
    """The generated files of the fresh root's /etc: ``passwd`` and ``group`` naming the bot, ``hosts``."""
    me = uid if uid is not None else 0  # in a user namespace the user is root of it, and only of it
    users = {0: "root", me: "bot", 65534: "nobody"}
    passwd = "".join(f"{name}:x:{n}:{n}:{name}:{home if n == me else '/nonexistent'}:/usr/sbin/nologin\n"
                     for n, name in users.items())
    group = "".join(f"{name}:x:{n}:\n" for n, name in users.items())
    group += "".join(f"entrant{k}:x:{gid}:bot\n" for k, gid in enumerate(gids))
    hosts = "127.0.0.1\tlocalhost arena-bot\n::1\tlocalhost ip6-localhost ip6-loopback\n"
    return {"/etc/passwd": passwd, "/etc/group": group, "/etc/hosts": hosts}
