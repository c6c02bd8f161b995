"""Staging: a copy of an entrant's files that others may not read, made once per referee process, for its group alone."""

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
from typing import Any

from arena.isolation.limits import GID_BASE, SandboxError

#: The most a staged entrant (a program or folder others may not read) may weigh.
STAGE_MB = 256


#: Per referee process: its staging folder, and the copies in it by (path, hidden paths): (copy, gid, fingerprint).
staging_folders: dict[int, tuple[str, dict[tuple[str, tuple[str, ...]], tuple[str, int, tuple[Any, ...]]]]] = {}


_stages = itertools.count()


def _fingerprint(path: str, hidden: tuple[str, ...]) -> tuple[tuple[Any, ...], int, bool]:
    """What a stage of ``path`` depends on: every file's name, inode, size and times; the bytes it holds;
    and whether a file changed so lately that a change to come might keep its times (a file system's
    clock ticks in milliseconds: two writes within a tick can leave the same times and size)."""
    entries: list[tuple[Any, ...]] = []
    size = 0
    recent = time.time() - 2.0
    racy = False
    for folder, names, files in os.walk(path) if os.path.isdir(path) else [(os.path.dirname(path), [],
                                                                              [os.path.basename(path)])]:
        names[:] = [n for n in names if os.path.join(folder, n) not in hidden]
        for name in sorted(names + files):
            item = os.path.join(folder, name)
            if item in hidden:
                continue
            found = os.lstat(item)
            entries.append((item, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns))
            size += found.st_size
            racy = racy or max(found.st_mtime, found.st_ctime) >= recent
    return tuple(entries), size, racy


def stage_copy(path: str, hidden: tuple[str, ...]) -> tuple[str, int]:
    """A copy of ``path`` owned by root and readable by a group of its own (made once per referee process,
    again when anything in it changes), and that group."""
    pid = os.getpid()
    if pid not in staging_folders:
        folder = tempfile.mkdtemp(prefix=f"arena-stage-{pid}-")
        atexit.register(shutil.rmtree, folder, True)
        staging_folders[pid] = (folder, {})
    folder, copies = staging_folders[pid]
    entries, size, racy = _fingerprint(path, hidden)
    key = (path, hidden)
    kept = copies.get(key)
    if kept is not None and kept[2] == entries and not racy:
        return kept[0], kept[1]
    if size > STAGE_MB << 20:
        raise SandboxError(f"{path} is not readable by others and larger than {STAGE_MB} MiB, too large to "
                           f"stage for the bot's uid: make it readable (chmod -R o+rX {path})")
    found = os.stat(path)
    index = next(_stages)
    gid = kept[1] if kept is not None else GID_BASE + (pid % 4096) * 64 + len(copies) % 64
    copy = os.path.join(folder, str(index), os.path.basename(path) or "root")
    os.makedirs(os.path.dirname(copy))
    try:
        if stat.S_ISDIR(found.st_mode):
            shutil.copytree(path, copy, symlinks=True,
                            ignore=lambda d, names: [n for n in names if os.path.join(d, n) in hidden])
        else:
            shutil.copy2(path, copy)
        for item in [copy, *(os.path.join(d, n) for d, names, files in os.walk(copy) for n in names + files)]:
            mode = os.lstat(item).st_mode
            if stat.S_ISLNK(mode):
                continue
            os.chown(item, 0, gid)
            os.chmod(item, 0o750 if stat.S_ISDIR(mode) or mode & 0o111 else 0o640)
    except OSError as exc:
        raise SandboxError(f"cannot stage {path} for the bot's uid: {exc.strerror or exc}") from None
    # An older copy stays for the bots that run from it; it goes with the staging folder.
    copies[key] = (copy, gid, entries)
    return copy, gid


@functools.lru_cache(maxsize=1)
def sweep_folders() -> None:
    """Once per process: remove the private and staging folders of arena processes that are gone."""
    for folder in [*Path(tempfile.gettempdir()).glob("arena-bot-*-*"),
                   *Path(tempfile.gettempdir()).glob("arena-stage-*-*")]:
        pid = folder.name.split("-")[2]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            shutil.rmtree(folder, ignore_errors=True)
