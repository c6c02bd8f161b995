"""``arena play --record PATH``: what is at PATH is never replaced unless it is a regular file.

A regular file (or a new one) is replaced atomically; a symbolic link is followed (the link
stays, the file it points to is replaced); a device or a FIFO is written through, in place.
``--record -`` writes the record to standard output and everything else to standard error.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena import records
from arena.cli import main

GAME = ["random", "random", "--seed", "4", "--isolation", "none"]


@pytest.fixture
def play(cli):
    """``arena play`` of a quick game of two random bots, with these arguments."""
    return lambda *args: cli.invoke(main, ["play", *GAME, *args])


def one_line_error(result) -> str:
    assert result.exit_code != 0, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, result.output
    return errors[0]


@pytest.fixture(scope="module")
def expected(tmp_path_factory) -> bytes:
    """The record of GAME, written to a new regular file."""
    path = tmp_path_factory.mktemp("plain") / "game.json"
    result = CliRunner().invoke(main, ["play", *GAME, "--record", str(path)])  # module-wide: not `cli`
    assert result.exit_code == 0, result.output
    return path.read_bytes()


def device(tmp_path: Path, name: str, minor: int) -> Path:
    """A character device like /dev/NAME (memory devices, major 1) made in ``tmp_path`` when this user
    may make one, else /dev/NAME itself (which an ordinary user cannot replace)."""
    path = tmp_path / name
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
    except (PermissionError, OSError):
        path = Path("/dev") / name
        if os.geteuid() == 0 or not path.exists():
            pytest.skip(f"cannot make a device node, and /dev/{name} is not safe to try as root")
    return path


def test_a_new_file_and_a_regular_file_are_written(tmp_path, expected, play):
    path = tmp_path / "game.json"
    path.write_text("old")
    assert play("--record", str(path)).exit_code == 0
    assert path.read_bytes() == expected
    assert stat.S_ISREG(path.lstat().st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]  # no temporary file left


def test_a_symlink_is_followed_and_stays_a_symlink(tmp_path, expected, play):
    target = tmp_path / "records" / "kept.json"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(Path("records") / "kept.json")
    result = play("--record", str(link))
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and os.readlink(link) == os.path.join("records", "kept.json")
    assert target.read_bytes() == expected
    assert sorted(p.name for p in target.parent.iterdir()) == ["kept.json"]


def test_a_dangling_symlink_makes_the_file_it_names(tmp_path, expected, play):
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "new.json")
    assert play("--record", str(link)).exit_code == 0
    assert link.is_symlink() and (tmp_path / "new.json").read_bytes() == expected


def test_a_symlink_into_a_missing_folder_is_refused_before_the_game(tmp_path, play):
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "gone" / "game.json")
    line = one_line_error(play("--record", str(link)))
    assert "does not exist" in line and "--record" in line
    assert link.is_symlink()


def test_a_fifo_is_written_through(tmp_path, expected, play):
    fifo = tmp_path / "game.fifo"
    os.mkfifo(fifo)
    # A reader holds it open, so the writer neither blocks nor loses what it writes (a record fits a pipe's buffer).
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        result = play("--record", str(fifo))
        assert result.exit_code == 0, result.output
        got = b""
        while chunk := os.read(reader, 65536):
            got += chunk
    except BlockingIOError:
        pass
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert got == expected


def test_a_device_is_written_through_never_replaced(tmp_path, play):
    null = device(tmp_path, "null", 3)
    before = null.lstat()
    result = play("--record", str(null))
    assert result.exit_code == 0, result.output
    after = null.lstat()
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev and after.st_ino == before.st_ino


def test_a_full_device_is_a_one_line_error(tmp_path, play):
    full = device(tmp_path, "full", 7)
    line = one_line_error(play("--record", str(full)))
    assert f"cannot write the record to {full}: No space left on device" in line
    assert stat.S_ISCHR(full.lstat().st_mode)


def test_a_folder_is_refused_and_write_raises_for_one(tmp_path, play):
    line = one_line_error(play("--record", str(tmp_path)))
    assert "is a folder, not a file" in line
    record = records.loads(b"{}")
    with pytest.raises(IsADirectoryError):
        records.write(tmp_path, record)
    assert list(tmp_path.iterdir()) == []


def test_dash_writes_the_record_to_stdout_and_the_rest_to_stderr(expected, play):
    result = play("--record", "-")
    assert result.exit_code == 0, result.output
    assert result.stdout.encode() == expected
    records.replay(records.loads(result.stdout))
    assert "seed 4, 2 players" in result.stderr and "Winner" in result.stderr
    assert "record written" not in result.output


def test_dash_with_quiet(expected, play):
    result = play("--record", "-", "--quiet")
    assert result.exit_code == 0, result.output
    assert result.stdout.encode() == expected
    assert result.stderr.startswith("seed 4: winner")


def test_a_file_called_dash_is_dot_slash_dash(tmp_path, monkeypatch, expected, play):
    monkeypatch.chdir(tmp_path)
    result = play("--record", "./-")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "-").read_bytes() == expected
    assert "record written to -" in result.stdout or "record written to ./-" in result.stdout


def test_records_write_follows_a_symlink(tmp_path):
    record = records.loads(b'{"format": "x"}')
    target = tmp_path / "t.json"
    link = tmp_path / "l.json"
    link.symlink_to(target.name)
    records.write(link, record)
    assert link.is_symlink() and target.read_text() == records.dumps(record)
