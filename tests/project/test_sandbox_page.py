"""The threat model's allow-list of system calls is the filter's own."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_page_lists_every_allowed_system_call_by_family_as_the_filter_does():
    spec = importlib.util.spec_from_file_location("arena_seccomp_page", ROOT / "arena" / "isolation" / "seccomp.py")
    seccomp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(seccomp)
    page = (ROOT / "docs" / "explanation" / "sandbox.md").read_text()
    section = page.split("### System calls by allow-list", 1)[1].split("\n### ", 1)[0]
    listed = {match[1]: tuple(re.findall(r"`([^`]+)`", match[2]))
              for match in re.finditer(r"^- \*\*([^*]+)\*\*: (.+)$", section, re.MULTILINE)}
    assert listed == seccomp.ALLOWED
