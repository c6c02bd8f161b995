"""The cost of checking a move: whole random games through ``push`` (checked) and ``push_unchecked``, both engines.

    python benchmarks/push_check.py --games 300 --rounds 5

Every game is played turn by turn: ``legal_moves()``, one move drawn with
``MoveSet.choice`` from a ``random.Random``, then pushed (PASS when nothing is
legal).  The same games are played with ``push`` (which checks the move, M1-M6
and E1, and raises IllegalMove) and with ``push_unchecked`` (the caller vouches
for it), on the native and the pure engine; the clock runs over the whole
loop, move generation included, as a caller sees it.  Also timed: the pushes
alone, replaying the recorded moves of the same games on fresh states (no move
generation), which is the share the check adds to ``push`` itself.  Figures
are the median of ``--rounds`` rounds by CPU time.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from arena.rules import GameSettings, deal
from arena.rules import engine as native_engine
from arena.rules.moves import PASS, Move
from arena.rules.state import GameState as PureGameState


def playout(cls: Any, settings: GameSettings, deals: dict[int, tuple[int, ...]], rng: random.Random,
            checked: bool) -> list[Move]:
    state = cls(settings, deals)
    push = state.push if checked else state.push_unchecked
    while not state.over:
        moves = state.legal_moves()
        push(moves.choice(rng) if moves else PASS)
    return [move for move, _ in state.history]


def replay(cls: Any, settings: GameSettings, deals: dict[int, tuple[int, ...]], moves: list[Move],
           checked: bool) -> None:
    state = cls(settings, deals)
    push = state.push if checked else state.push_unchecked
    for move in moves:
        push(move)


def timed(fn: Any) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    settings = GameSettings.for_players(args.players)
    deals = [deal(args.seed + i, settings) for i in range(args.games)]
    engines = {"pure": PureGameState}
    if native_engine.ENGINE == "native":
        engines = {"native": native_engine.GameState, **engines}
    recorded = [playout(PureGameState, settings, d, random.Random(args.seed + i), False) for i, d in enumerate(deals)]
    turns = sum(map(len, recorded))
    print(f"{args.games} games of {args.players} players, {turns} turns; median of {args.rounds} rounds, CPU time")
    for name, cls in engines.items():
        for what in ("games", "pushes"):
            figures = {}
            for checked in (False, True):
                if what == "games":
                    def run() -> None:
                        for i, d in enumerate(deals):
                            playout(cls, settings, d, random.Random(args.seed + i), checked)
                else:
                    def run() -> None:
                        for d, moves in zip(deals, recorded):
                            replay(cls, settings, d, moves, checked)
                figures[checked] = statistics.median(timed(run) for _ in range(args.rounds))
            plain, checked_time = figures[False], figures[True]
            label = "whole games (legal_moves + choice + push)" if what == "games" else "pushes alone (replay)"
            print(f"{name:6} {label:42} unchecked {plain / turns * 1e6:6.2f} µs/turn   checked "
                  f"{checked_time / turns * 1e6:6.2f} µs/turn   check costs {100 * (checked_time / plain - 1):+5.1f}%")


if __name__ == "__main__":
    main()
