"""The optional extras of the arena and whether each is installed, found without importing them."""

from __future__ import annotations

import importlib.metadata
import importlib.util

#: Each extra: the distributions it installs (with the module each provides) and what it is for.
EXTRAS: dict[str, tuple[tuple[tuple[str, str], ...], str]] = {
    "openspiel": ((("open-spiel", "pyspiel"),), "the OpenSpiel game python_uptown and OpenSpiel bots"),
    "rl": ((("pettingzoo", "pettingzoo"), ("gymnasium", "gymnasium")), "the PettingZoo environment uptown_v0"),
}


def extra_status(extra: str) -> tuple[bool, str]:
    """Whether every library of ``extra`` is installed, and a line naming their versions or what is missing."""
    found, parts = True, []
    for dist, module in EXTRAS[extra][0]:
        if importlib.util.find_spec(module) is None:
            found = False
            parts.append(f"{dist} missing")
            continue
        try:
            parts.append(f"{dist} {importlib.metadata.version(dist)}")
        except importlib.metadata.PackageNotFoundError:
            parts.append(f"{dist} (version unknown)")
    return found, ", ".join(parts)


def require(extra: str) -> None:
    """ImportError with the command that installs ``extra`` when one of its libraries is missing."""
    ok, line = extra_status(extra)
    if not ok:
        raise ImportError(f"{EXTRAS[extra][1]} needs the {extra} extra ({line}): "
                          f"pip install 'uptown-arena[{extra}]'")
