"""The README's promises that code can check: its opening commands and its example bot."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
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
