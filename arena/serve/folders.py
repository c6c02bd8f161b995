"""The results folders ``arena serve`` shows, and the only paths it ever opens.

Each folder given is a results folder (it holds ``tournament.toml``) or a folder of them (its
subfolders that are).  A page names a folder by its *key* — the given folder's number, ``0``, or
that and a subfolder's name, ``0:league`` — never by a path, and a key is looked up, not joined:
a subfolder is a direct child of a given folder once both are resolved (a symbolic link out of it
is no subfolder), and a file (a plot) is a direct child of its folder of an allowed name and kind.
So no URL reaches a path outside the folders given: ``..``, an encoded slash or a link pointing out
finds nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from arena.results.files import TOURNAMENT_FILE

#: The pictures a page shows: files of the folder itself with these names.
PICTURE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,120}\.(png|svg)")
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


class Folders:
    """The folders given to ``arena serve`` (each resolved once, at the start) and the results folders in them."""

    def __init__(self, roots: list[Path]) -> None:
        self.roots = [Path(root).resolve() for root in roots]

    def listing(self) -> list[Served]:
        """Every results folder shown, in the order given (a folder's subfolders by name), looked for now."""
        found: list[Served] = []
        for index, root in enumerate(self.roots):
            if is_results_folder(root):
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
        return found

    def find(self, key: str) -> Served | None:
        """The results folder of ``key``, or None when it names none (see the module docstring)."""
        number, colon, name = key.partition(":")
        if not number.isdigit() or not number.isascii() or int(number) >= len(self.roots):
            return None
        index = int(number)
        root = self.roots[index]
        if not colon:
            return Served(key, root.name, root) if is_results_folder(root) else None
        return self._child(index, name)

    def _child(self, index: int, name: str) -> Served | None:
        root = self.roots[index]
        if not _NAME.fullmatch(name) or name in (".", "..") or is_results_folder(root):
            return None
        try:
            path = (root / name).resolve()
        except (OSError, RuntimeError):
            return None
        if path.parent != root or not is_results_folder(path):
            return None
        return Served(f"{index}:{name}", name, path)


def picture(folder: Path, name: str) -> Path | None:
    """The picture ``name`` of ``folder`` (a PNG or SVG file right in it, not a link out), or None."""
    if not PICTURE.fullmatch(name):
        return None
    try:
        path = (folder / name).resolve()
    except (OSError, RuntimeError):
        return None
    if path.parent != folder.resolve() or not path.is_file():
        return None
    return path


def pictures(folder: Path) -> list[str]:
    """The names of the pictures of ``folder``, the plots of :data:`~arena.results.files.PLOT_FILES` first."""
    from arena.results.files import PLOT_FILES

    try:
        names = sorted(p.name for p in folder.iterdir() if picture(folder, p.name) is not None)
    except OSError:
        return []
    first = [n for n in PLOT_FILES if n in names]
    return first + [n for n in names if n not in first]
