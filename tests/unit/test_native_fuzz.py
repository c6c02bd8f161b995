"""Hypothesis at the native engine's boundary: whatever a caller hands the C code, the answer is the pure
engine's, or a one-line TypeError/ValueError, and never a crash of the interpreter.

The cases run in this process on purpose: a segmentation fault kills the test run, which fails it.
Bad deals get the pure engine's ValueError message; a move pushed natively plays exactly when the pure
engine's check allows it, and is refused with the same IllegalMove (T1, B1, T2, E1-E3, M1-M4) otherwise;
restore, MoveSet and the geometry functions refuse what is out of range.
"""

from __future__ import annotations

import enum
import pickle
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.rules import PASS, GameSettings, IllegalMove, Move, deal, geometry
from arena.rules import engine as native
from arena.rules import state as pure
from arena.rules.rng import SplitMix64
from tests.fuzzing import examples

if native.ENGINE != "native":
    pytest.skip(f"the native engine is not in use: {native.WHY}", allow_module_level=True)

_native = native._native
Native = native.GameState
Pure = pure.GameState
FUZZ = settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])


class Small(int):
    """An int subclass: code of its own could run where a plain int is read."""


class Named(enum.IntEnum):
    RED = 0
    BLUE = 1


class OtherMove(Move):
    """A Move subclass."""


class Backwards(tuple):
    """A tuple whose iteration is not its storage (what the pure engine unpacks is what is iterated)."""

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(tuple(reversed(tuple.__getitem__(self, slice(None)))))


JUNK = st.one_of(
    st.none(), st.text(max_size=3), st.floats(allow_nan=True).filter(lambda x: not float(x).is_integer()),
    st.integers(min_value=28, max_value=2**70), st.integers(min_value=-(2**70), max_value=-1),
    st.sampled_from([2**63, 2**64, -(2**63) - 1, 10**30, (), [], b"x", 1j]),
)
ANY_INT = st.one_of(st.integers(-3, 90), st.integers(), st.sampled_from([2**31, 2**63 - 1, 2**63, 2**64, 2**127]))


def outcome(call: Any, *args: Any) -> tuple[str, Any]:
    try:
        return "ok", call(*args)
    except IllegalMove as exc:
        return "IllegalMove", (exc.rule, str(exc))
    except (TypeError, ValueError, OverflowError) as exc:
        return type(exc).__name__, str(exc)


def one_line(kind_message: tuple[str, Any]) -> None:
    kind, message = kind_message
    if kind != "ok":
        assert isinstance(message, (str, tuple)) and "\n" not in str(message)


def same_state(a: Any, b: Any) -> None:
    for name, x, y in zip(PART_NAMES, state_parts(a), state_parts(b)):
        assert x == y, name


PART_NAMES = ("racks", "boards", "drawn", "played", "captures", "to_move", "passes", "over", "history", "legal")


def state_parts(state: Any) -> tuple[Any, ...]:
    return (tuple(map(tuple, state.racks)), tuple(state.boards), tuple(state.drawn), tuple(state.played),
            tuple(map(tuple, state.captures)), state.to_move, state.passes, state.over,
            tuple((tuple(move), victim) for move, victim in state.history),  # each move as it unpacks
            state.legal_moves().options)


# -- positions to fuzz at --------------------------------------------------------------------------


def positions() -> list[tuple[Any, Any]]:
    """(pure, native) pairs: openings, middle games, a finished game, a position with only a pass."""
    out = []
    for players in (2, 3, 4, 5):
        settings_ = GameSettings.for_players(players)
        for plies in (0, 17, 60, 1000):
            pair = [Pure(settings_, deal(players, settings_)), Native(settings_, deal(players, settings_))]
            rng = random.Random(players)
            while len(pair[0].history) < plies and not pair[0].over:
                move = pair[0].legal_moves().choice(rng)
                for state in pair:
                    state.push(move)
            out.append((pair[0], pair[1]))
    # Seat 0 has nothing legal: its tiles fit only row A, which it fills itself.
    settings_ = GameSettings.for_players(3)
    deals = {c: tuple(range(28)) for c in settings_.colors}
    for cls in (Pure, Native):
        out.append(cls.restore(settings_, deals, {0: 5, 1: 5, 2: 5}, {0: [0] * 5, 1: list(range(5)),
                                                                      2: list(range(5))},
                               [(1 << 9) - 1, 0, 0], [[0] * 5] * 3, 0, 0, []))
    out[-2:] = [(out[-2], out[-1])]
    return out


POSITIONS = positions()


def moves_from(legal: list[Move]) -> st.SearchStrategy[Any]:
    """Any value at all, and legal moves with a field swapped for a lookalike (bool, int subclass, float)."""
    field = st.one_of(ANY_INT, st.booleans(), JUNK, st.builds(Small, st.integers(-2, 90)),
                      st.sampled_from(list(Named)))
    lookalike = st.builds(lambda m, i, kind: Move(*[(kind(v) if j == i else v) for j, v in enumerate(m)]),
                          st.sampled_from(legal or [PASS]), st.integers(0, 2),
                          st.sampled_from([bool, Small, float, lambda v: v, lambda v: v + 2**64]))
    return st.one_of(
        st.builds(Move, field, field, field),
        st.builds(Move, st.integers(-1, 5), st.integers(-1, 28), st.integers(-1, 81)),
        lookalike,
        st.sampled_from(legal or [PASS]),
        st.builds(lambda m: OtherMove(*m), st.sampled_from(legal or [PASS])),
        st.builds(lambda m: tuple(m), st.sampled_from(legal or [PASS])),
        st.builds(lambda m: Backwards(reversed(m)), st.sampled_from(legal or [PASS])),
        st.builds(lambda m: list(m), st.sampled_from(legal or [PASS])),
        st.sampled_from([PASS, Move(-1, 5, 999), Move(-1, "x", None), Move(-2, 0, 0), Move(-(2**70), 0, 0),
                         (), (0, 0), (0, 0, 0, 0), "red:A@A1", None, 0, 1.5]),
        st.tuples(field, field, field),
    )


@FUZZ
@given(data=st.data())
@pytest.mark.slow
def test_a_pushed_value_plays_as_the_pure_engine_checks_it_or_is_refused_alike(data: st.DataObject) -> None:
    index = data.draw(st.integers(0, len(POSITIONS) - 1), label="position")
    pure_state, native_state = (s.copy() for s in POSITIONS[index])
    value = data.draw(moves_from(list(pure_state.legal_moves())), label="value")
    expected = outcome(pure_state.check, value)
    assert outcome(native_state.check, value) == expected
    got = outcome(native_state.push, value)
    one_line(got)
    if got[0] == "TypeError" and not (isinstance(value, tuple) and len(tuple(value)) == 3):
        return  # the native push takes tuples of three fields only
    if expected[0] == "ok":
        victim = pure_state.push(value)
        assert got == ("ok", victim)
        same_state(native_state, pure_state)
    elif expected[0] == "IllegalMove":
        assert got == expected
        same_state(native_state, pure_state)  # nothing changed
    else:  # the pure check could not read it as a move at all
        assert got[0] == "TypeError" or got == expected


@FUZZ
@given(data=st.data())
def test_push_pass_is_refused_alike_while_a_move_is_legal(data: st.DataObject) -> None:
    pure_state, native_state = (s.copy() for s in data.draw(st.sampled_from(POSITIONS)))
    expected = outcome(pure_state.check, PASS)
    got = outcome(native_state.push_pass)
    assert got == (("ok", None) if expected[0] == "ok" else expected)


# -- deals -----------------------------------------------------------------------------------------


@st.composite
def bad_deals(draw: st.DrawFn) -> tuple[GameSettings, dict[Any, Any]]:
    players = draw(st.integers(2, 5))
    settings_ = GameSettings.for_players(players)
    deals: dict[Any, Any] = {c: list(t) for c, t in deal(draw(st.integers(0, 50)), settings_).items()}
    retyped: dict[int, Any] = {}
    for _ in range(draw(st.integers(1, 4))):
        color = draw(st.sampled_from(sorted(deals) or [0]))
        kind = draw(st.sampled_from(["drop", "add", "duplicate", "junk", "huge", "missing", "extra", "type"]))
        tiles = deals.setdefault(color, list(range(28))) if kind != "missing" else []
        if kind == "drop" and tiles:
            del tiles[draw(st.integers(0, len(tiles) - 1))]
        elif kind == "add":
            tiles.append(draw(st.integers(0, 27)))
        elif kind == "duplicate" and tiles:
            tiles[draw(st.integers(0, len(tiles) - 1))] = tiles[0]
        elif kind == "junk" and tiles:
            tiles[draw(st.integers(0, len(tiles) - 1))] = draw(JUNK)
        elif kind == "huge" and tiles:
            tiles[draw(st.integers(0, len(tiles) - 1))] = draw(st.sampled_from([2**64, 2**64 + 3, -(2**100), 2**31]))
        elif kind == "missing":
            deals.pop(color, None)
        elif kind == "extra":
            deals[draw(st.sampled_from([c for c in range(7) if c not in deals] or [9]))] = list(range(28))
        elif kind == "type" and color in deals:
            retyped[color] = draw(st.sampled_from([tuple, lambda t: "x" * len(t), lambda t: None, lambda t: 5]))
    for color, kind_of in retyped.items():
        if color in deals:
            deals[color] = kind_of(deals[color])
    # Keys in any order: the first bad color named is the first in the mapping's order.
    keys = list(deals)
    order = draw(st.permutations(keys))
    return settings_, {k: deals[k] for k in order}


@FUZZ
@given(bad_deals())
@pytest.mark.slow
def test_a_bad_deal_gets_the_pure_engines_one_line_error(case: tuple[GameSettings, dict[Any, Any]]) -> None:
    settings_, deals = case
    expected = outcome(lambda: Pure(settings_, deals).deals)
    got = outcome(lambda: Native(settings_, deals).deals)
    one_line(got)
    if expected[0] == "TypeError":  # the pure engine cannot read it at all (a deal of None)
        assert got[0] in ("TypeError", "ValueError")
    else:
        assert got == expected


# -- restore ---------------------------------------------------------------------------------------


PART = st.sampled_from(["drawn", "racks", "boards", "captures", "to_move", "passes", "history", "over", "rack_tile",
                        "board_bits"])


@FUZZ
@given(data=st.data())
@pytest.mark.slow
def test_restore_with_parts_out_of_range_refuses_or_plays_on_without_a_crash(data: st.DataObject) -> None:
    pure_state, state = data.draw(st.sampled_from(POSITIONS))
    settings_ = state.settings
    colors = settings_.colors
    args: dict[str, Any] = {
        "deals": {c: state.deals[c] for c in colors}, "drawn": {c: state.drawn[c] for c in colors},
        "racks": {c: list(state.racks[c]) for c in colors}, "boards": list(state.boards),
        "captures": [list(r) for r in state.captures], "to_move": state.to_move, "passes": state.passes,
        "history": list(state.history), "over": state.over,
    }
    for _ in range(data.draw(st.integers(1, 3))):
        part = data.draw(PART)
        color = data.draw(st.sampled_from(colors))
        junk = data.draw(st.one_of(ANY_INT, JUNK, st.booleans()))
        if part == "drawn":
            args["drawn"][color] = junk
        elif part == "racks":
            args["racks"][color] = data.draw(st.lists(st.one_of(st.integers(0, 27), ANY_INT, JUNK), max_size=8))
        elif part == "rack_tile" and args["racks"][color]:
            args["racks"][color][0] = junk
        elif part == "boards":
            args["boards"][data.draw(st.integers(0, 4))] = junk
        elif part == "board_bits":
            index, bit = data.draw(st.integers(0, 4)), data.draw(st.integers(0, 90))
            if type(args["boards"][index]) is int:  # not one already made junk by a "boards" part
                args["boards"][index] |= 1 << bit
        elif part == "captures":
            if data.draw(st.booleans()):
                args["captures"] = args["captures"][:-1] + [[junk] * data.draw(st.integers(0, 6))]
            else:
                args["captures"][0][color] = junk
        elif part == "history":
            args["history"].append(data.draw(st.sampled_from([(PASS, -1), None, "x", (Move(0, 0, 0), 9)])))
        else:
            args[part] = junk
    got = outcome(lambda: Native.restore(settings_, **args))
    one_line(got)
    if got[0] != "ok":
        assert got[0] in ("TypeError", "ValueError")
        return
    restored = got[1]
    # A position the native engine took: every call into C answers, none crashes.
    moves = restored.legal_moves()
    assert len(list(moves)) == len(moves)
    for policy in ("random", "greedy"):
        rng = SplitMix64(data.draw(st.integers(0, 2**64 - 1)))
        assert len(restored.playout(rng, policy)) == settings_.players
    twin = pickle.loads(pickle.dumps(restored)) if all(type(h) is tuple for h in restored.history) else restored.copy()
    for _ in range(300):
        if twin.over:
            break
        legal = twin.legal_moves()
        twin.push(legal.choice(random.Random(1)) if legal else PASS)
    assert twin.over or len(twin.history) >= 300
    restored._keys()


# -- MoveSet and the geometry ------------------------------------------------------------------------


OPTION = st.one_of(
    st.tuples(st.integers(0, 4), st.integers(0, 27), st.integers(0, 2**81 - 1)),
    st.tuples(ANY_INT, ANY_INT, st.one_of(ANY_INT, JUNK)),
    st.one_of(JUNK, st.tuples(st.integers(0, 4)), st.lists(st.integers(0, 3), max_size=4)),
)


@FUZZ
@given(st.lists(OPTION, max_size=12), st.one_of(st.none(), ANY_INT, JUNK), st.integers(0, 2**32))
@pytest.mark.slow
def test_a_moveset_from_junk_options_refuses_or_acts_as_the_pure_one(options: list[Any], open_cells: Any,
                                                                     seed: int) -> None:
    got = outcome(_native.MoveSet, options, open_cells)
    one_line(got)
    if got[0] != "ok":
        assert got[0] in ("TypeError", "ValueError")
        return
    moves = got[1]
    reference = pure.MoveSet(options)
    assert moves.options == reference.options and len(moves) == len(reference) and bool(moves) == bool(reference)
    listed = list(reference)
    assert list(moves) == listed and list(moves.copy()) == listed
    assert [moves[i] for i in range(len(moves))] == listed
    a, b = random.Random(seed), random.Random(seed)
    assert [moves.choice(a) for _ in range(5)] == [reference.choice(b) for _ in range(5)]
    for probe in listed[:3] + [PASS, Move(0, 0, 0), Move(0, 0, 2**70), Move(True, 0, 0)]:
        assert (probe in moves) == (probe in reference)
    for color, tile in ((0, 0), (4, 27), (-1, 3)):
        assert moves.targets_mask(color, tile) == reference.targets_mask(color, tile)
    one_line(outcome(moves.targets_mask, 2**80, "x"))


@FUZZ
@given(st.one_of(st.integers(0, 2**81 - 1), ANY_INT, JUNK, st.booleans()))
@pytest.mark.slow
def test_removable_and_count_groups_take_boards_only(board: Any) -> None:
    for native_fn, pure_fn in ((_native.capturable_mask, geometry.capturable_mask), (_native.count_groups, geometry.count_groups)):
        got = outcome(native_fn, board)
        one_line(got)
        if type(board) is int and 0 <= board < 2**81:
            assert got == ("ok", pure_fn(board))
        elif got[0] != "ok":
            assert got[0] in ("TypeError", "ValueError")
        else:  # bool: an int of 0 or 1
            assert got == ("ok", pure_fn(int(board)))


@FUZZ
@given(st.one_of(ANY_INT, JUNK), st.one_of(ANY_INT, JUNK), st.one_of(st.integers(-5, 50), JUNK))
@pytest.mark.slow
def test_the_generator_functions_refuse_junk(state: Any, n: Any, count: Any) -> None:
    got = outcome(_native.below, state, n, count)
    one_line(got)
    if got[0] == "ok":
        draws, after = got[1]
        rng = SplitMix64(state)
        assert draws == [rng.below(n) for _ in range(count)] and after == rng.state
    else:
        assert got[0] in ("TypeError", "ValueError", "OverflowError")


class FakeRng:
    def __init__(self, state: Any) -> None:
        self.state = state


@FUZZ
@given(st.one_of(ANY_INT, JUNK), st.one_of(st.sampled_from(["random", "greedy"]), JUNK))
@pytest.mark.slow
def test_a_playout_refuses_a_generator_or_policy_it_cannot_use(state: Any, policy: Any) -> None:
    native_state = POSITIONS[5][1]
    got = outcome(native_state.playout, FakeRng(state), policy)
    one_line(got)
    if got[0] == "ok":
        assert type(state) is int and 0 <= state < 2**64 and policy in ("random", "greedy")
        reference = SplitMix64(state)
        assert got[1] == native_state.playout(reference, policy)
    else:
        assert got[0] in ("TypeError", "ValueError")


# -- what a caller's own code may do in the middle of a call ----------------------------------------


def test_options_changed_while_they_are_read_cannot_crash() -> None:
    """An int subclass whose comparison empties the list being read (a use after free, if it were read in place)."""
    options: list[Any] = []

    class Shrinking(int):
        def __lt__(self, other: object) -> bool:
            options.clear()
            return int(self) < other  # type: ignore[operator]

        __gt__ = __le__ = __ge__ = __lt__

    options.extend([(0, 1, 1), (0, 2, Shrinking(3))] + [(0, 3, 2)] * 8)
    got = outcome(_native.MoveSet, options, None)
    assert got[0] in ("ok", "TypeError", "ValueError")
    if got[0] == "ok":
        assert len(got[1]) == 1 + 2 + 8
