"""Every command that reads a file it is given (a tournament file, a deals file, a record, a bot's named
file, a results folder's tournament file) refuses one that is not a regular file of bounded size in one
line naming it and why: ``/dev/zero`` (it never ends), a FIFO (a read waits for a writer that never
comes), a folder, a file larger than its format's cap.  Each command runs under an alarm: a command that
waited on the FIFO would fail here, not hang the suite."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena.cli import main
from arena.inputfiles import size_text
from arena.plan.config import TOURNAMENT_FILE_MB
from arena.plan.deals import DEALS_FILE_MB
from arena.records.reader import RECORD_MB

#: Far more than any of these commands takes to refuse its file, on any machine: only a wait on the FIFO
#: reaches it.
HANG_SECONDS = 120


class Hung(Exception):
    """The command waited on its file."""


@pytest.fixture(autouse=True)
def _never_hangs() -> Iterator[None]:
    def hung(signum: int, frame: object) -> None:
        raise Hung(f"the command was still waiting after {HANG_SECONDS} s")

    before = signal.signal(signal.SIGALRM, hung)
    signal.alarm(HANG_SECONDS)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, before)


def _file(kind: str, folder: Path, cap: int) -> Path:
    """A path of ``kind``: the device that never ends, a FIFO nobody writes, a folder, or a (sparse) file
    one byte over ``cap``."""
    if kind == "zero":
        return Path("/dev/zero")
    path = folder / f"input-{kind}.txt"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    else:
        with open(path, "wb") as file:
            file.truncate(cap + 1)
    return path


def _why(kind: str, path: Path, cap: int, what: str) -> str:
    return {"zero": f"{path}: is a character device, not a regular file",
            "fifo": f"{path}: is a FIFO, not a regular file",
            "folder": f"{path}: is a folder, not a regular file",
            "large": f"{path}: is {size_text(cap + 1)}, more than the {size_text(cap)} {what} may be"}[kind]


def _one_line(result) -> str:
    """The one line a refused command printed, without ``Error: ``."""
    assert not isinstance(result.exception, Hung), "the command waited on its file"
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1, result.stderr
    return result.stderr.removeprefix("Error: ").rstrip("\n")


def _tournament(folder: Path, deals: str = "2") -> Path:
    path = folder / "t.toml"
    path.write_text(f'name = "t"\nplayers = 2\nseed = 1\ndeals = {deals}\nisolation = "none"\n'
                    '[[entrants]]\nname = "a"\nbot = "random"\n[[entrants]]\nname = "b"\nbot = "random"\n')
    return path


KINDS = ("zero", "fifo", "folder", "large")
#: What each command is given, how it is run, and the cap and name of its file.
COMMANDS: dict[str, tuple[Callable[[Path, Path], list[str]], int, str]] = {
    "run FILE": (lambda path, tmp: ["run", str(path), "--out", str(tmp / "out"), "-q"],
                 TOURNAMENT_FILE_MB << 20, "a tournament file"),
    "run with deals = FILE": (lambda path, tmp: ["run", str(_tournament(tmp, f'"{path}"')), "--out", str(tmp / "out"), "-q"],
                              DEALS_FILE_MB << 20, "a deals file"),
    "match --deals FILE": (lambda path, tmp: ["match", "random", "greedy", "--deals", str(path), "--out", str(tmp / "out"),
                                              "--isolation", "none", "-q"], DEALS_FILE_MB << 20, "a deals file"),
    "replay FILE": (lambda path, tmp: ["replay", str(path)], RECORD_MB << 20, "a record"),
    "view FILE": (lambda path, tmp: ["view", str(path), "-o", str(tmp / "game.html")], RECORD_MB << 20, "a record"),
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_file_given_that_is_not_a_regular_file_of_bounded_size_is_refused_in_one_line(cli, tmp_path, command, kind):
    words, cap, what = COMMANDS[command]
    if kind == "folder" and command in ("replay FILE", "view FILE"):
        pytest.skip("a folder given to replay or view is a results folder, whose games --game picks")
    path = _file(kind, tmp_path, cap)
    line = _one_line(cli.invoke(main, words(path, tmp_path)))
    why = _why(kind, path, cap, what)
    if command == "run with deals = FILE":
        why = f"{tmp_path / 't.toml'}: deals: {why}"
    assert line == why
    assert not (tmp_path / "out").exists() and not (tmp_path / "game.html").exists()


@pytest.mark.parametrize("kind", ("zero", "fifo"))
def test_a_bot_whose_command_names_a_fifo_or_a_device_is_refused_before_it_starts(cli, tmp_path, kind):
    """A bot's named files are shown to it and hashed for its identity: a FIFO or a device is neither, and
    the bot would wait on it or read it without end."""
    path = _file(kind, tmp_path, 0)
    spec = f"exec:python3 {path}"
    line = _one_line(cli.invoke(main, ["play", spec, "random", "--seed", "1"]))
    assert line == f"bot {spec!r}: {_why(kind, path, 0, '')}"


def test_a_results_folder_whose_tournament_file_is_a_fifo_is_refused_in_one_line(cli, tmp_path):
    folder = tmp_path / "results"
    folder.mkdir()
    os.mkfifo(folder / "tournament.toml")
    assert _one_line(cli.invoke(main, ["report", str(folder)])) == \
        f"{folder / 'tournament.toml'}: is a FIFO, not a regular file"
