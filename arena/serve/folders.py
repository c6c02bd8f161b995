"""The results folders ``arena serve`` shows, and the only paths it ever opens.

Each folder given is a results folder (it holds ``tournament.toml``) or a folder of them (its
subfolders that are).  A page names a folder by its *key* — its name, ``league``, whether it was given
itself or found in a folder given, so ``arena run --serve`` and ``arena serve results/`` show a run at
one address; where two folders shown have one name, the later ones by the given folder's number, ``1``,
or that and the subfolder's name, ``1:league`` — never by a path, and a key is looked up, not joined:
a subfolder is a direct child of a given folder, and no symbolic link.  So no URL reaches a path
outside the folders given: ``..``, an encoded slash or a link finds nothing.

Nothing is read through a symbolic link: a results folder in which one of the files the server reads
is a link is not served, and a picture is one of the arena's plots (a PNG file of its name), opened
with ``O_NOFOLLOW`` on every component of its path and handed out from that descriptor.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from arena.results.files import LIVE_FOLDER, LOCK_FILE, MATCH_FILE, OUTPUT_FILES, PLOT_FILES, TOURNAMENT_FILE

#: The pictures a page shows: the arena's plots, files of the folder itself.
PICTURES = PLOT_FILES
#: What every picture starts with (the arena draws PNG files only).
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: The biggest picture handed out (a plot is some hundred kilobytes).
MAX_PICTURE = 32 << 20
#: The files of a results folder the server reads (with the live games' files in ``live/``).
READ_FILES = (*OUTPUT_FILES, MATCH_FILE, LOCK_FILE, LIVE_FOLDER)
#: A subfolder's name as a key may hold it.
_NAME = re.compile(r"[^/\\\x00]{1,255}")


@dataclass(frozen=True)
class Served:
    """A results folder shown: its key in URLs, its name on the page, and where it is."""

    key: str
    name: str
    path: Path


def is_results_folder(path: Path) -> bool:
    """Whether ``path`` is a folder holding a tournament file."""
    try:
        return path.is_dir() and (path / TOURNAMENT_FILE).is_file()
    except OSError:
        return False


def _is_link(path: Path) -> bool:
    try:
        return stat.S_ISLNK(path.lstat().st_mode)
    except OSError:
        return False


def has_links(folder: Path) -> bool:
    """Whether a file of ``folder`` that the server reads (:data:`READ_FILES`, a live game's file) is a
    symbolic link."""
    if any(_is_link(folder / name) for name in READ_FILES):
        return True
    try:
        return any(entry.is_symlink() for entry in os.scandir(folder / LIVE_FOLDER))
    except OSError:
        return False


def _served(path: Path) -> bool:
    """Whether ``path`` is a results folder that may be served: one without links among its files."""
    return is_results_folder(path) and not has_links(path)


class Folders:
    """The folders given to ``arena serve`` (each resolved once, at the start) and the results folders in them."""

    def __init__(self, roots: list[Path]) -> None:
        self.roots = [Path(root).resolve() for root in roots]

    def listing(self) -> list[Served]:
        """Every results folder shown, in the order given (a folder's subfolders by name), looked for now; each
        keyed by its name, but for one whose name an earlier one has (see the module docstring)."""
        found: list[Served] = []
        for index, root in enumerate(self.roots):
            if is_results_folder(root):
                if not has_links(root):
                    found.append(Served(str(index), root.name, root))
                continue
            try:
                children = sorted(root.iterdir(), key=lambda p: p.name)
            except OSError:
                continue
            for child in children:
                served = self._child(index, child.name)
                if served is not None:
                    found.append(served)
        named: set[str] = set()
        for number, served in enumerate(found):  # the first of a name is the one find(name) finds
            if served.name not in named:
                found[number] = Served(served.name, served.name, served.path)
            named.add(served.name)
        return found

    def find(self, key: str) -> Served | None:
        """The results folder of ``key``, or None when it names none (see the module docstring)."""
        return self._named(key) or self._numbered(key)

    def _named(self, name: str) -> Served | None:
        """The first folder shown whose name is ``name``: a folder given, or a subfolder of one."""
        for index, root in enumerate(self.roots):
            if is_results_folder(root):
                if root.name == name and not has_links(root):
                    return Served(name, name, root)
            elif self._child(index, name) is not None:
                return Served(name, name, root / name)
        return None

    def _numbered(self, key: str) -> Served | None:
        """The folder of a key by number: ``N`` (a folder given) or ``N:name`` (a subfolder of one)."""
        number, colon, name = key.partition(":")
        if not number.isdigit() or not number.isascii() or int(number) >= len(self.roots):
            return None
        index = int(number)
        root = self.roots[index]
        if not colon:
            return Served(key, root.name, root) if _served(root) else None
        return self._child(index, name)

    def _child(self, index: int, name: str) -> Served | None:
        root = self.roots[index]
        if not _NAME.fullmatch(name) or name in (".", "..") or is_results_folder(root):
            return None
        path = root / name
        if _is_link(path) or not _served(path):
            return None
        return Served(f"{index}:{name}", name, path)


def picture(folder: Path, name: str) -> Path | None:
    """The picture ``name`` of ``folder`` (one of :data:`PICTURES`, a file right in it, not a link), or None."""
    if name not in PICTURES:
        return None
    path = folder / name
    try:
        return path if stat.S_ISREG(path.lstat().st_mode) else None
    except OSError:
        return None


def open_no_links(path: Path, flags: int = os.O_RDONLY) -> int:
    """A descriptor of ``path`` (absolute) opened with ``O_NOFOLLOW`` on every component, so a symbolic
    link anywhere in it, put there at any time, fails the open (:class:`OSError`)."""
    parts = path.parts
    if not path.is_absolute():
        raise OSError(f"{path}: not an absolute path")
    fd = os.open("/", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in parts[1:-1]:
            child = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            os.close(fd)
            fd = child
        last = os.open(parts[-1], flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=fd)
    finally:
        os.close(fd)
    return last


def read_picture(folder: Path, name: str) -> bytes | None:
    """The bytes of the picture ``name`` of ``folder``: a plot's name, a regular file reached through no
    link, no bigger than :data:`MAX_PICTURE`, a PNG; else None."""
    if name not in PICTURES:
        return None
    try:
        fd = open_no_links(folder / name)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_PICTURE:
            return None
        data = f.read(MAX_PICTURE + 1)
    if len(data) > MAX_PICTURE or not data.startswith(PNG_SIGNATURE):
        return None
    return data


def pictures(folder: Path) -> list[str]:
    """The names of the pictures of ``folder``, in the order :data:`PICTURES` gives them."""
    return [name for name in PICTURES if picture(folder, name) is not None]
