"""Hostile bots and programs: every trick is contained.

The bots are in ``tests/fixtures/hostile_bots.py``, the programs (standard
library only, started as ``exec:python3 PROGRAM``) in
``tests/fixtures/hostile_programs/``.  For every trick, under the default
isolation (``process``): the run finishes, the offender alone is faulted and
with the right kind, the other seats are not, spies find no tile they should
not see (they write what they found to their log, which is read here), and
no process outlives the run (an autouse fixture looks for the command lines
of the hostile bots and programs after every test, among the processes this
test process started and the orphans: :func:`tests.processes.processes_with`).

Under isolation ``none`` only what it promises is tested: each seat's own
copy of the settings, and a bot that forks, kills its worker's parent or
closes its worker's descriptors has its game played again with every bot
isolated.  One test documents what ``none`` does not stop: the gc spy finds
the game state.

Tournaments here have 4 entrants at 3 players (4 tables): the table without
the offender (``hostile``) plays games that must be byte-identical to the same
tournament with a harmless twin (:class:`HarmlessBot`, same entrant name) in
its place.
"""

from __future__ import annotations

import csv
import json
import os
import shlex
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from arena import records
from arena.isolation import sandbox
from arena.plan.config import ConfigError, load_config
from arena.plan.schedule import count_games
from arena.play import botprocess
from arena.play.referee import Referee, play_game
from arena.plugins import BotError, BotSpec, make_bot_spec
from arena.results.identity import check_bots
from arena.rules import GameSettings
from arena.tournament.run.runner import run_tournament
from tests.processes import leftovers, processes_with

ROOT = Path(__file__).parents[2]
FIXTURES = Path(__file__).parents[1] / "fixtures"
HOSTILE = FIXTURES / "hostile_bots.py"
PROGRAMS = FIXTURES / "hostile_programs"
WALLS = sandbox.walls()
#: What marks a process as one of this suite's bots (in its command line, or its jail's), looked for among
#: this test process's own and the orphans (:mod:`tests.processes`).
MARKS = (str(HOSTILE).encode(), str(PROGRAMS).encode())

jail_only = pytest.mark.skipif(
    WALLS != "jail", reason=f"needs the jail walls (PID namespace, cgroups); this machine gives {WALLS!r}",
)


def hostile(name: str, **options) -> BotSpec:
    return make_bot_spec(f"{HOSTILE}:{name}", options)


def program(name: str, *args: str) -> str:
    return "exec:" + shlex.join([sys.executable, str(PROGRAMS / f"{name}.py"), *args])


def program_command(name: str, *args: str) -> list[str]:
    return [sys.executable, str(PROGRAMS / f"{name}.py"), *args]


# -- processes ------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def no_process_outlives_the_test():
    yield
    found = leftovers(*MARKS)
    for pid, _ in found:  # started by this suite's bots: do not let them spoil the next tests
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    assert not found, f"processes outlived the run: {found}"


# -- games and what the bots wrote ----------------------------------------------------------


def finished_normally(outcome) -> bool:
    state = outcome.state
    return state.over and all(state.played[c] == 24 for c in state.settings.colors)


def check_faults(faults: list[dict], offenders: set[int], kinds: set[str] | None, message: str = "") -> list[dict]:
    """Only the ``offenders`` are faulted: once each, with a kind of ``kinds`` (None: not at all)."""
    others = [f for f in faults if f["seat"] not in offenders]
    assert not others, f"seats that did nothing wrong were faulted: {others}"
    for seat in offenders:
        mine = [f for f in faults if f["seat"] == seat]
        if kinds is None:
            assert not mine, f"seat {seat} was faulted: {mine}"
        else:
            assert len(mine) == 1, f"seat {seat}: expected one fault of {sorted(kinds)}, got {mine}"
            assert mine[0]["kind"] in kinds, f"seat {seat}: expected a fault of {sorted(kinds)}, got {mine}"
            assert message in mine[0]["message"], mine
            assert "\n" not in mine[0]["message"]
    return faults


def check_game(outcome, offender: int, kinds: set[str] | None, message: str = "") -> dict | None:
    """The game went on to its end, only the offender was faulted (as expected), and its record replays."""
    check_faults(outcome.faults, {offender}, kinds, message)
    assert finished_normally(outcome)
    records.replay(records.loads(records.dumps(outcome.record)))
    return outcome.faults[0] if outcome.faults else None


def logs_of(folder: Path, part: str = "") -> str:
    """Everything the bots whose log file names hold ``part`` (default: every bot) wrote to standard error:
    only the hostile bots write ``HOSTILE`` lines, so no test depends on where a log lies or what it is
    named after."""
    return "".join(p.read_text(errors="replace") for p in sorted(folder.glob("*.log")) if part in p.name)


def piles(record: dict) -> dict[str, str]:
    """Every color's pile in draw order, written as the spies write them."""
    return {color: ",".join(tiles) for color, tiles in record["deal"].items()}


def check_spy(log: str, kind: str, records_seen: list[dict]) -> None:
    """The spy ran, found nothing, and never wrote a pile of the games it played."""
    assert f"HOSTILE SPY {kind} ran" in log, f"the {kind} spy did not run:\n{log[-2000:]}"
    assert f"HOSTILE SPY {kind} done: 0 finding(s)" in log, log[-4000:]
    found = [line for line in log.splitlines() if line.startswith("HOSTILE FOUND")]
    assert not found, "the spy found what it must not see:\n" + "\n".join(found[:20])
    for record in records_seen:
        for color, pile in piles(record).items():
            assert pile not in log, f"the spy wrote the pile of {color}"
            assert ",".join(record["deal"][color][:5]) not in log, f"the spy wrote the first rack of {color}"


def play(specs, seed: int, logs: Path, time_limit: float = 1.0, **kwargs):
    logs.mkdir(exist_ok=True)
    return play_game(specs, seed, time=time_limit, logs=logs, **kwargs)


# -- tournaments ----------------------------------------------------------------------------

TOURNAMENT = "hostile-suite"
#: The deal key of every tournament here (a results folder's own, in a real run).
DEAL_KEY = "0f" * 32
#: The three entrants beside the offender.
OTHERS = [{"name": "greedy", "bot": "greedy"}, {"name": "rnd", "bot": "random"}, {"name": "greedy2", "bot": "greedy"}]
TWIN = {"name": "hostile", "bot": f"{HOSTILE}:HarmlessBot"}

RUNNER = """
import sys
from pathlib import Path
from arena.plan.config import load_config
from arena.tournament.run.runner import run_tournament
path, out, workers = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
run_tournament(load_config(path), path.read_text(), out, workers=workers, hide=(str(path),))
"""


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(toml_value, value)) + "]"
    return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"


def write_tournament(folder: Path, entrants: list[dict], *, isolation: str = "process", time_limit: float = 1.0,
                     deals: int = 1, rotate: bool = True, seed: int = 1207, duplicate: bool = False) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    # One deal key for every run: a tournament and its twin are dealt the same games.
    lines = [f'name = "{TOURNAMENT}"', "players = 3", f"deals = {deals}", f"seed = {seed}", f'deal_key = "{DEAL_KEY}"',
             f"duplicate = {toml_value(duplicate)}",
             f"time_limit = {time_limit}", f"rotate = {toml_value(rotate)}", f'isolation = "{isolation}"']
    for entrant in entrants:
        lines.append("[[entrants]]")
        lines += [f"{key} = {toml_value(value)}" for key, value in entrant.items()]
    path = folder / "tournament.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def run(folder: Path, offender: dict | list[dict], *, workers: int = 1, in_subprocess: bool = False,
        **settings) -> Path:
    """Play the tournament of ``offender`` (one entrant or several) and :data:`OTHERS`; returns its results
    folder.  ``in_subprocess``: run it in a process of its own (for tricks that, if not contained, would
    kill the process that runs the tournament)."""
    offenders = offender if isinstance(offender, list) else [offender]
    path = write_tournament(folder, offenders + OTHERS, **settings)
    out = folder / "results"
    if in_subprocess:
        done = subprocess.run([sys.executable, "-c", RUNNER, str(path), str(out), str(workers)], cwd=ROOT,
                              capture_output=True, text=True, timeout=180, check=False)
        assert done.returncode == 0, f"the run did not finish (status {done.returncode}):\n{done.stderr[-3000:]}"
    else:
        run_tournament(load_config(path), path.read_text(), out, workers=workers, hide=(str(path),))
    return out


def records_by_id(out: Path) -> dict[str, str]:
    lines = (out / "records.jsonl").read_text().splitlines()
    by_id = {json.loads(line)["game_id"]: line for line in lines}
    assert len(by_id) == len(lines), "a game was stored twice"
    return by_id


def hostile_seats(record: dict) -> set[int]:
    return {p["seat"] for p in record["players"] if p["name"].startswith("hostile")}


def check_tournament(out: Path, kinds: set[str] | None, message: str = "") -> dict[str, dict]:
    """Every game was stored once and replays; only the hostile entrants were faulted, once a game each,
    with a kind of ``kinds`` (None: never)."""
    config = load_config(out.parent / "tournament.toml")
    games = {game_id: json.loads(line) for game_id, line in records_by_id(out).items()}
    assert len(games) == count_games(config)
    for game_id, record in games.items():
        try:
            check_faults(record["faults"], hostile_seats(record), kinds, message)
        except AssertionError as exc:
            raise AssertionError(f"{game_id}: {exc}") from None
        records.replay(record)
    with open(out / "games.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 3 * len(games)
    innocent = [r for r in rows if not r["entrant"].startswith("hostile") and r["faulted"] != "0"]
    assert not innocent, f"games.csv shows innocent entrants faulted: {innocent}"
    return games


def same_games_without_the_offender(out: Path, baseline: dict[str, str]) -> None:
    """The games of the table without the offender are byte-identical to the baseline's."""
    found = records_by_id(out)
    assert set(found) == set(baseline)
    clean = [gid for gid, line in baseline.items() if not hostile_seats(json.loads(line))]
    assert clean, "no table without the offender"
    for game_id in clean:
        assert found[game_id] == baseline[game_id], f"{game_id}, a game without the offender, changed"


def without_the_offenders_spec(line: str) -> dict:
    record = json.loads(line)
    seats = hostile_seats(record)
    record["bots"] = [b if b["seat"] not in seats else {"seat": b["seat"]} for b in record["bots"]]
    return record


def same_games_as_the_twin(out: Path, baseline: dict[str, str]) -> None:
    """Every game is the twin's game, move for move: the trick changed nothing, not even at its own tables."""
    found = records_by_id(out)
    for game_id, line in baseline.items():
        assert without_the_offenders_spec(found[game_id]) == without_the_offenders_spec(line), game_id


@pytest.fixture(scope="module")
def baseline(tmp_path_factory) -> dict[str, str]:
    """The tournament with the harmless twin as ``hostile``: its records by game id."""
    return records_by_id(run(tmp_path_factory.mktemp("baseline"), TWIN))


# == hidden information ======================================================================


SPIES = [("GcSpyBot", "gc"), ("FrameSpyBot", "frames"), ("GlobalsSpyBot", "globals")]


@pytest.mark.parametrize("name, kind", SPIES, ids=["gc_get_objects", "frame_walking", "module_globals"])
@pytest.mark.slow
def test_spy_finds_no_hidden_tile(tmp_path, name, kind):
    outcomes = [play([hostile(name), "greedy", "random"], seed, tmp_path / "logs") for seed in (31, 32)]
    for outcome in outcomes:
        check_game(outcome, 0, None)
    log = logs_of(tmp_path / "logs")
    check_spy(log, kind, [o.record for o in outcomes])
    looked = [int(line.split("looked at ")[1].split()[0]) for line in log.splitlines() if "looked at" in line]
    assert looked and min(looked) > 100, "the spy hardly looked"


@pytest.mark.slow
def test_gc_spy_sees_what_the_bot_host_froze(tmp_path):
    outcome = play([hostile("GcSpyBot"), "random", "random"], 5, tmp_path / "logs")
    check_game(outcome, 0, None)
    log = logs_of(tmp_path / "logs")
    tracked = int(log.split("SPY gc ran: ")[1].split()[0])
    assert tracked > 5000, "gc.unfreeze() should have shown the spy everything the host made"
    check_spy(log, "gc", [outcome.record])


@pytest.mark.slow
def test_frame_walking_spy_reaches_no_frame_of_the_referee(tmp_path):
    outcome = play([hostile("FrameSpyBot"), "random", "greedy"], 8, tmp_path / "logs")
    check_game(outcome, 0, None)
    chain = next(line for line in logs_of(tmp_path / "logs").splitlines() if "SPY frames ran" in line)
    assert "bothost.py:turn" in chain  # it did walk up through its host
    assert "referee.py" not in chain and "tournament" not in chain


@pytest.mark.slow
def test_module_globals_spy_finds_no_deal_in_arena_referee(tmp_path):
    outcome = play([hostile("GlobalsSpyBot"), "random", "greedy"], 9, tmp_path / "logs")
    check_game(outcome, 0, None)
    assert "arena.play.referee._deals holds 0 deal(s)" in logs_of(tmp_path / "logs")


@pytest.mark.slow
def test_proc_spy_reads_no_other_process(tmp_path):
    # The referee is this process: the spy is told its pid, and its parent's is the one it would try.
    outcome = play([hostile("ProcSpyBot", target=os.getpid()), "greedy", "random"], 12, tmp_path / "logs")
    check_game(outcome, 0, None)
    log = logs_of(tmp_path / "logs")
    assert "HOSTILE SPY proc ran" in log
    own = int(log.split("its own memory through /proc/self/mem: ")[1].split()[0])
    assert own > 0, "the spy's way of reading memory does not even work on itself"
    found = [line for line in log.splitlines() if line.startswith("HOSTILE FOUND")]
    memory = [line for line in found if "memory" in line or "environ" in line]
    assert not memory, "\n".join(memory)
    if WALLS != "jail":
        pytest.skip(f"other processes are visible under the {WALLS!r} walls (documented); their memory is not")
    assert not found, "\n".join(found)
    check_spy(log, "proc", [outcome.record])


@pytest.fixture(scope="module")
def file_spy_run(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("filespy")
    out = folder / "results"
    spy = {"name": "hostile", "bot": f"{HOSTILE}:FileSpyBot",
           "options": {"results": str(out), "toml": str(folder / "tournament.toml")}}
    return run(folder, spy, deals=2, rotate=False)


@pytest.mark.slow
def test_results_file_spy_reads_nothing_of_the_tournament_being_written(file_spy_run):
    out = file_spy_run
    games = check_tournament(out, None)
    log = (out / "bots" / "hostile.log").read_text()
    assert log.count("HOSTILE SPY files ran") == sum(1 for r in games.values() if hostile_seats(r))
    # By the later games the results folder holds records, rows and logs: none of them readable.
    check_spy(log, "files", list(games.values()))
    assert f"SPY files: {out}/records.jsonl:" in log and "SPY files: " + str(out.parent / "tournament.toml") in log


@pytest.mark.parametrize("name, kind", SPIES, ids=["gc_get_objects", "frame_walking", "module_globals"])
@pytest.mark.slow
def test_none_isolation_spy_does_find_the_piles(capfd, name, kind):
    """Documents the warning of docs/how-to/isolation.md (isolation ``none`` is for trusted code): in process, the same spies
    read every pile.  So the spies above are not blind: it is the walls that leave them nothing to see."""
    import arena.play.referee

    arena.play.referee._deals.clear()  # the deals of earlier tests' games would fill the spy's report first
    outcome = play_game([hostile(name), "greedy", "random"], 21, time=30.0, isolation="none")
    check_game(outcome, 0, None)
    err = capfd.readouterr().err
    assert f"HOSTILE SPY {kind} ran" in err and "HOSTILE FOUND" in err
    own = outcome.record["players"][0]["colors"][0]
    others = [pile for color, pile in piles(outcome.record).items() if color != own]
    assert all(pile in err for pile in others), "the in-process spy should have written every opponent's pile"


# == changing the game =========================================================================

#: (bot, options, the fault its own games get).
CHANGERS = {
    "settings_setattr": ("SettingsBot", {}, None),
    "monkeypatch_rules_and_other_bots": ("MonkeypatchBot", {}, None),
    "settrace": ("TraceBot", {}, None),
    "async_exceptions": ("AsyncRaiseBot", {}, {"exception", "crash"}),
    "setitimer_and_signal_handlers": ("TimerBot", {}, None),
}


@pytest.mark.parametrize("trick", list(CHANGERS))
@pytest.mark.slow
def test_changing_the_game_changes_no_other_game(tmp_path, baseline, trick):
    name, options, kinds = CHANGERS[trick]
    entrant = {"name": "hostile", "bot": f"{HOSTILE}:{name}", **({"options": options} if options else {})}
    out = run(tmp_path, entrant)
    check_tournament(out, kinds)
    same_games_without_the_offender(out, baseline)
    if kinds is None:  # it played like its twin: so every game, its own tables' included, is the twin's
        same_games_as_the_twin(out, baseline)
    log = (out / "bots" / "hostile.log").read_text()
    assert "HOSTILE" in log, "the trick did not run"
    assert "HOSTILE FOUND" not in log


@pytest.mark.parametrize("trick", list(CHANGERS))
@pytest.mark.slow
def test_a_referee_plays_the_same_game_after_one_with_the_trick(tmp_path, trick):
    name, options, kinds = CHANGERS[trick]
    clean = ["greedy", "random", "greedy"]
    with Referee(1.0, logs=tmp_path) as referee:
        first = referee.play([hostile(name, **options), "greedy", "random"], 40)
        again = referee.play([BotSpec("greedy"), "random", "greedy"], 41)
        also = referee.play(["random", hostile(name, **options), "greedy"], 42)
        after = referee.play(clean, 43)
    referee.close()
    check_game(first, 0, kinds)
    check_game(also, 1, kinds)
    assert again.faults == [] and after.faults == []
    assert again.record_line() == play_game(clean, 41, time=1.0).record_line()
    assert after.record_line() == play_game(clean, 43, time=1.0).record_line()


@pytest.mark.slow
def test_none_isolation_settings_copies_keep_every_game_the_same(tmp_path, baseline):
    out = run(tmp_path, {"name": "hostile", "bot": f"{HOSTILE}:SettingsBot"}, isolation="none")
    check_tournament(out, None)
    same_games_without_the_offender(out, baseline)
    same_games_as_the_twin(out, baseline)  # isolation never changes a game


@pytest.mark.slow
def test_none_isolation_settings_copies_keep_the_next_games_the_same():
    clean = ["greedy", "random", "greedy"]
    with Referee(1.0, isolation="none") as referee:
        changed = referee.play([hostile("SettingsBot"), "greedy", "random"], 50)
        after = referee.play(clean, 51)
    referee.close()
    assert changed.faults == [] and after.faults == []
    assert changed.state.settings == GameSettings.for_players(3)
    assert after.record_line() == play_game(clean, 51, time=1.0).record_line()
    twin = play_game([f"{HOSTILE}:HarmlessBot", "greedy", "random"], 50, time=1.0, isolation="none")
    assert changed.record["moves"] == twin.record["moves"] and changed.result == twin.result


# == stopping the run ==========================================================================


#: Two hosts answering one seat: the referee reads two answers to a turn (protocol), or one late, in place
#: of the next turn's (illegal, or protocol when it comes with the next); should the two split a turn's
#: line between them, they crash or never answer.
FORKED = {"protocol", "illegal", "crash", "timeout"}


@pytest.mark.slow
def test_fork(tmp_path):
    outcome = play([hostile("ForkBot"), "greedy", "random"], 3, tmp_path / "logs")
    check_game(outcome, 0, FORKED)
    assert "HOSTILE forked: the child" in logs_of(tmp_path / "logs")


@pytest.mark.slow
def test_kill_parent(tmp_path):
    """PID 1 of its namespace has no parent there (getppid() is 0: its own process group).  Under a uid
    of its own the signal reaches nothing but itself, which as PID 1 the kernel spares, and the bot plays
    on; as root without capabilities it reaches the sandbox's outer process, and the bot dies with it, at
    the turn of its trick (its second, move 3) or its next.  The outer process copies the bot's standard
    error to its log: the line the bot wrote just before the kill may go with it."""
    outcome = play([hostile("KillParentBot"), "greedy", "random"], 3, tmp_path / "logs")
    log = logs_of(tmp_path / "logs")
    if outcome.faults:
        fault = check_game(outcome, 0, {"crash"}, "killed by signal 9")
        assert fault is not None and fault["move"] in (3, 6), fault
    else:
        check_game(outcome, 0, None)
        assert "HOSTILE killing its parent" in log and "HOSTILE its parent is still there" in log


@jail_only
@pytest.mark.slow
def test_kill_init(tmp_path):
    outcome = play([hostile("KillInitBot"), "greedy", "random"], 3, tmp_path / "logs")
    log = logs_of(tmp_path / "logs")
    assert "HOSTILE sent SIGKILL to process 1" in log, log
    # Process 1 of its namespace is the bot itself: the kernel drops the signals, the bot plays on.
    check_game(outcome, 0, None)
    os.kill(1, 0)  # and this machine's init is still there


@pytest.mark.slow
def test_closing_all_inherited_descriptors_and_stdin_stdout(tmp_path):
    outcome = play([hostile("CloseFdsBot"), "greedy", "random"], 3, tmp_path / "logs")
    check_game(outcome, 0, {"crash"})
    assert "HOSTILE closed every descriptor" in logs_of(tmp_path / "logs")


@pytest.mark.slow
def test_swallowing_the_timeout(tmp_path):
    start = time.perf_counter()
    outcome = play([hostile("StubbornBot"), "greedy", "random"], 3, tmp_path / "logs", time_limit=0.5)
    check_game(outcome, 0, {"timeout"}, "no move within the time limit of 0.5 s")
    assert outcome.seconds[0] < 0.5 + 2
    assert time.perf_counter() - start < 15


@pytest.mark.slow
def test_stopping_the_timer_and_taking_the_signals(tmp_path):
    outcome = play([hostile("TimerBot", then="loop"), "greedy", "random"], 3, tmp_path / "logs", time_limit=0.5)
    check_game(outcome, 0, {"timeout"})
    assert outcome.seconds[0] < 0.5 + 2
    assert "HOSTILE stopped the timers" in logs_of(tmp_path / "logs")


@pytest.mark.slow
def test_blocking_in_c(tmp_path):
    outcome = play([hostile("CSleepBot"), "greedy", "random"], 3, tmp_path / "logs", time_limit=0.5)
    check_game(outcome, 0, {"timeout"})
    assert outcome.seconds[0] < 0.5 + 2


@pytest.mark.slow
def test_fork_bomb_within_the_process_limit(tmp_path):
    # The bomb must reach the process limit within its turn, on a loaded machine too.
    outcome = play([hostile("ForkBombBot"), "greedy", "random"], 3, tmp_path / "logs", time_limit=2.0)
    check_game(outcome, 0, {"timeout"})
    assert "HOSTILE fork refused after" in logs_of(tmp_path / "logs")
    assert not leftovers(b"ForkBombBot")


def watch_for(marker: str, seen: list[int]):
    """An on_move that notes the moves after which a process with ``marker`` in its command line lives
    (a bot's own jail, whose command line holds the options given to the bot, does not count)."""
    def on_move(state, move):
        if [found for found in processes_with(marker.encode()) if "arena/isolation/jail.py" not in found[1]]:
            seen.append(len(state.history))
    return on_move


@jail_only
@pytest.mark.parametrize("then", ["play", "exit"])
@pytest.mark.parametrize("as_program", [False, True], ids=["bot", "program"])
@pytest.mark.slow
def test_children_left_behind_after_setsid_and_a_double_fork(tmp_path, then, as_program):
    """A Python bot (exit code 5) or a protocol program (exit code 6) leaves a detached child behind."""
    marker = f"hostile-orphan-{uuid.uuid4().hex}"
    seen: list[int] = []
    offender = program("orphans", marker, then) if as_program else hostile("OrphanBot", marker=marker, then=then)
    outcome = play([offender, "greedy", "random"], 3, tmp_path / "logs", on_move=watch_for(marker, seen))
    assert f"left a child behind: {marker}" in logs_of(tmp_path / "logs"), "the trick did not run"
    if then == "exit":
        # Killed with the bot at its fault, before the move that replaced its answer was played.
        check_game(outcome, 0, {"crash"}, "exit code 6" if as_program else "exit code 5")
        assert not seen, f"the child outlived the bot's fault (alive after moves {seen})"
    else:
        assert seen, "no child was left behind: the trick did not work"
        check_game(outcome, 0, None)
    assert not leftovers(marker.encode()), "the bot's child outlived the run"


@pytest.fixture(scope="module")
def memory_run(tmp_path_factory) -> Path:
    hogs = [
        {"name": "hostile", "bot": f"{HOSTILE}:MemoryBot", "memory_mb": 256, "options": {"mb": 1024}},
        {"name": "hostile-program", "command": program_command("memory", "1024"), "memory_mb": 256},
    ]
    return run(tmp_path_factory.mktemp("memory"), hogs, time_limit=2.0, rotate=False)


@pytest.mark.parametrize("who", ["python_bot", "program"])
@pytest.mark.slow
def test_memory_until_the_oom_killer(memory_run, who):
    name = {"python_bot": "hostile", "program": "hostile-program"}[who]
    if WALLS == "jail":
        games = check_tournament(memory_run, {"crash"}, "memory limit of 256 MiB")
    else:  # the data limit (no memory cgroup): the bot sees a MemoryError
        games = check_tournament(memory_run, {"crash", "exception"}, "MemoryError")
    assert sum(1 for r in games.values() for p in r["players"] if p["name"] == name) == 6  # 6 of the 10 tables
    log = (memory_run / "bots" / f"{name}.log").read_text()
    assert "HOSTILE holding" in log and "got all" not in log


@pytest.mark.slow
@jail_only
def test_a_bot_killed_by_the_oom_killer_is_reported_in_its_own_words(memory_run):
    """The fault's last words are the bot's; the jail itself writes nothing (it passes on the SIGKILL)."""
    games = check_tournament(memory_run, {"crash"}, "memory limit")
    for record in games.values():
        for fault in record["faults"]:
            assert "HOSTILE holding" in fault["message"], fault["message"]
    for log in (memory_run / "bots").glob("hostile*.log"):
        assert "jail.py" not in log.read_text(), f"the jail crashed in {log.name}:\n{log.read_text()[-1500:]}"


# == running code outside the bot ================================================================


EVIL = [("move", {"invalid"}), ("ints", {"invalid"}), ("subclass", {"invalid"}), ("pickle", {"protocol"})]


@pytest.mark.parametrize("then, kinds", EVIL, ids=[
    "move_holding_an_object_with_reduce", "move_of_int_subclasses", "move_subclass_with_reduce",
    "pickle_written_on_the_protocol"])
@pytest.mark.slow
def test_values_that_would_run_code_outside_the_bot(tmp_path, then, kinds):
    evil = tmp_path / "evil-code-ran"
    outcome = play([hostile("EvilValueBot", then=then, path=str(evil)), "greedy", "random"], 3, tmp_path / "logs")
    check_game(outcome, 0, kinds)
    time.sleep(0.1)
    assert not evil.exists(), evil.read_text()


# == programs ===================================================================================


@pytest.mark.parametrize("mode", ["line", "endless"])
@pytest.mark.slow
def test_program_oversized_line(tmp_path, mode):
    outcome = play([program("oversized", mode), "greedy", "random"], 3, tmp_path / "logs")
    check_game(outcome, 0, {"protocol"}, "longer than 1048576 bytes")


GARBAGE = {
    "text": {"protocol"}, "blank": {"protocol"}, "array": {"protocol"}, "nested": {"protocol"},
    "utf8": {"protocol"}, "nan": {"protocol"}, "bigint": {"protocol"}, "notype": {"protocol"},
    "wrongtype": {"protocol"}, "badmove": {"protocol"}, "nul": {"protocol"}, "othercolor": {"illegal"},
    "partial": {"timeout"}, "closed": {"crash", "timeout"},
}


@pytest.mark.parametrize("mode", list(GARBAGE))
@pytest.mark.slow
def test_program_garbage_line(tmp_path, mode):
    outcome = play([program("garbage", mode), "greedy", "random"], 3, tmp_path / "logs", time_limit=0.5)
    fault = check_game(outcome, 0, GARBAGE[mode])
    assert fault["move"] == 3  # its second turn


@pytest.mark.parametrize("mode, kinds", [("together", {"protocol"}), ("later", {"protocol", "illegal"})])
@pytest.mark.slow
def test_program_second_answer(tmp_path, mode, kinds):
    outcome = play([program("second_answer", mode), "greedy", "random"], 3, tmp_path / "logs")
    check_game(outcome, 0, kinds)


def test_program_answering_another_protocol_version_in_hello_is_refused_before_any_game(tmp_path):
    with pytest.raises(BotError, match='speaks protocol "uptown-bot/2", not uptown-bot/1'):
        play([program("wrong_version"), "greedy", "random"], 3, tmp_path / "logs")
    path = write_tournament(tmp_path, [{"name": "hostile", "command": program_command("wrong_version")}] + OTHERS)
    with pytest.raises(ConfigError, match=r"entrants\[0\]\.command: .*speaks protocol \"uptown-bot/2\""):
        check_bots(load_config(path), str(path))


def test_program_never_answering_hello(tmp_path, monkeypatch):
    monkeypatch.setattr(botprocess, "STARTUP_SECONDS", 1.0)
    start = time.perf_counter()
    with pytest.raises(BotError, match="no answer to hello within 1.5 s"):
        play([program("silent"), "greedy", "random"], 3, tmp_path / "logs", time_limit=0.5)
    assert time.perf_counter() - start < 10
    with pytest.raises(BotError, match="ended before answering hello: exit code 4; its last words: HOSTILE going"):
        play([program("silent", "exit"), "greedy", "random"], 3, tmp_path / "logs", time_limit=0.5)


@pytest.mark.slow
def test_program_exiting_mid_game_with_last_words_on_stderr(tmp_path):
    words = f"farewell-{uuid.uuid4().hex[:8]}"
    outcome = play([program("exit_mid_game", words), "greedy", "random"], 3, tmp_path / "logs")
    fault = check_game(outcome, 0, {"crash"}, "exit code 3")
    assert f"last words: {words}" in fault["message"]
    assert fault["move"] == 6  # its third turn


@pytest.mark.slow
def test_program_fork_bomb(tmp_path):
    outcome = play([program("fork_bomb"), "greedy", "random"], 3, tmp_path / "logs", time_limit=0.5)
    check_game(outcome, 0, {"timeout"})
    assert "HOSTILE fork refused after" in logs_of(tmp_path / "logs")


@pytest.mark.parametrize("then", ["stall", "play"])
@pytest.mark.slow
def test_program_ignoring_sigterm_and_quit(tmp_path, then):
    start = time.perf_counter()
    outcome = play([program("ignore_sigterm", then), "greedy", "random"], 3, tmp_path / "logs", time_limit=0.5)
    if then == "stall":
        check_game(outcome, 0, {"timeout"})
    else:  # it plays the whole game; then it is told to quit, stays, and is killed
        check_game(outcome, 0, None)
        assert "told to quit: staying" in logs_of(tmp_path / "logs")
    assert time.perf_counter() - start < 10
    assert not leftovers(b"ignore_sigterm.py", wait=1.0)


# == isolation none: what it promises ==============================================================


@pytest.mark.slow
def test_none_isolation_fork_is_played_again_isolated(tmp_path, baseline):
    out = run(tmp_path, {"name": "hostile", "bot": f"{HOSTILE}:ForkBot"}, isolation="none", in_subprocess=True)
    games = check_tournament(out, FORKED)
    same_games_without_the_offender(out, baseline)
    log = (out / "arena.log").read_text()
    again = sum(1 for r in games.values() if hostile_seats(r))
    assert log.count("a bot called os.fork in process") == again


@pytest.mark.slow
def test_none_isolation_kill_parent_is_played_again_isolated(tmp_path, baseline):
    out = run(tmp_path, {"name": "hostile", "bot": f"{HOSTILE}:KillParentBot"}, isolation="none",
              in_subprocess=True)
    try:
        games = check_tournament(out, {"crash"})
    except AssertionError:
        games = check_tournament(out, None)  # played again isolated, where the signal reaches nothing
    same_games_without_the_offender(out, baseline)
    again = sum(1 for r in games.values() if hostile_seats(r))
    assert (out / "arena.log").read_text().count("a bot called os.kill in process") == again


@pytest.mark.slow
def test_none_isolation_closing_the_workers_descriptors_is_played_again_isolated(tmp_path, baseline):
    out = run(tmp_path, {"name": "hostile", "bot": f"{HOSTILE}:CloseFdsBot"}, isolation="none",
              in_subprocess=True)
    check_tournament(out, {"crash"})
    same_games_without_the_offender(out, baseline)
    assert "playing it again with every bot in a process of its own" in (out / "arena.log").read_text()


# == the weaker walls ================================================================================


@pytest.mark.slow
def test_kill_parent_under_the_rlimits_walls_stops_the_run_in_one_line_and_keeps_what_is_stored(tmp_path):
    """``ARENA_SANDBOX=rlimits`` (no namespaces to be had): a bot runs as the referee's user and can signal
    it, as docs/tutorials/first-tournament.md says.  Its worker dies, and so does the one that plays its game again isolated; the
    run then stops with one line naming that game, every game stored so far is kept and valid, and the
    run can be resumed.  What it can never do is leave wrong results."""
    path = write_tournament(tmp_path, [{"name": "hostile", "bot": f"{HOSTILE}:KillParentBot"}] + OTHERS)
    out = tmp_path / "results"
    done = subprocess.run([sys.executable, "-m", "arena", "run", str(path), "--out", str(out), "--workers", "1",
                           "-q", "--no-compress"], cwd=ROOT, capture_output=True, text=True, timeout=180, check=False,
                          env={**os.environ, "ARENA_SANDBOX": "rlimits"})
    if done.returncode == 0:
        # The machine's walls kept the worker out of reach after all.  As root, the bot runs as a uid of its
        # own, so the kill is refused and the bot's own PermissionError is its fault; otherwise its parent is
        # the process that holds its sandbox, not the worker, and the bot ends with it.
        if os.geteuid() == 0:
            check_tournament(out, {"exception"}, "PermissionError")
        else:
            check_tournament(out, {"crash"})
        return
    (line,) = done.stderr.strip().splitlines()
    if "cannot be read by others" in line:
        # As root, a bot at this level runs as a uid of its own (so it cannot signal the referee), and a
        # Python that others may not read is refused in one line, before any game.
        assert os.geteuid() == 0 and not (out / "records.jsonl").exists()
        pytest.skip(f"as root the rlimits level runs bots as a uid of their own, and refused this Python: {line}")
    assert "stops its worker even with every bot in a process of its own" in line, line
    assert "games stored so far are kept" in line
    for record_line in (out / "records.jsonl").read_text().splitlines():
        record = json.loads(record_line)
        records.replay(record)
        assert not hostile_seats(record), "a game with the offender was stored"
