"""The sandbox levels this machine gives, found once per test process: for the tests of the walls."""

from __future__ import annotations

import sys

import pytest

from arena.isolation import sandbox
from arena.isolation.sandbox import StartOptions, start

JAIL = sandbox.walls() == "jail"
needs_jail = pytest.mark.skipif(not JAIL, reason="the jail needs root and Linux namespaces, which this machine refuses")


def _userns_works() -> bool:
    try:
        box = start(["true"], StartOptions(level="userns"))
    except sandbox.SandboxError:
        return False
    try:
        return box.wait(10) == 0
    finally:
        box.kill()


USERNS = sys.platform.startswith("linux") and _userns_works()
