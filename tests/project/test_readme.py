"""The README's and the site's promises that code can check: the README's opening commands, its length,
its links, and every Python example of the README and the site, which must pass the linter and run."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from arena.play.referee import play_game

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"
#: The README fits on a few screens; the manual is the site under docs/.
README_LIMIT = 10_000


def pages() -> list[Path]:
    """Every Markdown page of the site."""
    return sorted(DOCS.rglob("*.md"))


def page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


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


def test_the_readme_is_under_ten_thousand_characters() -> None:
    assert len(README) < README_LIMIT, (
        f"README.md has {len(README):,} characters (the limit is {README_LIMIT:,}): move the detail into a page of docs/")


def test_the_readme_links_every_part_of_the_site_and_only_what_exists() -> None:
    targets = [t for t in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README) if "://" not in t]
    for target in targets:
        assert (ROOT / target).exists(), target
    for part in ("tutorials", "how-to", "reference", "explanation"):
        assert any(t.startswith(f"docs/{part}/") for t in targets), part
    assert "arena docs" in README and "'.[docs]'" in README  # how to build and open the site


def test_the_python_tutorial_shows_the_example_bot_verbatim() -> None:
    example = (ROOT / "examples" / "example_bot.py").read_text(encoding="utf-8")
    assert f"```python\n{example}```" in page("tutorials/first-python-bot.md")


def test_the_program_tutorial_shows_the_javascript_protocol_bot_verbatim() -> None:
    example = (ROOT / "examples" / "protocol" / "random_bot.js").read_text(encoding="utf-8")
    assert f"```javascript\n{example}```" in page("tutorials/first-program-bot.md")


# -- the Python examples: the bots pass the linter and play, the rest run --------------------------

def python_blocks(text: str) -> list[str]:
    """Every ```python block of ``text``."""
    return re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)


def defines_a_bot(block: str) -> bool:
    return re.search(r"^class \w+\(Bot\):", block, flags=re.MULTILINE) is not None


def python_bot_examples(text: str = README) -> list[str]:
    """Every ```python block of ``text`` that defines a bot (a subclass of Bot)."""
    return [block for block in python_blocks(text) if defines_a_bot(block)]


def bot_class_name(block: str) -> str:
    match = re.search(r"^class (\w+)\(Bot\):", block, flags=re.MULTILINE)
    assert match
    return match.group(1)


def documents() -> list[tuple[str, str]]:
    """(name, text) of the README and every page of the site."""
    return [("README.md", README)] + [(str(p.relative_to(ROOT)), p.read_text(encoding="utf-8")) for p in pages()]


def test_the_readme_and_the_site_have_python_bot_examples() -> None:
    assert python_bot_examples()
    assert python_bot_examples(page("reference/bots.md"))
    assert python_bot_examples(page("tutorials/first-python-bot.md"))


def all_python_bot_examples() -> list[tuple[str, str]]:
    return [(name, block) for name, text in documents() for block in python_bot_examples(text)]


def other_python_examples() -> list[tuple[str, str]]:
    return [(name, block) for name, text in documents() for block in python_blocks(text) if not defines_a_bot(block)]


def test_the_site_has_python_examples_that_are_not_bots() -> None:
    assert any(name.endswith("game-record.md") for name, _ in other_python_examples())


@pytest.mark.parametrize("where, block", other_python_examples())
def test_python_examples_run(where: str, block: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # an example that writes a file writes it here
    try:
        exec(compile(block, where, "exec"), {"__name__": "__example__"})
    except ImportError as exc:
        # An example of an optional extra (the bridges' openspiel and rl) skips where the extra is not installed.
        if exc.name in ("pyspiel", "open_spiel", "pettingzoo", "gymnasium") or "pip install 'uptown-arena[" in str(exc):
            pytest.skip(f"{where}: {exc}")
        raise


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
