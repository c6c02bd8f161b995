"""The fixed action space and the observation (arena.spaces): ids, masks, tensors, both engines alike."""

from __future__ import annotations

import random

import numpy as np
import pytest

from arena.rules import GameSettings, Move, SeatView, deal
from arena.rules import engine as engines
from arena.rules.geometry import N_CELLS
from arena.rules.state import GameState as PureGameState
from arena.rules.tiles import COLORS, FITS, N_TILES
from arena.spaces import (
    N_ACTIONS,
    OBSERVATION_SIZE,
    PASS_ID,
    action_id,
    action_move,
    legal_ids,
    legal_mask,
    observation_text,
    observe,
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
            for seat in range(players):
                a, b = SeatView.of(native, seat), SeatView.of(pure, seat)
                assert np.array_equal(observe(a), observe(b))
                assert observation_text(a) == observation_text(b)
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
