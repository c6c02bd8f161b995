"""The paths a bot program's command names, and those of them a fresh root does not show whole."""

from __future__ import annotations

import os

from arena.isolation.rootfs import home_folders, shared_place


def named_paths(command: list[str], cwd: str | None) -> list[str]:
    """The paths that the arguments of ``command`` name (read from ``cwd``) and that exist, each part of a list of
    paths joined by ``:`` (a Java class path, a ``PYTHONPATH``) on its own; options (``-x``) left out."""
    base = cwd or os.getcwd()
    found = []
    for word in command[1:]:
        if word.startswith("-"):
            continue
        for part in word.split(":") if ":" in word else [word]:
            path = os.path.abspath(os.path.join(base, part))
            if part and os.path.exists(path):
                found.append(path)
    return found


def unshown_folders(command: list[str], cwd: str | None) -> list[tuple[str, str]]:
    """The folders ``command`` names as arguments (read from ``cwd``) that a fresh root does not show whole,
    each with why: shared places (:func:`~arena.isolation.rootfs.shared_place`), in which a bot sees only the
    files its command names.  For a message when such a program fails to start."""
    paths = named_paths(command, cwd)
    found = []
    for path in dict.fromkeys(paths):
        if os.path.isdir(path) and not os.path.islink(path) and shared_place(path, paths):
            # A folder the command names is shared only as one of these (the working folder it names is shown).
            why = "the root folder" if path == "/" else "a home folder" if path in home_folders() else \
                "a folder others may write"
            found.append((path, why))
    return found
