"""The files the tutorials use, ``tournaments/`` and ``examples/``: shipped inside the package, copied into a
folder of the user's own by ``arena init``.

A wheel holds them as package data (``arena/tutorial/``, copied there by setup.py when the wheel is built);
an editable install or the source tree reads them from the checkout itself.
"""

from __future__ import annotations

import shutil
from fnmatch import fnmatch
from pathlib import Path

#: The folders of tutorial files, as the pages name them.
FOLDERS = ("tournaments", "examples")
#: What is never copied: caches, and what a tutorial's own run writes beside its files.
IGNORED = ("__pycache__", "*.pyc", "trained.json", "build")

_PACKAGE = Path(__file__).resolve().parent


def source() -> Path:
    """The folder that holds :data:`FOLDERS`: the installed package's ``tutorial/``, else the checkout's root."""
    shipped = _PACKAGE / "tutorial"
    if (shipped / "tournaments").is_dir():
        return shipped
    return _PACKAGE.parent


def files() -> list[Path]:
    """Every tutorial file, relative to :func:`source`, in order."""
    root = source()
    return [path.relative_to(root) for folder in FOLDERS for path in sorted((root / folder).rglob("*"))
            if path.is_file() and not any(fnmatch(part, pattern) for part in path.relative_to(root).parts
                                          for pattern in IGNORED)]


def copy_into(folder: Path) -> tuple[list[Path], list[Path]]:
    """Copy every tutorial file into ``folder`` at the same relative path; a file already there is kept as it
    is, never overwritten.  The files written and the files kept, relative to ``folder``."""
    root = source()
    written, kept = [], []
    for relative in files():
        target = folder / relative
        if target.exists() or target.is_symlink():
            kept.append(relative)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / relative, target)
        written.append(relative)
    return written, kept
