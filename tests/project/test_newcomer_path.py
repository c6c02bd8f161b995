"""A newcomer's first steps, followed literally from a fresh folder with the installed package: the README's
first command, then *Your first tournament* with its own file saved where the tutorial says; each prints
what the pages show, and leaves the folders they name."""

from __future__ import annotations

import csv
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from arena.plan.config import load_config
from arena.plan.schedule import count_games
from tests.project.conftest import QUICKSTART

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
TUTORIAL = (ROOT / "docs" / "tutorials" / "first-tournament.md").read_text(encoding="utf-8")


def shown(text: str, name: str) -> str:
    """The output block ``name`` of a page (see docs/outputs.py)."""
    match = re.search(rf"^<!-- output: {name} -->\n```\w*\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)
    assert match, name
    return match.group(1)


def games_in(folder: Path) -> dict[str, int]:
    """The games of each entrant (seats played) in ``folder/games.csv``."""
    seats: dict[str, int] = {}
    with open(folder / "games.csv", newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            seats[row["entrant"]] = seats.get(row["entrant"], 0) + 1
    return seats


@pytest.mark.slow
def test_the_readme_s_tournament_then_your_first_tournament(tmp_path: Path, shell_env: dict[str, str],
                                                            readme_quickstart: tuple[Path, str]) -> None:
    # The README's tournament, run once for the suite in a fresh folder (tests/project/conftest.py), where
    # this test goes on.
    fresh = tmp_path / "fresh"
    shutil.copytree(readme_quickstart[0], fresh)

    def run(command: str) -> str:
        done = subprocess.run(["bash", "-c", command], cwd=fresh, env=shell_env, capture_output=True, text=True,
                              timeout=900, stdin=subprocess.DEVNULL)
        assert done.returncode == 0, f"{command}: exit status {done.returncode}\n{done.stdout}{done.stderr}"
        return done.stdout

    # The README: install (here: installed already), then its tournament, which the tutorial opens with too.
    install, command = README.split("```sh\n", 1)[1].splitlines()[0].split(" && ")
    assert install == "python -m pip install ." and command == "arena run tournaments/quickstart.toml"
    assert TUTORIAL.split("```sh\n", 1)[1].splitlines()[:2] == ["arena init", command] and command == QUICKSTART
    standings = readme_quickstart[1]
    assert standings == shown(README, "quickstart-standings") == shown(TUTORIAL, "quickstart-standings")
    quickstart = fresh / "results" / "quickstart"
    assert set(games_in(quickstart).values()) == {120}  # "120 games", every bot at every one
    page = (quickstart / "report.html").read_text(encoding="utf-8")
    assert page.index('<section id="summary">') < page.index('<section id="standings">')

    # The tutorial's own file, saved in tournaments/ as it says, run as it says; its program entrant is
    # the checkout's file the tutorial names.
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the tutorial's program entrant is a Node.js bot (the README's part passed)")
    block = re.search(r"^<!-- file: tournaments/my-first.toml -->\n```toml\n(.*?)^```$", TUTORIAL,
                      re.MULTILINE | re.DOTALL)
    assert block
    # The tutorial's files from the installed package, as an empty folder gets them: the README's quickstart.toml
    # is kept as it is, the rest written.
    said = run("arena init")
    assert "kept 1 file(s) already there as they are: tournaments/quickstart.toml" in said
    assert (fresh / "examples" / "protocol" / "random_bot.js").read_bytes() == (
        ROOT / "examples" / "protocol" / "random_bot.js").read_bytes()
    (fresh / "tournaments" / "my-first.toml").write_text(block.group(1), encoding="utf-8")
    assert "arena run tournaments/my-first.toml" in TUTORIAL
    printed = run("arena run tournaments/my-first.toml")
    first = fresh / "results" / "my-first"  # "its results go to results/my-first/"
    games = count_games(load_config(fresh / "tournaments" / "my-first.toml"))
    said = re.search(r"balanced seating, (\d+) games;", TUTORIAL)
    assert said and int(said.group(1)) == games
    # Two entrants at four seats: each sits twice a game, so each has twice the games in its seats.
    assert games_in(first) == {"mcts-50": 2 * games, "random-js": 2 * games}
    lines = printed.splitlines()
    assert lines[0] == "my-first - Standings"
    assert {line.split()[1] for line in lines[2:4]} == {"mcts-50", "random-js"}
    assert all(line.split()[2] == str(2 * games) and line.split()[-1] == "0" for line in lines[2:4])  # no fault
    assert (first / "report.html").is_file() and (first / "records.jsonl.gz").is_file()
