"""The tournament runner: same results for any workers and start method, resume, refusals, logs, faults."""

from __future__ import annotations

import gzip
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from arena.plan.config import load_config
from arena.plan.schedule import Game, Schedule, count_games
from arena.report.stamp import read_table
from arena.report.tables import build_tables, load_games, write_tables
from arena.results.recovery import recover
from arena.results.rows import COLUMNS
from arena.results.verify import without_timing
from arena.rules.engine import engine_line
from arena.tournament.run.runner import Interrupted, RunError, run_tournament
from tests.processes import running

BOTS = '''
import time

from arena.api import Bot, Option


class SlowBot(Bot):
    """Plays like random, a few milliseconds per move (so that a run can be stopped half way)."""

    options = {"delay": Option(0.004)}

    def choose(self, view):
        time.sleep(self.config["delay"])
        return view.legal.choice(self.rng)


class BrokenBot(Bot):
    """Raises on its third move."""

    def __init__(self, *args):
        super().__init__(*args)
        self.moves = 0

    def choose(self, view):
        self.moves += 1
        if self.moves == 3:
            raise RuntimeError("broken on purpose")
        return view.legal.choice(self.rng)
'''

TOURNAMENT = """
name = "{name}"
players = {players}
deals = {deals}
seed = 11
deal_key = "0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f"  # the same deals in every folder compared
time_limit = 5
seating = "rotate"
[[entrants]]
name = "rnd"
bot = "random"
[[entrants]]
name = "greedy"
bot = "greedy"
[[entrants]]
name = "other"
bot = "{third}"
"""


@pytest.fixture
def bots_file(tmp_path: Path) -> Path:
    path = tmp_path / "testbots.py"
    path.write_text(BOTS)
    return path


def tournament_text(name: str = "demo", players: int = 2, deals: int = 2, third: str = "random",
                    isolation: str = "none", seating: str = "rotate") -> str:
    return (TOURNAMENT.format(name=name, players=players, deals=deals, third=third)
            .replace("time_limit = 5\n", f'time_limit = 5\nisolation = "{isolation}"\n')
            .replace('seating = "rotate"', f'seating = "{seating}"'))


@pytest.fixture
def tournament(write_tournament):
    """``tournament(name="demo", players=2, deals=2, third="random", isolation="none", seating="rotate")``: its
    file, NAME.toml.

    In process unless a test's subject is the bot programs: isolation never changes a game
    (``test_bot_programs_give_the_records_of_in_process_bots``), and a bot program costs a start."""

    def write(name: str = "demo", **kw: Any) -> Path:
        return write_tournament(tournament_text(name, **kw), f"{name}.toml")

    return write


def run(path: Path, out: Path, **kwargs) -> None:
    config = load_config(path)
    run_tournament(config, path.read_text(), out, **kwargs)
    write_tables(out, build_tables(load_games(out / "games.csv", config.players), config.scoring,
                                   config.names))


def games_without_timing(out: Path) -> list[str]:
    return [without_timing(line) for line in (out / "games.csv").read_text().splitlines()]


def records_by_id(out: Path) -> dict[str, str]:
    path = out / "records.jsonl"
    if path.exists():
        text = path.read_text()
    else:
        text = gzip.decompress((out / "records.jsonl.gz").read_bytes()).decode()
    lines = text.splitlines()
    by_id = {json.loads(line)["game_id"]: line for line in lines}
    assert len(by_id) == len(lines), "a game was stored twice"
    return by_id


def tables_of(out: Path) -> dict[str, str]:
    return {name: (out / name).read_text() for name in ("standings.csv", "head_to_head.csv", "seats.csv")}


@pytest.fixture(scope="module")
def slow_run(shared_folder) -> tuple[Path, Path]:
    """The 12 three-player games of SlowBot against random and greedy (the tournament file, its bot file beside
    it) and their whole run with 2 workers, made once for the tests that stop such a run and hold what it
    ends with to the whole.  Read only."""

    def make(folder: Path) -> None:
        (folder / "testbots.py").write_text(BOTS)
        path = folder / "demo.toml"
        path.write_text(tournament_text(players=3, deals=4, third=f"{folder / 'testbots.py'}:SlowBot"))
        run(path, folder / "whole", workers=2)

    folder = shared_folder("runner-slow-run", make)
    return folder / "demo.toml", folder / "whole"


@pytest.mark.slow
def test_every_game_is_stored_once_with_its_rows(tmp_path, tournament):
    path = tournament(players=3, deals=2)
    out = tmp_path / "out"
    run(path, out, workers=1)
    config = load_config(path)
    records = records_by_id(out)
    assert len(records) == count_games(config) == 6
    lines = (out / "games.csv").read_text().splitlines()
    assert lines[0] == ",".join(COLUMNS)
    assert len(lines) == 1 + 3 * 6
    # rows are in schedule order: table, deal, rotation, seat
    keys = [tuple(int(v) for v in (row.split(",")[1], row.split(",")[2], row.split(",")[3], row.split(",")[5]))
            for row in lines[1:]]
    assert keys == sorted(keys)
    record = json.loads(records["t000-d0001-r2"])
    assert record["tournament"] == {"name": "demo", "table": 0, "deal": 1, "rotation": 2}
    assert record["format"] == "uptown-game/1"
    # rotation 2 moves the entrant of seat 0 to seat 2
    assert [p["name"] for p in record["players"]] == ["greedy", "other", "rnd"]
    assert (out / "tournament.toml").read_text() == path.read_text()
    assert "all 6 games stored" in (out / "arena.log").read_text()
    assert not (out / "live").exists()  # no game is being played: no live file stays


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
@pytest.mark.slow
def test_same_results_for_any_workers_and_start_method(tmp_path, start_method, tournament):
    if start_method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"{start_method} is not available here")
    path = tournament(players=2, deals=3)
    run(path, tmp_path / "one", workers=1)
    run(path, tmp_path / "two", workers=2, start_method=start_method)
    assert games_without_timing(tmp_path / "one") == games_without_timing(tmp_path / "two")
    assert records_by_id(tmp_path / "one") == records_by_id(tmp_path / "two")
    assert tables_of(tmp_path / "one") == tables_of(tmp_path / "two")
    assert start_method in (tmp_path / "two" / "arena.log").read_text()


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
@pytest.mark.slow
def test_bot_programs_give_the_records_of_in_process_bots(tmp_path, bots_file, start_method, tournament,
                                                         write_tournament):
    """Isolation never changes a game: the same records and rows in process and with every bot a program,
    also with a fault (a Python bot's exception reads the same from its own process)."""
    if start_method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"{start_method} is not available here")
    none = tournament(name="none", players=3, deals=2, third=f"{bots_file}:BrokenBot", isolation="none")
    process = write_tournament(none.read_text().replace('isolation = "none"', 'isolation = "process"'), "process.toml")
    run(none, tmp_path / "none", workers=1)
    run(process, tmp_path / "process", workers=2, start_method=start_method)
    assert games_without_timing(tmp_path / "none") == games_without_timing(tmp_path / "process")
    assert records_by_id(tmp_path / "none") == records_by_id(tmp_path / "process")
    assert "isolation process" in (tmp_path / "process" / "arena.log").read_text()
    faults = [json.loads(line)["faults"] for line in records_by_id(tmp_path / "process").values()]
    assert all(len(found) == 1 and "broken on purpose" in found[0]["message"] for found in faults)


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
@pytest.mark.slow
def test_worker_log_messages_reach_the_log_file(tmp_path, bots_file, start_method, tournament):
    # A bot program: its stderr, the traceback, goes to the bot's log.
    path = tournament(players=3, deals=1, third=f"{bots_file}:BrokenBot", isolation="process")
    out = tmp_path / "out"
    run(path, out, workers=2, start_method=start_method)
    log = (out / "arena.log").read_text()
    # Each fault is logged once (one per rotation: the broken bot faults in every game), by the
    # referee of the worker that played the game, naming the game and the bot's log.
    faults = [line for line in log.splitlines() if "broken on purpose" in line]
    assert len(faults) == 3 and all("ArenaWorker" in line for line in faults)
    assert {line.split(" INFO ")[1].split(":")[0] for line in faults} == set(records_by_id(out))
    assert all("(other) fault at move" in line and "bots/other.log" in line for line in faults)
    # The bot's log holds the traceback of each fault.
    assert (out / "bots" / "other.log").read_text().count("RuntimeError: broken on purpose") >= 3
    assert 'in choose\n    raise RuntimeError("broken on purpose")' in (out / "bots" / "other.log").read_text()
    games = load_games(out / "games.csv", 3)
    broken = games[games["entrant"] == "other"]
    assert broken["faulted"].tolist() == [1, 1, 1] and broken["won"].sum() == 0
    # The log names the rules engine the run used.
    assert f"INFO {engine_line()}" in log
    assert games[games["entrant"] != "other"]["faulted"].sum() == 0
    for line in records_by_id(out).values():
        assert json.loads(line)["faults"][0]["kind"] == "exception"


@pytest.mark.slow
def test_compressed_records(tmp_path, tournament):
    path = tournament(players=2, deals=2)
    run(path, tmp_path / "plain", workers=1)
    run(path, tmp_path / "packed", workers=2, compress=True)
    assert not (tmp_path / "packed" / "records.jsonl").exists()
    assert records_by_id(tmp_path / "plain") == records_by_id(tmp_path / "packed")


# -- resume ---------------------------------------------------------------------


@pytest.mark.slow
def test_resume_drops_half_written_lines_and_incomplete_games(tmp_path, tournament):
    path = tournament(players=2, deals=3)
    run(path, tmp_path / "whole", workers=1)

    out = tmp_path / "cut"
    run(path, out, workers=1)
    games = (out / "games.csv").read_text().splitlines(keepends=True)
    records = (out / "records.jsonl").read_text().splitlines(keepends=True)
    # Keep the first 7 games; game 8's record is there but only one of its rows, half written.
    last = json.loads(records[7])["game_id"]
    kept_rows = [row for row in games[1:] if row.split(",")[0] in {json.loads(r)["game_id"] for r in records[:7]}]
    last_rows = [row for row in games[1:] if row.startswith(last + ",")]
    (out / "games.csv").write_text(games[0] + "".join(kept_rows) + last_rows[0][:12])
    (out / "records.jsonl").write_text("".join(records[:8]) + records[8][:40])
    for name in ("standings.csv", "head_to_head.csv", "seats.csv"):
        (out / name).unlink()

    run(path, out, workers=2, resume=True)
    assert "stored 7 games" not in (out / "arena.log").read_text()
    assert "18 games, 7 stored, 11 to play" in (out / "arena.log").read_text()
    log = (out / "arena.log").read_text()
    assert "resume: dropped 1 game(s) to play again: incomplete" in log
    assert "cut 52 byte(s) of half-written last lines" in log
    assert f"resume: dropped {last}: incomplete: a record and 0 of 2 rows" in log
    assert games_without_timing(out) == games_without_timing(tmp_path / "whole")
    assert records_by_id(out) == records_by_id(tmp_path / "whole")
    assert tables_of(out) == tables_of(tmp_path / "whole")


@pytest.mark.slow
def test_recover_keeps_only_games_complete_in_both_files(tmp_path, tournament):
    path = tournament(players=2, deals=2)
    out = tmp_path / "out"
    run(path, out, workers=1)
    games = (out / "games.csv").read_text().splitlines(keepends=True)
    records = (out / "records.jsonl").read_text().splitlines(keepends=True)
    first = json.loads(records[0])["game_id"]
    # a game with rows but no record, and a record written twice
    (out / "records.jsonl").write_text("".join(records[1:]) + records[2])
    twice = json.loads(records[2])["game_id"]
    recovered = recover(out, Schedule(load_config(path)))
    assert first not in recovered.done and twice not in recovered.done
    assert len(recovered.done) == len(records) - 2 and recovered.dropped == 2
    assert set(records_by_id(out)) == recovered.done
    rows = (out / "games.csv").read_text().splitlines(keepends=True)
    assert rows[0] == games[0] and len(rows) == 1 + 2 * len(recovered.done)


@pytest.mark.slow
def test_resume_with_a_cut_gzip_member(tmp_path, tournament):
    path = tournament(players=2, deals=3)
    run(path, tmp_path / "whole", workers=1)
    out = tmp_path / "packed"
    run(path, out, workers=1, compress=True)
    packed = out / "records.jsonl.gz"
    packed.write_bytes(packed.read_bytes()[:-300])  # the file as a kill in mid-write leaves it
    run(path, out, workers=1, resume=True, compress=True)
    assert records_by_id(out) == records_by_id(tmp_path / "whole")
    with gzip.open(packed, "rt") as f:  # readable to the end again
        assert len(f.read().splitlines()) == count_games(load_config(path))


def _start(path: Path, out: Path, workers: int) -> subprocess.Popen:
    # Ctrl-C as in a terminal, whatever this test was started from: a shell's background job inherits
    # SIGINT ignored, and so would the run.
    code = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); from arena.cli import main; main()"
    return subprocess.Popen(
        [sys.executable, "-c", code, "run", str(path), "--out", str(out), "--workers", str(workers), "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )


def _wait_for_games(out: Path, rows: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        path = out / "games.csv"
        if path.exists() and path.read_bytes().count(b"\n") > rows:
            return
        if proc.poll() is not None:
            pytest.fail(f"the run ended before it could be stopped: {proc.communicate()}")
        time.sleep(0.02)
    pytest.fail("the run stored no game in time")


@pytest.mark.parametrize(("how", "workers"), [("kill", 1), ("kill", 2), ("ctrl-c", 1), ("ctrl-c", 2)])
@pytest.mark.slow
def test_interrupted_run_resumes_to_the_same_tables(tmp_path, slow_run, how, workers):
    path, whole = slow_run
    config = load_config(path)
    total = count_games(config)

    out = tmp_path / "stopped"
    proc = _start(path, out, workers)
    _wait_for_games(out, 3 * 3, proc)
    if how == "kill":
        os.killpg(proc.pid, signal.SIGKILL)  # the parent and its workers, all at once
    else:
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal sends
    _, err = proc.communicate(timeout=60)
    if how == "ctrl-c":
        assert proc.returncode == 130
        assert "interrupted:" in err and "--resume" in err
    else:
        assert proc.returncode == -signal.SIGKILL
    stored = len(load_games(out / "games.csv", 3)["game_id"].unique())
    assert 0 < stored < total

    with pytest.raises(RunError, match="--resume"):
        run(path, out, workers=1)
    run(path, out, workers=2, resume=True)
    assert games_without_timing(out) == games_without_timing(whole)
    assert records_by_id(out) == records_by_id(whole)
    assert tables_of(out) == tables_of(whole)


@pytest.mark.slow
def test_a_second_run_into_a_folder_being_written_is_refused_naming_the_first(tmp_path, slow_run, cli):
    """Two runs never write one folder: the second is refused in one line naming the first's pid, and
    the tables can be read meanwhile; the lock goes with the first run, also when it is killed."""
    from arena.cli import main

    path, whole = slow_run
    out = tmp_path / "busy"
    proc = _start(path, out, 1)
    _wait_for_games(out, 3 * 1, proc)
    for flags in ([], ["--resume"], ["--overwrite"]):
        second = cli.invoke(main, ["run", str(path), "--out", str(out), "--workers", "1", *flags])
        assert second.exit_code == 1
        assert second.output.strip().splitlines() == [
            f"Error: {out} is being written by another run (pid {proc.pid}); wait for it to end, "
            f"or choose another folder with --out"]
    report = cli.invoke(main, ["report", str(out)])
    assert report.exit_code == 0, report.output
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    run(path, out, workers=1, resume=True)  # the lock died with the run that held it
    assert records_by_id(out) == records_by_id(whole)


def _children(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
@pytest.mark.slow
def test_workers_end_when_the_parent_is_killed(tmp_path, bots_file, tournament):
    path = tournament(players=3, deals=20, third=f"{bots_file}:SlowBot")
    out = tmp_path / "out"
    proc = _start(path, out, 2)
    try:
        _wait_for_games(out, 3, proc)
        workers = _children(proc.pid)
        assert len(workers) >= 2
        proc.kill()  # the parent only
        proc.communicate(timeout=30)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and any(running(w) for w in workers):
            time.sleep(0.1)
        assert not any(running(w) for w in workers), "orphaned workers kept running"
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.mark.slow
def test_ctrl_c_in_the_parent_raises_interrupted_and_keeps_games(tmp_path, monkeypatch, tournament):
    path = tournament(players=2, deals=3)
    config = load_config(path)
    from arena.tournament.run.workers import Workers

    real = Workers.play
    seen = {"games": 0}

    def stop_after_four(self, games, remaining, *args, **kwargs):
        for result in real(self, games, remaining, *args, **kwargs):
            seen["live"] = (tmp_path / "out" / "live").is_dir()  # the game being played, for arena serve
            if seen["games"] >= 4:
                raise KeyboardInterrupt
            seen["games"] += result[0]
            yield result

    monkeypatch.setattr(Workers, "play", stop_after_four)
    with pytest.raises(Interrupted) as info:
        run_tournament(config, path.read_text(), tmp_path / "out", workers=1)
    assert (info.value.stored, info.value.total) == (seen["games"], count_games(config))
    assert len(records_by_id(tmp_path / "out")) == seen["games"] >= 4
    # The run is over: the files of the games in play went with it.
    assert seen["live"] and not (tmp_path / "out" / "live").exists()


@pytest.mark.slow
def test_resume_of_a_finished_run_plays_nothing(tmp_path, tournament):
    path = tournament()
    out = tmp_path / "out"
    run(path, out, workers=1)
    before = games_without_timing(out)
    config = load_config(path)
    summary = run_tournament(config, path.read_text(), out, workers=1, resume=True)
    assert summary.played == 0 and summary.already == count_games(config)
    assert games_without_timing(out) == before


# -- refusals ---------------------------------------------------------------------


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.mark.slow
def test_refuses_a_folder_holding_another_tournament(tmp_path, tournament):
    path = tournament()
    out = tmp_path / "out"
    run(path, out, workers=1)
    before = snapshot(out)
    other = tournament(name="demo", deals=5)
    other_config = load_config(other)
    for resume in (False, True):
        with pytest.raises(RunError, match=r"already holds a different tournament .*differs in deals"):
            run_tournament(other_config, other.read_text(), out, workers=1, resume=resume)
    assert snapshot(out) == before


@pytest.mark.slow
def test_refuses_to_start_again_over_results(tmp_path, tournament, write_tournament):
    path = tournament()
    out = tmp_path / "out"
    run(path, out, workers=1)
    before = snapshot(out)
    config = load_config(path)
    with pytest.raises(RunError, match="already holds 12 games of this tournament; add --resume"):
        run_tournament(config, path.read_text(), out, workers=1)
    with pytest.raises(RunError, match="exclude each other"):
        run_tournament(config, path.read_text(), out, workers=1, resume=True, overwrite=True)
    assert snapshot(out) == before
    # a comment or a new layout is the same tournament
    relaid = write_tournament("# the same games\n" + path.read_text().replace("deals = 2", "deals   = 2"),
                              "relaid.toml")
    run_tournament(load_config(relaid), relaid.read_text(), out, workers=1, resume=True)


@pytest.mark.slow
def test_a_folder_with_no_game_stored_yet_can_be_started_again(tmp_path, tournament):
    path = tournament()
    out = tmp_path / "out"
    config = load_config(path)
    from arena.results.folder import Opening, ResultsFolder

    for compress in (False, True):
        ResultsFolder(out).open(config, path.read_text(), Opening(overwrite=True, compress=compress)).close()
        # what a run stopped before its first game leaves: the header and an empty records file
        run(path, out, workers=1, compress=compress)
        assert len(records_by_id(out)) == count_games(config)


@pytest.mark.slow
def test_overwrite_starts_again(tmp_path, tournament):
    path = tournament()
    out = tmp_path / "out"
    run(path, out, workers=1)
    (out / "notes.txt").write_text("mine")
    other = tournament(name="demo", deals=1)
    run(other, out, workers=1, overwrite=True)
    assert len(records_by_id(out)) == count_games(load_config(other))
    assert (out / "notes.txt").read_text() == "mine"


def test_refuses_results_without_a_tournament_file(tmp_path, tournament):
    path = tournament()
    out = tmp_path / "out"
    out.mkdir()
    (out / "games.csv").write_text("something\n")
    with pytest.raises(RunError, match="without a tournament.toml"):
        run_tournament(load_config(path), path.read_text(), out, workers=1)
    assert (out / "games.csv").read_text() == "something\n"


def test_unwritable_folder(tmp_path, tournament):
    path = tournament()
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(RunError, match="cannot write there"):
        run_tournament(load_config(path), path.read_text(), blocker / "out", workers=1)
    with pytest.raises(RunError, match="not a folder"):
        run_tournament(load_config(path), path.read_text(), blocker, workers=1)


@pytest.mark.slow
def test_a_results_file_from_another_program_is_refused_on_resume(tmp_path, tournament):
    path = tournament()
    out = tmp_path / "out"
    run(path, out, workers=1)
    (out / "games.csv").write_text("a,b,c\n1,2,3\n")
    with pytest.raises(RunError, match="header differs"):
        run_tournament(load_config(path), path.read_text(), out, workers=1, resume=True)



def test_a_worker_process_starts_without_numpy():
    """A worker (under spawn a new interpreter, also each one that replaces a worker a bot ended) imports the
    module its life runs in, and numpy is not needed to play."""
    code = "import sys, arena.tournament.run.workers; assert 'numpy' not in sys.modules, 'numpy imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


# -- bots that end or block their worker --------------------------------------------

BAD = Path(__file__).parents[1] / "fixtures" / "bad_bots.py"


def crash_faults(out: Path) -> dict[str, list[dict]]:
    return {game_id: json.loads(line)["faults"] for game_id, line in records_by_id(out).items()}


@pytest.mark.parametrize("start_method, isolation", [("fork", "none"), ("spawn", "none"), ("fork", "process")])
@pytest.mark.slow
def test_a_bot_that_ends_its_process_is_faulted_as_a_crash_and_the_run_goes_on(tmp_path, start_method, isolation,
                                                                                tournament):
    """In process its worker ends, and the game is played again isolated; in a process of its own only it ends."""
    from arena import records

    # One deal, one seating: every crash costs a worker (a new one started, with spawn a new interpreter) and a
    # game played again, isolated.
    path = tournament(players=2, deals=1, third=f"{BAD}:HardExitBot", isolation=isolation, seating="fixed")
    config = load_config(path)
    run(path, tmp_path / "one", workers=1, start_method=start_method)
    run(path, tmp_path / "two", workers=2, start_method=start_method)
    assert records_by_id(tmp_path / "one") == records_by_id(tmp_path / "two")
    assert games_without_timing(tmp_path / "one") == games_without_timing(tmp_path / "two")
    faults = crash_faults(tmp_path / "two")
    assert len(faults) == count_games(config)
    crashed = {game_id for game_id, found in faults.items() if found}
    assert len(crashed) == 2 < len(faults)  # every game of the two tables the bot sits at, and no other
    for game_id in crashed:
        (fault,) = faults[game_id]
        assert fault["kind"] == "crash"
        assert fault["message"] == "the bot's process ended: exit code 7 (log: other.log)"
        record = json.loads(records_by_id(tmp_path / "two")[game_id])
        assert record["players"][fault["seat"]]["name"] == "other"
        records.replay(record)  # a valid game, played to its end by the fallback
    games = load_games(tmp_path / "two" / "games.csv", 2)
    assert games[games["entrant"] == "other"]["faulted"].tolist() == [1] * 2
    log = (tmp_path / "two" / "arena.log").read_text()
    ended = "the worker process ended while playing it (exit code 7)"
    assert log.count(ended) == (2 if isolation == "none" else 0)
    assert log.count("fault at move") == 2
    assert (tmp_path / "two" / "bots" / "other.log").is_file()


@pytest.mark.parametrize("isolation", ["none", "process"])
@pytest.mark.slow
def test_a_bot_stuck_where_the_clock_cannot_stop_it_is_stopped(tmp_path, monkeypatch, isolation, write_tournament):
    """In process the worker is stopped at the game's bound; in a process of its own, the bot at its limit."""
    from arena.tournament.run import workers

    # The game is stuck from the stubborn bot's third turn.  In process it is stopped at the bound, set to 5 s
    # (100 bot calls x the limit, plus the margin); the bound must leave room for the game's replay, isolated
    # (bot processes started, the stubborn bot stopped at its limit): about 1 s idle.  A program's turn is timed
    # by the wall clock: the limit is ten times the 0.05 s a busy machine once made the opponent miss.
    limit = 0.5
    monkeypatch.setattr(workers, "_BOUND_MARGIN", 5.0 - 100 * limit)
    path = write_tournament(
        f'name = "stuck"\nplayers = 2\ndeals = 1\nseed = 3\ntime_limit = {limit}\nrotate = false\n'
        f'isolation = "{isolation}"\n'
        '[[entrants]]\nname = "rnd"\nbot = "random"\n'
        f'[[entrants]]\nname = "stubborn"\nbot = "{BAD}:StubbornBot"\n', "stuck.toml"
    )
    start = time.monotonic()
    run(path, tmp_path / "out", workers=1)
    assert time.monotonic() - start < 60
    ((game_id, (fault,)),) = crash_faults(tmp_path / "out").items()
    assert fault["seat"] == 1 and fault["kind"] == "timeout" and fault["move"] == 5  # its third turn
    log = (tmp_path / "out" / "arena.log").read_text()
    bound = workers.game_bound(2, limit)
    stopped = f"{game_id}: still running after {bound:.0f} s, longer than its bots' time limits allow: stopped"
    assert (stopped in log) == (isolation == "none")


@pytest.mark.slow
def test_rows_from_the_result_are_the_rows_from_the_record():
    from oracles import game_rows

    from arena.play.referee import play_game
    from arena.results.rows import game_rows_text, rows_text
    from arena.tournament.run.workers import seat_times

    fixtures = Path(__file__).parents[1] / "fixtures" / "bad_bots.py"
    for players, seed in ((2, 3), (3, 4), (4, 5), (5, 6)):
        specs = [f"{fixtures}:RaisingBot"] + ["random"] * (players - 1)
        bots = ["a,b", 'say "hi"', "line\nbreak", "plain", "x"][:players]
        names = [f"p{seat}" for seat in range(players)]
        for scoring in ("uptown", "blockers"):
            outcome = play_game(specs, seed, scoring=scoring, names=names, isolation="none")
            assert outcome.faulted == {0}
            args = ("t000-d0001-r0", 0, 1, 2, seed, names, bots)
            times = seat_times(outcome)
            assert times[0].asked == 3 and times[1].asked > 3  # RaisingBot answers twice and faults on its third turn
            assert not any(t.lost_on_time for t in times) and all(t.clock_left is None for t in times)
            expected = rows_text(game_rows(
                *args, outcome.record, outcome.faulted, times, scoring,
            ))
            assert game_rows_text(
                Game(*args[:5], ()), *args[5:], outcome.result, outcome.turns, outcome.faulted, times, scoring,
            ) == expected


@pytest.mark.slow
def test_run_tournament_writes_the_tables_itself(tmp_path, tournament):
    path = tournament()
    out = tmp_path / "out"
    config = load_config(path)
    summary = run_tournament(config, path.read_text(), out, workers=1)
    games = load_games(out / "games.csv", config.players)
    expected = build_tables(games, config.scoring, config.names)
    written = tmp_path / "written"
    written.mkdir()
    write_tables(written, expected)
    assert tables_of(out) == tables_of(written)
    # What the run shows is what its files hold: the built tables to the files' six digits.
    assert summary.tables.standings.equals(read_table(out / "standings.csv"))
    numbers = expected.standings.select_dtypes("number").columns
    assert np.allclose(summary.tables.standings[numbers], expected.standings[numbers], rtol=1e-5, equal_nan=True)
