"""Staging: a copy of an entrant's files that others may not read, made once per referee process, for its group alone.

A stage of a folder holds what is the entrant's and nothing else that others may not read: every entry
open to others by its own mode, and every entry owned by the folder's owner (the entrant); never an entry
of another uid's that is closed to others, never a results folder of the arena (one holding ``.arena.lock``,
or ``tournament.toml`` beside its records, games, entrants or checkpoints file), never a path left out
(hidden), never a FIFO, device or socket.  What the command names is the entrant's, whoever owns it, and
always staged; a shared place in the folder (a home folder, the arena's working folder) is staged as a
folder holding only that.  Every file of the copy is root's, readable by the entrant's group alone.

Root makes the copy, so it never follows a path that someone else may change under it: every folder is
opened with ``O_DIRECTORY | O_NOFOLLOW`` from the one that holds it (``dir_fd``), every file with
``O_NOFOLLOW | O_NONBLOCK`` and checked to be the regular file that was listed (its device and inode)
before a byte is copied from its descriptor; a symbolic link is copied as a link, never followed.
"""

from __future__ import annotations

import atexit
import functools
import itertools
import os
import shutil
import stat
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

from arena.errors import os_error_line
from arena.folderfiles import LOCK_FILE, RESULTS_FILES, TOURNAMENT_FILE
from arena.isolation.limits import GID_BASE, SandboxError

#: The most a staged entrant (a program or folder others may not read) may weigh.
STAGE_MB = 256

#: The most entries a stage may hold, and how deep its folders may nest.
STAGE_ENTRIES = 100_000
STAGE_DEPTH = 64


_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


class Entry(NamedTuple):
    """One entry of a stage, as listed: what its copy is made from, and what the cached copy depends on."""

    #: Its path within the staged path ("" for the staged path itself).
    name: str
    #: ``d`` (a folder), ``f`` (a regular file) or ``l`` (a symbolic link).
    kind: str
    dev: int
    ino: int
    size: int
    mtime_ns: int
    ctime_ns: int
    mode: int
    uid: int
    #: A link's target.
    target: str = ""


#: Per referee process: its staging folder, and the copies in it by (path, hidden, named, shared places in it):
#: (copy, gid, listing).
staging_folders: dict[int, tuple[str, dict[tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]],
                                           tuple[str, int, tuple[Entry, ...]]]]] = {}


_stages = itertools.count()


class _Changed(Exception):
    """What was listed is not what is there any more."""


def is_results_folder(names: set[str] | frozenset[str]) -> bool:
    """Whether a folder holding ``names`` is a results folder of the arena: it holds the lock every run takes
    (``.arena.lock``), or a ``tournament.toml`` beside the records, games, entrants or checkpoints file."""
    return LOCK_FILE in names or (TOURNAMENT_FILE in names and not RESULTS_FILES.isdisjoint(names))


def _readable(found: os.stat_result) -> bool:
    """Whether a uid of no group may read it by its own mode (and list and enter it, for a folder)."""
    need = 0o005 if stat.S_ISDIR(found.st_mode) else 0o004
    return found.st_mode & need == need


def _entry(name: str, found: os.stat_result, kind: str, target: str = "") -> Entry:
    return Entry(name, kind, found.st_dev, found.st_ino, found.st_size if kind == "f" else 0, found.st_mtime_ns,
                 found.st_ctime_ns, found.st_mode, found.st_uid, target)


def _open_path(path: str, flags: int) -> int:
    """A descriptor of the resolved ``path``, opened from ``/`` one name at a time, following no link: a link
    swapped in on the way since it was resolved is refused (ELOOP, ENOTDIR), not followed."""
    fd = os.open("/", _FOLDER)
    try:
        names = [name for name in path.split("/") if name]
        for index, name in enumerate(names):
            inner = os.open(name, flags if index == len(names) - 1 else _FOLDER, dir_fd=fd)
            os.close(fd)
            fd = inner
        return fd
    except BaseException:
        os.close(fd)
        raise


def _names(fd: int) -> list[str]:
    with os.scandir(fd) as listing:
        return sorted(entry.name for entry in listing)


class _Listing:
    """The walk that decides what a stage holds (see the module docstring), by descriptor."""

    def __init__(self, path: str, real: str, left_out: tuple[str, ...], named: tuple[str, ...],
                 shared: tuple[str, ...]) -> None:
        self.path, self.real = path, real
        self.left_out = set(left_out)
        self.named = set(named)
        self.shared = set(shared)
        self.entries: list[Entry] = []
        self.size = 0
        self.recent = time.time() - 2.0
        self.racy = False

    def _as_named(self, name: str) -> set[str]:
        return {os.path.join(self.path, name), os.path.join(self.real, name)}

    def _kept(self, name: str) -> tuple[bool, bool]:
        """Whether the command names ``name`` itself, and whether it names something in it."""
        paths = self._as_named(name)
        exact = not paths.isdisjoint(self.named)
        return exact, exact or any(n.startswith(p + "/") for p in paths for n in self.named)

    def add(self, entry: Entry) -> None:
        self.entries.append(entry)
        self.size += entry.size
        self.racy = self.racy or max(entry.mtime_ns, entry.ctime_ns) / 1e9 >= self.recent
        if len(self.entries) > STAGE_ENTRIES or self.size > STAGE_MB << 20:
            raise _TooLarge

    def folder(self, fd: int, prefix: str, names: list[str], owner: int, depth: int, only_named: bool) -> None:
        """List the folder ``prefix`` (open as ``fd``, holding ``names``) of the entrant ``owner``; with
        ``only_named`` (a shared place), only what the command names in it."""
        if depth > STAGE_DEPTH:
            raise _TooLarge
        for name in names:
            inner = os.path.join(prefix, name) if prefix else name
            if not self._as_named(inner).isdisjoint(self.left_out):
                continue
            exact, kept = self._kept(inner)
            if only_named and not kept:
                continue
            try:
                found = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                continue
            mine = kept or found.st_uid == owner
            # A shared place (the working folder, a home): the folder, for a bot to start in, whoever owns
            # it, and only what the command names in it.
            shared = not exact and not self._as_named(inner).isdisjoint(self.shared)
            if stat.S_ISLNK(found.st_mode):
                if mine:
                    try:
                        target = os.readlink(name, dir_fd=fd)
                    except OSError as exc:  # no longer a link
                        raise _Changed from exc
                    self.add(_entry(inner, found, "l", target))
            elif stat.S_ISREG(found.st_mode):
                if mine or _readable(found):
                    self.add(_entry(inner, found, "f"))
            elif stat.S_ISDIR(found.st_mode) and (mine or shared or _readable(found)):
                sub = _open_checked(name, fd, found)
                try:
                    listed = _names(sub)
                    if kept or shared or not is_results_folder(set(listed)):
                        self.add(_entry(inner, found, "d"))
                        self.folder(sub, inner, listed, found.st_uid if exact else owner, depth + 1,
                                    only_named or shared)
                finally:
                    os.close(sub)
            # A FIFO, a device or a socket: never staged (opening one could block or act on a device).


class _TooLarge(Exception):
    """A stage past :data:`STAGE_MB`, :data:`STAGE_ENTRIES` or :data:`STAGE_DEPTH`."""


def _open_checked(name: str, fd: int, listed: os.stat_result | Entry) -> int:
    """``name`` in the folder ``fd``, opened without following a link, and checked to be what was listed."""
    folder = stat.S_ISDIR(listed.st_mode if isinstance(listed, os.stat_result) else listed.mode)
    try:
        opened = os.open(name, _FOLDER if folder else _FILE, dir_fd=fd)
    except OSError as exc:
        raise _Changed from exc
    try:
        found = os.fstat(opened)
        dev, ino = (listed.st_dev, listed.st_ino) if isinstance(listed, os.stat_result) else (listed.dev, listed.ino)
        regular = stat.S_ISDIR(found.st_mode) if folder else stat.S_ISREG(found.st_mode)
        if not regular or (found.st_dev, found.st_ino) != (dev, ino):
            raise _Changed
    except BaseException:
        os.close(opened)
        raise
    return opened


def _open_top(real: str, listed: Entry | None) -> tuple[int, os.stat_result]:
    """The resolved path ``real`` opened without following a link (checked to be ``listed``, when given),
    and what it is."""
    if real == "/":
        raise SandboxError("the root folder is never staged for a bot")
    try:
        parent = _open_path(os.path.dirname(real), _FOLDER)
    except OSError as exc:
        raise _Changed from exc
    try:
        try:
            found = os.stat(os.path.basename(real), dir_fd=parent, follow_symlinks=False)
        except OSError as exc:
            raise _Changed from exc
        if not stat.S_ISDIR(found.st_mode) and not stat.S_ISREG(found.st_mode):
            raise SandboxError(f"{real} is neither a file nor a folder: it cannot be shown to a bot")
        opened = _open_checked(os.path.basename(real), parent, listed if listed is not None else found)
        return opened, os.fstat(opened)
    finally:
        os.close(parent)


def _list(path: str, left_out: tuple[str, ...], named: tuple[str, ...], shared: tuple[str, ...]) -> _Listing:
    """What a stage of ``path`` holds, listed by descriptor."""
    real = os.path.realpath(path)
    walk = _Listing(path, real, left_out, named, shared)
    fd, found = _open_top(real, None)
    try:
        if stat.S_ISDIR(found.st_mode):
            walk.add(_entry("", found, "d"))
            walk.folder(fd, "", _names(fd), found.st_uid, 1, False)
        else:
            walk.add(_entry("", found, "f"))
    finally:
        os.close(fd)
    return walk


def _copy_file(source: int, name: str, folder: int, entry: Entry, gid: int) -> None:
    """Copy the open file ``source`` (at most the size it was listed with) as ``name`` in ``folder``."""
    copy = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=folder)
    try:
        left = entry.size
        while left > 0:
            sent = os.sendfile(copy, source, None, min(left, 1 << 24))
            if sent == 0:
                break
            left -= sent
        os.fchown(copy, 0, gid)
        os.fchmod(copy, 0o750 if entry.mode & 0o111 else 0o640)
        os.utime(copy, ns=(entry.mtime_ns, entry.mtime_ns))
    finally:
        os.close(copy)


def _copy_folder(source: int, copy: int, prefix: str, inside: dict[str, list[Entry]], gid: int) -> None:
    """Copy what was listed in the folder ``prefix`` (open as ``source``) into the folder ``copy``."""
    for entry in inside.get(prefix, []):
        name = entry.name.rpartition("/")[2]
        if entry.kind == "l":
            os.symlink(entry.target, name, dir_fd=copy)
            continue
        opened = _open_checked(name, source, entry)
        try:
            if entry.kind == "f":
                _copy_file(opened, name, copy, entry, gid)
                continue
            _new_folder(name, copy, opened, entry.name, inside, gid)
        finally:
            os.close(opened)


def _copy(real: str, listed: tuple[Entry, ...], copy: str, gid: int) -> None:
    """Make ``copy`` of what was listed of ``real``, reopening each entry by descriptor."""
    top = listed[0]
    source, _ = _open_top(real, top)
    try:
        if top.kind == "f":
            parent = os.open(os.path.dirname(copy), _FOLDER)
            try:
                _copy_file(source, os.path.basename(copy), parent, top, gid)
            finally:
                os.close(parent)
            return
        inside: dict[str, list[Entry]] = {}
        for entry in listed[1:]:
            inside.setdefault(entry.name.rpartition("/")[0], []).append(entry)
        _new_folder(copy, None, source, "", inside, gid)
    finally:
        os.close(source)


def _new_folder(name: str, parent: int | None, source: int, prefix: str, inside: dict[str, list[Entry]],
                gid: int) -> None:
    """Make the folder ``name`` (in the folder ``parent`` is open on, or a path) as a copy of ``source``:
    closed while it fills, then root's and readable by ``gid``."""
    os.mkdir(name, 0o700, dir_fd=parent)
    made = os.open(name, _FOLDER, dir_fd=parent)
    try:
        _copy_folder(source, made, prefix, inside, gid)
        os.fchown(made, 0, gid)
        os.fchmod(made, 0o750)
    finally:
        os.close(made)


def stage_copy(path: str, hidden: tuple[str, ...], named: tuple[str, ...] = (),
               shared: tuple[str, ...] = ()) -> tuple[str, int]:
    """A copy of what a bot may be shown of ``path`` (see the module docstring), owned by root and readable
    by a group of its own (made once per referee process, again when anything in it changes), and that
    group.  ``hidden`` are left out; ``named`` (what the command names) are always in it; of the shared
    places ``shared`` in it (a home folder, the working folder), the folder and only what is named."""
    pid = os.getpid()
    if pid not in staging_folders:
        folder = tempfile.mkdtemp(prefix=f"arena-stage-{pid}-")
        atexit.register(shutil.rmtree, folder, True)
        staging_folders[pid] = (folder, {})
    folder, copies = staging_folders[pid]
    key = (path, hidden, named, shared)
    kept = copies.get(key)
    made = None
    try:
        walk = _list(path, hidden, named, shared)
        listed = tuple(walk.entries)
        if kept is not None and kept[2] == listed and not walk.racy:
            return kept[0], kept[1]
        gid = kept[1] if kept is not None else GID_BASE + (pid % 4096) * 64 + len(copies) % 64
        made = os.path.join(folder, str(next(_stages)))
        os.mkdir(made, 0o700)
        copy = os.path.join(made, os.path.basename(path) or "root")
        _copy(walk.real, listed, copy, gid)
    except _TooLarge:
        _remove(made)
        raise SandboxError(f"{path} is not readable by others and its entrant's files are larger than {STAGE_MB} "
                           f"MiB (or more than {STAGE_ENTRIES} entries), too large to stage for the bot's uid: keep "
                           "the bot in a folder of its own that holds only what it needs") from None
    except _Changed:
        _remove(made)
        raise SandboxError(f"{path} changed while it was being staged for the bot's uid (a file became a link "
                           "or another file): start it again once it stays put") from None
    except OSError as exc:
        _remove(made)
        raise SandboxError(f"cannot stage {path} for the bot's uid: {os_error_line(exc)}") from None
    # An older copy stays for the bots that run from it; it goes with the staging folder.
    copies[key] = (copy, gid, listed)
    return copy, gid


def _remove(made: str | None) -> None:
    if made is not None:
        shutil.rmtree(made, ignore_errors=True)


@functools.lru_cache(maxsize=1)
def sweep_folders() -> None:
    """Once per process: remove the private and staging folders of arena processes that are gone."""
    for folder in [*Path(tempfile.gettempdir()).glob("arena-bot-*-*"),
                   *Path(tempfile.gettempdir()).glob("arena-stage-*-*")]:
        pid = folder.name.split("-")[2]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            shutil.rmtree(folder, ignore_errors=True)
