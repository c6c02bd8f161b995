"""What the README and the site show as the arena's output is what the arena prints.

Each block marked ``<!-- output: NAME -->`` is compared, byte for byte, with a real run of the
command docs/outputs.py gives for NAME (``python docs/outputs.py`` writes them again); the game
counts the prose states are the schedule's."""

from __future__ import annotations

import importlib.util
import re
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from arena.plan.config import load_config
from arena.plan.schedule import count_games

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location("docs_outputs", ROOT / "docs" / "outputs.py")
assert _SPEC and _SPEC.loader
outputs = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = outputs  # a dataclass looks its module up there
_SPEC.loader.exec_module(outputs)


def shown() -> dict[str, list[tuple[str, str]]]:
    """Every output block of the README and the site: NAME -> [(page, content)]."""
    found: dict[str, list[tuple[str, str]]] = {}
    for path in outputs.pages():
        for name, content in outputs.blocks(path.read_text(encoding="utf-8")):
            found.setdefault(name, []).append((str(path.relative_to(ROOT)), content))
    return found


#: The blocks another test holds to a real run: the quickstart's standings, where they are shown, against the
#: README's own sandboxed run (tests/project/test_newcomer_path.py).
CHECKED_ELSEWHERE = {"quickstart-standings": ["README.md", "docs/tutorials/first-tournament.md"]}


def test_the_readme_shows_the_quickstart_s_standings_as_a_checked_output() -> None:
    found = shown()
    for name, places in CHECKED_ELSEWHERE.items():
        assert sorted(where for where, _ in found.get(name, [])) == places
    assert set(found) <= set(outputs.OUTPUTS), set(found) - set(outputs.OUTPUTS)
    assert set(outputs.OUTPUTS) <= set(found), "an output no page shows"
    for name, blocks in found.items():
        for where, content in blocks:
            assert content.strip(), f"{where}: the block {name} is empty (python docs/outputs.py writes it)"


def test_rewrite_puts_a_run_s_output_into_its_block_and_nothing_else() -> None:
    text = "a\n<!-- output: x -->\n```text\nold\n```\nb\n```text\nkept\n```\n"
    assert outputs.rewrite(text, {"x": "new 1\nnew 2\n"}) == (
        "a\n<!-- output: x -->\n```text\nnew 1\nnew 2\n```\nb\n```text\nkept\n```\n")
    assert outputs.blocks(text) == [("x", "old\n")]


@pytest.mark.parametrize("name", sorted(set(outputs.OUTPUTS) - set(CHECKED_ELSEWHERE)))
@pytest.mark.slow
def test_each_output_block_is_what_a_real_run_prints(name: str) -> None:
    # The bots in process: isolation never changes a game (tests/integration/test_identity.py), and what
    # a page shows is stdout, where no line names the isolation; the sandbox would only add a program's
    # start to every seat of every game.  `python docs/outputs.py --check` runs the commands as shown.
    output = outputs.OUTPUTS[name]
    printed = replace(output, args=(*output.args, "--isolation", "none")).run()
    for where, content in shown()[name]:
        assert content == printed, (
            f"{where}: the block {name} differs from what `arena {' '.join(outputs.OUTPUTS[name].args)}` prints "
            f"now; run python docs/outputs.py to write it again.\n--- shown\n{content}--- printed\n{printed}")


@pytest.mark.parametrize("path, count_phrase", [
    ("README.md", r"(\d+) four-player games"),
    ("README.md", r"(\d+) games between"),
    ("docs/tutorials/first-tournament.md", r"orders of the balanced seating, (\d+) games"),
])
def test_the_quickstart_s_game_count_is_the_schedule_s(path: str, count_phrase: str) -> None:
    text = (ROOT / path).read_text(encoding="utf-8")
    said = re.findall(count_phrase, text)
    assert said, (path, count_phrase)
    games = count_games(load_config(ROOT / "tournaments" / "quickstart.toml"))
    assert {int(n) for n in said} == {games}


def test_the_baselines_game_count_is_the_schedule_s() -> None:
    text = (ROOT / "docs" / "tutorials" / "first-tournament.md").read_text(encoding="utf-8")
    said = re.search(r"`tournaments/baselines.toml` plays .*? (\d+) games", text, re.DOTALL)
    assert said
    assert int(said.group(1)) == count_games(load_config(ROOT / "tournaments" / "baselines.toml"))


@pytest.mark.parametrize("name", ["quickstart", "baselines"])
def test_the_tournament_file_reference_gives_each_file_s_game_count(name: str) -> None:
    text = (ROOT / "docs" / "reference" / "tournament-file.md").read_text(encoding="utf-8")
    row = re.search(rf"^\| `{name}.toml` \|[^|]*\| (\d+) \|", text, re.MULTILINE)
    assert row, name
    assert int(row.group(1)) == count_games(load_config(ROOT / "tournaments" / f"{name}.toml"))
