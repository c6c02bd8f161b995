"""The floor of one round trip through the wall: a minimal C bot program, jailed with the freezer on and
off, against a bare pipe to the same program.  ``benchmarks/protocol.py`` prints these lines; alone:

    python benchmarks/wall_floor.py --rounds 5 --trips 2000

The C bot (compiled here with ``cc``; skipped, saying why, without one) answers ``hello`` and then every
turn with its first legal move, found with one ``strstr``: what is left of a turn is the wall's and the
referee's.  Each variant sends the same turn line (the median of a seeded four-player game, about 2 KB)
``--trips`` times a round, everything on one CPU, and the variants alternate round by round:

* a bare pipe: the program unjailed, ``write`` then a blocking ``read`` (no ``poll``, no deadline);
* the jail, freezer off: :meth:`BotProcess.ask` (a non-blocking write, ``poll`` and ``read`` against a
  deadline) with :meth:`Sandboxed.freeze` and :meth:`Sandboxed.thaw` made to do nothing, here only;
* the jail as a referee plays it: thawed, asked, frozen, and :func:`sandbox.settle` before the next turn.

"Freezer off" exists only in this script: no option of the arena's turns a wall off.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from arena.isolation import sandbox
from arena.play.botprocess import BotProcess, exec_program
from arena.rules import PASS, GameSettings, GameState, deal, derived_random
from arena.wire.protocol import TurnWriter

#: The bot: a line at a time from a 1 MiB buffer, no JSON parser.
FLOOR_BOT = r"""
#include <string.h>
#include <unistd.h>

static char in[1 << 20];

static void say(const char *text, size_t size) {
    while (size > 0) {
        ssize_t done = write(1, text, size);
        if (done <= 0) _exit(1);
        text += done;
        size -= (size_t)done;
    }
}

static void answer(char *line) {
    char out[96] = "{\"type\":\"move\",\"move\":\"";
    size_t size = strlen(out);
    char *move = strstr(line, "\"legal\":[\"");
    char *close = move ? strchr(move + 10, '"') : NULL;
    if (close != NULL && close - (move + 10) < 40) {
        memcpy(out + size, move + 10, (size_t)(close - (move + 10)));
        size += (size_t)(close - (move + 10));
    } else {
        memcpy(out + size, "pass", 4);
        size += 4;
    }
    memcpy(out + size, "\"}\n", 3);
    say(out, size + 3);
}

int main(void) {
    static const char hello[] = "{\"type\":\"hello\",\"protocol\":\"uptown-bot/1\",\"name\":\"floor\"}\n";
    size_t have = 0;
    for (;;) {
        ssize_t got = read(0, in + have, sizeof in - 1 - have);
        if (got <= 0) return 0;
        have += (size_t)got;
        char *start = in, *end;
        while ((end = memchr(start, '\n', (size_t)(in + have - start))) != NULL) {
            *end = 0;
            if (strncmp(start, "{\"type\":\"hello\"", 15) == 0) say(hello, sizeof hello - 1);
            else if (strncmp(start, "{\"type\":\"turn\"", 14) == 0) answer(start);
            else if (strncmp(start, "{\"type\":\"quit\"", 14) == 0) return 0;
            start = end + 1;
        }
        have = (size_t)(in + have - start);
        memmove(in, start, have);
    }
}
"""
CPU = min(os.sched_getaffinity(0))
med = statistics.median


@contextlib.contextmanager
def compiled() -> Iterator[Path | str]:
    """The floor bot's executable in a temporary folder, or the reason there is none."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        yield "no C compiler (cc or gcc) on the PATH"
        return
    with tempfile.TemporaryDirectory(prefix="arena-floor-") as folder:
        source, binary = Path(folder) / "floor_bot.c", Path(folder) / "floor_bot"
        source.write_text(FLOOR_BOT)
        done = subprocess.run([compiler, "-O2", "-o", str(binary), str(source)], capture_output=True, text=True,
                              check=False)
        if done.returncode != 0:
            yield f"{compiler} failed: {(done.stderr.strip().splitlines() or ['?'])[-1]}"
            return
        os.chmod(folder, 0o755)  # the bot runs as a uid of its own
        yield binary


def turn_line(seed: int = 1) -> bytes:
    """The median-length turn line of a seeded four-player game, as the referee writes it."""
    settings = GameSettings.for_players(4)
    state = GameState(settings, deal(seed, settings))
    writer, rng, lines = TurnWriter(state), derived_random("wall-floor", seed), []
    while not state.over:
        moves = state.legal_moves()
        if moves:
            lines.append(writer.line(state.to_move, moves, 5.0))
        state.push(moves.choice(rng) if moves else PASS)
    return sorted(lines, key=len)[len(lines) // 2]


@contextlib.contextmanager
def freezer_off() -> Iterator[None]:
    """Sandboxed.freeze and thaw do nothing, for this script's measurement only."""
    freeze, thaw = sandbox.Sandboxed.freeze, sandbox.Sandboxed.thaw
    sandbox.Sandboxed.freeze = sandbox.Sandboxed.thaw = lambda self: None  # type: ignore[method-assign]
    try:
        yield
    finally:
        sandbox.Sandboxed.freeze, sandbox.Sandboxed.thaw = freeze, thaw  # type: ignore[method-assign]


def cpu_ns(pid: int) -> int:
    """Nanoseconds on a CPU of ``pid`` and everything it started (/proc/PID/schedstat)."""
    total, todo = 0, [pid]
    while todo:
        each = todo.pop()
        try:
            with open(f"/proc/{each}/schedstat") as stat, open(f"/proc/{each}/task/{each}/children") as children:
                total += int(stat.read().split()[0])
                todo += map(int, children.read().split())
        except (OSError, ValueError):
            continue
    return total


def bare(binary: Path, line: bytes, trips: int) -> tuple[float, float]:
    """Microseconds a round trip by the clock, and on a CPU (both sides), to the unjailed program."""
    child = subprocess.Popen([str(binary)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    out, back = child.stdin.fileno(), child.stdout.fileno()  # type: ignore[union-attr]
    try:
        before, start = cpu_ns(os.getpid()), time.perf_counter()
        for _ in range(trips):
            os.write(out, line)
            got = os.read(back, 1 << 16)
            while not got.endswith(b"\n"):
                got += os.read(back, 1 << 16)
        seconds, spent = time.perf_counter() - start, cpu_ns(os.getpid()) - before
    finally:
        child.communicate(b'{"type":"quit"}\n')
    return seconds / trips * 1e6, spent / trips / 1e3


def jailed(process: BotProcess, line: bytes, trips: int) -> tuple[float, float]:
    """Microseconds a round trip by the clock, and on a CPU (referee, jail and program), as a referee asks."""
    before, start = cpu_ns(os.getpid()), time.perf_counter()
    for _ in range(trips):
        sandbox.settle()
        process.ask(line, math.inf)
    sandbox.settle()
    return (time.perf_counter() - start) / trips * 1e6, (cpu_ns(os.getpid()) - before) / trips / 1e3


def floor(binary: Path | str, rounds: int, trips: int) -> None:
    """Print the floors (each line's name holds "floor")."""
    if isinstance(binary, str):
        print(f"\nthe wall's floor: skipped ({binary})")
        return
    line, cpus = turn_line(), os.sched_getaffinity(0)
    os.sched_setaffinity(0, {CPU})
    try:
        on, off = (BotProcess(exec_program(f"exec:{shlex.quote(str(binary))}"), cpu=CPU) for _ in range(2))
        for process in (on, off):
            process.start(10.0)
        off.thaw()  # and never frozen again
        runs: dict[str, list[tuple[float, float]]] = {"bare": [], "off": [], "on": []}
        try:
            for _ in range(rounds):
                runs["bare"].append(bare(binary, line, trips))
                with freezer_off():
                    runs["off"].append(jailed(off, line, trips))
                runs["on"].append(jailed(on, line, trips))
        finally:
            for process in (on, off):
                process.stop()
    finally:
        os.sched_setaffinity(0, cpus)
    clock = {name: med([c for c, _ in done]) for name, done in runs.items()}
    cpu = {name: med([c for _, c in done]) for name, done in runs.items()}
    print(f"\nthe wall's floor: a C bot answering its first legal move, a {len(line)} B turn line, us a round trip, "
          f"{trips} a round, median of {rounds} alternated rounds, all on CPU {CPU}, sandbox level {sandbox.walls()}")
    print(f"  {'':58} {'clock':>7} {'CPU':>7}")
    for name, text in (("bare", "floor: a bare pipe round trip to the unjailed program"),
                       ("off", "floor: through the wall, freezer off (measurement only)"),
                       ("on", "floor: through the wall, frozen between turns (as played)")):
        print(f"  {text:58} {clock[name]:7.1f} {cpu[name]:7.1f}")
    print(f"  {'floor: the freezer a turn (frozen minus freezer off)':58} {clock['on'] - clock['off']:7.1f} "
          f"{cpu['on'] - cpu['off']:7.1f}")
    print(f"  {'floor: the wall a turn (frozen minus the bare pipe)':58} {clock['on'] - clock['bare']:7.1f} "
          f"{cpu['on'] - cpu['bare']:7.1f}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, metavar="K", help="rounds, median kept (default 5)")
    parser.add_argument("--trips", type=int, default=2000, metavar="N", help="round trips a round (default 2000)")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.trips < 1:
        parser.error("--rounds and --trips must be at least 1")
    with compiled() as binary:
        floor(binary, args.rounds, args.trips)


if __name__ == "__main__":
    sys.exit(main())
