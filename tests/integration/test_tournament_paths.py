"""Relative paths in a tournament file are read from the file's folder, whatever folder the arena runs in.

That holds for ``file.py:Name`` bots, for an entrant's ``cwd`` and for the programs of
``command`` and ``exec:`` entrants (which start in the file's folder when no ``cwd`` is
given).  Records and ``games.csv`` keep each spec as the file writes it, so a run and its
``--resume`` from another folder give the same bytes.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from arena.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_BOT = ROOT / "examples" / "example_bot.py"
PROTOCOL_BOT = ROOT / "examples" / "protocol" / "random_bot.py"


def tournament(folder: Path, isolation: str) -> Path:
    """A tournament in ``folder`` whose bots are named by paths relative to it."""
    (folder / "mine").mkdir(parents=True)
    shutil.copy(EXAMPLE_BOT, folder / "mine" / "example_bot.py")
    (folder / "programs").mkdir()
    shutil.copy(PROTOCOL_BOT, folder / "programs" / "random_bot.py")
    path = folder / "paths.toml"
    path.write_text(
        f'players = 2\ndeals = 1\nseed = 7\nisolation = "{isolation}"\n'
        '[[entrants]]\nname = "file"\nbot = "mine/example_bot.py:ExampleBot:captures=false"\n'
        f'[[entrants]]\nname = "in-cwd"\ncommand = ["{sys.executable}", "random_bot.py"]\ncwd = "programs"\n'
        f'[[entrants]]\nname = "from-file"\ncommand = ["{sys.executable}", "programs/random_bot.py"]\n'
        f'[[entrants]]\nname = "exec"\nbot = "exec:{sys.executable} programs/random_bot.py"\n'
    )
    return path


@pytest.fixture
def run(cli):
    """``arena run`` with these arguments."""
    return lambda *args: cli.invoke(main, ["run", *args, "--no-compress"])


def record_lines(out: Path) -> list[str]:
    return sorted((out / "records.jsonl").read_text().splitlines())


@pytest.mark.parametrize("isolation", ["none", "process"])
@pytest.mark.slow
def test_paths_are_read_from_the_tournament_file_s_folder(tmp_path, monkeypatch, isolation, run):
    path = tournament(tmp_path / "t", isolation)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    out = tmp_path / "out"
    result = run(str(path), "--out", str(out), "-q", "-j", "1")
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in record_lines(out)]
    assert records and not any(r["faults"] for r in records)
    specs = {entry["spec"] for r in records for entry in r["bots"]}
    # As the file writes them: the same bytes from any folder, on any machine.
    assert "mine/example_bot.py:ExampleBot:captures=false" in specs
    assert f"exec:{sys.executable} programs/random_bot.py" in specs
    assert not any(str(tmp_path) in spec for spec in specs if "example_bot" in spec)


def test_a_missing_relative_bot_names_the_folder_it_was_looked_for_in(tmp_path, monkeypatch, run):
    path = tournament(tmp_path / "t", "none")
    (tmp_path / "t" / "mine" / "example_bot.py").unlink()
    (tmp_path / "mine").mkdir()
    shutil.copy(EXAMPLE_BOT, tmp_path / "mine" / "example_bot.py")  # beside the cwd: not where the file means
    monkeypatch.chdir(tmp_path)
    result = run(str(path), "--out", str(tmp_path / "out"))
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "entrants[0].bot" in result.output
    assert str(tmp_path / "t" / "mine" / "example_bot.py") in result.output


def test_a_missing_relative_cwd_is_refused_before_anything_starts(tmp_path, monkeypatch, run):
    path = tournament(tmp_path / "t", "process")
    shutil.rmtree(tmp_path / "t" / "programs")
    (tmp_path / "programs").mkdir()  # a folder of that name in the cwd does not count
    monkeypatch.chdir(tmp_path)
    result = run(str(path), "--out", str(tmp_path / "out"))
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "entrants[1].cwd: programs is not a folder" in result.output
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("isolation", ["none", "process"])
@pytest.mark.slow
def test_resume_from_another_folder_gives_the_same_records(tmp_path, monkeypatch, isolation, run, cli):
    path = tournament(tmp_path / "t", isolation)
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    whole = tmp_path / "whole"
    monkeypatch.chdir(first)
    assert run(str(path), "--out", str(whole), "-q", "-j", "1").exit_code == 0
    # An interrupted run: the last games' records are gone (their rows are then dropped too).
    cut = tmp_path / "cut"
    shutil.copytree(whole, cut)
    lines = (cut / "records.jsonl").read_text().splitlines(keepends=True)
    (cut / "records.jsonl").write_text("".join(lines[: len(lines) // 2]))
    monkeypatch.chdir(second)
    result = run(str(path), "--out", str(cut), "--resume", "-q", "-j", "1")
    assert result.exit_code == 0, result.output
    assert record_lines(cut) == record_lines(whole)
    # The report reads the stored copy of the file from yet another folder.
    monkeypatch.chdir(tmp_path)
    report = cli.invoke(main, ["report", str(cut)])
    assert report.exit_code == 0, report.output
    assert "from-file" in report.output


@pytest.mark.slow
def test_the_stored_copy_is_the_file_as_written(tmp_path, monkeypatch, run):
    path = tournament(tmp_path / "t", "none")
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    assert run(str(path), "--out", str(out), "-q", "-j", "1").exit_code == 0
    assert (out / "tournament.toml").read_text() == path.read_text()
