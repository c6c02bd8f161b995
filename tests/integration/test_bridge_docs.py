"""The python blocks of the bridges' pages run as written (docs/how-to/openspiel-pettingzoo.md,
docs/reference/actions.md), each page's blocks in order in one namespace."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


@pytest.mark.parametrize("page, needs", [("reference/actions.md", ()),
                                         ("how-to/openspiel-pettingzoo.md", ("pyspiel", "pettingzoo"))])
def test_the_page_s_python_blocks_run(page: str, needs: tuple[str, ...]) -> None:
    for module in needs:
        pytest.importorskip(module, reason=f"{module} is not installed (the openspiel and rl extras)")
    blocks = _BLOCK.findall((DOCS / page).read_text(encoding="utf-8"))
    assert blocks
    namespace: dict[str, object] = {"__name__": "docs"}
    for block in blocks:
        exec(compile(block, f"docs/{page}", "exec"), namespace)  # noqa: S102 - the page's own example code
