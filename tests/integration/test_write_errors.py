"""Write errors outside the game loop: a full disk, a read-only folder, a folder where a table should be.

Each is one line (no traceback), leaves no temporary file and loses nothing already stored.  The full
disk and the read-only folder are real: a tiny tmpfs, remounted read-only (root only, as chmod does not
stop root; skipped with the reason otherwise).
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.cli import main
from arena.plan.config import load_config
from arena.plan.schedule import Schedule
from arena.report.folder_tables import folder_tables
from arena.tournament.run.runner import RunError, run_tournament

TOURNAMENT = """
name = "disk"
players = 2
deals = 2
seed = 3
time_limit = 5
isolation = "none"
[[entrants]]
name = "rnd"
bot = "random"
[[entrants]]
name = "greedy"
bot = "greedy"
"""


@pytest.fixture
def tournament(write_tournament) -> Path:
    return write_tournament(TOURNAMENT, "disk.toml")


def _mount(*args: str) -> None:
    subprocess.run(["mount", *args], check=True, capture_output=True, text=True)


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MiB tmpfs of its own (a run with its pictures fits, then it is filled up)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small or read-only file system needs root")
    where = tmp_path / "disk"
    where.mkdir()
    try:
        _mount("-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", str(where))
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"cannot mount a tmpfs here: {getattr(exc, 'stderr', None) or exc}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def fill(disk: Path) -> Path:
    """Take every free byte of ``disk``."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 512)
    except OSError as exc:
        assert exc.errno == errno.ENOSPC
    finally:
        os.close(fd)
    return filler


def one_line_error(result) -> str:
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.strip().splitlines()
    return lines[-1]


@pytest.mark.slow
def test_a_full_disk_during_the_resume_rewrite(tournament, disk, cli):
    out = disk / "out"
    args = ["run", str(tournament), "--out", str(out), "-j", "1", "-q", "--no-compress"]
    assert cli.invoke(main, args).exit_code == 0
    whole = (out / "records.jsonl").read_text()
    # A line of garbage where the checkpoints vouched for a record makes the resume rewrite records.jsonl
    # whole (garbage after them would only be cut off); then the disk is full.
    (out / "records.jsonl").write_text("{garbage\n" + whole)
    filler = fill(disk)
    before = snapshot(out)

    result = cli.invoke(main, [*args, "--resume"])
    line = one_line_error(result)
    assert line == f"Error: {out / 'records.jsonl'}: cannot write: No space left on device (it is left as it was)"
    assert not list(out.glob("*.tmp"))
    assert snapshot(out) == before

    filler.unlink()
    assert cli.invoke(main, [*args, "--resume"]).exit_code == 0
    assert (out / "records.jsonl").read_text() == whole


@pytest.mark.slow
def test_a_read_only_folder_when_the_tables_are_written(tournament, disk, cli):
    out = disk / "out"
    config = load_config(tournament)
    run_tournament(config, tournament.read_text(), out, workers=1)
    (out / "standings.csv").unlink()  # to be written again
    before = snapshot(out)
    _mount("-o", "remount,ro", str(disk))
    with pytest.raises(RunError) as caught:
        folder_tables(out, Schedule(config), write=True)
    assert str(caught.value) == f"{out / 'standings.csv'}: cannot write: Read-only file system (it is left as it was)"
    assert snapshot(out) == before
    # A run into the read-only folder is refused in one line before anything starts.
    result = cli.invoke(main, ["run", str(tournament), "--out", str(out), "-j", "1", "--resume"])
    assert one_line_error(result).startswith(f"Error: {out}: cannot write there")


@pytest.mark.slow
def test_a_folder_named_standings_csv(tournament, tmp_path, cli):
    out = tmp_path / "out"
    args = ["run", str(tournament), "--out", str(out), "-j", "1", "-q", "--no-compress"]
    assert cli.invoke(main, args).exit_code == 0
    (out / "standings.csv").unlink()
    (out / "standings.csv").mkdir()
    before = snapshot(out)
    result = cli.invoke(main, [*args, "--resume"])
    assert one_line_error(result) == (f"Error: {out / 'standings.csv'}: cannot write: Is a directory "
                                      f"(it is left as it was)")
    assert not list(out.glob("*.tmp"))
    assert (out / "standings.csv").is_dir()
    kept = snapshot(out)
    assert {k: kept[k] for k in ("games.csv", "records.jsonl")} == {k: before[k] for k in ("games.csv", "records.jsonl")}
    assert len((out / "records.jsonl").read_text().splitlines()) == 4
    assert all(json.loads(line)["game_id"] for line in (out / "records.jsonl").read_text().splitlines())
