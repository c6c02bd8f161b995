"""The commands' ``--help`` and the pages that describe them say the same thing.

Every option the README and the site give a command exists in that command; every option of a
command is in them; a default a page states is click's.  And the help says what the code does.
(The site's command reference, docs/reference/cli.md, is generated from the Click definitions.)
"""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from arena.cli import COMMANDS, main
from arena.ranges import DEFAULT_TIME_LIMIT

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
#: The README and every page of the site, as one text: where a command is written out.
EVERYWHERE = "\n".join([README, *(p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs").rglob("*.md")))])

#: The pages (and their ``## `` sections; None: the whole page) that describe each command's options, in prose
#: (besides every `arena CMD ...` written out anywhere).
SECTIONS: dict[str, list[tuple[str, str | None]]] = {
    "play": [("tutorials/first-game.md", "Playing a game")],
    "replay": [("how-to/reproduce-a-game.md", "Replay a record")],
    "view": [("how-to/reproduce-a-game.md", "Watch it in a browser")],
    "bots": [("how-to/program-bots.md", "Check it before a run")],
    "run": [("tutorials/first-tournament.md", "Options of `arena run`"), ("how-to/resume.md", None)],
    "report": [("how-to/reports-and-plots.md", None)],
    "match": [("tutorials/first-sprt.md", None)],
    "serve": [("how-to/watch-live.md", None)],
    "docs": [],
    "init": [],
    "info": [],
}
_OPTION = re.compile(r"(?<![\w-])--[a-z][a-z-]*")
_INVOCATION = re.compile(r"\barena (" + "|".join(COMMANDS) + r")\b([^`\n]*)")
_DEFAULT = re.compile(r"\(default:? `?([^`);,]+?)`?[);,]|defaults to `([^`]+)`")


def command(name: str) -> click.Command:
    found = main.get_command(click.Context(main), name)
    assert found is not None, name
    return found


def long_options(name: str) -> dict[str, click.Option]:
    """Every option of the command by its first long name (``--help`` aside)."""
    options = {}
    for param in command(name).params:
        if isinstance(param, click.Option):
            long = next((opt for opt in param.opts if opt.startswith("--")), None)
            if long is not None:
                options[long] = param
    return options


def default(param: click.Option) -> object:
    """Click's default of ``param``, None when it has none."""
    value = param.default
    return None if value is None or type(value).__name__ == "Sentinel" else value


def section(page: str, heading: str | None) -> str:
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    if heading is None:
        return text
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    assert match, (page, heading)
    return match.group(1)


def code_lines(text: str) -> list[str]:
    """The lines of code blocks and the code spans of the text."""
    blocks = re.findall(r"^```[a-z]*\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    prose = re.sub(r"^```[a-z]*\n.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)
    return [line for block in blocks for line in block.splitlines()] + re.findall(r"`([^`\n]+)`", prose)


def invoked(name: str) -> set[str]:
    """The options written after ``arena NAME`` anywhere in the code of the README and the site."""
    found = set()
    for line in code_lines(EVERYWHERE):
        for match in _INVOCATION.finditer(line):
            if match.group(1) == name:
                found.update(_OPTION.findall(match.group(2).split("#")[0]))
    return found


def described(name: str) -> dict[str, str | None]:
    """The options the command's sections name in their prose, with the default said after each (or None)."""
    found: dict[str, str | None] = {}
    for page, heading in SECTIONS[name]:
        text = re.sub(r"^```[a-z]*\n.*?^```", "", section(page, heading), flags=re.MULTILINE | re.DOTALL)
        for line in text.splitlines():
            # Options inside a written-out command belong to that command (`arena bots --probe`).
            line = re.sub(r"`[^`]*\barena \w+[^`]*`", "", line)
            spans = [(m.start(), m.group(0)) for m in re.finditer(r"`(--[a-z][a-z-]*)[^`]*`", line)]
            for i, (start, span) in enumerate(spans):
                option = _OPTION.search(span).group(0)
                end = spans[i + 1][0] if i + 1 < len(spans) else len(line)
                default = _DEFAULT.search(line, start + len(span), end)
                said = None if default is None else (default.group(1) or default.group(2)).strip()
                if found.get(option) is None:
                    found[option] = said
    return found


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_option_the_docs_give_exists(name):
    options = long_options(name)
    mentioned = invoked(name) | set(described(name))
    flags_off = {opt for param in options.values() for opt in param.secondary_opts}  # --no-compress
    unknown = sorted(mentioned - set(options) - flags_off - {"--help"})
    assert not unknown, f"the docs give arena {name} options it does not have: {unknown}"


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_option_is_in_the_docs(name):
    mentioned = invoked(name) | set(described(name))
    missing = sorted(set(long_options(name)) - mentioned)
    assert not missing, f"arena {name} options the docs do not mention: {missing}"


def _same(said: str, default: object) -> bool:
    if isinstance(default, float):
        try:
            return float(said) == default
        except ValueError:
            return False
    return said == str(default)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_the_docs_defaults_are_click_s(name):
    said_in_readme = described(name)
    for option, param in long_options(name).items():
        if param.is_flag or param.multiple or default(param) is None:
            continue
        said = said_in_readme.get(option)
        assert said is not None, f"the docs do not say the default of arena {name} {option} ({default(param)})"
        assert _same(said, default(param)), f"arena {name} {option}: the docs say {said!r}, click {default(param)!r}"


@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_default_is_said_once_in_the_help(name):
    for option, param in long_options(name).items():
        if default(param) is not None and not param.is_flag:
            assert param.show_default, f"arena {name} {option}: click's default is not shown"
            assert "default" not in (param.help or ""), f"arena {name} {option}: its default is said twice"


def test_the_time_limit_default_is_the_referee_s():
    assert long_options("play")["--time-limit"].default == DEFAULT_TIME_LIMIT


def test_run_help_says_where_games_are_played(cli):
    text = cli.invoke(main, ["run", "--help"], terminal_width=200, prog_name="arena").output
    assert "in this process" not in text
    workers = long_options("run")["--workers"].help
    assert "also with 1" in workers


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_help_works(name, cli):
    result = cli.invoke(main, [name, "--help"], prog_name="arena")
    assert result.exit_code == 0 and result.output.startswith(f"Usage: arena {name} ")
    assert COMMANDS[name][1] in cli.invoke(main, ["--help"], terminal_width=200).output


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_command_is_in_the_docs(name):
    assert any(m.group(1) == name for line in code_lines(EVERYWHERE) for m in _INVOCATION.finditer(line)), name


@pytest.mark.parametrize(("typed", "meant"), [("reprot", "'report'"), ("pla", "'play' or 'replay'"), ("mathc", "'match'")])
def test_a_misspelt_command_is_answered_with_the_nearest_names(typed: str, meant: str) -> None:
    from click.testing import CliRunner

    result = CliRunner().invoke(main, [typed])
    assert result.exit_code == 2
    assert f"Error: No such command {typed!r}. Did you mean {meant}?" in result.output


def test_a_command_nothing_resembles_gets_no_suggestion() -> None:
    from click.testing import CliRunner

    result = CliRunner().invoke(main, ["xyzzy"])
    assert result.exit_code == 2 and "Error: No such command 'xyzzy'." in result.output
    assert "Did you mean" not in result.output


def test_an_arena_error_is_one_line_and_exit_status_1(tmp_path: Path) -> None:
    """Any ArenaError a command raises is printed by the command group as one line, with no traceback."""
    from click.testing import CliRunner

    bad = tmp_path / "bad.toml"
    bad.write_text("name = 'x'\nentrants = 3\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["run", str(bad)])
    assert result.exit_code == 1, result.output
    assert result.output.startswith("Error: ") and result.output.count("\n") == 1, result.output
    assert "Traceback" not in result.output
