"""Type checking: mypy is configured in pyproject.toml, strict on the rules engine, and the engine passes it."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: What ``mypy --strict`` turns on that a module section can set.
STRICT = {
    "disallow_any_generics", "disallow_subclassing_any", "disallow_untyped_calls", "disallow_untyped_defs",
    "disallow_incomplete_defs", "check_untyped_defs", "disallow_untyped_decorators", "warn_unused_ignores",
    "warn_return_any", "no_implicit_reexport", "strict_equality", "extra_checks",
}


def config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_mypy_is_configured_strict_on_the_rules_engine() -> None:
    project = config()
    assert any(req.startswith("mypy") for req in project["project"]["optional-dependencies"]["test"])
    mypy = project["tool"]["mypy"]
    assert set(mypy["files"]) == {"arena", "bots"}
    (rules,) = [o for o in mypy["overrides"] if o["module"] == "arena.rules.*"]
    assert {flag for flag in STRICT if rules.get(flag) is True} == STRICT


@pytest.mark.tooling
@pytest.mark.slow
def test_the_rules_engine_passes_strict_mypy(tmp_path) -> None:
    api = pytest.importorskip("mypy.api")
    out, err, status = api.run([
        "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(tmp_path), "--no-error-summary",
        "--python-executable", sys.executable, str(ROOT / "arena" / "rules"),
    ])
    assert status == 0, out + err
