"""The README's promises that code can check: its opening commands and its example bot."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from arena.play.referee import play_game

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def opening_commands() -> list[str]:
    block = README.split("```sh\n", 1)[1].split("```", 1)[0]
    return block.strip().splitlines()


def test_readme_opens_with_two_commands() -> None:
    install_and_run, install_and_test = opening_commands()
    assert "arena run tournaments/quickstart.toml" in install_and_run
    assert "pytest" in install_and_test


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert opening_commands()[1] in ci.splitlines()


def test_readme_shows_the_example_bot_verbatim() -> None:
    example = (ROOT / "examples" / "example_bot.py").read_text(encoding="utf-8")
    assert f"```python\n{example}```" in README


def test_readme_shows_the_javascript_protocol_bot_verbatim() -> None:
    example = (ROOT / "examples" / "protocol" / "random_bot.js").read_text(encoding="utf-8")
    assert f"```javascript\n{example}```" in README


# -- the Python bot examples: the linter passes them and they play ------------------------------

def python_bot_examples(text: str = README) -> list[str]:
    """Every ```python block of ``text`` that defines a bot (a subclass of Bot)."""
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    return [block for block in blocks if re.search(r"^class \w+\(Bot\):", block, flags=re.MULTILINE)]


def bot_class_name(block: str) -> str:
    match = re.search(r"^class (\w+)\(Bot\):", block, flags=re.MULTILINE)
    assert match
    return match.group(1)


def test_the_readme_and_the_bot_guide_have_python_bot_examples() -> None:
    assert python_bot_examples()
    assert python_bot_examples((ROOT / "docs" / "BOTS.md").read_text(encoding="utf-8"))


def all_python_bot_examples() -> list[tuple[str, str]]:
    guide = (ROOT / "docs" / "BOTS.md").read_text(encoding="utf-8") if (ROOT / "docs" / "BOTS.md").exists() else ""
    return [("README.md", block) for block in python_bot_examples()] + [
        ("docs/reference/bots.md", block) for block in python_bot_examples(guide)
    ]


@pytest.mark.parametrize("where, block", all_python_bot_examples())
def test_python_bot_examples_pass_the_linter(where: str, block: str) -> None:
    # The project's rules, plus RUF012: a bot's ``options`` is a class attribute, so a ClassVar.
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--config", str(ROOT / "pyproject.toml"),
         "--extend-select", "RUF012", "--stdin-filename", "examples/readme_example.py", "-"],
        input=block, capture_output=True, text=True, cwd=ROOT,
    )
    assert result.returncode == 0, f"{where}:\n{result.stdout}{result.stderr}"


@pytest.mark.parametrize("where, block", all_python_bot_examples())
@pytest.mark.slow
def test_python_bot_examples_play_a_game(where: str, block: str, tmp_path: Path) -> None:
    path = tmp_path / "example.py"
    path.write_text(block, encoding="utf-8")
    name = bot_class_name(block)
    for spec, seed in ((f"{path}:{name}", 11), (f"{path}:{name}", 12)):
        outcome = play_game([spec, "random", "greedy"], seed, isolation="none")
        assert outcome.state.over and not outcome.faults, (where, outcome.faults)
        assert outcome.turns[0] >= 24  # it chose its moves (a faulted seat would be in faults)
    # And as a program in the sandbox, the way arena play runs it by default.
    outcome = play_game([f"{path}:{name}", "random"], 13, isolation="process")
    assert outcome.state.over and not outcome.faults, (where, outcome.faults)
