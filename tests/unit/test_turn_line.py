"""The turn line built in C (``arena.rules._native.TurnLine``, through ``protocol.TurnWriter``) against
the one built in Python (``protocol.PyTurnWriter``), the reference: the same bytes.

Seeded games of 2-5 players under both scorings, played at random or taking captures, are played
with both writers on the same state; at every turn each writer writes the line of every seat (the
legal moves are the seat to move's), with and without a clock, under time limits that are whole,
fractional, tiny, huge or infinite, and with writers that skip turns or start late, so that a line
catches up on several entries of the history at once.  Games with passes (M6) are the golden
five-player game's hand-made deal, played on from its first pass.  A line that differs by one byte
fails, naming the game, the turn and the first byte where the two part.
"""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from pathlib import Path

import pytest

from arena import records
from arena.rules import PASS, GameSettings, GameState, Move, TurnClock, deal
from arena.rules import engine as native
from arena.wire import protocol

if native.ENGINE != "native":
    pytest.skip(f"the native engine is not in use: {native.WHY}", allow_module_level=True)

import test_native  # noqa: E402  (the test module next to this one: its capture-taking play)
import test_properties  # noqa: E402  (its crowded positions, where passes are common)

GOLDEN_PASSES = Path(__file__).parents[1] / "golden" / "5p-passes.json"
#: Time limits as the referee may tell them: whole, fractional, repeating, tiny, huge (written with exponents), an
#: int, none.
TIMES = (1.0, 2.5, 2.0 / 3.0, 1e-7, 123456789.123, 1e22, 5e-324, 3, 0.1 + 0.2, math.inf)


def clock_of(rng: random.Random, time: float) -> TurnClock | None:
    """A seat's clock at its turn, or None (a game without a clock) one time in three."""
    if rng.random() < 1 / 3:
        return None
    return TurnClock(time, rng.choice((None, rng.uniform(0, 600), 60.0)), rng.choice((0.0, 0.5, rng.random())),
                     rng.choice((None, 3.0, rng.uniform(0, 10))), rng.choice((None, 1, rng.randrange(40))))


def parting(c_line: bytes, py_line: bytes) -> str:
    """Where two lines part: the first byte that differs, with the text around it in each."""
    at = next((i for i, (a, b) in enumerate(zip(c_line, py_line)) if a != b), min(len(c_line), len(py_line)))
    return (f"the lines part at byte {at} of {len(c_line)} (C) / {len(py_line)} (Python): "
            f"C {c_line[max(0, at - 40):at + 40]!r} / Python {py_line[max(0, at - 40):at + 40]!r}")


class Writers:
    """A C writer and a Python writer of one game, compared at each turn they are asked."""

    def __init__(self, state: GameState, name: str, rng: random.Random, seen: Counter[str]) -> None:
        self.c, self.py = protocol.TurnWriter(state), protocol.PyTurnWriter(state)
        assert self.c._native is not None, "the C writer is not in use for a native state"
        self.state, self.name, self.rng, self.seen = state, name, rng, seen

    def compare(self) -> None:
        """Every seat's line at this turn, by both writers."""
        state, rng, seen = self.state, self.rng, self.seen
        moves = state.legal_moves()
        for seat in range(state.settings.players):
            time = rng.choice(TIMES)
            clock = clock_of(rng, time)
            c_line, py_line = self.c.line(seat, moves, time, clock), self.py.line(seat, moves, time, clock)
            assert c_line == py_line, f"{self.name}, move {len(state.history)}, seat {seat}: " + parting(c_line, py_line)
            seen["lines"] += 1
            seen["with a clock"] += clock is not None
            seen["no time limit"] += not math.isfinite(time)
        history = state.history
        seen["lines after a pass"] += state.settings.players * any(move.is_pass for move, _ in history)
        seen["lines after a capture"] += state.settings.players * any(captured >= 0 for _, captured in history)


def play(state: GameState, writers: Writers, rng: random.Random, style: str, every: float = 1.0) -> None:
    """Play ``state`` to its end, the writers compared at a turn with chance ``every`` (and at the end)."""
    while not state.over:
        if rng.random() < every:
            writers.compare()
        moves = state.legal_moves()
        move = PASS
        if moves:
            captures = test_native.capture_moves(moves.options, state.occupied) if style == "captures" else []
            move = captures[rng.randrange(len(captures))] if captures else moves.choice(rng)
        state.push(move)
    writers.compare()


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_c_line_is_the_python_line_in_seeded_games(players: int) -> None:
    seen: Counter[str] = Counter()
    for seed in range(60):
        rng = random.Random(seed * 10 + players)
        settings = GameSettings.for_players(players, ("uptown", "blockers")[seed % 2],
                                            "opponent" if players == 2 and seed % 4 == 1 else "color")
        state = GameState(settings, deal(seed, settings))
        # A third of the writers are made late, a third skip turns: a line then catches up on many entries.
        late = seed % 3 == 1
        if late:
            for _ in range(rng.randrange(1, 40)):
                state.push(state.legal_moves().choice(rng))
        writers = Writers(state, f"{players} players, seed {seed}", rng, seen)
        play(state, writers, rng, ("random", "captures")[seed % 2], 0.4 if seed % 3 == 2 else 1.0)
    assert seen["lines"] > 60 * 50 * players
    assert seen["with a clock"] > seen["lines"] / 2 and seen["no time limit"] > seen["lines"] / 20
    assert seen["lines after a capture"] > seen["lines"] / 2


def test_the_c_line_is_the_python_line_in_games_with_passes() -> None:
    """The golden game's hand-made deal, steered into passes late in the game: its moves to a point,
    then seeded play to the end (passes come at its end)."""
    game = records.replay(json.loads(GOLDEN_PASSES.read_text()))
    seen: Counter[str] = Counter()
    for seed in range(40):
        rng = random.Random(seed)
        state = GameState(game.settings, game.deals)
        writers = Writers(state, f"the golden five-player deal, seed {seed}", rng, seen)
        # Half the games are compared at every turn, half now and then: a line catches up on a pass.
        every = 1.0 if seed % 2 else 0.3
        for move in game.moves[:95 + seed % 20]:
            if rng.random() < every:
                writers.compare()
            state.push(move)
        play(state, writers, rng, "random", every)
        seen["games with a pass"] += any(move.is_pass for move, _ in state.history)
    assert seen["games with a pass"] >= 12 and seen["lines after a pass"] >= 50


def test_a_pass_in_a_history_that_does_not_replay_from_the_deal_is_refused_by_both() -> None:
    """A position set up with restore (a crowded board, far from its deal): its first moves cannot be played
    from the deal, so neither writer can tell who passed.  Both refuse the line (the Python one with the
    rules' IllegalMove); before the first pass, both write the same line."""
    rng = random.Random(5)
    refused = 0
    while refused < 5:
        state = test_properties.striped_position(rng)
        writers = Writers(state, "a crowded position", rng, Counter())
        while not state.over and not any(move.is_pass for move, _ in state.history):
            writers.compare()
            moves = state.legal_moves()
            state.push(moves.choice(rng) if moves else PASS)
        if state.over:
            continue
        moves = state.legal_moves()
        for line in (writers.c.line, writers.py.line):
            with pytest.raises(ValueError):
                line(state.to_move, moves, 1.0)
        refused += 1


def test_a_redealt_pile_is_played_from_as_it_is_now() -> None:
    """set_next_draw (the OpenSpiel game's chance nodes) changes the tiles not drawn yet, and a writer made
    before it replays the game from the deal as it is at the line.  The golden game with passes, its piles
    dealt upside down above the opening racks and set right one draw at a time: both writers agree on
    who passed."""
    game = records.replay(json.loads(GOLDEN_PASSES.read_text()))
    upside_down = {c: (*tiles[:5], *reversed(tiles[5:])) for c, tiles in game.deals.items()}
    state = GameState(game.settings, upside_down)
    writers = Writers(state, "the golden deal, redealt", random.Random(1), Counter())
    for move in game.moves:
        writers.compare()
        if not move.is_pass and state.drawn[move.color] < len(game.deals[move.color]):
            state.set_next_draw(move.color, game.deals[move.color][state.drawn[move.color]])
        state.push(move)
    writers.compare()
    assert state.deals == GameState(game.settings, game.deals).deals and state.history[-1][0].is_pass


def test_a_move_set_of_the_pure_engine_is_written_by_the_python_writer() -> None:
    """The C writer takes the native engine's MoveSet; handed another (a pure one), TurnWriter writes the
    line in Python, the same bytes."""
    settings = GameSettings.for_players(3)
    state = GameState(settings, deal(4, settings))
    for _ in range(10):
        state.push(state.legal_moves().choice(random.Random(2)))
    moves = state.legal_moves()
    pure = test_native.Pure.restore(settings, {c: state.deals[c] for c in settings.colors}, state.drawn,
                                    state.racks, state.boards, state.captures, state.to_move, state.passes,
                                    list(state.history)).legal_moves()
    assert type(pure) is not native.NativeMoveSet and list(pure) == list(moves)
    writer = protocol.TurnWriter(state)
    assert writer.line(1, pure, 2.0) == writer.line(1, moves, 2.0) == protocol.PyTurnWriter(state).line(1, moves, 2.0)


def test_a_state_of_the_pure_engine_gets_the_python_writer() -> None:
    settings = GameSettings.for_players(4)
    state = test_native.Pure(settings, deal(3, settings))
    assert protocol.TurnWriter(state)._native is None
    state.push(Move(*next(iter(state.legal_moves()))))
    assert protocol.TurnWriter(state).line(1, state.legal_moves(), 1.0) == protocol.PyTurnWriter(state).line(
        1, state.legal_moves(), 1.0)
