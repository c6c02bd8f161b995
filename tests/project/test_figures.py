"""The figures the README and the site quote from runs (times, game counts, ratings) are those of the committed
run, docs/figures.json, which ``python docs/figures.py --update`` makes by running the arena: every figure in a
page is marked with the figure it is, and holds that figure's value.  The runs are not repeated here (a time
depends on the machine and its load); the pages are held to the file the script wrote."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location("docs_figures", ROOT / "docs" / "figures.py")
assert _SPEC and _SPEC.loader
figures = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = figures  # a dataclass looks its module up there
_SPEC.loader.exec_module(figures)


def marked() -> dict[str, list[tuple[str, str]]]:
    """Every figure of the README and the site: NAME -> [(page, value shown)]."""
    found: dict[str, list[tuple[str, str]]] = {}
    for path in figures.pages():
        for name, value in figures.shown(path.read_text(encoding="utf-8")):
            found.setdefault(name, []).append((str(path.relative_to(ROOT)), value))
    return found


def test_every_figure_a_page_shows_is_the_committed_run_s() -> None:
    made = figures.values(figures.read_figures())
    wrong = [f"{page}: {name} shows {value!r}, the run gave {made.get(name)!r}"
             for name, places in marked().items() for page, value in places if made.get(name) != value]
    assert not wrong, "\n".join(wrong) + "\n(python docs/figures.py writes the pages from docs/figures.json)"


def test_the_committed_run_is_of_the_script_s_commands_and_says_where_it_ran() -> None:
    runs = figures.read_figures()
    assert set(runs) == set(figures.RUNS)
    for name, run in runs.items():
        assert run["command"] == figures.RUNS[name].command(), name
        assert run["machine"] and re.fullmatch(r"\d{4}-\d{2}-\d{2}", run["when"]) and run["figures"], name
    shown = {name.split(".", 1)[0] for name in marked()}
    assert shown == set(figures.RUNS), "a run whose figures no page shows, or a page's figure of no run"


def test_no_figure_is_inside_code_where_its_mark_would_show() -> None:
    for path in figures.pages():
        text = path.read_text(encoding="utf-8")
        for block in re.findall(r"^```.*?^```", text, re.MULTILINE | re.DOTALL):
            assert "<!-- figure:" not in block, path
        for span in re.findall(r"`[^`\n]+`", re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)):
            assert "<!-- figure:" not in span, (path, span)


def test_rewrite_puts_each_value_in_its_figure_and_nothing_else() -> None:
    text = "took <!-- figure: run.wall -->33.6 s<!-- /figure --> of wall clock, 33.6 s elsewhere"
    assert figures.rewrite(text, {"run.wall": "4.1 s"}) == (
        "took <!-- figure: run.wall -->4.1 s<!-- /figure --> of wall clock, 33.6 s elsewhere")
    assert figures.shown(text) == [("run.wall", "33.6 s")]


def test_durations_read_as_a_page_says_them() -> None:
    assert [figures.duration(s) for s in (4.04, 29.4, 185, 1118, 1500)] == [
        "4.0 s", "29 s", "3 min 5 s", "18 min", "25 min"]
