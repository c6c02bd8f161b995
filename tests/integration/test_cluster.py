"""Tournaments on a Dask cluster (``arena run --cluster``): the same results as local runs, and the faults."""

from __future__ import annotations

import contextlib
import csv
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main

# On one pytest-xdist worker (--dist loadgroup): the module's dask scheduler and workers start once.
pytestmark = [pytest.mark.cluster, pytest.mark.xdist_group("cluster")]

distributed = pytest.importorskip("distributed", reason="the dask extra is not installed (pip install '.[dask]')")

FIXTURES = Path(__file__).parents[1] / "fixtures"
BAD = FIXTURES / "bad_bots.py"
#: A results folder's deal key: the folders these tests compare are dealt the same games.
KEY = "0f" * 32


@pytest.fixture
def tournament(write_tournament):
    """``tournament(bots, deals=2, isolation="none", name="c", time_limit=5, seating="rotate")``: the file of a
    2-player tournament of these bots (each deal played in both seatings, or ``fixed``: once)."""

    def write(bots: list[str], deals: int = 2, isolation: str = "none", name: str = "c", time_limit: int = 5,
              seating: str = "rotate") -> Path:
        text = (f'name = "{name}"\nplayers = 2\ndeals = {deals}\nseed = 7\ntime_limit = {time_limit}\n'
                f'isolation = "{isolation}"\ndeal_key = "{KEY}"\n'
                + ("" if seating == "rotate" else f'seating = "{seating}"\n')
                + "".join(f'[[entrants]]\nname = "e{i}"\nbot = "{bot}"\n' for i, bot in enumerate(bots)))
        return write_tournament(text, f"{name}.toml")

    return write


@pytest.fixture
def run(cli):
    """``arena run`` with these arguments, quiet."""
    return lambda *args: cli.invoke(main, ["run", *args, "-q", "--no-compress"])


def results(folder: Path) -> tuple[list[list[str]], dict[str, str]]:
    """games.csv without its time-use columns, and the records by game id."""
    with open(folder / "games.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    seconds = rows[0].index("seconds")
    games = [row[:seconds] for row in rows]  # the time-use columns are the last
    records: dict[str, str] = {}
    for line in (folder / "records.jsonl").read_text(encoding="utf-8").splitlines():
        game_id = json.loads(line)["game_id"]
        assert game_id not in records, f"{game_id} stored twice"
        records[game_id] = line
    return games, records


@pytest.fixture(scope="session")
def local_results(shared_folder):
    """``local_results(file)``: what one local worker stores of the tournament ``file``.

    Played once per file text, with the bots in the worker (the sandbox stores the same records), so
    the file's isolation line is no part of the key; a file bot must be the same file wherever named.
    """

    def play(file: Path) -> tuple[list[list[str]], dict[str, str]]:
        text = re.sub(r"(?m)^isolation = .*\n", "", file.read_text(encoding="utf-8"))

        def make(folder: Path) -> None:
            result = CliRunner().invoke(main, ["run", str(file), "--workers", "1", "--isolation", "none",
                                               "--out", str(folder / "run"), "-q", "--no-compress"])
            assert result.exit_code == 0, result.output

        digest = hashlib.sha256(text.encode()).hexdigest()[:16]
        return results(shared_folder(f"cluster-local-{digest}", make) / "run")

    return play


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory):
    """A real ``dask scheduler`` and two ``dask worker`` processes on loopback; stopped at the end."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    folder = tmp_path_factory.mktemp("dask")
    started = []

    def start(*args: str) -> None:
        started.append(subprocess.Popen([sys.executable, "-m", *args], cwd=folder,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))

    start("distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard")
    start("distributed.cli.dask_worker", address, "--nworkers", "2", "--nthreads", "1", "--no-dashboard")
    try:
        with distributed.Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=60)
        yield address
    finally:
        for process in started:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@pytest.mark.slow
def test_a_local_cluster_stores_what_one_worker_stores_its_bots_in_the_sandbox(tmp_path, tournament, run,
                                                                              local_results):
    # A bot that cannot start in a cluster's worker would be faulted, and its games would differ.
    file = tournament(["random", "greedy", "random"], deals=3, isolation="process")
    result = run(str(file), "--cluster", "local:2", "--out", str(tmp_path / "dask"))
    assert result.exit_code == 0, result.output
    assert results(tmp_path / "dask") == local_results(file)
    log = (tmp_path / "dask" / "arena.log").read_text()
    assert "on the Dask cluster tcp://127.0.0.1:" in log and "isolation process" in log


@pytest.mark.slow
def test_a_scheduler_and_workers_started_by_hand_store_what_one_worker_stores(tmp_path, scheduler, tournament, run,
                                                                              local_results):
    file = tournament(["random", "greedy", "random"], deals=3)
    result = run(str(file), "--cluster", scheduler, "--out", str(tmp_path / "dask"))
    assert result.exit_code == 0, result.output
    assert results(tmp_path / "dask") == local_results(file)


@pytest.mark.slow
def test_the_sandbox_works_on_workers_started_by_hand(tmp_path, scheduler, tournament, run, local_results):
    file = tournament(["random", "greedy"], deals=2, isolation="process")
    result = run(str(file), "--cluster", scheduler, "--out", str(tmp_path / "dask"))
    assert result.exit_code == 0, result.output
    assert results(tmp_path / "dask") == local_results(file)


@pytest.mark.slow
def test_a_file_bot_reaches_the_workers(tmp_path, scheduler, tournament, run, local_results):
    shutil.copy(FIXTURES.parent.parent / "examples" / "example_bot.py", tmp_path / "mine.py")
    file = tournament(["random", "mine.py:ExampleBot"], deals=2)
    result = run(str(file), "--cluster", scheduler, "--out", str(tmp_path / "dask"))
    assert result.exit_code == 0, result.output
    assert results(tmp_path / "dask") == local_results(file)


def test_a_worker_that_does_not_see_a_file_bot_gets_it_with_the_settings(tmp_path, tournament):
    from arena.plan.config import load_config
    from arena.plan.schedule import schedule
    from arena.tournament.run.cluster import _HELD, play_task, settings_key, ship_bot_files
    from arena.tournament.run.codec import decode_answer
    from arena.tournament.run.settings import worker_settings
    from arena.tournament.run.workers import close_worker

    shutil.copy(FIXTURES.parent.parent / "examples" / "example_bot.py", tmp_path / "mine.py")
    file = tournament(["random", "mine.py:ExampleBot"], deals=1)
    config = load_config(file)
    settings = ship_bot_files(worker_settings(config))
    (tmp_path / "mine.py").unlink()  # this "worker" has no such file: it is written from the settings
    try:
        answer = decode_answer(play_task(settings_key(settings), settings, list(schedule(config)), False, 600.0))
    finally:
        close_worker()
        _HELD["key"] = None
        _HELD.pop("watchdog").close()
    assert answer.played is not None, answer.error
    assert len(answer.played.records.splitlines()) == 2


#: A bot that moves as ``random`` does but, from the second game its process plays on, waits while the file
#: ``hold`` lies next to it, after leaving ``waiting-PID``: a run holding it cannot end before the test lets it.
GATE_BOT = """
import os, time
from pathlib import Path

from arena_bots.random_bot import RandomBot

HERE = Path(__file__).parent
games = 0


class GateBot(RandomBot):
    def __init__(self, *args, **kwargs):
        global games
        super().__init__(*args, **kwargs)
        games += 1
        self.game = games

    def choose(self, view):
        if self.game > 1 and (HERE / "hold").exists():
            (HERE / f"waiting-{os.getpid()}").touch()
            while (HERE / "hold").exists():
                time.sleep(0.01)
        return super().choose(view)
"""


@pytest.fixture
def gated(tmp_path, tournament):
    """A tournament of ``random`` and the gate bot (its ``hold`` file laid), 4 games; a turn may take a
    minute, so a game held at the gate while the test acts is not timed out."""
    (tmp_path / "gate.py").write_text(GATE_BOT, encoding="utf-8")
    (tmp_path / "hold").touch()
    return tournament(["random", "gate.py:GateBot"], deals=2, name="gated", time_limit=60)


def _wait_until_held(folder: Path, out: Path, process: subprocess.Popen, timeout: float = 120) -> int:
    """The pid of a process held at the gate once a game is stored: the run is mid-way, and stays so."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, "the run ended before the test could stop it"
        waiting = sorted(folder.glob("waiting-*"))
        records = out / "records.jsonl"
        if waiting and records.exists() and records.read_bytes().count(b"\n") > 0:
            return int(waiting[0].name.partition("-")[2])
        time.sleep(0.05)
    raise AssertionError("no game stored, or none held at the gate")


@pytest.mark.slow
def test_a_worker_killed_mid_run_loses_no_game_and_stores_none_twice(tmp_path, scheduler, gated, local_results):
    out = tmp_path / "dask"
    process = subprocess.Popen([sys.executable, "-m", "arena", "run", str(gated), "--cluster", scheduler,
                                "--no-compress", "--out", str(out), "-q"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        pid = _wait_until_held(tmp_path, out, process)
        with distributed.Client(scheduler, timeout=10) as client:
            assert pid in client.run(os.getpid).values()  # a Dask worker, in the middle of a game
        os.kill(pid, signal.SIGKILL)
        (tmp_path / "hold").unlink()
        assert process.wait(300) == 0, process.stderr.read() if process.stderr else ""
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert results(out) == local_results(gated)


@pytest.mark.slow
def test_the_parent_killed_mid_run_is_completed_by_resume(tmp_path, scheduler, gated, run, local_results):
    out = tmp_path / "dask"
    process = subprocess.Popen([sys.executable, "-m", "arena", "run", str(gated), "--cluster", "local:2", "--out",
                                str(out), "-q", "--no-compress"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        _wait_until_held(tmp_path, out, process)
    finally:
        os.killpg(process.pid, signal.SIGKILL)  # the parent and the local cluster it started
        process.wait()
    lines = (out / "records.jsonl").read_bytes().splitlines()  # its last line may be cut short
    assert 0 < len(lines) < 4
    (tmp_path / "hold").unlink()
    # The resume may run on another cluster: here the one started by hand.
    result = run(str(gated), "--cluster", scheduler, "--out", str(out), "--resume")
    assert result.exit_code == 0, result.output
    assert results(out) == local_results(gated)
    # The resume played only the games not stored.
    starts = re.findall(r"(\d+) games, (\d+) stored, (\d+) to play", (out / "arena.log").read_text())
    assert len(starts) == 2 and starts[1][1] != "0" and int(starts[1][1]) + int(starts[1][2]) == 4


@pytest.mark.slow
def test_a_bot_that_ends_its_worker_is_faulted_as_locally(tmp_path, tournament, run, local_results):
    file = tournament(["random", f"{BAD}:HardExitBot"], deals=1, seating="fixed")
    result = run(str(file), "--cluster", "local:2", "--out", str(tmp_path / "dask"))
    assert result.exit_code == 0, result.output
    games, records = results(tmp_path / "dask")
    assert (games, records) == local_results(file)
    assert all(json.loads(r)["faults"][0]["kind"] == "crash" for r in records.values())
    log = (tmp_path / "dask" / "arena.log").read_text()
    assert "its Dask worker died while playing it" in log
    # The workers' own log lines (the referee's, on each fault) come back with the games.
    assert log.count("(e1) fault at move") == 1 and "Dask Worker process" in log


@pytest.mark.slow
def test_a_bot_stuck_inside_c_code_is_stopped_and_faulted_as_locally(monkeypatch):
    from arena.plan.config import parse_config
    from arena.plan.schedule import count_games, schedule
    from arena.tournament.run import cluster as module
    from arena.tournament.run.cluster import Cluster, DaskWorkers
    from arena.tournament.run.settings import worker_settings

    # One game, given up by the scheduler at the first worker the watchdog ends rather than after three
    # bounds (the retries are the test of the bot that ends its worker); a second stuck game could end
    # the worker the first one is being replayed on.
    monkeypatch.setattr(module, "ALLOWED_FAILURES", 0)
    config = parse_config('name = "h"\nplayers = 2\nseating = "fixed"\ndeals = 1\nseed = 3\ntime_limit = 1\n'
                          'isolation = "none"\n'
                          f'deal_key = "{KEY}"\n'
                          '[[entrants]]\nname = "rnd"\nbot = "random"\n'
                          f'[[entrants]]\nname = "stuck"\nbot = "{BAD}:CBlockingBot"\n', "h.toml")
    # The bound (a run's, game_bound(), is minutes) must hold the game's replay with every bot isolated, which
    # the watchdog also bounds: it is measured here, on this machine as busy as it is now, and doubled.
    from arena.tournament.run.workers import close_worker, init_worker, play_chunk

    init_worker(worker_settings(config))
    try:
        started = time.monotonic()
        play_chunk(list(schedule(config)), isolate=True)
        bound = max(3.0, 2 * (time.monotonic() - started))
    finally:
        close_worker()
    cluster = Cluster.connect("local:2")
    try:
        with DaskWorkers(cluster, (worker_settings(config), None), bound) as pool:
            answers = list(pool.play(schedule(config), count_games(config)))
    finally:
        cluster.close()
    records = [json.loads(line) for _, lines, _, _ in answers for line in lines.splitlines()]
    assert sorted(r["game_id"] for r in records) == sorted(g.game_id for g in schedule(config))
    assert all([f["kind"] for f in r["faults"]] == ["timeout"] for r in records)


@pytest.mark.slow
def test_a_bot_a_worker_cannot_load_is_one_line_naming_it_and_the_worker(scheduler):
    from arena.plan.config import parse_config
    from arena.plan.schedule import count_games, schedule
    from arena.tournament.run.cluster import Cluster, DaskWorkers
    from arena.tournament.run.settings import worker_settings
    from arena.tournament.run.workers import WorkerError

    # As if the bot's package were installed where the run starts but not on the workers.
    config = parse_config('name = "m"\nplayers = 2\ndeals = 1\nseed = 3\nisolation = "none"\n'
                          f'deal_key = "{KEY}"\n'
                          '[[entrants]]\nname = "rnd"\nbot = "random"\n'
                          '[[entrants]]\nname = "gone"\nbot = "not_installed_here.bot:Bot"\n', "m.toml")
    cluster = Cluster.connect(scheduler)
    try:
        with pytest.raises(WorkerError) as caught, \
                DaskWorkers(cluster, (worker_settings(config), None), 60.0) as pool:
            list(pool.play(schedule(config), count_games(config)))
    finally:
        cluster.close()
    message = str(caught.value)
    assert "\n" not in message and "not_installed_here" in message
    assert message.startswith("Dask worker tcp://127.0.0.1:") and "cannot load a bot" in message


@pytest.mark.slow
def test_an_unreachable_scheduler_is_one_line_and_writes_nothing(tmp_path, tournament, run):
    file = tournament(["random", "greedy"])
    address = f"tcp://127.0.0.1:{free_port()}"
    started = time.monotonic()
    result = run(str(file), "--cluster", address, "--out", str(tmp_path / "out"))
    assert result.exit_code != 0
    assert time.monotonic() - started < 30
    # Told at once that nothing listens there, not after the wait for a scheduler that does not answer.
    assert address in result.output and "cannot reach the scheduler: connection refused" in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("address", ["tcp://127.0.0.1", "tls://127.0.0.1:1"])
def test_a_scheduler_address_that_cannot_be_used_is_one_line(tmp_path, address, tournament, run):
    file = tournament(["random", "greedy"])
    result = run(str(file), "--cluster", address, "--out", str(tmp_path / "out"))
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)  # a one-line error, no traceback
    assert result.output.startswith(f"Error: --cluster {address}: cannot reach the scheduler")
    assert len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("value", ["local:0", "lokal", "http://x", "localhost:8786"])
def test_a_bad_cluster_value_is_one_line(tmp_path, value, tournament, run):
    file = tournament(["random", "greedy"])
    result = run(str(file), "--cluster", value, "--out", str(tmp_path / "out"))
    assert result.exit_code != 0
    assert result.output.startswith("Error: --cluster") and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_cluster_and_workers_together_are_refused(tmp_path, tournament, run):
    file = tournament(["random", "greedy"])
    result = run(str(file), "--cluster", "local:2", "--workers", "2", "--out", str(tmp_path / "out"))
    assert result.exit_code != 0 and "--cluster and --workers cannot be used together" in result.output
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_other_arena_versions_on_the_workers_are_refused(tmp_path, monkeypatch, scheduler, tournament, run):
    from arena.tournament.run import cluster

    monkeypatch.setattr(cluster, "arena_version", lambda: "0.0.0-other")  # the parent's; the workers' stay
    file = tournament(["random", "greedy"])
    result = run(str(file), "--cluster", scheduler, "--out", str(tmp_path / "out"))
    assert result.exit_code != 0
    assert "this is arena 0.0.0-other" in result.output and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_without_dask_the_option_says_what_to_install(tmp_path, monkeypatch, tournament, run):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed now fails
    file = tournament(["random", "greedy"])
    result = run(str(file), "--cluster", "local:2", "--out", str(tmp_path / "out"))
    assert result.exit_code != 0
    assert "uptown-arena[dask]" in result.output and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_tasks_hold_a_tenth_of_a_second_of_play_at_least_when_there_are_games_enough():
    from arena.tournament.run.chunks import DASK_CHUNKS

    task_size = DASK_CHUNKS.size
    assert task_size(100_000, 2, 0.001) == DASK_CHUNKS.most == 256
    assert task_size(100_000, 2, 0.01) == 50  # half a second of play
    assert task_size(100_000, 2, 1.0) == 1
    assert task_size(80, 2, 0.001) == 10  # at least four tasks per worker


def _without_times(found: tuple[list[list[str]], dict[str, str]]) -> tuple[list[list[str]], dict[str, dict]]:
    """games.csv and the records with each move's time left out of their clock key (it differs run to run)."""
    rows, lines = found
    games = {}
    for game_id, line in lines.items():
        record = json.loads(line)
        clock = record["clock"]
        assert len(clock.pop("used")) == len(clock.pop("left")) == len(clock.pop("bank")) == len(record["moves"])
        games[game_id] = record
    return rows, games


@pytest.mark.slow
@pytest.mark.parametrize("isolation", ["none", "process"])
def test_clocks_hold_on_workers_started_by_hand(tmp_path, scheduler, write_tournament, run, local_results, isolation):
    file = write_tournament(
        f'name = "clocked"\nplayers = 2\ndeals = 2\nseed = 7\ntime_limit = 5\nclock = "30+0.5"\noverage = 2\n'
        f'deal_key = "{KEY}"\n'
        f'isolation = "{isolation}"\n[[entrants]]\nbot = "random"\n[[entrants]]\nbot = "greedy"\n', "clocked.toml")
    result = run(str(file), "--cluster", scheduler, "--out", str(tmp_path / "dask"))
    assert result.exit_code == 0, result.output
    on_cluster = _without_times(results(tmp_path / "dask"))
    assert on_cluster == _without_times(local_results(file))
    assert {json.dumps(r["clock"]) for r in on_cluster[1].values()} == {'{"control": "30+0.5", "overage": 2.0}'}
