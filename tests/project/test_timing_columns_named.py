"""The pages that say a resumed or distributed run stores the same games.csv name every column that may differ."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.results.games_table import TIMING_COLUMNS

DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.mark.parametrize("page", ["how-to/resume.md", "how-to/cluster.md"])
def test_the_page_names_every_column_that_differs_from_run_to_run(page: str) -> None:
    text = " ".join((DOCS / page).read_text(encoding="utf-8").split())
    missing = [column for column in TIMING_COLUMNS if f"`{column}`" not in text]
    assert not missing, f"{page} does not name {missing} among the columns that differ from run to run"
