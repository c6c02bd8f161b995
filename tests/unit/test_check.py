"""One definition of each rule: ``GameState.check`` names the rule a move breaks (B1, T1, T2, E1-E3, M1-M4),
and the referee, the record reader, the view, the winners (C3) and the bots all use the engine's own.
"""

from __future__ import annotations

import logging
import random
from pathlib import Path

import pytest

import bots._eval
import bots.mcts
from arena import records
from arena.display import text as render
from arena.plan.schedule import Game
from arena.play.referee import play_game
from arena.plugins import make_bot_spec, parse_bot_spec
from arena.results import rows
from arena.rules import PASS, GameSettings, GameState, IllegalMove, Move, SeatView, deal, geometry, winners
from arena.rules.geometry import cell_index
from arena.rules.state import MoveSet, legal_in
from arena.rules.tiles import COLORS, TILE_NAMES, color_index, tile_index
from arena.rules.view import turn_view

BAD = Path(__file__).parents[1] / "fixtures" / "bad_bots.py"


def M(text: str) -> Move:
    return Move.parse(text)


def position(players: int, board: dict[str, str], racks: dict[str, list[str]], to_move: int = 0,
             played: dict[str, int] | None = None, history: list[tuple[Move, int]] | None = None,
             over: bool = False) -> GameState:
    """A hand-built state: ``board`` maps cells to colors, ``racks`` colors to tiles.

    A color with ``n`` tiles played keeps at most ``28 - n`` of its rack (a finished color holds 4).
    """
    settings = GameSettings.for_players(players)
    played = played or {}
    deals, drawn, rack_of = {}, {}, {}
    for color in settings.colors:
        name = COLORS[color]
        rack = [tile_index(t) for t in racks.get(name, [])] or list(range(5))
        order = [t for t in range(28) if t not in rack]
        n = played.get(name, 0)
        rack = rack[:28 - n]
        order = [t for t in range(28) if t not in rack]
        deals[color] = (*order[:n], *rack, *order[n:])
        drawn[color] = n + len(rack)
        rack_of[color] = rack
    boards = [0] * 5
    for cell, color in board.items():
        boards[color_index(color)] |= 1 << cell_index(cell)
    return GameState.restore(settings, deals, drawn, rack_of, boards, [[0] * 5 for _ in range(players)],
                             to_move, 0, history or [], over)


def broken(state: GameState, move: Move) -> IllegalMove:
    with pytest.raises(IllegalMove) as info:
        state.check(move)
    assert move not in state.legal_moves()
    return info.value


# -- GameState.check, rule by rule --------------------------------------------------------------


def test_check_returns_the_color_a_legal_move_captures() -> None:
    state = position(3, {"B2": "blue"}, {"red": ["B", "2", "$"]})
    assert state.check(M("red:B@B1")) == -1
    assert state.check(M("red:2@B2")) == color_index("blue")  # M3: a lone tile may be captured


@pytest.mark.parametrize("move, rule, message", [
    (Move(0, 0, 81), "B1", "there is no cell 81 (B1)"),
    (Move(0, 0, -1), "B1", "there is no cell -1 (B1)"),
    (Move(7, 0, 0), "T1", "there is no color 7 (T1)"),
    (Move(0, 28, 0), "T1", "there is no tile 28 (T1)"),
    (Move(0.0, 0, 0), "T1", "the color is a float, not an int (T1)"),  # type: ignore[arg-type]
    (Move(0, 0, True), "B1", "the cell is a bool, not an int (B1)"),  # type: ignore[arg-type]
    (M("blue:B@B1"), "T2", "blue is not a color of seat 0 (T2)"),
    (M("purple:B@B1"), "T2", "purple is not a color of seat 0 (T2)"),  # not in play at all
    (M("red:C@C1"), "M1", "red has no C on its rack (M1)"),
    (M("red:B@C1"), "M1", "B does not fit C1 (M1)"),
    (M("red:$@A1"), "M2", "A1 holds red's own tile (M2)"),
    (M("red:B@B5"), "M3", "capturing B5 would split blue's group (M3)"),
])
def test_check_names_the_rule_broken(move: Move, rule: str, message: str) -> None:
    state = position(3, {"A1": "red", "B4": "blue", "B5": "blue", "B6": "blue"}, {"red": ["B", "2", "$"]})
    error = broken(state, move)
    assert isinstance(error, ValueError)
    assert (error.rule, str(error)) == (rule, message)


def test_M2_check_refuses_the_seats_other_color() -> None:
    state = position(2, {"A1": "blue"}, {"red": ["A", "1", "$"]})
    error = broken(state, M("red:A@A1"))
    assert (error.rule, str(error)) == ("M2", "A1 holds blue, the other color of seat 0 (M2)")


def test_E1_check_refuses_a_finished_color() -> None:
    state = position(2, {}, {"red": ["A", "B", "C", "D"], "blue": ["A", "B", "C", "D", "E"]}, played={"red": 24})
    error = broken(state, M("red:A@A1"))
    assert (error.rule, str(error)) == ("E1", "red is finished (E1)")
    assert state.check(M("blue:A@A1")) == -1


def test_M4_a_pass_while_moves_exist_and_M6_a_pass_when_none_do() -> None:
    state = position(3, {}, {"red": ["A"]})
    error = broken(state, PASS)
    assert error.rule == "M4"
    assert str(error) == "seat 0 passes but has 9 legal move(s), e.g. red:A@A1 (M4)"
    # Every cell of row A holds red: nothing is legal, and the pass is (M6).
    blocked = position(3, {f"A{c}": "red" for c in "123456789"}, {"red": ["A"]})
    assert not blocked.legal_moves()
    assert blocked.check(PASS) == -1


def test_E2_E3_check_refuses_every_move_once_the_game_is_over() -> None:
    settings = GameSettings.for_players(3)
    state = GameState(settings, deal(4, settings))
    rng = random.Random(4)
    while not state.over:
        assert state.ended_by == ""
        state.push(state.legal_moves().choice(rng))
    assert state.ended_by == "E2"
    assert (broken(state, PASS).rule, str(broken(state, M("red:A@A1")))) == ("E2", "the game is over (E2)")
    passed = position(3, {}, {}, history=[(PASS, -1)], over=True)
    assert passed.ended_by == "E3" and broken(passed, PASS).rule == "E3"


@pytest.mark.slow
def test_check_agrees_with_legal_moves_on_crowded_positions() -> None:
    """Every move of every color, tile and cell: check passes exactly on the legal moves (M1-M3, T2, E1)."""
    rng = random.Random(19)
    every = [Move(c, t, x) for c in range(5) for t in range(28) for x in range(81)]
    for _ in range(12):
        players = rng.choice((2, 3, 4, 5))
        settings = GameSettings.for_players(players)
        board = {geometry.CELL_NAMES[x]: COLORS[rng.choice(settings.colors)] for x in range(81) if rng.random() < 0.6}
        racks = {COLORS[c]: rng.sample(TILE_NAMES, 5) for c in settings.colors}
        played = {COLORS[c]: 24 for c in settings.colors if rng.random() < 0.15}
        state = position(players, board, racks, rng.randrange(players), played)
        legal = set(state.legal_moves())
        allowed = set()
        for move in every:
            try:
                captured = state.check(move)
            except IllegalMove as exc:
                assert exc.rule in {"T2", "E1", "M1", "M2", "M3"}
                continue
            assert captured == state.color_at(move.cell)
            allowed.add(move)
        assert allowed == legal


# -- one membership test -----------------------------------------------------------------------


class _SubMove(Move):
    pass


def test_legal_in_is_the_one_membership_test() -> None:
    state = position(3, {}, {"red": ["A"]})
    moves = state.legal_moves()
    move = M("red:A@A1")
    assert legal_in(moves.options, move) is move and move in moves
    lookalikes = [tuple(move), _SubMove(*move), Move(0, 0, 0.0), Move(False, 0, 0), Move(0, 0, 81), "red:A@A1"]
    for value in lookalikes:
        assert legal_in(moves.options, value) is None
        assert value not in moves


# -- the referee's faults name the rule --------------------------------------------------------


@pytest.mark.parametrize("name, rule", [("IllegalBot", "M1"), ("OtherColorBot", "T2"), ("PassingBot", "M4")])
def test_referee_faults_name_the_rule_in_the_record_and_the_log(name: str, rule: str, caplog) -> None:
    spec = make_bot_spec(f"{BAD}:{name}", {"after": 1})
    with caplog.at_level(logging.INFO, logger="arena.play.referee"):
        outcome = play_game([spec, parse_bot_spec("random")], 3, isolation="none")
    (fault,) = outcome.record["faults"]
    assert fault["kind"] == "illegal" and fault["message"].endswith(f" ({rule})")
    logged = [r.getMessage() for r in caplog.records if " fault at move " in r.getMessage()]
    assert len(logged) == 1 and logged[0].endswith(fault["message"])


# -- the record reader says what the engine says -----------------------------------------------


def test_record_reader_rejects_with_the_engines_diagnosis() -> None:
    settings = GameSettings.for_players(3)
    state = GameState(settings, deal(5, settings))
    rng = random.Random(5)
    while not state.over:
        state.push(state.legal_moves().choice(rng))
    record = records.build_record(state, ["a", "b", "c"], seed=5)
    game = GameState(settings, deal(5, settings))
    for move, _ in state.history[:20]:
        game.push(move)
    # Move 20 of the record replaced by one onto a cell its tile does not fit.
    move = state.history[20][0]
    wrong = next(Move(move.color, move.tile, x) for x in range(81) if Move(move.color, move.tile, x) not in
                 game.legal_moves() and game.color_at(x) < 0)
    record["moves"][20] = {**record["moves"][20], "cell": geometry.CELL_NAMES[wrong.cell]}
    record["moves"][20].pop("capture", None)
    with pytest.raises(IllegalMove) as info:
        game.check(wrong)
    with pytest.raises(records.RecordError) as read:
        records.replay(record)
    assert str(read.value) == f"move 20: {info.value}"


# -- one view, one winner rule, no copies of the engine in the bots ---------------------------


def test_the_view_is_built_in_one_place() -> None:
    settings = GameSettings.for_players(2)
    state = GameState(settings, deal(8, settings))
    for _ in range(7):
        state.push(state.legal_moves()[0])
    moves = state.legal_moves()
    made = turn_view(state, state.to_move, moves, settings, tuple(map(tuple, state.captures)))
    general = SeatView.of(state, state.to_move)
    if type(moves) is MoveSet:
        assert made.legal is moves  # handed over as it is: the referee keeps its own record of the options
    else:  # the native engine's: a bot is handed the pure MoveSet of the same moves
        assert type(made.legal) is MoveSet and made.legal.options == moves.options
        assert made.legal.open_mask == moves.open_mask and len(made.legal) == len(moves)
    assert made == general and list(made.legal) == list(general.legal)  # every field, the moves by value
    assert made.clock is general.clock is None  # a clock is the referee's to tell (arena.play.clock)


def test_C3_winners_are_defined_once() -> None:
    settings = GameSettings.for_players(4, scoring="blockers")
    outcome = play_game(["random"] * 4, 12, scoring="blockers", isolation="none")
    result = outcome.result
    ranks = [row.blockers_rank for row in result]
    expected = [seat for seat, rank in enumerate(ranks) if rank == 1]
    assert winners(result, "blockers") == expected
    assert winners([row.to_dict() for row in result], "blockers") == expected
    assert outcome.winners == outcome.state.winners() == render.winners(result, settings.scoring) == expected
    text = rows.game_rows_text(Game("g", 0, 0, 0, 12, ()), list("abcd"), ["random"] * 4, result, outcome.turns, (),
                               [rows.SeatTime(x) for x in outcome.seconds], "blockers")
    won = [int(line.split(",")[rows.COLUMNS.index("won")]) for line in text.splitlines()]
    assert [seat for seat, flag in enumerate(won) if flag] == expected


def test_bots_use_the_engines_capture_rule_and_geometry() -> None:
    assert not hasattr(bots.mcts, "_capturable") and not hasattr(bots.mcts, "_SIDES")  # M3 from the state
    assert bots._eval.spread is geometry.spread  # B3 from the geometry


def test_dead_code_is_gone() -> None:
    import arena.play.referee

    assert not hasattr(geometry, "RING")
    assert not hasattr(rows, "TIMING_COLUMNS")
    assert not hasattr(arena.play.referee, "FAULT_KINDS")
    assert not hasattr(rows, "game_rows")  # the test oracle of game_rows_text lives in tests/oracles.py
    assert not hasattr(arena.play.referee, "_legal_or_none")  # legal_in is the one membership test


def test_M3_removable_at_is_removable_for_one_tile() -> None:
    rng = random.Random(3)
    for _ in range(300):
        board = sum(1 << x for x in range(81) if rng.random() < rng.choice((0.3, 0.5, 0.7)))
        free = geometry.capturable_mask(board)
        for cell in geometry.iter_cells(board):
            assert geometry.capturable_at(board, cell) == bool(free >> cell & 1)


def test_the_referees_record_pieces_are_written_by_records() -> None:
    faults = [{"seat": 1, "move": 4, "kind": "illegal", "message": "R\u00e9my \"x\" (M1)"}]
    extra = {"game_id": "t0-d1", "tournament": {"name": "n\u00e9"}}
    tails = [records.dumps_line({"spec": "random", "options": {}})[1:], records.dumps_line({"spec": "x", "options":
             {"a": 1.5}})[1:]]
    text = records.referee_members(tails, 2.5, faults, extra)
    whole = {"bots": [{"seat": 0, "spec": "random", "options": {}}, {"seat": 1, "spec": "x", "options": {"a": 1.5}}],
             "time_limit": 2.5, "faults": faults, **extra}
    assert "{" + text + "}" == records.dumps_line(whole)
    assert records.referee_members([], None, [], {}) == '"bots":[],"time_limit":null,"faults":[]'
