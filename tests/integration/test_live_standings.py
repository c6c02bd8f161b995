"""The standings while a tournament plays: above the bar on a terminal, never a control sequence on a pipe.

``arena run`` is started in a real pseudo-terminal (the ``pty`` module) and read as a terminal shows
it; the same run with its output to a pipe writes no escape sequence.  ``arena report DIR --watch``
follows a folder, and ``--report-every`` writes report.html while the run plays.
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.plan.config import parse_config
from arena.report.live import GamesFollower, LiveStandings

TOURNAMENT = """
name = "live"
players = 3
deals = 6
seed = 3
seating = "rotate"
isolation = "none"

[[entrants]]
name = "r1"
bot = "random"

[[entrants]]
name = "g1"
bot = "greedy"

[[entrants]]
name = "r2"
bot = "random"
"""

ESC = b"\x1b"


def in_terminal(args: list[str], cwd: Path, timeout: float = 240.0) -> tuple[int, bytes]:
    """Run ``args`` with its standard output and error a pseudo-terminal of 100 x 30; its exit status and
    everything it wrote there."""
    master, slave = pty.openpty()
    os.set_blocking(master, False)
    import fcntl
    import struct
    import termios

    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR")}
    env["TERM"] = "xterm"
    process = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env, close_fds=True)
    os.close(slave)
    out = bytearray()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: every end of the terminal's other side is closed
                break
            if not data:
                break
            out += data
        elif process.poll() is not None:
            break
    process.wait(timeout=30)
    os.close(master)
    return process.returncode, bytes(out)


def arena() -> list[str]:
    return [sys.executable, "-m", "arena"]


@pytest.mark.slow  # a real run: seconds
def test_run_shows_the_standings_above_the_bar_in_a_pseudo_terminal(
        write_tournament: Callable[..., Path], tmp_path: Path) -> None:
    path = write_tournament(TOURNAMENT)
    status, out = in_terminal([*arena(), "run", str(path), "--out", str(tmp_path / "res"), "-j", "1"], tmp_path)
    assert status == 0, out.decode(errors="replace")
    text = out.decode(errors="replace")
    assert "standings after " in text and " of 18 games" in text
    drawn = text[text.index("standings after "):]
    heading = drawn.splitlines()[1]
    for column in ("entrant", "rating", "wins (uptown)", "games", "faults"):
        assert column in heading
    assert "\x1b[J" in text  # drawn in place: cleared below the cursor, then written again
    assert "it/s" in text or "game/s" in text or "games/s" in text  # the bar below it
    assert "played 18 games" in text


@pytest.mark.slow  # a real run: seconds
def test_nothing_but_plain_text_reaches_a_pipe(write_tournament: Callable[..., Path], tmp_path: Path) -> None:
    path = write_tournament(TOURNAMENT)
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    done = subprocess.run([*arena(), "run", str(path), "--out", str(tmp_path / "res"), "-j", "1",
                           "--report-every", "6"],
                          capture_output=True, cwd=tmp_path, env=env, timeout=240)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert ESC not in done.stdout and ESC not in done.stderr
    assert b"standings after" not in done.stderr  # the live standings are for a terminal only
    watched = subprocess.run([*arena(), "report", str(tmp_path / "res"), "--watch"],
                             capture_output=True, cwd=tmp_path, env=env, timeout=120)
    assert watched.returncode == 0, watched.stderr.decode(errors="replace")
    assert ESC not in watched.stdout and ESC not in watched.stderr
    assert b"standings after 18 of 18 games" in watched.stdout
    assert b"[" in watched.stdout  # the rating's interval


@pytest.mark.slow  # a real run: seconds
def test_watch_follows_a_folder_in_a_pseudo_terminal(
        cli: CliRunner, write_tournament: Callable[..., Path], tmp_path: Path) -> None:
    path = write_tournament(TOURNAMENT)
    assert cli.invoke(main, ["run", str(path), "--out", str(tmp_path / "res"), "-j", "1", "-q"]).exit_code == 0
    status, out = in_terminal([*arena(), "report", str(tmp_path / "res"), "--watch"], tmp_path, timeout=120)
    assert status == 0
    text = out.decode(errors="replace")
    assert "standings after 18 of 18 games" in text and ": complete" in text


@pytest.mark.slow  # a real run: seconds
def test_report_every_writes_the_page_while_it_plays(
        cli: CliRunner, write_tournament: Callable[..., Path], tmp_path: Path, monkeypatch: object) -> None:
    import arena.tournament.run.showing as showing

    pages: list[int] = []
    real = showing.Showing._write_report

    def counted(self: showing.Showing) -> None:
        real(self)
        pages.append(len((self.out / "games.csv").read_text().splitlines()))

    monkeypatch.setattr(showing.Showing, "_write_report", counted)  # type: ignore[attr-defined]
    path = write_tournament(TOURNAMENT)
    result = cli.invoke(main, ["run", str(path), "--out", str(tmp_path / "res"), "-j", "1", "--report-every", "3"])
    assert result.exit_code == 0, result.output
    assert pages, "no report.html written during the run"
    assert (tmp_path / "res" / "report.html").exists()


@pytest.mark.slow  # a real run: seconds
def test_live_standings_count_games_whatever_rows_come_together(tmp_path: Path) -> None:
    config = parse_config(TOURNAMENT, "t.toml")
    folder = tmp_path / "res"
    CliRunner().invoke(main, ["run", str(_write(tmp_path)), "--out", str(folder), "-j", "1", "-q"])
    rows = (folder / "games.csv").read_text().splitlines(keepends=True)[1:]
    live = LiveStandings(config)
    for row in rows:  # a row at a time: a game counts once all its seats have come
        live.add(row)
    live.rate(wait=True)
    assert live.stored == 18 and sum(live.games.values()) == 54
    lines = live.lines(width=None, total=18)
    assert lines[0] == "standings after 18 of 18 games"
    assert all("-" != line.split()[2] for line in lines[2:])  # every entrant rated
    follower = GamesFollower(folder / "games.csv")
    first, again = follower.read()
    assert len(first.splitlines()) == 54 and not again
    assert follower.read() == ("", False)
    text = (folder / "games.csv").read_text()
    (folder / "games.csv").write_text(text)  # rewritten: the same size, read again only when replaced
    tmp = folder / "games.tmp"
    tmp.write_text(text)
    tmp.replace(folder / "games.csv")
    rows_again, again = follower.read()
    assert again and len(rows_again.splitlines()) == 54


def _write(folder: Path) -> Path:
    path = folder / "t.toml"
    path.write_text(TOURNAMENT)
    return path
