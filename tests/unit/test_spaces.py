"""The fixed action space and the observation (arena.spaces): ids, masks, tensors, both engines alike."""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest

from arena.rules import GameSettings, Move, SeatView, deal
from arena.rules import engine as engines
from arena.rules.geometry import N_CELLS
from arena.rules.moves import MoveSet as PureMoveSet
from arena.rules.state import GameState as PureGameState
from arena.rules.tiles import COLORS, FITS, N_TILES
from arena.spaces import (
    N_ACTIONS,
    OBSERVATION_SIZE,
    PASS_ID,
    action_id,
    action_move,
    facts,
    legal_array,
    legal_ids,
    legal_mask,
    observation_text,
    observe,
    observe_into,
    observe_state_into,
)
from arena.spaces.observations import OBSERVATION_PIECES


def test_every_id_round_trips_through_the_records_move_text() -> None:
    """M1: one id per (color, tile, cell the tile fits) and one for the pass; ``str``/``Move.parse`` round-trip."""
    assert N_ACTIONS == 5 * (27 * 9 + 81) + 1 == 1621
    seen = set()
    for action in range(N_ACTIONS):
        move = action_move(action)
        assert action_id(move) == action
        assert action_id(Move.parse(str(move))) == action
        seen.add(move)
    assert action_move(PASS_ID).is_pass and len(seen) == N_ACTIONS
    fitting = [(c, t, x) for c in range(len(COLORS)) for t in range(N_TILES) for x in range(N_CELLS)
               if FITS[t] >> x & 1]
    assert [action_id(Move(*m)) for m in fitting] == list(range(PASS_ID))  # ids grow with (color, tile, cell)


def test_documented_ids() -> None:
    """The examples of docs/reference/actions.md."""
    assert action_id(Move.parse("red:A@A1")) == 0
    assert action_id(Move.parse("red:A@A9")) == 8
    assert action_id(Move.parse("red:1@I1")) == 9 * 9 + 8
    assert action_id(Move.parse("blue:man@C3")) == 324 + 18 * 9 + 8
    assert action_id(Move.parse("purple:$@I9")) == 4 * 324 + 243 + 80 == 1619
    assert action_id(Move.parse("pass")) == 1620


@pytest.mark.parametrize("bad", [Move(0, 0, 9), Move(0, 9, 1), Move(5, 0, 0), Move(0, 28, 0)])
def test_a_tile_off_its_cells_has_no_id(bad: Move) -> None:
    with pytest.raises(ValueError):
        action_id(bad)


@pytest.mark.parametrize("bad", [-1, N_ACTIONS, "3", 2.5])
def test_no_such_id(bad: object) -> None:
    with pytest.raises(ValueError):
        action_move(bad)  # type: ignore[arg-type]


def test_pieces_add_up() -> None:
    assert sum(int(np.prod(shape)) for _, shape in OBSERVATION_PIECES) == OBSERVATION_SIZE == 756


@pytest.mark.skipif(engines.ENGINE != "native", reason=f"the native engine is not in use ({engines.WHY}): nothing to compare")
@pytest.mark.parametrize("players", [2, 3, 5])
def test_both_engines_give_the_same_ids_masks_and_tensors(players: int) -> None:
    """Turn by turn through random games: the native and the pure engine give identical ids, masks,
    observation tensors and texts for every seat."""
    settings = GameSettings.for_players(players, "blockers" if players == 3 else "uptown")
    for seed in range(3):
        native, pure = engines.GameState(settings, deal(seed, settings)), PureGameState(settings, deal(seed, settings))
        rng = random.Random(seed)
        while not native.over:
            ids = legal_ids(native.legal_moves())
            assert ids == legal_ids(pure.legal_moves())
            assert ids == (sorted(action_id(m) for m in native.legal_moves()) or [PASS_ID])
            assert np.array_equal(legal_mask(native.legal_moves()), legal_mask(pure.legal_moves()))
            assert np.flatnonzero(legal_mask(native.legal_moves())).tolist() == ids
            assert legal_array(native.legal_moves()).tolist() == ids
            into = np.full(N_ACTIONS, 7, np.int8)
            assert legal_mask(native.legal_moves(), into) is into
            assert np.array_equal(into, legal_mask(pure.legal_moves()))
            for seat in range(players):
                a, b = SeatView.of(native, seat), SeatView.of(pure, seat)
                assert np.array_equal(observe(a), observe(b))
                assert observation_text(a) == observation_text(b)
                # From the state: the native engine writes it in C, the pure one goes through facts().
                for private in (True, False):
                    for turn in (True, False):
                        c = observe_state_into(np.full(OBSERVATION_SIZE, 9, np.float32), native, seat,
                                               private=private, turn=turn)
                        p = observe_state_into(np.full(OBSERVATION_SIZE, 9, np.float32), pure, seat,
                                               private=private, turn=turn)
                        assert np.array_equal(c, p)
                        assert np.array_equal(c, observe_into(np.zeros(OBSERVATION_SIZE, np.float32),
                                                              facts(native, seat, private, turn)))
                        if private and turn:
                            assert np.array_equal(c, observe(a))
            move = action_move(rng.choice(ids))
            native.push(move)
            pure.push(move)


def test_the_observation_hides_what_S2_hides() -> None:
    """S2: two states that differ only in rival racks and pile orders look the same to the seat, and the
    seat's own rack is in its observation."""
    settings = GameSettings.for_players(3)
    state = engines.GameState(settings, deal(11, settings))
    rng = random.Random(1)
    for _ in range(20):
        state.push(state.legal_moves().choice(rng))
    view = SeatView.of(state, 0)
    other = view.sample(random.Random(5))
    assert other.racks[1] != state.racks[1] or other.racks[2] != state.racks[2]
    assert np.array_equal(observe(view), observe(SeatView.of(other, 0)))
    obs = observe(view)
    rack = obs[5 * 81:5 * 81 + 5 * 28].reshape(5, 28)
    assert sorted(np.flatnonzero(rack[0]).tolist()) == sorted(state.racks[0])
    assert not rack[1:].any()
    assert "rack red" in observation_text(view) and "rack blue" not in observation_text(view)


@pytest.mark.skipif(engines.ENGINE != "native", reason=f"the native engine is not in use ({engines.WHY}): nothing to compare")
def test_native_observation_refuses_a_wrong_buffer_or_seat() -> None:
    settings = GameSettings.for_players(2)
    state = engines.GameState(settings, deal(1, settings))
    for bad in (np.zeros(OBSERVATION_SIZE - 1, np.float32), np.zeros(OBSERVATION_SIZE, np.float64),
                np.zeros((OBSERVATION_SIZE, 2), np.float32)[:, 0]):
        with pytest.raises(ValueError):
            observe_state_into(bad, state, 0)
    with pytest.raises(ValueError):
        observe_state_into(np.zeros(OBSERVATION_SIZE, np.float32), state, 2)
    with pytest.raises(ValueError):
        legal_mask(state.legal_moves(), np.zeros(N_ACTIONS, np.float32))  # type: ignore[arg-type]
    with pytest.raises(ValueError):  # an option whose cells the tile does not fit (M1) has no ids
        legal_ids(engines.NativeMoveSet(((0, 0, 1 << 9),)))


def test_the_pass_alone_when_nothing_is_legal() -> None:
    """M6: an empty MoveSet (either engine's) is the pass, as an id list, an array and a mask."""
    empty: list[object] = [PureMoveSet()]
    if engines.NativeMoveSet is not None:
        empty.append(engines.NativeMoveSet(()))
    for moves in empty:
        assert legal_ids(moves) == legal_array(moves).tolist() == [PASS_ID]  # type: ignore[arg-type]
        assert np.flatnonzero(legal_mask(moves)).tolist() == [PASS_ID]  # type: ignore[arg-type]


@pytest.mark.parametrize("make", [engines.GameState, PureGameState], ids=["engine in use", "pure"])
def test_set_next_draw_moves_the_tile_to_the_top_of_the_pile(make: type) -> None:
    """M5: the next draw is the tile set; the tiles above it move down one place, in order; copies made
    before keep their deal; a tile not in the pile (drawn already, or not a tile) is refused."""
    settings = GameSettings.for_players(3)
    state = make(settings, deal(4, settings))
    before = state.copy()
    blue = settings.colors[1]
    pile = state.deals[blue][5:]
    state.set_next_draw(blue, pile[3])
    assert state.deals[blue] == (*before.deals[blue][:5], pile[3], *pile[:3], *pile[4:])
    assert before.deals[blue][5:] == pile and state.deals[settings.colors[0]] == before.deals[settings.colors[0]]
    state.set_next_draw(blue, pile[3])  # already next: nothing changes
    assert state.deals[blue][5] == pile[3]
    assert pickle.loads(pickle.dumps(state)).deals == state.deals == state.copy().deals
    rng = random.Random(2)
    while settings.seat_of(blue) != state.to_move:
        state.push(state.legal_moves().choice(rng))
    state.push(state.legal_moves().choice(rng))
    assert pile[3] in state.racks[blue] and state.drawn[blue] == 6
    unused = next(c for c in range(len(COLORS)) if c not in settings.colors)
    for color, tile in ((blue, pile[3]), (blue, state.racks[blue][0]), (unused, 0), (blue, N_TILES)):
        with pytest.raises(ValueError):
            state.set_next_draw(color, tile)
    with pytest.raises(TypeError):
        state.set_next_draw(blue, "A")


@pytest.mark.skipif(engines.ENGINE != "native", reason=f"the native engine is not in use ({engines.WHY}): nothing to compare")
def test_set_next_draw_is_the_same_in_both_engines() -> None:
    """Random draws set one by one: both engines keep the same deals and play the same game."""
    settings = GameSettings.for_players(2)
    native, pure = engines.GameState(settings, deal(9, settings)), PureGameState(settings, deal(9, settings))
    rng = random.Random(3)
    while not native.over:
        for color in settings.colors:
            pile = native.deals[color][native.drawn[color]:]
            if pile:
                tile = rng.choice(pile)
                native.set_next_draw(color, tile)
                pure.set_next_draw(color, tile)
        assert native.deals == pure.deals
        move = native.legal_moves().choice(rng)
        native.push(move)
        pure.push(move)
        assert native.racks == pure.racks and native.played_tiles == pure.played_tiles
