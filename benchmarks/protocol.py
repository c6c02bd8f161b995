"""What playing bots as programs (protocol uptown-bot/1) costs, next to playing them in process.

    python benchmarks/protocol.py --games 40 --rounds 5 --starts 10
    python benchmarks/protocol.py --games 20 --rounds 3 --skip-quickstart

All by the wall clock; in each part the variants alternate round by round and the median round is kept.

* per move: four ``random`` bots in process (``Referee(isolation="none")``) against ``isolation="process"``
  (``python -m arena.wire.bothost random``) and against four stdlib bots (``examples/protocol/random_bot.py``),
  each as a Referee plays them (itself and its bots on one CPU) and not pinned (``pin=False``); the same
  seeds, new ones each round (a bot process never plays a deal twice: a seed played again would cost a
  start); each referee keeps its bot processes for every round and plays a warm-up game first, so start-up
  is left out;
* start-up: ``BotProcess(program).start()`` to the handshake's answer;
* the floor: a bare pipe round trip between two Python processes, unpinned and on one CPU; a move of a minimal
  C bot program as a referee plays it, and one round trip to that program through the wall with the freezer on,
  off and bare (``benchmarks/wall_floor.py``: what the wall itself costs a turn, and its freezer);
* where a turn's time goes: the referee's calls timed inside games, the CPU time of the referee and of its
  bots (``/proc/PID/schedstat``), the bot's side and the reads timed alone on the lines those games sent, and
  the turn line built in C (``TurnWriter``) and in Python (``PyTurnWriter``) side by side in seeded games;
* ``arena run tournaments/quickstart.toml``, ``--isolation process`` against ``none``.
"""

from __future__ import annotations

import argparse
import csv
import functools
import gzip
import json
import os
import platform
import random
import select
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import wall_floor

from arena.isolation import cgroups, forkserver, sandbox
from arena.play.botprocess import BotProcess, exec_program, python_program
from arena.play.referee import Referee
from arena.plugins import load_bot
from arena.rules import GameSettings, GameState, deal, engine
from arena.wire import protocol

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = f"exec:{shlex.quote(sys.executable)} {shlex.quote(str(ROOT / 'examples/protocol/random_bot.py'))}"
CLI = "import sys; from arena.cli import main; sys.exit(main())"
TRIPS, WORK_US = 2000, 50
#: The targets: us a move over in process (Python bot host pinned and not, the stdlib example pinned), ms to a
#: program's first instruction, to the bot host's and the stdlib example's handshake, the quickstart's ratio
#: over in process, and us of worker CPU a move a sandboxed whole command costs over in process.
MOVE_TARGETS = {"host": 50.0, "host not pinned": 100.0, "stdlib": 40.0}
START_TARGETS = {"first instruction": 15.0, "host": 30.0, "stdlib": 20.0}
QUICKSTART_TARGET, COMMAND_TARGET_US = 1.15, 60.0
HOST_REF = "arena_bots.random_bot:RandomBot"  # as a referee resolves the entry point random
FLOOR_MOVE = "process, a C program bot (wall_floor.py: its first legal move)"
PYTHON_FLOOR_MOVE = "process, a Python program bot (its first legal move)"
PYTHON_FLOOR_LOOSE = "  the same, not pinned (pin=False)  "
#: The Python floor: the C floor bot's answers, from a Python that sleeps between turns as the bot host does
#: (``sigwaitinfo`` for its pipe's SIGIO), with no JSON parsed and no view built: what a Python bot host could
#: not go below.
PYTHON_FLOOR_BOT = r"""
import fcntl, os, signal
signal.signal(signal.SIGIO, signal.SIG_IGN)
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGIO})
fcntl.fcntl(0, fcntl.F_SETOWN, os.getpid())
fcntl.fcntl(0, fcntl.F_SETFL, fcntl.fcntl(0, fcntl.F_GETFL) | os.O_ASYNC | os.O_NONBLOCK)
HELLO, LEGAL = b'{"type":"hello","protocol":"uptown-bot/1","name":"floor"}\n', b'"legal":["'
pending = b""
while True:
    try:
        chunk = os.read(0, 1 << 16)
    except BlockingIOError:
        signal.sigwaitinfo({signal.SIGIO})
        continue
    if not chunk:
        break
    pending += chunk
    while (end := pending.find(b"\n")) >= 0:
        line, pending = pending[:end], pending[end + 1:]
        if line.startswith(b'{"type":"turn"'):
            at = line.find(LEGAL) + len(LEGAL)
            move = line[at:line.index(b'"', at)] if at >= len(LEGAL) else b"pass"
            os.write(1, b'{"type":"move","move":"' + move + b'"}\n')
        elif line.startswith(b'{"type":"hello"'):
            os.write(1, HELLO)
        elif line.startswith(b'{"type":"quit"'):
            raise SystemExit
"""
ANSWER = b'{"type":"move","move":"green:ring@B2"}\n'
# The other end of a pipe: argv is the microseconds of work before each answer and a CPU to pin itself to (or -).
ECHO = rf"""
import os, sys, time
if sys.argv[2] != "-":
    os.sched_setaffinity(0, {{int(sys.argv[2])}})
work, clock = float(sys.argv[1]) * 1e-6, time.perf_counter
for line in sys.stdin.buffer:
    end = clock() + work
    while clock() < end:
        pass
    os.write(1, {ANSWER!r})
"""
ALL_CPUS = os.sched_getaffinity(0)
CPUACCT = Path("/sys/fs/cgroup/cpuacct")
CPU = min(ALL_CPUS)
med = statistics.median


def on_one_cpu(run, *args):
    """``run(*args)`` with this process on CPU ``CPU``; what it starts meanwhile stays there."""
    os.sched_setaffinity(0, {CPU})
    try:
        return run(*args)
    finally:
        os.sched_setaffinity(0, ALL_CPUS)


def make_referee(isolation: str, ref: str, pin: bool = True) -> tuple[Referee, list]:
    referee = Referee(isolation=isolation, pin=pin)
    players = [referee.prepare(ref) for _ in range(4)]
    with referee:
        referee.play(players, 0)  # the warm-up game
    return referee, players


def play_round(referee: Referee, players: list, seeds: list[int]) -> tuple[float, int, int]:
    """Seconds, moves (passes included) and faults of the seeds' games."""
    moves = faults = 0
    with referee:
        start = time.perf_counter()
        for seed in seeds:
            outcome = referee.play(players, seed)
            moves, faults = moves + len(outcome.state.history), faults + len(outcome.faults)
        return time.perf_counter() - start, moves, faults


def round_seeds(games: int, round_: int) -> list[int]:
    """The seeds of a round: new ones each round, the same for every variant."""
    return list(range(round_ * games + 1, (round_ + 1) * games + 1))


def per_move(games: int, rounds: int, floor_bot: Path | str) -> None:
    """A move's time over in process: the bot host, the stdlib example, the Python floor and the C floor bot."""
    with tempfile.TemporaryDirectory(prefix="arena-floor-") as folder:
        python_floor = Path(folder) / "floor.py"
        python_floor.write_text(PYTHON_FLOOR_BOT, encoding="utf-8")
        Path(folder).chmod(0o755)  # a bot that runs as a uid of its own reads it where it is
        _per_move(games, rounds, floor_bot, python_floor)


def _per_move(games: int, rounds: int, floor_bot: Path | str, python_floor: Path) -> None:
    # A Referee keeps itself and its bot programs on one CPU while it plays (pin=True, the default);
    # the unpinned rows show what waking a process on the other CPU costs.
    variants = {"in process (isolation none), random": make_referee("none", "random"),
                "process, python -m arena.wire.bothost random": make_referee("process", "random"),
                "  the same, not pinned (pin=False)": make_referee("process", "random", pin=False),
                "process, stdlib examples/protocol/random_bot.py": make_referee("process", EXAMPLE),
                "  the same, not pinned (pin=False) ": make_referee("process", EXAMPLE, pin=False)}
    floor_ref = f"exec:{shlex.quote(sys.executable)} -I -S {shlex.quote(str(python_floor))}"
    variants[PYTHON_FLOOR_MOVE] = make_referee("process", floor_ref)
    variants[PYTHON_FLOOR_LOOSE] = make_referee("process", floor_ref, pin=False)
    if isinstance(floor_bot, Path):
        variants[FLOOR_MOVE] = make_referee("process", f"exec:{shlex.quote(str(floor_bot))}")
    runs: dict[str, list[tuple[float, int, int]]] = {name: [] for name in variants}
    try:
        for round_ in range(rounds):
            for name, (referee, players) in variants.items():
                runs[name].append(play_round(referee, players, round_seeds(games, round_)))
    finally:
        for referee, _ in variants.values():
            referee.close()
    print(f"\nper move: four bots, {games} games a round (seeds 1-{games * rounds}), median of {rounds} rounds")
    print(f"  {'':50} {'games/s':>8} {'us/move':>8} {'over in process':>16}")
    us = {name: med([seconds / moves * 1e6 for seconds, moves, _ in done]) for name, done in runs.items()}
    base = us[next(iter(us))]
    for name, done in runs.items():
        faults = sum(f for _, _, f in done)
        over = f"{us[name] - base:+16.1f}" if us[name] != base else ""
        print(f"  {name:50} {med([games / s for s, _, _ in done]):8.1f} {us[name]:8.1f} {over:16}"
              + (f"  ({faults} faults!)" if faults else ""))
    names = list(us)
    print(f"  the Python floor: a move of a Python program bot that parses nothing and sleeps as the bot host "
          f"does, over in process: {us[PYTHON_FLOOR_MOVE] - base:.1f} us pinned, "
          f"{us[PYTHON_FLOOR_LOOSE] - base:.1f} us not")
    if FLOOR_MOVE in us:
        print(f"  the floor: a move of a C program bot over in process (the referee's side of a move, its walls "
              f"included): {us[FLOOR_MOVE] - base:.1f} us")
    else:
        print(f"  the floor: a move of a C program bot: skipped ({floor_bot})")
    for (label, target), name in zip(MOVE_TARGETS.items(), (names[1], names[2], names[3]), strict=True):
        verdict(f"a move over in process, {label}", us[name] - base, target, "us")


def verdict(what: str, figure: float, target: float, unit: str) -> None:
    """One target's line: its figure, the target and met / not met."""
    print(f"  target {what}: {figure:.{2 if unit == 'x' else 1}f} {unit} against <= {target:g} {unit}, "
          f"{'met' if figure <= target else 'not met'}")


def start_up(starts: int) -> None:
    """Starts alternated: through this process's fork server (the default) and through ``python jail.py``."""
    programs = {"Python bot host, random": python_program(HOST_REF), "stdlib examples/protocol/random_bot.py":
                exec_program(EXAMPLE)}
    ways = {"fork server": forkserver.server, "python jail.py": lambda: None}
    runs: dict[tuple[str, str], list[float]] = {}
    try:
        for _ in range(starts):
            for way, server in ways.items():
                forkserver.server = server  # type: ignore[assignment]
                runs.setdefault(("first instruction", way), []).append(first_instruction())
                for name, program in programs.items():
                    process = BotProcess(program)
                    start = time.perf_counter()
                    process.start(10.0)
                    runs.setdefault((name, way), []).append(time.perf_counter() - start)
                    process.stop()
    finally:
        forkserver.server = ways["fork server"]  # type: ignore[assignment]
    print(f"\nstart-up: to the first byte of /bin/echo, and BotProcess(program).start() to the handshake's answer, "
          f"ms, median of {starts} starts alternated, sandbox level {sandbox.walls()}")
    print(f"  {'':40} {'fork server':>12} {'python jail.py':>15}")
    for name in ("first instruction", *programs):
        cells = [f"{med(runs[name, way]) * 1e3:.1f} ({min(runs[name, way]) * 1e3:.0f}-{max(runs[name, way]) * 1e3:.0f})"
                 for way in ways]
        print(f"  {name:40} {cells[0]:>12} {cells[1]:>15}")
    own = bare_start(shlex.split(EXAMPLE[len("exec:"):]), starts)
    print(f"  the floor: the stdlib example started with no wall, to its end at once (its input empty): "
          f"{med(own):.1f} ms (range {min(own):.1f}-{max(own):.1f}), Python's own start")
    join = cgroup_join_floor(starts)
    if join is not None:
        favored = "favored" if cgroups.favor_moves() else "not favored: an RCU grace period on this kernel"
        print(f"  the floor: a fresh process's first write to a cgroup's cgroup.procs (moves {favored}): "
              f"{med(join):.1f} ms (range {min(join):.1f}-{max(join):.1f}); every jail makes one")
    for (label, target), name in zip(START_TARGETS.items(), ("first instruction", *programs), strict=True):
        verdict(f"a start to {'its ' + label if label == 'first instruction' else 'the handshake, ' + label}",
                med(runs[name, "fork server"]) * 1e3, target, "ms")


def bare_start(command: list[str], times: int) -> list[float]:
    """Milliseconds ``command`` takes from its start to its end with no wall, its standard input empty."""
    found = []
    for _ in range(times):
        start = time.perf_counter()
        subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, cwd=ROOT, check=False)
        found.append((time.perf_counter() - start) * 1e3)
    return found


def cgroup_join_floor(times: int) -> list[float] | None:
    """Milliseconds a fresh child takes to join a v1 pids cgroup (None where there is none to make)."""
    group = Path("/sys/fs/cgroup/pids") / f"arena-bench-join-{os.getpid()}"
    try:
        group.mkdir()
    except OSError:
        return None
    found = []
    try:
        for _ in range(times):
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:
                start = time.perf_counter()
                (group / "cgroup.procs").write_text("0")
                os.write(write, repr(time.perf_counter() - start).encode())
                os._exit(0)
            os.close(write)
            found.append(float(os.read(read, 64)) * 1e3)
            os.close(read)
            os.waitpid(pid, 0)
            time.sleep(0.05)  # the kernel's grace period from the last join ends
    finally:
        group.rmdir()
    return found


def first_instruction() -> float:
    """Seconds from :func:`sandbox.start` of ``/bin/echo`` to its first byte (its own start, about 0.5 ms, included)."""
    start = time.perf_counter()
    box = sandbox.start(["/bin/echo", "x"])
    try:
        assert box.process.stdout is not None
        select.select([box.process.stdout], [], [], 10.0)
        return time.perf_counter() - start
    finally:
        box.kill()


def round_trips(child: subprocess.Popen, line: bytes) -> float:
    """Microseconds per round trip: ``line`` out, the answer line back, blocking reads."""
    out, back = child.stdin.fileno(), child.stdout.fileno()
    start = time.perf_counter()
    for _ in range(TRIPS):
        os.write(out, line)
        got = os.read(back, 65536)
        while not got.endswith(b"\n"):
            got += os.read(back, 65536)
    return (time.perf_counter() - start) / TRIPS * 1e6


def pipe_floor(rounds: int) -> None:
    small, large = (b'{"type":"turn","x":"' + b"x" * n + b'"}\n' for n in (76, 5976))
    cases = {"100 B": (small, 0), "6 KB": (large, 0), f"6 KB, answered after {WORK_US} us of work": (large, WORK_US)}
    children = {(name, cpu): subprocess.Popen([sys.executable, "-c", ECHO, str(work), str(cpu) if cpu is not None
                                               else "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
                for name, (_, work) in cases.items() for cpu in (None, CPU)}
    runs: dict[tuple[str, int | None], list[float]] = {key: [] for key in children}
    try:
        for _ in range(rounds):
            for (name, cpu), child in children.items():
                line, work = cases[name]
                runs[name, cpu].append((round_trips(child, line) if cpu is None
                                        else on_one_cpu(round_trips, child, line)) - work)
    finally:
        for child in children.values():
            child.communicate()
    print(f"\nthe floor: a bare pipe round trip between two Python processes ({len(ANSWER)} B answer, blocking "
          f"reads), us, {TRIPS} trips a round, median of {rounds} rounds, the work taken off")
    for name in cases:
        print(f"  {name:40} {med(runs[name, None]):6.1f} unpinned, {med(runs[name, CPU]):6.1f} both on CPU {CPU}")


def schedstat() -> list[int]:
    """Nanoseconds on a CPU of this process and of all it started (/proc/PID/schedstat)."""
    found, todo = [0, 0], [os.getpid()]
    while todo:
        pid = todo.pop()
        try:
            with open(f"/proc/{pid}/schedstat") as stat, open(f"/proc/{pid}/task/{pid}/children") as children:
                found[pid != os.getpid()] += int(stat.read().split()[0])
                todo += map(int, children.read().split())
        except (OSError, ValueError):
            continue
    return found


def in_games(referee: Referee, players: list, seeds: list[int], lines: list) -> list[float]:
    """Microseconds a turn asked: in TurnWriter.line, BotProcess.send, BotProcess.read_line, in all; on a CPU,
    the referee then its bots.  Each (game, seat, turn line) sent is appended to ``lines``."""
    spent, clock, writers = [0.0] * 5, time.perf_counter, [None]
    line, send, read_line = protocol.TurnWriter.line, BotProcess.send, BotProcess.read_line

    def timed(index, fn):
        def call(self, *args, **kwargs):
            start = clock()
            value = fn(self, *args, **kwargs)
            spent[index] += clock() - start
            return value
        return call

    def recorded(writer, seat, *args):
        text = timed_line(writer, seat, *args)
        if writer is not writers[-1]:  # one TurnWriter a game
            writers.append(writer)
        lines.append((len(writers), seat, text))
        spent[4] += 1
        return text

    timed_line = timed(0, line)
    protocol.TurnWriter.line, BotProcess.send, BotProcess.read_line = recorded, timed(1, send), timed(2, read_line)
    try:
        before = schedstat()
        spent[3] = play_round(referee, players, seeds)[0]
        after = schedstat()
    finally:
        protocol.TurnWriter.line, BotProcess.send, BotProcess.read_line = line, send, read_line
    return [s / spent[4] * 1e6 for s in spent[:4]] + [(b - a) / spent[4] / 1e3 for a, b in zip(before, after)]


def alone(lines: list[tuple[int, int, bytes]]) -> list[float]:
    """Microseconds a line in json.loads, ViewReader.view, choose and the answer's JSON (as arena.wire.bothost does
    them), and in read_turn_answer of the answer (the referee: parse_line + read_answer, a move line read before
    found by its bytes)."""
    clock, cls, settings = time.perf_counter, load_bot("random"), GameSettings.for_players(4)
    tick = med([-(clock() - clock()) for _ in range(101)])
    starts = [protocol.read_game(json.loads(protocol.game_line(settings, seat, {}, 10.0, protocol.bot_seed(0, seat))))
              for seat in range(4)]
    bots = [cls(seat, settings, {}, random.Random(seat)) for seat in range(4)]
    spent, readers = [0.0] * 5, {}
    for game, seat, line in lines:
        reader = readers.get((game, seat)) or readers.setdefault((game, seat), protocol.ViewReader(starts[seat]))
        t0 = clock()
        obj = json.loads(line)
        t1 = clock()
        view = reader.view(obj)
        t2 = clock()
        move = bots[seat].choose(view)
        t3 = clock()
        answer = (protocol._encode({"type": "move", "move": str(move)}) + "\n").encode()
        t4 = clock()
        protocol.read_turn_answer(answer)
        t5 = clock()
        for index, seconds in enumerate((t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4)):
            spent[index] += seconds - tick
    return [seconds / len(lines) * 1e6 for seconds in spent]


def line_alone(games: int) -> list[float]:
    """Microseconds a turn line in TurnWriter.line (built in C with the native engine) and in PyTurnWriter.line
    (in Python, the reference), each seat to move asked at every turn of ``games`` seeded four-player games."""
    clock, settings = time.perf_counter, GameSettings.for_players(4)
    spent, turns = [0.0, 0.0], 0
    for seed in range(1, games + 1):
        state = GameState(settings, deal(seed, settings))
        writers = (protocol.TurnWriter(state), protocol.PyTurnWriter(state))
        rng = random.Random(seed)
        while not state.over:
            moves = state.legal_moves()
            if moves:
                for index, writer in enumerate(writers):
                    start = clock()
                    writer.line(state.to_move, moves, 10.0)
                    spent[index] += clock() - start
                turns += 1
            state.push(moves.choice(rng))
    return [seconds / turns * 1e6 for seconds in spent]


def pipe_read(line: bytes, size: int, times: int = 2000) -> float:
    """Microseconds to write ``line`` into a pipe, poll and ``os.read(fd, size)`` it, as BotProcess reads."""
    back, out = os.pipe()
    poll = select.poll()
    poll.register(back, select.POLLIN)
    start = time.perf_counter()
    for _ in range(times):
        os.write(out, line)
        poll.poll(1000)
        os.read(back, size)
    seconds = time.perf_counter() - start
    os.close(back)
    os.close(out)
    return seconds / times * 1e6


def where_it_goes(games: int, rounds: int) -> None:
    referee, players = make_referee("process", "random")
    runs: dict[str, list[list[float]]] = {"games": [], "alone": []}
    try:
        for round_ in range(rounds):
            lines: list[tuple[int, int, bytes]] = []
            runs["games"].append(in_games(referee, players, round_seeds(games, round_), lines))
            middle = sorted((line for *_, line in lines), key=len)[len(lines) // 2]
            runs["alone"].append([*alone(lines), pipe_read(middle, protocol.MAX_LINE), pipe_read(middle, 1 << 16),
                                  *line_alone(games)])
    finally:
        referee.close()
    f, a = ([med(column) for column in zip(*done)] for done in runs.values())
    sizes = sorted(len(line) for *_, line in lines)
    rows = [("in the games, the referee's calls timed:", None),
            ("TurnWriter.line", f[0]),
            ("BotProcess.send (the write, waking the bot)", f[1]),
            ("BotProcess.read_line (until the answer is in)", f[2]),
            ("the rest (engine, referee loop, parsing, check)", f[3] - sum(f[:3])),
            ("all, a turn", f[3]),
            ("in the same games, by /proc/PID/schedstat:", None),
            ("the referee on a CPU", f[4]),
            ("its four bots on a CPU", f[5]),
            ("none of them on a CPU (wake-ups, other jobs): all minus these", f[3] - f[4] - f[5]),
            ("timed alone on the same turn lines, in this process:", None),
            *zip(("bot: json.loads of the turn line", "bot: ViewReader.view", "bot: the bot's choose",
                  "bot: the answer's JSON", "referee: read_turn_answer of the answer",
                  "a median turn line: write, poll, os.read(fd, MAX_LINE)", "the same with os.read(fd, 64 KiB)"), a),
            (f"timed alone in {games} seeded games of four players, in this process:", None),
            (f"referee: TurnWriter.line ({engine.ENGINE} engine{', in C' if engine.ENGINE == 'native' else ''})", a[7]),
            ("referee: PyTurnWriter.line (in Python, the reference)", a[8])]
    print(f"\nwhere a turn's time goes under process isolation (python -m arena.wire.bothost random), us a turn asked, "
          f"median of {rounds} rounds of {games} games; turn lines of {statistics.fmean(sizes) / 1e3:.1f} KB on "
          f"average, the last tenth {sizes[len(sizes) * 9 // 10] / 1e3:.1f}-{sizes[-1] / 1e3:.1f} KB")
    for name, value in rows:
        print(f"  {name}" if value is None else f"    {name:62} {value:6.1f}")
    print(f"  the bots' CPU a turn, {f[5]:.1f} us, against {sum(a[:4]):.1f} us for their part timed alone: the "
          "rest is their read loop, system calls and cold caches")


def whole_command(args: list[str], out: str, isolation: str) -> tuple[float, float]:
    """Wall seconds and CPU seconds of ``arena ARGS --isolation I`` and everything it started: counted by a
    cpuacct cgroup of its own where this machine has one (the bots' jails are reaped by their fork server,
    which no one waits for), else by the children the command waited for."""
    group = CPUACCT / f"arena-bench-{os.getpid()}"
    try:
        group.mkdir(exist_ok=True)
        join: Any = functools.partial(Path.write_text, group / "cgroup.procs", "0")
    except OSError:
        group, join = None, None
    before = os.times()
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", CLI, *args, "--out", out, "--quiet", "--overwrite", "--isolation", isolation,
                    "-j", "2"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL, preexec_fn=join)
    wall, after = time.perf_counter() - start, os.times()
    if group is None:
        return wall, (after.children_user - before.children_user) + (after.children_system - before.children_system)
    cpu = int((group / "cpuacct.usage").read_text()) / 1e9
    for _ in range(100):  # the last jails are still leaving
        try:
            group.rmdir()
            break
        except OSError:
            time.sleep(0.05)
    return wall, cpu


def moves_in(folder: str) -> int:
    """The moves (passes included) of every game a results folder holds."""
    with gzip.open(Path(folder) / "records.jsonl.gz", "rt", encoding="utf-8") as lines:
        return sum(len(json.loads(line)["moves"]) for line in lines if line.strip())


def timed_moves(folder: str) -> float:
    """Seconds the referees timed a results folder's bots thinking, every move asked (its time_use.csv)."""
    with open(Path(folder) / "time_use.csv", encoding="utf-8") as table:
        return sum(int(row["moves_asked"]) * float(row["mean_move_seconds"]) for row in csv.DictReader(table))


def quickstart(rounds: int, games: int) -> None:
    """The quickstart and a tournament of ``random`` bots, each sandboxed and in process, alternated."""
    print("\nwhole commands, -j 2, alternated, median of", rounds, "rounds: process isolation against none")
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as folder:
        random_file = Path(folder) / "random.toml"
        random_file.write_text(f'name = "random4"\nplayers = 4\ndeals = {max(1, games // 12)}\nseed = 1\n'
                               'public_deals = true\ntime_limit = 5.0\n' +
                               "".join(f'[[entrants]]\nname = "r{i}"\nbot = "random"\n' for i in range(4)))
        commands = {"quickstart": ["run", "tournaments/quickstart.toml"], "random": ["run", str(random_file)]}
        runs: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for _ in range(rounds):
            for name, args in commands.items():
                for isolation in ("process", "none"):
                    out = os.path.join(folder, f"{name}-{isolation}")
                    runs.setdefault((name, isolation), []).append(whole_command(args, out, isolation))
        moves = moves_in(os.path.join(folder, "random-none"))
        quick_moves = moves_in(os.path.join(folder, "quickstart-none"))
        asked = {isolation: timed_moves(os.path.join(folder, f"quickstart-{isolation}")) for isolation in ("process", "none")}
    for name in commands:
        walls = {isolation: med([w for w, _ in runs[name, isolation]]) for isolation in ("process", "none")}
        cpus = {isolation: med([c for _, c in runs[name, isolation]]) for isolation in ("process", "none")}
        print(f"  {name:12} process {walls['process']:.2f} s ({cpus['process']:.1f} CPU-s), none {walls['none']:.2f} s "
              f"({cpus['none']:.1f} CPU-s): ratio {walls['process'] / walls['none']:.2f}")
    extra = asked["process"] - asked["none"]
    cpu = med([c for _, c in runs["quickstart", "process"]]) - med([c for _, c in runs["quickstart", "none"]])
    print(f"  the quickstart: {quick_moves} moves; a move took "
          f"{extra / quick_moves * 1e6:.0f} us longer sandboxed as its referee timed it (time_use.csv, the last "
          f"round), and the command used {cpu / quick_moves * 1e6:.0f} us more CPU a move")
    verdict("the quickstart, sandboxed over in process", med([w for w, _ in runs["quickstart", "process"]]) /
            med([w for w, _ in runs["quickstart", "none"]]), QUICKSTART_TARGET, "x")
    cost = (med([c for _, c in runs["random", "process"]]) - med([c for _, c in runs["random", "none"]])) / moves * 1e6
    print(f"  the random tournament: {moves} moves; the sandbox's worker CPU a move, starts included:")
    verdict("sandboxed play's worker CPU a move over in process", cost, COMMAND_TARGET_US, "us")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, metavar="G", help="games a round per variant (default 40)")
    parser.add_argument("--rounds", type=int, metavar="K",
                        help="rounds, median kept (default 5; 1 for the quickstart, about 40 s a round)")
    parser.add_argument("--starts", type=int, default=10, metavar="S", help="starts per program (default 10)")
    parser.add_argument("--skip-quickstart", action="store_true", help="leave out the whole commands (arena run)")
    parser.add_argument("--command-games", type=int, default=1200, metavar="N",
                        help="games of the random tournament among the whole commands (default 1200)")
    args = parser.parse_args(argv)
    if args.games < 1 or args.starts < 1 or (args.rounds is not None and args.rounds < 1):
        parser.error("--games, --rounds and --starts must be at least 1")
    rounds = args.rounds or 5
    print(f"machine: {os.cpu_count()} CPUs ({len(ALL_CPUS)} usable), load {os.getloadavg()[0]:.2f}, "
          f"Python {platform.python_version()}, sandbox level {sandbox.walls()}")
    with wall_floor.compiled() as floor_bot:
        per_move(args.games, rounds, floor_bot)
        start_up(args.starts)
        pipe_floor(rounds)
        wall_floor.floor(floor_bot, rounds, TRIPS)
    where_it_goes(args.games, rounds)
    if args.skip_quickstart:
        print("\nquickstart: skipped (--skip-quickstart)")
    else:
        quickstart(args.rounds or 3, args.command_games)


if __name__ == "__main__":
    main()
