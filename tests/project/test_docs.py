"""The project's own documents: the rules with every id the tests and the engine name, the record
format with every key the arena writes, a README that links to them, and a site whose links resolve."""

from __future__ import annotations

import doctest
import json
import re
from pathlib import Path

import pytest

from arena.cli import main
from arena.play.referee import play_game

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
REFERENCE = DOCS / "reference"
README = (ROOT / "README.md").read_text(encoding="utf-8")

# A rule id is a capital letter and a digit, the way cells are written too (B1 is a cell and a rule),
# so ids are taken only where they are used as ids: in test names (test_M3_..., test_C1_C3_...),
# in citations in parentheses ("(M3)", "(B1-B3)", "(M2/M3)"), in section headers ("# -- M6: passing"),
# and as the label that opens a docstring or comment ("M3: the tiles ...", "E2: every color ...").
_ID = r"[A-Z][0-9]"
_TEST_NAME = re.compile(rf"def test_((?:{_ID}_)+)")
_CITATION = re.compile(rf"\(({_ID}(?:\s*[-/,]\s*{_ID})*)\)")
_HEADER = re.compile(rf"#\s*(?:--\s*({_ID})\b|({_ID}):)")
_DOC_LABEL = re.compile(rf'"""({_ID})(?::|\s+by\b|\s+read\b)')
_DEFINED = re.compile(rf"^- \*\*({_ID})\b", re.MULTILINE)


def _expand(text: str) -> set[str]:
    """``B1-B3`` is B1, B2 and B3; ``M2/M3`` and ``C1, C3`` are each id."""
    ids: set[str] = set()
    for part in re.split(r"\s*[/,]\s*", text):
        ends = re.split(r"\s*-\s*", part)
        if len(ends) == 2 and ends[0][0] == ends[1][0]:
            ids.update(f"{ends[0][0]}{n}" for n in range(int(ends[0][1]), int(ends[1][1]) + 1))
        else:
            ids.update(ends)
    return ids


def rule_ids_named_in(text: str) -> set[str]:
    """The rule ids ``text`` (Python source) names as rule ids, not as cells."""
    ids: set[str] = set()
    for match in _TEST_NAME.finditer(text):
        ids.update(match.group(1).strip("_").split("_"))
    for pattern in (_CITATION, _HEADER, _DOC_LABEL):
        for match in pattern.finditer(text):
            ids.update(_expand(next(group for group in match.groups() if group)))
    return ids


def defined_rule_ids() -> set[str]:
    return set(_DEFINED.findall((REFERENCE / "rules.md").read_text(encoding="utf-8")))


def test_the_rule_id_finder_reads_ids_and_skips_cells() -> None:
    source = '''
def test_C1_C3_result_table(): ...
def test_M3_capture(): """M3: still connected."""
# -- B1 ------
# Board (B1-B3) and a capture (M2/M3)
# Red at E4 and E6: E5 joins them (E5 is red; capture A5)
# C6 (blue, lone) may be taken; E5 - E6
x = 1  # M6: nothing drawn
    """E2 by definition"""
    assert str(move) == "red:ring@B2"  # C5, D7
'''
    assert rule_ids_named_in(source) == {"B1", "B2", "B3", "C1", "C3", "E2", "M2", "M3", "M6"}


def test_every_rule_id_the_tests_name_is_defined_in_docs_rules() -> None:
    named: dict[str, list[str]] = {}
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for rule in rule_ids_named_in(path.read_text(encoding="utf-8")):
            named.setdefault(rule, []).append(path.name)
    assert {"B1", "M3", "C2", "E3", "S2", "T2"} <= set(named)  # the finder finds them at all
    missing = {rule: files for rule, files in named.items() if rule not in defined_rule_ids()}
    assert not missing, f"rule ids named in tests/ but not defined in docs/reference/rules.md: {missing}"


def test_every_rule_id_the_engine_cites_is_defined_in_docs_rules() -> None:
    cited: set[str] = set()
    for path in sorted((ROOT / "arena").rglob("*.py")):
        for match in _CITATION.finditer(path.read_text(encoding="utf-8")):
            cited.update(_expand(match.group(1)))
    assert {"M1", "M3", "T3"} <= cited
    assert cited <= defined_rule_ids()


def test_docs_rules_defines_each_id_once_in_order() -> None:
    text = (REFERENCE / "rules.md").read_text(encoding="utf-8")
    ids = _DEFINED.findall(text)
    assert len(ids) == len(set(ids))
    for letter in "BTSMEC":
        numbers = [int(i[1]) for i in ids if i[0] == letter]
        assert numbers == list(range(1, len(numbers) + 1)), letter


# -- the record format -----------------------------------------------------------------------------

_KEY_ROW = re.compile(r"^\| `([a-z_]+)`", re.MULTILINE)


def described_keys(section: str) -> set[str]:
    """The keys listed in the table under the heading ``section`` of docs/reference/game-record.md."""
    text = (REFERENCE / "game-record.md").read_text(encoding="utf-8")
    parts = re.split(r"^#+ ", text, flags=re.MULTILINE)
    bodies = [p for p in parts if p.splitlines()[:1] == [section]]
    assert bodies, f"docs/reference/game-record.md has no section {section!r}"
    return set(_KEY_ROW.findall(bodies[0]))


def test_every_key_of_a_referee_record_is_described() -> None:
    outcome = play_game(["random", "random"], 3, penalty="opponent", isolation="none")
    record = outcome.record
    assert "penalty" in record and "faults" in record  # the optional keys are there to be checked
    documented = described_keys("Top-level keys")
    assert set(record) <= documented, set(record) - documented
    for row in record["result"]:
        assert set(row) <= described_keys("Result rows")
    for entry in record["moves"]:
        assert set(entry) <= described_keys("Moves")
    for entry in record["players"]:
        assert set(entry) <= described_keys("Players")
    for entry in record["bots"]:
        assert {"seat", "spec", "options"} <= set(entry)
        assert {"seat", "spec", "options"} <= described_keys("Bots")


def test_a_faulted_seat_s_fault_entry_is_described(tmp_path: Path) -> None:
    bot = tmp_path / "raiser.py"
    bot.write_text(
        "from arena.bots import Bot\n\n"
        "class Raiser(Bot):\n"
        "    def choose(self, view):\n"
        "        raise RuntimeError('no idea')\n"
    )
    outcome = play_game([f"{bot}:Raiser", "random", "random"], 1, isolation="none")
    faults = outcome.record["faults"]
    assert faults and set(faults[0]) <= described_keys("Faults")
    assert {"seat", "move", "kind", "message"} <= described_keys("Faults")


@pytest.mark.slow
def test_every_key_of_a_tournament_record_is_described(tmp_path: Path, cli, write_tournament) -> None:
    config = write_tournament(
        'name = "t"\nplayers = 2\ndeals = 1\nseed = 1\ntime_limit = 5\nrotate = false\nisolation = "none"\n'
        '[[entrants]]\nbot = "random"\n[[entrants]]\nname = "random-2"\nbot = "random"\n'
    )
    out = tmp_path / "out"
    result = cli.invoke(main, ["run", str(config), "--out", str(out), "-q", "-j", "1", "--no-compress"])
    assert result.exit_code == 0, result.output
    lines = (out / "records.jsonl").read_text(encoding="utf-8").splitlines()
    assert lines
    for line in lines:
        record = json.loads(line)
        assert {"game_id", "tournament"} <= set(record)
        assert set(record) <= described_keys("Top-level keys"), set(record) - described_keys("Top-level keys")
        assert set(record["tournament"]) <= described_keys("Tournament")


# -- links ----------------------------------------------------------------------------------------

_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


@pytest.mark.parametrize("name", ["rules.md", "game-record.md", "bots.md", "protocol.md"])
def test_the_readme_links_the_project_s_own_documents(name: str) -> None:
    assert (REFERENCE / name).is_file()
    assert f"](docs/reference/{name})" in README


def test_the_readme_sends_nobody_to_documents_the_repository_does_not_have() -> None:
    assert "shared documents" not in README
    for target in _LINK.findall(README):
        if "://" not in target:
            assert (ROOT / target).exists(), target


@pytest.mark.parametrize("path", sorted(DOCS.rglob("*.md")), ids=lambda p: str(p.relative_to(DOCS)))
def test_the_pages_link_only_to_pages_and_files_of_the_site(path: Path) -> None:
    # mkdocs build --strict checks the anchors too; this needs no docs extra.
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.MULTILINE | re.DOTALL)
    for target in _LINK.findall(text):
        if "://" not in target:
            found = (path.parent / target).resolve()
            assert found.exists() and found.is_relative_to(DOCS.resolve()), f"{path.relative_to(ROOT)}: {target}"
            assert "README" not in target, f"{path.relative_to(ROOT)}: {target}"


# -- the bot author's guide -------------------------------------------------------------------------

def test_the_bot_guide_s_sessions_give_what_they_show() -> None:
    text = (REFERENCE / "bots.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```pycon\n(.*?)```", text, flags=re.DOTALL)
    assert len(blocks) >= 3
    # One session through the whole page: later blocks use what earlier ones made.
    test = doctest.DocTestParser().get_doctest("".join(blocks), {}, "docs/reference/bots.md", str(REFERENCE / "bots.md"), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    output: list[str] = []
    runner.run(test, out=output.append)
    assert runner.failures == 0 and runner.tries > 20, "".join(output)


def test_the_bot_guide_s_imports_are_the_public_ones() -> None:
    text = (REFERENCE / "bots.md").read_text(encoding="utf-8")
    for block in re.findall(r"```(?:python|pycon)\n(.*?)```", text, flags=re.DOTALL):
        assert "geometry" not in block and "arena.rules.tiles" not in block and "arena.rules.state" not in block
    block = re.search(r"```python\n(from arena.rules import \(.*?\))\n```", text, flags=re.DOTALL)
    assert block, "the guide lists what arena.rules exports for bots"
    exec(block.group(1), {})


def test_the_bot_guide_lists_exactly_what_arena_bots_exports() -> None:
    import arena.bots

    text = (REFERENCE / "bots.md").read_text(encoding="utf-8")
    table = text.split("`arena.bots.__all__` is exactly:", 1)[1].split("\n\n", 2)[1]
    listed = [name for row in table.splitlines()[2:] for name in re.findall(r"`(\w+)`", row.split("|")[2])]
    assert sorted(listed) == sorted(arena.bots.__all__)


# -- exit statuses ----------------------------------------------------------------------------------

def exit_status_examples() -> list[tuple[int, str]]:
    """(status, command) of every row of docs/reference/exit-statuses.md that gives an example."""
    text = (REFERENCE / "exit-statuses.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+) \|.*\| `(arena [^`]+)` \|$", text, flags=re.MULTILINE)
    return [(int(status), command) for status, command in rows]


def test_the_exit_status_table_gives_examples() -> None:
    assert {status for status, _ in exit_status_examples()} == {0, 1, 2}


@pytest.mark.parametrize("status, command", exit_status_examples())
def test_each_exit_status_example_exits_with_its_status(status: int, command: str, cli) -> None:
    result = cli.invoke(main, command.split()[1:])
    assert result.exit_code == status, result.output
    if status:  # one error line (Click puts the usage before a usage error's)
        lines = result.output.strip().splitlines()
        assert lines[-1].startswith("Error: ") and sum(line.startswith("Error") for line in lines) == 1
