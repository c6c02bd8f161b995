"""Bot processes as the referee keeps them: never waited on without a deadline, frozen between turns,
never two games of one deal, what they declare bounded, what they write escaped, their logs named
after them, the bot host isolated from the user's folders.

The programs are real processes in the sandbox: ``tests/fixtures/programs/`` (standard library only)
and small ones written here.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import shlex
import stat
import sys
import textwrap
import time
from pathlib import Path

import pytest

from arena.cli import main
from arena.isolation import sandbox
from arena.plan.config import parse_config
from arena.plan.schedule import schedule
from arena.play import pool as pool_module
from arena.play.botprocess import (
    ARENA_PARENT,
    QUIT_SECONDS,
    BotProcess,
    BotProcessError,
    Late,
    exec_program,
    python_program,
)
from arena.play.logs import log_name
from arena.play.referee import Referee, play_game
from arena.plugins import BotError
from arena.results.verify import without_timing
from arena.rules import engine as native
from arena.tournament.run import workers
from arena.tournament.run.settings import worker_settings
from arena.tournament.run.workers import (
    close_worker,
    init_worker,
    play_chunk,
    play_one,
    play_order,
)
from arena.wire import protocol

ROOT = Path(__file__).parents[2]
PROGRAMS = Path(__file__).parents[1] / "fixtures" / "programs"
HOSTILE_PROGRAMS = Path(__file__).parents[1] / "fixtures" / "hostile_programs"
WALLS = sandbox.walls()


def program(name: str, *args: str) -> str:
    return "exec:" + shlex.join([sys.executable, str(PROGRAMS / f"{name}.py"), *args])


def finished_normally(outcome) -> bool:
    state = outcome.state
    return state.over and all(state.played[c] == 24 for c in state.settings.colors)


def inline(tmp_path: Path, name: str, code: str) -> str:
    """An ``exec:`` ref of a small Python program written here."""
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(code))
    return "exec:" + shlex.join([sys.executable, str(path)])


@pytest.fixture(autouse=True)
def logs_folder(tmp_path):
    """``tmp_path / "logs"``, made: the bots' logs go there."""
    (tmp_path / "logs").mkdir()


HELLO = 'os.write(1, b\'{"type":"hello","protocol":"uptown-bot/1","name":"x","options":{}}\\n\')'


# == the referee never waits on a bot without a deadline ==============================================


@pytest.mark.parametrize("mode", ["first", "second"])
@pytest.mark.slow
def test_a_bot_that_stops_draining_its_input_is_faulted_timeout_and_the_game_goes_on(tmp_path, mode):
    """It shrinks its pipe and reads its turns with tee(2) from its first turn (or its second game) on:
    the referee's next write would wait for ever; it is late like an answer that does not come.  (The
    same program through ``arena play`` and ``arena run``: tests/hostile/test_hostile_walls.py.)"""
    undrained = "exec:" + shlex.join([sys.executable, str(HOSTILE_PROGRAMS / "undrained.py"),
                                      "1" if mode == "first" else "2"])
    start = time.perf_counter()
    with Referee(0.5, logs=tmp_path / "logs") as referee:
        try:
            players = [referee.prepare(bot) for bot in (undrained, "random", "random")]
            outcomes = [referee.play(players, seed) for seed in (3, 4)]
        finally:
            referee.close()
    assert time.perf_counter() - start < 30
    stuck = outcomes[0 if mode == "first" else 1]
    assert [(f["seat"], f["kind"]) for f in stuck.faults] == [(0, "timeout")]
    assert finished_normally(stuck)
    if mode == "second":
        assert outcomes[0].faults == []
    log = (tmp_path / "logs" / "exec_hostile_programs_undrained.py.log").read_text()
    assert "stopped draining its input" in log


@pytest.mark.slow
def test_a_write_the_program_does_not_take_is_late_at_its_deadline(tmp_path):
    ref = inline(tmp_path, "deaf", f"""
        import fcntl, os, sys, time
        fcntl.fcntl(0, 1031, 4096)
        os.read(0, 100)
        {HELLO}
        time.sleep(60)
    """)
    process = BotProcess(exec_program(ref))
    process.start(1.0)
    try:
        process.thaw()
        start = time.perf_counter()
        with pytest.raises(Late):
            process.send(b"x" * 100_000 + b"\n", start + 0.3)
        assert 0.3 <= time.perf_counter() - start < 1.5
        start = time.perf_counter()
        with pytest.raises(Late):
            process.tell(b"{}\n" * 10_000)  # the over message: bounded by QUIT_SECONDS
        assert time.perf_counter() - start < QUIT_SECONDS + 1.0
    finally:
        start = time.perf_counter()
        process.stop()  # it neither reads quit nor exits: killed
        assert time.perf_counter() - start < QUIT_SECONDS + 2.0
        assert not process.alive


@pytest.mark.slow
def test_a_bot_that_does_not_take_its_over_message_is_killed_and_replaced(tmp_path, monkeypatch, caplog):
    """The game is over, so no fault: its process is killed, and a fresh one plays the next game.  (That such a
    write is late within QUIT_SECONDS is the test above; here every over message is late.)"""
    def late(self, data):
        raise Late

    monkeypatch.setattr(BotProcess, "tell", late)
    with Referee(2.0, logs=tmp_path / "logs") as referee:
        try:
            player = referee.prepare(program("diary"))
            outcomes = [referee.play([player, "random"], seed) for seed in (5, 6)]
        finally:
            referee.close()
    assert all(o.faults == [] and finished_normally(o) for o in outcomes)
    assert len(diary(tmp_path / "logs" / "exec_programs_diary.py.log")) == 2
    assert "did not take the over message within 0.2 s: killed" in caplog.text


# == frozen between turns ==============================================================================


def cpu_ticks(pid: int) -> int:
    """Clock ticks on a CPU of ``pid`` and every process under it."""
    total, todo = 0, [pid]
    while todo:
        pid = todo.pop()
        try:
            with open(f"/proc/{pid}/stat") as f:
                total += sum(int(x) for x in f.read().rpartition(")")[2].split()[11:13])
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as f:
                    todo += map(int, f.read().split())
        except OSError:
            continue
    return total


@pytest.mark.slow
def test_a_bot_runs_only_during_its_turns(tmp_path):
    """A program that spins a thread from its start on: from its answer to its next turn it gets no CPU."""
    ref = inline(tmp_path, "spinner", f"""
        import json, os, sys, threading
        threading.Thread(target=lambda: [None for _ in iter(int, 1)], daemon=True).start()
        for raw in sys.stdin.buffer:
            message = json.loads(raw)
            if message["type"] == "hello":
                {HELLO}
            elif message["type"] == "turn":
                os.write(1, b'{{"type":"move","move":"pass"}}\\n')
    """)
    process = BotProcess(exec_program(ref))
    process.start(1.0)
    try:
        pid = process._box.process.pid
        before = cpu_ticks(pid)
        time.sleep(0.5)
        assert cpu_ticks(pid) - before <= 2, "it ran after its handshake"
        turn = b'{"type":"turn","time":1.0,"view":{},"legal":["pass"]}\n'
        assert json.loads(process.ask(turn, time.perf_counter() + 5.0)) == {"type": "move", "move": "pass"}
        before = cpu_ticks(pid)
        time.sleep(0.5)
        assert cpu_ticks(pid) - before <= 2, "it ran after its answer"
        process.thaw()
        time.sleep(0.5)
        assert cpu_ticks(pid) - before >= 10, "the spinner does not spin: the test shows nothing"
    finally:
        process.stop()


def switches(pid: int) -> int:
    """The voluntary context switches of the program under the jail's outer process ``pid``."""
    with open(f"/proc/{pid}/task/{pid}/children") as f:
        program = int(f.read().split()[0])
    with open(f"/proc/{program}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("voluntary_ctxt_switches"))


@pytest.mark.slow
@pytest.mark.skipif(WALLS != "jail", reason="the cgroup freezer needs the jail level")
def test_the_python_bot_host_stays_asleep_while_it_is_frozen_and_thawed():
    """Between turns the bot host sleeps in sigwaitinfo, where the cgroup freezer stops a task without
    waking it; a program asleep in read (the stdlib example) is woken by every freeze and every thaw."""
    woken = {}
    for name, ref in (("host", python_program("arena_bots.random_bot:RandomBot")),
                      ("example", exec_program(f"exec:{shlex.quote(sys.executable)} "
                                               f"{shlex.quote(str(ROOT / 'examples/protocol/random_bot.py'))}"))):
        process = BotProcess(ref)
        process.start(5.0)
        try:
            if "cgroup freezer" not in process.walls:
                pytest.skip("no cgroup freezer on this machine")
            process.thaw()  # the first thaw lets it finish its handshake and fall asleep
            time.sleep(0.2)
            process.freeze()
            sandbox.settle()
            pid = process._box.process.pid
            before = switches(pid)
            for _ in range(40):
                # A thawed program that was woken gets to run before it is frozen again, however busy the
                # machine (the example within a second; the host, never woken, is given 20 ms).
                frozen = switches(pid)
                process.thaw()
                deadline = time.monotonic() + (0.02 if name == "host" else 1.0)
                while switches(pid) == frozen and time.monotonic() < deadline:
                    time.sleep(0.001)
                process.freeze()
                sandbox.settle()
            woken[name] = switches(pid) - before
        finally:
            process.stop()
    assert woken["host"] <= 4 and woken["example"] >= 40, woken


# == never two games of one deal ========================================================================


def diary(log: Path) -> dict[str, list[str]]:
    """The game seeds each process of the diary program was given, by its token."""
    found: dict[str, list[str]] = {}
    for line in log.read_text().splitlines():
        if line.startswith("DIARY "):
            _, token, seed = line.split()
            found.setdefault(token, []).append(seed)
    return found


@pytest.mark.slow
def test_no_process_plays_two_games_of_one_deal(tmp_path):
    seeds = [7, 7, 8, 7, 8, 9, 9, 7]
    with Referee(2.0, logs=tmp_path / "logs") as referee:
        try:
            players = [referee.prepare(bot) for bot in (program("diary"), "random", program("diary"))]
            outcomes = [referee.play(players, seed) for seed in seeds]
        finally:
            referee.close()
    assert all(o.faults == [] for o in outcomes)
    deal_of = {protocol.bot_seed(seed, seat): seed for seed in seeds for seat in (0, 2)}
    processes = diary(tmp_path / "logs" / "exec_programs_diary.py.log")
    assert sum(len(games) for games in processes.values()) == 2 * len(seeds)
    for token, games in processes.items():
        deals = [deal_of[game] for game in games]
        assert len(deals) == len(set(deals)), f"process {token} played a deal twice: {deals}"
    assert len(processes) == 2 * seeds.count(7)  # a seat's deal 7 needs a process of its own each time


@pytest.mark.slow
def test_a_process_is_retired_after_its_games_and_few_are_kept_idle(tmp_path, monkeypatch):
    monkeypatch.setattr(pool_module, "RETIRE_GAMES", 2)
    monkeypatch.setattr(pool_module, "IDLE_PER_PROGRAM", 2)
    with Referee(2.0, logs=tmp_path / "logs") as referee:
        try:
            player = referee.prepare(program("diary"))
            for seed in (1, 2, 3, 3, 3, 3):
                assert referee.play([player, "random"], seed).faults == []
            kept = referee.pool.idle[player.program]
            assert len(kept) == 2 and all(len(process.deals) == 1 for process in kept)
        finally:
            referee.close()
    # Games 1 and 2, then game 3: the first process retired after two; each game of deal 3 needs another.
    games = sorted(diary(tmp_path / "logs" / "exec_programs_diary.py.log").values(), key=len)
    assert [len(played) for played in games] == [1, 1, 1, 1, 2]


#: A results folder's deal key: the bots' seeds are keyed with it.
DEAL_KEY = "0f" * 32


def config_of(tmp_path: Path, deals: int):
    diary_command = json.dumps([sys.executable, str(PROGRAMS / "diary.py")])
    return parse_config(
        f'name = "d"\nplayers = 3\ndeals = {deals}\nseed = 4\ntime_limit = 5\nseating = "rotate"\n'
        f'duplicate = true\ndeal_key = "{DEAL_KEY}"\n'  # the format whose deals come back
        f'[[entrants]]\nname = "diary"\ncommand = {diary_command}\n'
        '[[entrants]]\nname = "rnd"\nbot = "random"\n'
        '[[entrants]]\nname = "greedy"\nbot = "greedy"\n',
        str(tmp_path / "d.toml"),
    )


@pytest.mark.slow
def test_a_chunk_is_played_deal_after_deal_and_answered_in_its_own_order(tmp_path):
    config = config_of(tmp_path, deals=5)
    games = list(schedule(config))  # deal by deal: each deal's three seatings side by side
    assert len(games) == 15
    order = play_order(games)
    assert [games[i].rotation for i in order] == [0] * 5 + [1] * 5 + [2] * 5
    assert sorted(order) == list(range(15))
    (tmp_path / "bots").mkdir()
    init_worker(worker_settings(config, logs=str(tmp_path / "bots")))
    try:
        marked: list[int] = []
        lines, rows, _, faults, *_ = play_chunk(games, mark=marked.append)
        assert marked == order
        # The jail's outer process copies each line to the log as it comes: on a busy machine the last may
        # still be in its pipe when the chunk ends.
        deadline = time.monotonic() + 60
        while sum(map(len, (processes := diary(tmp_path / "bots" / "diary.log")).values())) < len(games) \
                and time.monotonic() < deadline:
            time.sleep(0.05)
        with workers._WORKER["isolated"] as referee:
            one_by_one = [play_one(referee, game) for game in games]  # in schedule order
    finally:
        close_worker()
    assert lines == b"".join(line for line, _, _ in one_by_one)  # the same games, in the chunk's order
    def untimed(rows: str) -> list[str]:
        return [without_timing(row) for row in rows.splitlines()]  # the time-use columns: the last

    assert untimed(rows.decode()) == untimed("".join(text for _, text, _ in one_by_one))
    assert faults == []
    # A process per seating, each playing its five deals.
    deal_of = {protocol.bot_seed(g.seed, seat, DEAL_KEY): g.seed for g in games for seat in range(3)}
    assert sorted(len(played) for played in processes.values()) == [5, 5, 5]
    for played in processes.values():
        assert len({deal_of[seed] for seed in played}) == 5


# == what a bot declares is bounded =====================================================================


@pytest.mark.parametrize("argument, limit", [
    ("options:65", "65 options, more than 64"),
    ("name:201", "name is 201 characters long, more than 200"),
    ("describe:201", "description is 201 characters long, more than 200"),
    ("key:201", "an option's name is 201 characters long, more than 200"),
    ("value:199", "its default is 201 characters long as JSON, more than 200"),
])
def test_a_hello_declaring_more_than_the_limits_is_refused_at_the_handshake(tmp_path, argument, limit):
    with pytest.raises(BotError, match=limit) as caught:
        play_game([program("diary", argument), "random"], 1, logs=tmp_path / "logs")
    assert "\n" not in str(caught.value)


@pytest.mark.slow
def test_a_hello_at_the_limits_is_taken(tmp_path):
    outcome = play_game([program("diary", "options:62", "name:200", "describe:200", "key:200", "value:198"),
                         "random"], 1, logs=tmp_path / "logs")
    assert outcome.faults == []
    assert len(outcome.record["bots"][0]["options"]) == 64


@pytest.mark.slow
def test_a_python_bot_declaring_more_than_the_limits_is_refused_in_process_and_as_a_program(tmp_path):
    bot = tmp_path / "flood.py"
    bot.write_text(textwrap.dedent("""
        from arena.api import Bot, Option

        class FloodBot(Bot):
            options = {f"o{i}": Option(i) for i in range(65)}

            def choose(self, view):
                return view.legal.choice(self.rng)
    """))
    # An Option too long is refused where it is written: its module does not load.
    long = tmp_path / "long.py"
    long.write_text(textwrap.dedent("""
        from arena.api import Bot, Option

        class LongBot(Bot):
            options = {"text": Option("v" * 199)}

            def choose(self, view):
                return view.legal.choice(self.rng)
    """))
    for isolation in ("none", "process"):
        with pytest.raises(BotError, match="65 options, more than 64"):
            play_game([f"{bot}:FloodBot", "random"], 1, isolation=isolation)
        with pytest.raises(BotError, match="201 characters long as JSON, more than 200"):
            play_game([f"{long}:LongBot", "random"], 1, isolation=isolation)


# == what a bot writes is escaped =======================================================================


ESCAPES = "\\x1b[31mred\\x1b]0;title\\x07 \\u202eevil\\x00"


@pytest.mark.slow
def test_a_bots_error_message_reaches_the_record_and_the_log_escaped(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="arena.play.referee")
    outcome = play_game([program("diary", f"error:{ESCAPES}{'x' * 400}"), "random"], 1, logs=tmp_path / "logs")
    (fault,) = outcome.faults
    assert fault["kind"] == "exception"
    message = fault["message"]
    assert message.startswith("\\x1b[31mred\\x1b]0;title\\x07 \\u202eevil\\x00xxx") and message.endswith("...")
    assert len(message) == protocol.MAX_SHOWN
    logged = "\n".join(r.getMessage() for r in caplog.records if "fault at move" in r.getMessage())
    assert "\\x1b[31mred" in logged and "\x1b" not in logged and "\u202e" not in logged


@pytest.mark.slow
def test_a_bots_last_words_reach_the_fault_escaped(tmp_path):
    outcome = play_game([program("diary", f"words:bye {ESCAPES}"), "random"], 1, logs=tmp_path / "logs")
    (fault,) = outcome.faults
    assert fault["kind"] == "crash"
    assert "last words: DIARY " in fault["message"]
    assert " | bye \\x1b[31mred\\x1b]0;title\\x07 \\u202eevil\\x00 (log: " in fault["message"]
    assert "\x1b" not in fault["message"] and "\x00" not in fault["message"]


@pytest.mark.slow
def test_an_in_process_bots_exception_reaches_the_record_escaped(tmp_path):
    bot = tmp_path / "loud.py"
    bot.write_text(textwrap.dedent("""
        from arena.api import Bot

        class LoudBot(Bot):
            def choose(self, view):
                raise RuntimeError("\\x1b[2Jcleared \\u202e")
    """))
    for isolation in ("none", "process"):
        outcome = play_game([f"{bot}:LoudBot", "random"], 1, isolation=isolation)
        (fault,) = outcome.faults
        assert "RuntimeError: \\x1b[2Jcleared \\u202e" in fault["message"], fault
        assert "\x1b" not in fault["message"]


def test_bot_text_is_one_escaped_bounded_line():
    assert protocol.bot_text("a\x1b[1m b\n\tc\u2028d \U000e0001") == "a\\x1b[1m b c d \\U000e0001"
    assert protocol.bot_text("caf\u00e9 \u2603") == "caf\u00e9 \u2603"
    assert protocol.bot_text("x" * 50, 10) == "xxxxxxx..."
    assert protocol.bot_text("\x00" * 10_000, 40) == ("\\x00" * 10)[:37] + "..."


# == transcripts ========================================================================================


def test_a_transcript_is_private_and_hidden_from_the_bots(tmp_path, monkeypatch, cli):
    """The transcript is written in the folder arena runs in, which the bots start in and where they see what
    their command names."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    talk, control = work / "talk.txt", work / "control.txt"
    talk.write_text("old\n")
    talk.chmod(0o644)
    control.write_text("what a bot may read\n")
    spy = inline(tmp_path, "spy", f"""
        import json, os, sys

        def size(path):
            try:
                return str(len(open(path).read()))
            except OSError as exc:
                return type(exc).__name__

        for raw in sys.stdin.buffer:
            message = json.loads(raw)
            if message["type"] == "hello":
                {HELLO}
            elif message["type"] == "turn":
                sys.stderr.write(f"SPY read {{size('talk.txt')}} {{size('control.txt')}}\\n")
                os.write(1, (json.dumps({{"type": "move", "move": message["legal"][0]}}) + "\\n").encode())
            elif message["type"] == "quit":
                break
    """)
    # The working folder holds more than the bot: a bot is shown only the files its command names there.
    result = cli.invoke(main, ["play", f"{spy} control.txt", "random", "--seed", "2", "-q", "--transcript", "talk.txt",
                               "--logs", str(tmp_path / "logs")])
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(talk.stat().st_mode) == 0o600
    assert '"type":"turn"' in talk.read_text()
    log = tmp_path / "logs" / "seat0-spy.py.log"  # arena play names a log after the seat and the bot
    seen = {line.split("SPY read ")[1] for line in log.read_text().splitlines() if line.startswith("SPY read")}
    if WALLS in ("jail", "userns"):
        # Hidden: no such file, or an empty one in its place (not merely closed to the bot by its mode).
        assert {read.split()[0] for read in seen} <= {"FileNotFoundError", "0"}, seen
        assert {read.split()[1] for read in seen} == {str(len(control.read_text()))}, seen
    link = work / "link.txt"
    link.symlink_to(work / "elsewhere.txt")
    refused = cli.invoke(main, ["play", "random", "random", "-q", "--transcript", str(link)])
    assert refused.exit_code == 2 and "is a symbolic link" in refused.output
    assert not (work / "elsewhere.txt").exists()


# == the bot host =======================================================================================


REPORTER = """
    import os, sys
    import arena
    from arena.api import Bot
    from arena.rules import engine as native

    class ReporterBot(Bot):
        def __init__(self, *args):
            super().__init__(*args)
            print(f"REPORT engine={native.ENGINE} arena={os.path.dirname(os.path.dirname(arena.__file__))} "
                  f"cwd={os.getcwd()}", file=sys.stderr)

        def choose(self, view):
            return view.legal.choice(self.rng)
"""


@pytest.mark.slow
def test_no_folder_of_the_users_can_stand_in_for_the_arena_of_the_bot_host(tmp_path, monkeypatch):
    """A folder ``arena`` whose import fails, in the folder arena runs in, beside the bot's file and on an
    entrant's PYTHONPATH: the bot plays all the same, on the referee's own arena and engine."""
    for place in ("work", "bots", "path"):
        (tmp_path / place / "arena").mkdir(parents=True)
        (tmp_path / place / "arena" / "__init__.py").write_text("raise ImportError('the wrong arena')\n")
    (tmp_path / "bots" / "reporter.py").write_text(textwrap.dedent(REPORTER))
    monkeypatch.chdir(tmp_path / "work")
    ref = f"{tmp_path / 'bots' / 'reporter.py'}:ReporterBot"
    with_path = dataclasses.replace(python_program(ref), env=(("PYTHONPATH", str(tmp_path / "path")),))
    with Referee(2.0, logs=tmp_path / "logs") as referee:
        try:
            players = [referee.prepare(ref), referee.prepare(ref, name="with-path", program=with_path)]
            outcome = referee.play(players, 1)
        finally:
            referee.close()
    assert outcome.faults == []
    for log in ("reporter.py_ReporterBot.log", "with-path.log"):
        (report,) = [line for line in (tmp_path / "logs" / log).read_text().splitlines() if line.startswith("REPORT")]
        assert f"engine={native.ENGINE} " in report
        assert f"arena={ARENA_PARENT} " in report
        assert report.endswith(f"cwd={tmp_path / 'bots'}")


@pytest.mark.slow
def test_a_relative_bot_file_is_given_to_its_host_by_its_absolute_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "reporter.py").write_text(textwrap.dedent(REPORTER))
    program = python_program("reporter.py:ReporterBot")
    assert program.command[-1] == f"{tmp_path / 'reporter.py'}:ReporterBot"
    assert program.command[1] == "-I" and program.cwd == str(tmp_path)
    assert python_program("random").cwd is None  # its private home
    outcome = play_game(["reporter.py:ReporterBot", "random"], 1)
    assert outcome.faults == [] and outcome.record["bots"][0]["spec"] == "reporter.py:ReporterBot"


@pytest.mark.parametrize("ref", ["reporter_module:ReporterBot", "reporter_package.core:ReporterBot"])
@pytest.mark.slow
def test_a_module_bot_of_the_working_folder_is_shown_its_module_and_nothing_else(tmp_path, monkeypatch, ref):
    """A ``module:Class`` not installed is imported from the working folder: its host is shown that module
    (or package), and not the folder's other files."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "reporter_module.py").write_text(textwrap.dedent(REPORTER))
    (tmp_path / "reporter_package").mkdir()
    (tmp_path / "reporter_package" / "__init__.py").write_text("")
    (tmp_path / "reporter_package" / "core.py").write_text(textwrap.dedent(REPORTER))
    (tmp_path / "secret.txt").write_text("not for bots")
    program = python_program(ref)
    top = ref.partition(".")[0].partition(":")[0]
    assert program.files == (str(tmp_path / (top + ".py" if top == "reporter_module" else top)),)
    outcome = play_game([ref, "random"], 1)
    assert outcome.faults == []
    if WALLS in ("jail", "userns"):
        box = sandbox.start([sys.executable, "-c", "import os; print(os.path.exists('secret.txt'))"],
                            sandbox.StartOptions(cwd=str(tmp_path), show=program.files))
        try:
            assert box.process.stdout.read().strip() == b"False"
        finally:
            box.kill()


# == logs named after the bot ===========================================================================


@pytest.mark.slow
def test_a_log_is_named_after_the_bot_never_after_its_path(tmp_path):
    deep = tmp_path / ("a folder with spaces " * 6) / "bots"
    deep.mkdir(parents=True)
    (deep / "diary.py").write_text((PROGRAMS / "diary.py").read_text())
    first = "exec:" + shlex.join([sys.executable, str(deep / "diary.py")])
    other = "exec:" + shlex.join([sys.executable, str(PROGRAMS / "diary.py")])
    assert log_name(first) == "exec_bots_diary.py"
    assert log_name(other) == "exec_programs_diary.py"
    assert log_name("random") == "random"
    assert log_name(f"{deep}/mine.py:MyBot") == "mine.py_MyBot"
    assert log_name("exec:./mybot --depth 3") == "exec_mybot"
    outcome = play_game([first, other, "random"], 1, logs=tmp_path / "logs")
    assert outcome.faults == []
    assert sorted(p.name for p in (tmp_path / "logs").iterdir()) == [
        "exec_bots_diary.py.log", "exec_programs_diary.py.log", "random.log"]


@pytest.mark.slow
def test_two_bots_of_one_short_name_get_two_logs(tmp_path):
    a, b = tmp_path / "a" / "bots", tmp_path / "b" / "bots"
    for folder in (a, b):
        folder.mkdir(parents=True)
        (folder / "diary.py").write_text((PROGRAMS / "diary.py").read_text())
    refs = ["exec:" + shlex.join([sys.executable, str(folder / "diary.py")]) for folder in (a, b)]
    outcome = play_game([*refs, "random"], 1, logs=tmp_path / "logs")
    assert outcome.faults == []
    names = sorted(p.name for p in (tmp_path / "logs").iterdir())
    assert names[0] == "exec_bots_diary.py-" + names[0][-12:] and names[1] == "exec_bots_diary.py.log"
    assert all("DIARY" in (tmp_path / "logs" / name).read_text() for name in names[:2])


def test_a_program_that_dies_at_its_start_is_named_by_its_error_line_and_its_log_s_whole_path(tmp_path):
    """Node.js ends a failed start with the error object's fields and its version: the line that says what
    went wrong comes first in the message, and the log is named by its whole path (it is not in a results folder)."""
    ref = inline(tmp_path, "epilogue", """
        import sys
        sys.stderr.write("node:internal/modules/cjs/loader:1228\\n  throw err;\\n\\n")
        sys.stderr.write("Error: Cannot find module '/x/random_bot.js'\\n    at Module._resolveFilename\\n")
        sys.stderr.write("  code: 'MODULE_NOT_FOUND',\\n  requireStack: []\\n}\\n\\nNode.js v20.0.0\\n")
        sys.exit(1)
    """)
    log = tmp_path / "logs" / "epilogue.log"
    process = BotProcess(exec_program(ref), log=str(log))
    with pytest.raises(BotProcessError) as caught:
        process.start(1.0)
    message = str(caught.value)
    assert "ended before answering hello: exit code 1; its last words: Error: Cannot find module '/x/random_bot.js'" \
           " | ... | requireStack: [] | } | Node.js v20.0.0" in message, message
    assert message.endswith(f"(its standard error: {log})")
