"""Judge-grade containment: every route of issue 20, tried as a hostile entrant would.

The attackers are protocol programs in ``tests/fixtures/hostile_programs/`` (standard library only,
started as ``exec:python3 PROGRAM``) and, where the trick applies to one, Python bots at the end of
``tests/fixtures/hostile_bots.py``; each writes what it did and found to its log as ``HOSTILE ...``
lines, which the tests read.  For every route: the run finishes, the offender alone is faulted (with
the kind due: ``timeout`` for a bot that stops draining its input, ``protocol`` for a flood of
options), the games of a tournament that the offender is not in are byte-identical to the same
tournament with harmless twins (:class:`HarmlessBot`, same entrant names) in its place, nothing it
wrote outlives it, and no channel carries a bit.  Runs that would hang on a referee that blocks are
played in a process of their own with a deadline, so such a referee fails the test instead of
hanging it; an autouse fixture (as in ``test_hostile.py``) checks that no process outlives a test.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import math
import os
import platform
import re
import shutil
import signal
import stat
import subprocess
import sys
import uuid
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import pytest
from test_hostile import (
    HOSTILE,
    OTHERS,
    PROGRAMS,
    RUNNER,
    check_faults,
    check_game,
    check_tournament,
    finished_normally,
    hostile,
    jail_only,
    logs_of,
    play,
    program,
    program_command,
    records_by_id,
    same_games_as_the_twin,
    same_games_without_the_offender,
    write_tournament,
)

import arena
from arena import records
from arena.isolation import sandbox
from arena.plugins import BotError
from arena.records import replayer
from arena.rules import GameState
from arena.rules import engine as native
from arena.rules.tiles import COLORS, N_TILES, TILE_NAMES
from tests.processes import leftovers, processes_with

ROOT = Path(__file__).parents[2]
#: The two offenders of a tournament: a Python bot and a protocol program.
PAIR = ("hostile", "hostile-program")
#: How long a run may take before the test calls the referee stuck (a fixed referee needs a few seconds).
STUCK = 40


#: What marks a process as one of these tests' bots (looked for among this test process's own and the orphans).
MARKS = (str(HOSTILE).encode(), str(PROGRAMS).encode(), b"hostile_bots_copy.py", b"/entrant/snoop.py")


@pytest.fixture(autouse=True)
def no_process_outlives_the_test():
    yield
    found = leftovers(*MARKS)
    for pid, _ in found:  # do not let them spoil the next tests
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    assert not found, f"processes outlived the run: {found}"


def finish(command: list[str], cwd: Path, timeout: float, what: str,
           detail: Callable[[], str] = lambda: "") -> subprocess.CompletedProcess:
    """Run ``command`` in a session of its own; one that has not ended within ``timeout`` seconds is
    killed with everything it started (its workers, their bots) and fails the test: the referee is stuck."""
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail(f"{what} did not end within {timeout:g} s: the referee is stuck on a bot{detail()}")
    return subprocess.CompletedProcess(command, process.returncode, out, err)


def tournament(folder: Path, entrants: list[dict], *, timeout: float = STUCK, **settings) -> Path:
    """Run the tournament of ``entrants`` and :data:`OTHERS` in a process of its own; its results folder.
    A run that does not end within ``timeout`` seconds fails the test (a referee that blocks on a bot)."""
    path = write_tournament(folder, entrants + OTHERS, **settings)
    out = folder / "results"
    records_path = out / "records.jsonl"
    done = finish([sys.executable, "-c", RUNNER, str(path), str(out), "1"], ROOT, timeout, "the tournament",
                  lambda: f" ({len(records_path.read_text().splitlines()) if records_path.exists() else 0} game(s) "
                          "stored)")
    assert done.returncode == 0, f"the run did not finish (status {done.returncode}):\n{done.stderr[-3000:]}"
    return out


@pytest.fixture(scope="module")
def twins(tmp_path_factory):
    """``twins(names, **settings)``: the results folder of the tournament with a harmless twin under each of
    ``names`` (made once per names and settings)."""
    made: dict = {}

    def baseline(names: tuple[str, ...] = PAIR, **settings) -> Path:
        key = (names, tuple(sorted(settings.items())))
        if key not in made:
            entrants = [{"name": name, "bot": f"{HOSTILE}:HarmlessBot"} for name in names]
            made[key] = tournament(tmp_path_factory.mktemp("twins"), entrants, **settings)
        return made[key]

    return baseline


def arena_command(*args: str) -> list[str]:
    """The ``arena`` command as a user runs it: its console script (whose folder, not the working one,
    starts the import path), else ``python -P -m arena``."""
    script = Path(sys.executable).with_name("arena")
    return [str(script), *args] if script.exists() else [sys.executable, "-P", "-m", "arena", *args]


def arena_cli(cwd: Path, *args: str, timeout: float = STUCK / 2) -> subprocess.CompletedProcess:
    return finish(arena_command(*args), cwd, timeout, f"arena {args[0]}")


def hostile_lines(log: str, start: str) -> list[str]:
    return [line for line in log.splitlines() if line.startswith("HOSTILE " + start)]


# == 1. a bot that never drains its input ==========================================================


UNDRAINED = {"program": lambda: program("undrained"), "bot": lambda: f"{HOSTILE}:UndrainedBot"}


@pytest.mark.parametrize("who", list(UNDRAINED))
@pytest.mark.slow
def test_a_bot_that_never_drains_its_input_is_faulted_timeout(tmp_path, who):
    """It shrinks its stdin pipe to 4096 bytes and only peeks at it with tee(2) (answering the turns it sees
    there): the pipe fills, and the referee's write of the next turn must time out, not block for ever."""
    spec = UNDRAINED[who]()
    done = arena_cli(tmp_path, "play", spec, "greedy", "random", "--seed", "3", "--time-limit", "0.5",
                     "--record", "game.json", "--logs", "logs", "-q")
    assert done.returncode == 0, done.stderr[-2000:]
    record = json.loads((tmp_path / "game.json").read_text())
    check_faults(record["faults"], {0}, {"timeout"})
    records.replay(record)
    assert "stopped draining its input" in logs_of(tmp_path / "logs")


@pytest.mark.slow
def test_a_bot_that_stops_draining_from_its_second_game_voids_no_game(tmp_path, twins):
    """The variant that plays its first game of a process cleanly and stalls the referee from its second:
    every game is played and stored, each stall is one ``timeout`` fault of the offender, and the games
    it is not in are the twins'."""
    settings = {"deals": 2, "rotate": False, "time_limit": 0.5}
    offenders = [{"name": "hostile", "bot": f"{HOSTILE}:UndrainedBot", "options": {"from_game": 2}},
                 {"name": "hostile-program", "command": program_command("undrained", "2")}]
    out = tournament(tmp_path, offenders, **settings)
    games = {gid: json.loads(line) for gid, line in records_by_id(out).items()}
    timeouts = 0
    for game_id, record in games.items():
        seats = {p["seat"] for p in record["players"] if p["name"].startswith("hostile")}
        assert all(f["seat"] in seats for f in record["faults"]), f"{game_id}: an innocent seat was faulted"
        assert all(f["kind"] == "timeout" for f in record["faults"]), f"{game_id}: {record['faults']}"
        assert len(record["faults"]) <= len(seats), f"{game_id}: {record['faults']}"
        timeouts += len(record["faults"])
        records.replay(record)
    stalls = sum(len(hostile_lines((out / "bots" / f"{name}.log").read_text(), "stopped draining"))
                 for name in PAIR)
    assert stalls == timeouts, f"{stalls} stall(s) of the referee, {timeouts} timeout fault(s)"
    same_games_without_the_offender(out, records_by_id(twins(PAIR, **settings)))


# == 2. a bot that writes down the piles ===========================================================


#: Predictions made with fewer tiles than this left in the color's pile are not counted (see below).
PUBLIC_END = 5
PREDICTION = re.compile(r"HOSTILE predicted (rack|draws) (\w+) move (\d+) own (\w+) opening ([^:]+): (\S*)")


def state_at(record: dict, move: int) -> GameState:
    """The game of ``record`` before its move ``move``, replayed with the rules engine."""
    settings, _ = replayer._settings(record)
    state = GameState(settings, replayer._deals(record, settings))
    for index, entry in enumerate(record["moves"][:move]):
        replayer._play(state, index, entry)
    return state


def right_predictions(log: str, name: str, games: dict[str, dict]) -> tuple[int, int]:
    """How many of the predictions in ``log`` (of the entrant ``name``) were made, and how many were right,
    checked against the records of the games it played."""
    made = right = 0
    for line in log.splitlines():
        found = PREDICTION.match(line)
        if not found:
            continue
        made += 1
        kind, color, move, own, opening, tiles = found.groups()
        predicted = tiles.split(",") if tiles else []
        for record in games.values():
            mine = [p for p in record["players"] if p["name"] == name and own in p["colors"]]
            if not mine or record["deal"][own][:5] != opening.split(","):
                continue
            state = state_at(record, int(move))
            index = COLORS.index(color)
            if N_TILES - state.drawn[index] < PUBLIC_END:
                # Near the end of a pile its rack and draws are nearly public (every other tile of the
                # color has been played): a guess is right one time in a handful, and says nothing.
                made -= 1
                break
            if kind == "rack":
                truth = [TILE_NAMES[t] for t in state.racks[index]]
                right += sorted(truth) == sorted(predicted)
            else:
                drawn = state.drawn[index]
                right += bool(predicted) and record["deal"][color][drawn:drawn + len(predicted)] == predicted
            break
    return made, right


@pytest.mark.slow
def test_a_bot_that_writes_down_the_piles_never_sees_a_deal_twice(tmp_path, twins):
    """In the duplicate format every deal is played once per seating.  A memoriser (a class attribute and
    a file in its HOME; the program also /tmp, /dev/shm, /var/tmp) that saw a deal recognises it from the
    public play and predicts every rack and its own draws, unless no process of it sees a deal twice."""
    settings = {"deals": 1, "rotate": True, "duplicate": True}
    offenders = [{"name": "hostile", "bot": f"{HOSTILE}:MemoriserBot"},
                 {"name": "hostile-program", "command": program_command("memoriser")}]
    out = tournament(tmp_path, offenders, **settings)
    check_tournament(out, None)
    baseline = records_by_id(twins(PAIR, **settings))
    same_games_without_the_offender(out, baseline)
    same_games_as_the_twin(out, baseline)
    games = {gid: json.loads(line) for gid, line in records_by_id(out).items()}
    outcome = []
    for name in PAIR:
        log = (out / "bots" / f"{name}.log").read_text()
        played = sum(1 for r in games.values() if any(p["name"] == name for p in r["players"]))
        assert len(hostile_lines(log, "memoriser plays a game")) == played >= 6, "the memoriser did not play"
        outcome.append((name, *right_predictions(log, name, games)))
    right = [f"{name}: {r} of {m} predictions right" for name, m, r in outcome if r]
    assert not right, "a bot process saw a deal twice: " + "; ".join(right)


@pytest.mark.slow
@pytest.mark.parametrize("duplicate", [False, True])
def test_nothing_of_one_game_informs_another_whatever_the_medium(tmp_path, monkeypatch, duplicate):
    """The invariant, by design rather than wall by wall: a memoriser given a perfect memory (in process,
    a class attribute shared by every game of the run: the strongest medium the page cache, timing or
    any other could be) predicts nothing right, because no two games share a deal.  With
    ``duplicate = true`` (deals replayed in every seating, for trusted bots) the same memoriser predicts
    racks and draws: what the default takes away."""
    monkeypatch.setenv("HOME", str(tmp_path))  # in process it also keeps its memory in HOME: a fresh one
    path = write_tournament(tmp_path, [{"name": "hostile", "bot": f"{HOSTILE}:MemoriserBot"}, *OTHERS],
                            deals=2, isolation="none", duplicate=duplicate)
    out = tmp_path / "results"
    done = finish([sys.executable, "-c", RUNNER, str(path), str(out), "1"], ROOT, 120, "the tournament")
    assert done.returncode == 0, done.stderr[-3000:]
    games = {gid: json.loads(line) for gid, line in records_by_id(out).items()}
    log = (out / "bots" / "hostile.log").read_text()
    played = sum(1 for r in games.values() if any(p["name"] == "hostile" for p in r["players"]))
    assert len(hostile_lines(log, "memoriser plays a game")) == played >= 6, "the memoriser did not play"
    made, right = right_predictions(log, "hostile", games)
    if duplicate:
        assert right >= 10, f"the memoriser made {made} predictions, {right} right: the test shows no attack"
    else:
        assert len({r["seed"] for r in games.values()}) == len(games), "two games share a deal"
        assert right == 0, f"{right} of {made} predictions right: a game informed another"


# == 3. a colluding pair ===============================================================================


KEYCTL = {"aarch64": 219}.get(platform.machine(), 250)  # the keyctl system call (x86_64: 250)
#: The channels that carry text (a rack): one rack heard is one too many.
TEXT_CHANNELS = ("keys", "abstract-socket", "sysv-shm", "sysv-msg", "process-list")
COLLUDED = re.compile(r"HOSTILE (sent|recv) (?:(\S+) )?move (\d+) (bit|rack) (\S*)(?: rack (\S*))?")


def hear(log: str) -> tuple[list[tuple[int, str, str]], list[tuple[str, int, str, str]]]:
    """The sender's (move, bit, rack) and the receiver's (channel, move, "bit"/"rack", value) of one game."""
    sent, heard = [], []
    for line in log.splitlines():
        found = COLLUDED.match(line)
        if found and found[1] == "sent":
            sent.append((int(found[3]), found[5], found[6]))
        elif found:
            heard.append((found[2], int(found[3]), found[4], found[5]))
    return sorted(sent), heard


def forget_keys_and_ipc(nonce: str) -> list[str]:
    """Invalidate the kernel keys that name ``nonce`` and remove its System V objects; the keys found."""
    libc = ctypes.CDLL(None, use_errno=True)
    found = []
    try:
        lines = Path("/proc/keys").read_text().splitlines()
    except OSError:
        lines = []
    for line in lines:
        if nonce in line:
            found.append(line)
            libc.syscall(KEYCTL, 21, int(line.split()[0], 16))  # KEYCTL_INVALIDATE
    key = int(hashlib.sha256(nonce.encode()).hexdigest()[:7], 16)
    segment = libc.shmget(key, 0, 0)
    if segment >= 0:
        libc.shmctl(segment, 0, None)  # IPC_RMID
    queue = libc.msgget(key + 1, 0)
    if queue >= 0:
        libc.msgctl(queue, 0, None)
    return found


@pytest.mark.slow
@jail_only
def test_a_colluding_pair_hears_nothing(tmp_path):
    """A sender puts a bit of its rack (or the rack) into every channel on each of its turns; the receiver,
    which moves next, reads them all.  No channel may carry more than chance: for a channel that carries a
    level or a count, no more right bits than a guess that never looks (at most the commoner bit's count,
    plus 3 standard deviations); for one that carries text, not one rack."""
    nonce = uuid.uuid4().hex[:12]
    by_channel: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    bits: list[str] = []
    closed: set[str] = set()
    try:
        for seed in (5, 6):
            logs = tmp_path / f"logs-{seed}"
            outcome = play([program("collude", "send", nonce), program("collude", "recv", nonce), "greedy"], seed,
                           logs, time_limit=3.0)
            check_faults(outcome.faults, {0, 1}, None)
            assert finished_normally(outcome)
            sent, heard = hear(logs_of(logs))
            assert len(sent) >= 20, "the sender did not send"
            bits += [bit for _, bit, _ in sent]
            # The pair's logs are named after their program, collude.py (the second with a hash).
            closed |= {line.split(":")[0].split()[-1] for line in logs_of(logs, "collude").splitlines()
                       if line.startswith("HOSTILE closed ")}
            for channel, move, kind, value in heard:
                before = [s for s in sent if s[0] < move]
                if before:
                    truth = before[-1][1] if kind == "bit" else before[-1][2]
                    by_channel[channel][0] += value == truth
                    by_channel[channel][1] += 1
    finally:
        outlived = forget_keys_and_ipc(nonce)
    assert not leftovers(f"hostile-pair-{nonce}".encode()), "a process of the sender outlived the game"
    families = {"keys", "cgroup-pids", "cgroup-memory", "flock", "posix-lock", "inotify", "proc-stat-forks",
                "proc-loadavg-lastpid", "proc-meminfo-shmem", "file", "abstract-socket", "sysv-shm", "sysv-msg",
                "process-list", "cpu-contention"}
    tried = {channel.split(":")[0] for channel in by_channel} | {channel.split(":")[0] for channel in closed}
    assert families <= tried, f"the receiver did not try {sorted(families - tried)}"
    common = max(bits.count("0"), bits.count("1"))
    carried = []
    for channel, (right, heard) in sorted(by_channel.items()):
        if channel in TEXT_CHANNELS or channel.startswith("file:"):
            if right:
                carried.append(f"{channel}: {right} of {heard} racks")
        elif right > common * heard / len(bits) + 3 * math.sqrt(heard) / 2:
            carried.append(f"{channel}: {right} of {heard} bits right (a blind guess: about "
                           f"{common * heard // len(bits)})")
    if outlived:
        carried.append(f"kernel keys outlived the bots: {outlived}")
    assert not carried, "channels between two bots:\n" + "\n".join(carried)


# == 4 and 5. what a bot can read ==================================================================


def snoop_copies(folder: Path, mode: int) -> tuple[str, list[str]]:
    """Copies of the two snoops in ``folder`` (its files of ``mode``, the folder open to all when they are):
    the Python bot's ref and the program's command."""
    folder.mkdir(parents=True)
    for name in ("snoop.py", "_proto.py"):
        shutil.copy(PROGRAMS / name, folder / name)
    shutil.copy(HOSTILE, folder / "hostile_bots_copy.py")
    for path in folder.iterdir():
        path.chmod(mode)
    folder.chmod(0o755 if mode & 0o004 else 0o700)
    return f"{folder / 'hostile_bots_copy.py'}:SnoopBot", [sys.executable, str(folder / "snoop.py")]


def snoops(bot: str, command: list[str], bot_secrets: list[str], program_secrets: list[str]) -> list[dict]:
    return [{"name": "hostile", "bot": bot, "options": {"secrets": ";".join(bot_secrets)}},
            {"name": "hostile-program", "command": command, "env": {"HOSTILE_SECRETS": ";".join(program_secrets)}}]


def snoop_logs(out: Path) -> dict[str, str]:
    logs = {name: (out / "bots" / f"{name}.log").read_text() for name in PAIR}
    for name, log in logs.items():
        assert "HOSTILE snoop done" in log, f"the snoop {name} did not run:\n{log[-2000:]}"
    return logs


@pytest.mark.slow
def test_an_entrant_whose_file_is_closed_to_others_runs_and_never_as_root(tmp_path, twins):
    """Its file is mode 0700 (only the referee's user may read it): it must still run, never with the
    machine's root rights (under a referee run as root, as a uid of its own; otherwise as the referee's user,
    seen as uid 0 inside its user namespace), without a capability, and read neither /root, /etc/shadow,
    nor the results of this run or an earlier one (with its master seed)."""
    settings = {"deals": 1, "rotate": False}
    earlier = twins(PAIR, **settings)
    out = tmp_path / "results"
    secrets = [str(out), str(earlier), str(earlier / "records.jsonl")]
    bot, command = snoop_copies(tmp_path / "entrant", 0o700)
    entrants = snoops(bot, command, secrets, secrets)
    out = tournament(tmp_path, entrants, **settings)
    check_tournament(out, None)
    same_games_without_the_offender(out, records_by_id(earlier))
    same_games_as_the_twin(out, records_by_id(earlier))
    for name, log in snoop_logs(out).items():
        ran = hostile_lines(log, "snoop ran as")
        uids = {int(line.split(" uid ")[1].split()[0]) for line in ran}
        assert uids and (0 not in uids or os.geteuid() != 0), f"{name} ran as uid {sorted(uids)}"
        assert all(int(line.split("CapEff ")[1].split(",")[0], 16) == 0 for line in ran), ran
        found = [line[:300] for line in dict.fromkeys(hostile_lines(log, "FOUND"))
                 if any(word in line for word in ("/root", "/etc/shadow", str(out), str(earlier)))]
        assert not found, f"{name} read what only root may:\n" + "\n".join(found)


@pytest.mark.slow
def test_a_bot_sees_no_other_entrant_no_results_and_no_machine(tmp_path, twins):
    """From a folder of its own, each snoop tries another entrant's program (the other snoop's file, and a
    program in a folder beside its own), /work, /home, /tmp, /root, the tournament file, the results being
    written, and /proc/self/mountinfo (which must name nothing hidden)."""
    settings = {"deals": 1, "rotate": False}
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(PROGRAMS / "orphans.py", other / "secret_bot.py")
    _, command = snoop_copies(tmp_path / "entrant", 0o644)  # the program from a folder of its own
    secrets = [str(tmp_path / "results"), str(tmp_path / "tournament.toml"), str(other / "secret_bot.py")]
    # The Python bot (from the checkout) tries the program's file, the program the bot's.
    entrants = snoops(f"{HOSTILE}:SnoopBot", command, secrets + [command[1]], secrets + [str(HOSTILE)])
    out = tournament(tmp_path, entrants, **settings)
    check_tournament(out, None)
    baseline = records_by_id(twins(PAIR, **settings))
    same_games_without_the_offender(out, baseline)
    same_games_as_the_twin(out, baseline)
    found = {name: list(dict.fromkeys(hostile_lines(log, "FOUND"))) for name, log in snoop_logs(out).items()}
    assert not any(found.values()), "a bot saw beyond its walls:\n" + "\n".join(
        f"{name}: {line[:300]}" for name, lines in found.items() for line in lines[:15])


# == 6. CPU theft ==================================================================================


def cpu_seconds(marker: str) -> float:
    """The CPU time (user and system) of the live processes with ``marker`` in their command line (not their
    jail's), from /proc/PID/stat."""
    total = 0
    for pid, cmdline in processes_with(marker.encode()):
        if "arena/isolation/jail.py" in cmdline:
            continue
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            continue
    return total / os.sysconf("SC_CLK_TCK")


HOGS = {"program": lambda marker: program("cpu_hog", marker),
        "bot": lambda marker: hostile("CpuHogBot", marker=marker)}


@jail_only
@pytest.mark.parametrize("who", list(HOGS))
@pytest.mark.slow
def test_a_cpu_hog_takes_no_time_from_the_bot_that_thinks(tmp_path, who):
    """The hog leaves 30 spinning children (each after setsid) behind its first answer.  While ``mcts``
    (a time-limited search, timed by the wall clock) thinks, the hog's processes gain no CPU time, and
    ``mcts`` is never faulted; the hog cannot widen its CPU affinity beyond what it was given."""
    marker = f"hostile-hog-{uuid.uuid4().hex}"
    mcts = 1
    thinking = {"start": None, "hog": 0.0, "turns": 0}

    def on_move(state, move):
        if thinking["start"] is not None:  # mcts has just moved (or passed)
            thinking["hog"] += cpu_seconds(marker) - thinking["start"]
            thinking["turns"] += 1
            thinking["start"] = None
        if not state.over and state.to_move == mcts:
            thinking["start"] = cpu_seconds(marker)

    # mcts thinks by the clock (0.1 s a move, 2.4 s in a game, where 30 spinning processes let run would
    # take seconds) under a limit far above it: a loaded machine slows its search, never faults it.
    outcome = play([HOGS[who](marker), "mcts:iterations=0,seconds=0.1", "random"], 11, tmp_path / "logs",
                   time_limit=5.0, on_move=on_move)
    log = logs_of(tmp_path / "logs")
    assert f"left 30 spinning children behind: {marker}" in log, log[-2000:]
    assert finished_normally(outcome) and thinking["turns"] >= 20
    problems = [f"{f['kind']} fault of seat {f['seat']}: {f['message']}" for f in outcome.faults]
    if thinking["hog"] > 0.1 + 0.01 * thinking["turns"]:
        problems.append(f"the hog's processes took {thinking['hog']:.2f} s of CPU while mcts thought "
                        f"({outcome.seconds[mcts]:.2f} s in {thinking['turns']} turns)")
    (affinity,) = hostile_lines(log, "affinity")
    if "refused" not in affinity:
        before, after = re.match(r"HOSTILE affinity before (\[.*?\]) after (\[.*?\])", affinity).groups()
        if before != after:
            problems.append(f"the hog left the CPUs it was given: {affinity}")
    assert not problems, "\n".join(problems)
    assert not leftovers(marker.encode())


@jail_only
@pytest.mark.slow
def test_a_call_the_freezer_cannot_stop_takes_no_time_from_the_next_seat(tmp_path, monkeypatch):
    """The attacker answers each turn with a thread inside ``madvise(MADV_POPULATE_WRITE)`` over 1.8 GiB,
    which the freezer cannot stop before the call returns.  The next seat (``mcts``, thinking 0.1 s by
    the clock) starts only once the attacker has stopped: the attacker takes no CPU while it thinks, and
    is killed (a ``crash`` fault naming why) when it does not stop within the bound."""
    marker = f"hostile-unfreezable-{uuid.uuid4().hex}"
    mcts = 1
    thinking = {"next": False, "start": None, "stolen": 0.0, "turns": 0}
    settle = sandbox.settle

    def settled():
        settle()
        if thinking["next"]:  # mcts's clock starts now
            thinking["start"], thinking["next"] = cpu_seconds(marker), False

    def on_move(state, move):
        if thinking["start"] is not None:
            thinking["stolen"] += max(0.0, cpu_seconds(marker) - thinking["start"])
            thinking["turns"] += 1
            thinking["start"] = None
        thinking["next"] = not state.over and state.to_move == mcts

    monkeypatch.setattr(sandbox, "settle", settled)
    outcome = play([program("unfreezable", marker), "mcts:iterations=0,seconds=0.1", "random"], 5,
                   tmp_path / "logs", time_limit=5.0, on_move=on_move)
    assert finished_normally(outcome) and thinking["turns"] >= 5
    assert not [f for f in outcome.faults if f["seat"] != 0], outcome.faults
    assert thinking["stolen"] <= 0.05 + 0.01 * thinking["turns"], (
        f"the attacker took {thinking['stolen']:.2f} s of CPU while mcts thought ({thinking['turns']} turns)")
    assert all("the freezer cannot interrupt" in f["message"] for f in outcome.faults), outcome.faults
    assert not leftovers(marker.encode())


# == 7. the transcript ==============================================================================


@pytest.mark.slow
def test_the_transcript_is_out_of_every_bots_view(tmp_path):
    """``arena play --transcript FILE`` writes every line to and from the bots, racks included: the bots
    (told the path, and looking in their working folder) cannot read it, and it is mode 0600."""
    path = tmp_path / "transcript.txt"
    done = arena_cli(tmp_path, "play", program("transcript_spy", str(path)), f"{HOSTILE}:TranscriptSpyBot:path={path}",
                     "greedy", "--seed", "4", "--time-limit", "2", "--transcript", str(path), "--logs", "logs",
                     "--record", "game.json", "-q")
    assert done.returncode == 0, done.stderr[-2000:]
    record = json.loads((tmp_path / "game.json").read_text())
    check_faults(record["faults"], {0, 1}, None)
    assert '"racks"' in path.read_text(), "the transcript holds no turn"
    log = logs_of(tmp_path / "logs")
    assert len(hostile_lines(log, "SPY transcript")) >= 40, "the spies did not look"
    read = hostile_lines(log, "FOUND") + hostile_lines(log, "SPY transcript ran")
    assert not read, "a bot read the transcript:\n" + "\n".join(read[:10])
    assert stat.S_IMODE(path.stat().st_mode) == 0o600, oct(path.stat().st_mode)


# == 8. a flood of options ==========================================================================


FLOODS = {"program": lambda: program("option_flood"), "bot": lambda: hostile("OptionFloodBot")}


@pytest.mark.parametrize("who", list(FLOODS))
def test_a_hello_with_37000_options_is_a_protocol_fault_naming_the_limit(tmp_path, who):
    try:
        outcome = play([FLOODS[who](), "greedy", "random"], 3, tmp_path / "logs")
    except BotError as exc:  # refused at the handshake, before any game
        # One short line past the bot's name (which holds the program's path, of any length).
        reason = str(exc).rpartition(": ")[2]
        assert "64" in reason and len(reason) < 200 and "\n" not in str(exc), str(exc)[:400]
        return
    size = len(outcome.record_line())
    assert outcome.faults, f"37,000 options were taken at the handshake: the record is {size:,} bytes"
    check_game(outcome, 0, {"protocol"}, "64")
    assert size < 20_000, f"the record holds the options: {size} bytes"


# == 9. escape sequences in an error ================================================================


CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")


@pytest.mark.slow
def test_escape_sequences_in_an_error_never_reach_the_log_raw(tmp_path, twins):
    settings = {"deals": 1, "rotate": False}
    offenders = [{"name": "hostile", "bot": f"{HOSTILE}:EscapeBot"},
                 {"name": "hostile-program", "command": program_command("escapes")}]
    out = tournament(tmp_path, offenders, **settings)
    check_tournament(out, {"exception"})
    same_games_without_the_offender(out, records_by_id(twins(PAIR, **settings)))
    text = (out / "arena.log").read_bytes().decode("utf-8", "replace")
    assert "HOSTILE" in text and "red" in text, "the errors' messages are not in arena.log"
    raw = sorted({repr(c) for c in CONTROL.findall(text)})
    assert not raw, f"arena.log holds the bots' control characters raw: {', '.join(raw)}"


# == 10. system calls a bot has no use for ===========================================================


SYSCALLS = {"program": lambda: program("syscalls"), "bot": lambda: hostile("SyscallsBot")}
#: What each attacker must have tried (and been refused).
TRIED = {"program": ["unshare(CLONE_NEWUSER)", "keyctl", "add_key", "ptrace(PTRACE_ATTACH)", "mount tmpfs",
                     "setns", "bpf", "perf_event_open", "userfaultfd", "io_uring_setup"],
         "bot": ["unshare(CLONE_NEWUSER)", "keyctl", "ptrace(PTRACE_ATTACH)", "mount tmpfs"]}


@pytest.mark.parametrize("who", list(SYSCALLS))
@pytest.mark.slow
def test_namespaces_keys_ptrace_and_mounts_are_refused_and_the_bot_plays_on(tmp_path, who):
    outcome = play([SYSCALLS[who](), "greedy", "random"], 3, tmp_path / "logs")
    check_game(outcome, 0, None)
    log = logs_of(tmp_path / "logs")
    assert "HOSTILE syscalls done" in log, log[-2000:]
    lines = [line.removeprefix("HOSTILE syscall ") for line in hostile_lines(log, "syscall ")]
    for name in TRIED[who]:
        assert any(line.startswith(name) for line in lines), f"{name} was not tried"
    allowed = [line for line in lines if line.endswith(": allowed")]
    assert not allowed, "allowed to a bot: " + "; ".join(allowed)


# == 11. a folder called arena in the working folder ==================================================


@pytest.mark.parametrize("command", ["play", "run"])
@pytest.mark.slow
def test_a_folder_called_arena_in_the_working_folder_is_never_imported(tmp_path, command, twins):
    """The user's working folder holds an ``arena`` package that shouts and raises: the bot host must not
    import it, and must use the arena (and so the rules engine) that the referee uses."""
    fake = tmp_path / "arena"
    fake.mkdir()
    (fake / "__init__.py").write_text(
        "import sys\nsys.stderr.write('HOSTILE imported the arena of the working folder\\n')\n"
        "raise ImportError('HOSTILE: the arena of the working folder')\n")
    bot = f"{HOSTILE}:EngineBot"
    if command == "play":
        done = arena_cli(tmp_path, "play", bot, "greedy", "random", "--seed", "3", "--logs", "logs", "-q")
        logs = tmp_path / "logs"
    else:
        path = write_tournament(tmp_path, [{"name": "hostile", "bot": bot}] + OTHERS)
        done = arena_cli(tmp_path, "run", str(path), "--out", "results", "--workers", "1", "-q", "--no-compress")
        logs = tmp_path / "results" / "bots"
    assert done.returncode == 0, f"arena {command} failed:\n{done.stderr[-2000:]}"
    log = "".join(p.read_text(errors="replace") for p in logs.glob("*.log"))
    assert "HOSTILE imported" not in log, "a bot host imported the working folder's arena"
    engines = set(re.findall(r"HOSTILE engine (\S+) arena (.+)$", log, re.MULTILINE))
    assert engines == {(native.ENGINE, os.path.dirname(os.path.realpath(arena.__file__)))}, engines
    if command == "run":
        check_tournament(tmp_path / "results", None)
        baseline = records_by_id(twins(("hostile",)))
        same_games_without_the_offender(tmp_path / "results", baseline)
        same_games_as_the_twin(tmp_path / "results", baseline)


# == 12. a flood on standard error ====================================================================


FLOODERS = {"program": lambda: program("stderr_flood", "300"), "bot": lambda: hostile("StderrFloodBot", mb=300)}


@pytest.mark.parametrize("who", list(FLOODERS))
@pytest.mark.slow
def test_a_bot_writing_far_past_its_stderr_cap_plays_on(tmp_path, who):
    """300 MiB on standard error in its first turn: it is neither blocked nor faulted, the rest past the
    cap is dropped, and its log says so in one line."""
    logs = tmp_path / "logs"
    try:
        outcome = play([FLOODERS[who](), "greedy", "random"], 3, logs, time_limit=5.0)
        check_game(outcome, 0, None)
        (log,) = [p for p in logs.glob("*.log") if "hostile" in p.name]
        size = log.stat().st_size
        assert size < 300 << 20, f"the whole flood is in the log ({size >> 20} MiB)"
        with open(log, "rb") as f:
            start = f.read(1 << 16)
            f.seek(0)
            dropped = [line[-300:] for line in f if b"dropped" in line.lower()]
        assert b"flooding its standard error" in start
        assert len(dropped) == 1, f"the log should say once that the rest was dropped: {dropped[:3]}"
    finally:
        shutil.rmtree(logs, ignore_errors=True)  # hundreds of MiB
