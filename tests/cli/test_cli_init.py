"""``arena init``: the files the tutorials use, from the installed package into a folder of the user's own."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from arena import tutorial_files
from arena.cli import main

ROOT = Path(__file__).resolve().parents[2]


def tracked(folder: str) -> set[Path]:
    """The checkout's files of ``folder`` as git knows them (what a wheel ships)."""
    done = subprocess.run(["git", "ls-files", folder], cwd=ROOT, capture_output=True, text=True, check=True)
    return {Path(line) for line in done.stdout.splitlines()}


def test_init_copies_every_tutorial_file_into_an_empty_folder(cli, tmp_path: Path) -> None:
    result = cli.invoke(main, ["init", str(tmp_path / "mine")])
    assert result.exit_code == 0, result.output
    copied = {p.relative_to(tmp_path / "mine") for p in (tmp_path / "mine").rglob("*") if p.is_file()}
    if (ROOT / ".git").exists():
        assert tracked("tournaments") | tracked("examples") <= copied
    assert {Path("tournaments/quickstart.toml"), Path("examples/protocol/random_bot.js")} <= copied
    for path in copied:
        assert (tmp_path / "mine" / path).read_bytes() == (tutorial_files.source() / path).read_bytes(), path
    assert result.output.splitlines()[-1] == f"next: cd {tmp_path / 'mine'} && arena run tournaments/quickstart.toml"


def test_init_keeps_a_file_already_there(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tournaments").mkdir()
    (tmp_path / "tournaments" / "quickstart.toml").write_text("mine\n")
    result = cli.invoke(main, ["init"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "tournaments" / "quickstart.toml").read_text() == "mine\n"
    assert "kept 1 file(s) already there as they are: tournaments/quickstart.toml" in result.output
    assert result.output.splitlines()[-1] == "next: arena run tournaments/quickstart.toml"


def test_init_into_a_place_that_cannot_hold_a_folder_is_one_line(cli, tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    result = cli.invoke(main, ["init", str(tmp_path / "a-file" / "below")])
    assert result.exit_code == 1 and result.output.startswith(f"Error: {tmp_path / 'a-file' / 'below'}: cannot copy")
    assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output


def test_a_tutorial_s_tournament_file_missing_here_names_arena_init(cli, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = cli.invoke(main, ["run", "tournaments/quickstart.toml"])
    assert result.exit_code == 1
    assert result.output == ("Error: tournaments/quickstart.toml: no such file here; arena init copies the files the "
                             "tutorials use (tournaments/ and examples/) into this folder\n")
    other = cli.invoke(main, ["run", "tournaments/mine.toml"])
    assert other.exit_code == 1 and "arena init" not in other.output
