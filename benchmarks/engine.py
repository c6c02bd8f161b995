"""Speed of the rules engines: random games with full legal-move generation on every turn, native and pure.

    python benchmarks/engine.py --players 4 --games 2000 --seed 1 --rounds 5
    python benchmarks/engine.py --engine both --playouts --playout-games 10000

The per-move loop: every turn builds the whole :class:`~arena.rules.MoveSet`
(``GameState.legal_moves()``) and draws one move from it uniformly with a
``random.Random`` (``MoveSet.choice``, what the ``random`` bot does), or passes
when it is empty; every game ends with :meth:`~arena.rules.GameState.result`.
Game ``i`` is dealt from seed ``--seed + i``; the deals are made before the
clock starts.

``--engine both`` (the default, or ``pure`` alone when the native engine is
not in use) measures the C engine
(:data:`arena.rules.engine.GameState`) and the pure one
(:class:`arena.rules.state.GameState`) side by side in one process: ``--rounds``
rounds, each playing every game once with each engine (which engine goes first
alternates from round to round), and reports per engine the median of the
rounds by the process's CPU time (the fairer figure on a shared machine) and
by the wall clock, and the ratio native/pure.  Both engines play the same
games from the same ``random.Random(--seed)``: the script stops with an error
if they played a different number of turns.

``--playouts`` adds whole playouts in one call per game,
``GameState(settings, deal).playout(SplitMix64(seed + i), policy)``, with the
``random`` and the ``greedy`` policy, over ``--playout-games`` deals (the same
deals and generator seeds for both engines, interleaved the same way; the
results and the generators' final states must agree), and the ratio of the
native engine's whole random playouts to the pure engine's per-move loop.

The last line printed is ``<float> games/s``: the median by the wall clock of
the per-move loop of the engine in use (:data:`arena.rules.ENGINE`) when it
was measured, else of the engine measured; the line before it starting with
``cpu:`` is the same engine's figures by CPU time.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from arena.rules import ENGINE, GameSettings, GameState, SplitMix64, deal
from arena.rules import engine as native_engine
from arena.rules.state import GameState as PureGameState


def play(settings: GameSettings, deals: dict[int, tuple[int, ...]], rng: random.Random,
         cls: Any = GameState) -> int:
    """Play one random game to its end with the engine ``cls``; the number of turns it took."""
    state = cls(settings, deals)
    while not state.over:
        moves = state.legal_moves()
        if moves:
            state.push(moves.choice(rng))
        else:
            state.push_pass()
    state.result()
    return len(state.history)


def engines(choice: str) -> dict[str, Any]:
    """The engines to measure, by name; a one-line exit when the native one is asked for but not built."""
    wanted = ("native", "pure") if choice == "both" else (choice,)
    if "native" in wanted and native_engine.ENGINE != "native":
        raise SystemExit(f"engine.py: the native engine is not available: {native_engine.WHY}")
    return {name: native_engine.GameState if name == "native" else PureGameState for name in wanted}


def loop_round(cls: Any, settings: GameSettings, deals: list, seed: int) -> tuple[int, float, float]:
    """One pass of the per-move loop over ``deals``: turns, CPU seconds, wall seconds."""
    rng = random.Random(seed)
    start, cpu_start = time.perf_counter(), time.process_time()
    turns = sum(play(settings, d, rng, cls) for d in deals)
    return turns, time.process_time() - cpu_start, time.perf_counter() - start


def playout_round(cls: Any, settings: GameSettings, deals: list, seed: int,
                  policy: str) -> tuple[list, float, float]:
    """Whole playouts of ``deals`` with ``policy``: (result, generator state) per game, CPU and wall seconds."""
    out = []
    start, cpu_start = time.perf_counter(), time.process_time()
    for i, d in enumerate(deals):
        rng = SplitMix64(seed + i)
        out.append((cls(settings, d).playout(rng, policy), rng.state))
    return out, time.process_time() - cpu_start, time.perf_counter() - start


HERE = Path(__file__).resolve().parent
NATIVE = HERE.parent / "arena" / "rules" / "native"
#: The extension's own flags (setup.py), so the floor is the same code compiled the same way.
CFLAGS = ["-O2", "-ffp-contract=off"]


def build_floor(folder: str) -> tuple[str | None, str]:
    """The floor program compiled into ``folder``: (its path, "") or (None, why it is skipped)."""
    if native_engine.ENGINE != "native":
        return None, f"the floor needs the native engine's sources in use: {native_engine.WHY}"
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        return None, "no C compiler (cc) on the PATH"
    exe = os.path.join(folder, "engine_floor")
    cmd = [cc, *CFLAGS, f"-I{NATIVE}", "-o", exe, str(HERE / "engine_floor.c"), str(NATIVE / "engine.c"), "-lm"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        return None, f"cc failed: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode}"
    return exe, ""


def floor_input(settings: GameSettings, deals: list, seed: int) -> str:
    """The floor program's stdin: the rules, then every game's generator seed and deal (engine_floor.c)."""
    lines = [f"{settings.players} {int(settings.scoring == 'blockers')} {int(settings.penalty == 'opponent')} "
             f"{len(deals)}", " ".join(str(c) for colors in settings.seat_colors for c in colors)]
    colors = [c for colors in settings.seat_colors for c in colors]
    for i, d in enumerate(deals):
        lines.append(" ".join([str(seed + i)] + [str(t) for c in colors for t in d[c]]))
    return "\n".join(lines) + "\n"


def floor_round(exe: str, text: str) -> tuple[str, float, float]:
    """One round of the floor program: (its hash of the games, CPU seconds, the same as wall seconds)."""
    out = subprocess.run([exe, "1"], input=text, capture_output=True, text=True, check=True).stdout.split()
    cpu = float(out[out.index("round") + 1])
    return out[out.index("check") + 1], cpu, cpu


def playouts_hash(outcomes: list) -> str:
    """engine_floor.c's FNV-1a hash of playout results and final generator states, from Python."""
    h = 0xCBF29CE484222325
    for result, state in outcomes:
        for v in [x for seat in result for x in seat] + [state]:
            for i in range(8):
                h = ((h ^ ((v >> (8 * i)) & 0xFF)) * 0x100000001B3) & ((1 << 64) - 1)
    return f"{h:016x}"


def interleaved(names: list[str], rounds: int, run) -> dict[str, list]:
    """``run(name)`` for every engine in every round, the order alternating; the outcomes by engine."""
    outcomes: dict[str, list] = {name: [] for name in names}
    for r in range(rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            outcomes[name].append(run(name))
    return outcomes


def median_rates(games: int, outcomes: list) -> tuple[float, float, list[float]]:
    """Median games/s by CPU time and by the wall clock, and every round's CPU figure."""
    cpu = [games / o[1] for o in outcomes]
    wall = [games / o[2] for o in outcomes]
    return statistics.median(cpu), statistics.median(wall), cpu


def floor(settings: GameSettings, pdeals: list, seed: int, rounds: int) -> None:
    """The floor program's rounds alternating with the native engine's random playouts; the ratio by CPU time."""
    with tempfile.TemporaryDirectory(prefix="engine-floor-") as folder:
        exe, why = build_floor(folder)
        if exe is None:
            print(f"floor: skipped ({why})")
            return
        text = floor_input(settings, pdeals, seed)
        cls = native_engine.GameState
        runs = interleaved(["native", "floor"], rounds,
                           lambda name: playout_round(cls, settings, pdeals, seed, "random") if name == "native"
                           else floor_round(exe, text))
    expected = playouts_hash(runs["native"][0][0])
    assert all(o[0] == expected for o in runs["floor"]), "the floor program played other games than the engine"
    n_cpu, _, n_each = median_rates(len(pdeals), runs["native"])
    f_cpu, _, f_each = median_rates(len(pdeals), runs["floor"])
    print(f"whole random playouts, floor : cpu {f_cpu:9.1f} games/s [{min(f_each):.1f}-{max(f_each):.1f}] "
          f"(benchmarks/engine_floor.c, cc {' '.join(CFLAGS)}; the same games, checked)")
    print(f"whole random playouts, native beside it: cpu {n_cpu:9.1f} games/s [{min(n_each):.1f}-{max(n_each):.1f}]")
    print(f"whole random playouts, native / floor: {n_cpu / f_cpu:.2f}x by CPU time")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=("native", "pure", "both"), default=None,
                        help="which engine(s) to measure (default both side by side; pure only when native is not built)")
    parser.add_argument("--players", type=int, default=4, choices=range(2, 6), metavar="N", help="2 to 5 (default 4)")
    parser.add_argument("--games", type=int, default=2000, metavar="G", help="games of the per-move loop (default 2000)")
    parser.add_argument("--seed", type=int, default=1, help="first deal seed; game i uses seed + i (default 1)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds, each engine once a round (default 5)")
    parser.add_argument("--playouts", action="store_true", help="also time whole random and greedy playouts")
    parser.add_argument("--playout-games", type=int, default=10000, metavar="G",
                        help="deals of the whole playouts (default 10000)")
    parser.add_argument("--floor", action="store_true",
                        help="with --playouts: time benchmarks/engine_floor.c (plain C, compiled with cc) beside them")
    args = parser.parse_args(argv)
    if args.games < 1 or args.playout_games < 1:
        parser.error("--games and --playout-games must be at least 1")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if args.engine is None:
        args.engine = "both" if native_engine.ENGINE == "native" else "pure"
        if args.engine == "pure":
            print(f"the pure engine only: {native_engine.WHY}")
    classes = engines(args.engine)
    names = list(classes)

    settings = GameSettings.for_players(args.players)
    deals = [deal(args.seed + i, settings) for i in range(args.games)]
    print(f"players {args.players}, games {args.games}, rounds {args.rounds}, engine in use {ENGINE}; "
          f"medians of the rounds, [range by CPU time]")
    loops = interleaved(names, args.rounds,
                        lambda name: loop_round(classes[name], settings, deals, args.seed))
    turns = {o[0] for name in names for o in loops[name]}
    # The same deals and the same generator: every engine, every round, the same games.
    assert len(turns) == 1, f"the engines played different numbers of turns: {turns}"
    total = turns.pop()
    loop_rates = {}
    for name in names:
        cpu, wall, each = median_rates(args.games, loops[name])
        loop_rates[name] = (cpu, wall)
        print(f"per-move loop, {name:6s}: turns {total}, cpu {cpu:9.1f} games/s [{min(each):.1f}-{max(each):.1f}] "
              f"({total / args.games * cpu / 1e6:.2f} M moves/s, {1e6 / (total / args.games * cpu):.3f} us/move), "
              f"wall {wall:9.1f} games/s")
    if len(names) == 2:
        n, p = loop_rates["native"], loop_rates["pure"]
        print(f"per-move loop, native/pure: {n[0] / p[0]:.1f}x by CPU time, {n[1] / p[1]:.1f}x by the wall clock")

    if args.playouts:
        pdeals = [deal(args.seed + i, settings) for i in range(args.playout_games)]
        for policy in ("random", "greedy"):
            runs = interleaved(names, args.rounds,
                               lambda name: playout_round(classes[name], settings, pdeals, args.seed, policy))
            results = [o[0] for name in names for o in runs[name]]
            assert all(r == results[0] for r in results), f"the engines' {policy} playouts differ"
            rates = {}
            for name in names:
                cpu, wall, each = median_rates(args.playout_games, runs[name])
                rates[name] = (cpu, wall)
                print(f"whole {policy} playouts, {name:6s}: cpu {cpu:9.1f} games/s [{min(each):.1f}-{max(each):.1f}], "
                      f"wall {wall:9.1f} games/s")
            if len(names) == 2:
                n, p = rates["native"], rates["pure"]
                print(f"whole {policy} playouts, native/pure: {n[0] / p[0]:.1f}x by CPU time, "
                      f"{n[1] / p[1]:.1f}x by the wall clock")
            if policy == "random" and args.floor:
                floor(settings, pdeals, args.seed, args.rounds)
            if policy == "random" and len(names) == 2:
                n, p = rates["native"], loop_rates["pure"]
                print(f"whole random playouts (native) / per-move loop (pure): {n[0] / p[0]:.1f}x by CPU time, "
                      f"{n[1] / p[1]:.1f}x by the wall clock")

    last = ENGINE if ENGINE in loop_rates else names[0]
    cpu, wall = loop_rates[last]
    print(f"cpu: {total / args.games * cpu:.0f} moves/s, {cpu:.1f} games/s ({last}, per-move loop)")
    print(f"{wall:.1f} games/s")


if __name__ == "__main__":
    main()
