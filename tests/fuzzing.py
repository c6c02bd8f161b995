"""Hypothesis's two profiles: ``dev`` (a few examples a test, for the edit loop) and ``ci`` (the full counts).

``ci`` is loaded where the environment has ``CI`` set (``.ci/run`` runs with ``CI=true``), ``dev`` elsewhere;
``pytest --hypothesis-profile ci`` picks one by hand.  A test that wants more (or fewer) examples than the
profile's count says how many it wants under ``ci`` with :func:`examples`, which scales that number by the
profile in force, so a test's examples shrink in the edit loop by the same factor as everyone else's.
"""

from __future__ import annotations

import os

from hypothesis import settings

#: The examples a test gets under ``ci``, Hypothesis's own default; ``dev`` runs a tenth of them.
CI_EXAMPLES = 100
settings.register_profile("ci", max_examples=CI_EXAMPLES, deadline=None)
settings.register_profile("dev", max_examples=CI_EXAMPLES // 10, deadline=None)
#: The profile a run starts with (``--hypothesis-profile`` may replace it once pytest is configured).
PROFILE = "ci" if os.environ.get("CI") else "dev"
settings.load_profile(PROFILE)

#: The fewest examples any test runs, whatever the profile: enough to reach past the simplest case.
FLOOR = 5


def examples(at_ci: int) -> int:
    """The number of examples for a test that runs ``at_ci`` under the ``ci`` profile, scaled to the
    profile in force (read when the test module is imported, after pytest has loaded the profile)."""
    return max(FLOOR, at_ci * settings.default.max_examples // CI_EXAMPLES)
