"""The hostile tests' worker adopts the orphans its tests leave, so that the processes they look for are
their own, and reaps those that ended (:mod:`tests.processes`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.processes import adopt_orphans, reap_adopted, zombie_children


@pytest.fixture(scope="session", autouse=True)
def _orphans_are_this_worker_s() -> None:
    adopt_orphans()


@pytest.fixture(autouse=True)
def _ended_orphans_reaped() -> Iterator[None]:
    """After the test's own check for leftovers (a module's fixture: torn down first)."""
    before = zombie_children()
    yield
    reap_adopted(before)
