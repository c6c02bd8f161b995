"""A results folder of every earlier version of the arena is reported, checked and resumed as what it is.

``tests/data/folders/`` holds a small tournament's folder as each earlier arena wrote it (see its README):
before the entrants' identities (games.csv version 1, plain records, no checkpoints), before deal keys
(public deals in the duplicate format) and before the time-use columns (version 1 with a deal key).
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from arena.cli import main
from arena.results.games_table import COLUMNS, CURRENT, VERSIONS, read_version, upgrader

FOLDERS = Path(__file__).resolve().parents[1] / "data" / "folders"
#: Each folder, and whether it was written before deal keys.
OLDER = {"before-identities": True, "before-deal-keys": True, "before-time-use": False}


def copy(name: str, tmp_path: Path) -> Path:
    out = tmp_path / name
    shutil.copytree(FOLDERS / name, out)
    return out


def rows(path: Path) -> list[list[str]]:
    return list(csv.reader(path.read_text(encoding="utf-8").splitlines()))


def test_every_folder_is_of_an_earlier_version_of_games_csv():
    assert {read_version(FOLDERS / name / "games.csv") for name in OLDER} == {VERSIONS[0]}
    assert CURRENT is not VERSIONS[0]


@pytest.mark.parametrize("name", OLDER)
def test_an_older_folder_is_reported_as_what_it_is(cli, tmp_path, name):
    out = copy(name, tmp_path)
    before = (out / "games.csv").read_bytes()
    result = cli.invoke(main, ["report", str(out), "--table", "standings"])
    assert result.exit_code == 0, result.output
    said = result.output.splitlines()
    assert any(line.startswith("random ") or " random " in line for line in said)
    notes = [line for line in said if "written before deal keys" in line]
    assert len(notes) == OLDER[name]
    if OLDER[name]:
        assert notes[0] == (f"{out}: written before deal keys: its games were played with public deals, one deal a "
                            "round (duplicate), and it is read and resumed as such")
    assert "deal.key" not in result.output
    assert (out / "games.csv").read_bytes() == before  # a report reads the folder and changes nothing


@pytest.mark.parametrize("name", OLDER)
def test_an_older_folder_resumes_with_every_stored_game_checked_and_kept(cli, tmp_path, name):
    out = copy(name, tmp_path)
    stored = rows(out / "games.csv")
    version = read_version(out / "games.csv")
    result = cli.invoke(main, ["run", str(out / "tournament.toml"), "--out", str(out), "--resume", "-j", "1",
                               "--isolation", "none"])
    assert result.exit_code == 0, result.output
    assert "dropped" not in result.output and "removed" not in result.output  # every stored game passed its check
    assert f"{(len(stored) - 1) // 3} were stored already" in result.output
    assert ("written before deal keys" in result.output) == OLDER[name]
    after = rows(out / "games.csv")
    assert after[0] == list(COLUMNS)
    upgrade = upgrader(version)  # the stored rows, upgraded, are all there, as they were
    kept = {",".join(row) for row in after[1:]}
    assert all(upgrade(",".join(row) + "\n").rstrip("\n") in kept for row in stored[1:])
    assert not (out / "deal.key").exists() or not OLDER[name]
    again = cli.invoke(main, ["run", str(out / "tournament.toml"), "--out", str(out), "--resume", "-j", "1",
                              "--isolation", "none"])
    assert again.exit_code == 0 and "played 0 games" in again.output, again.output
