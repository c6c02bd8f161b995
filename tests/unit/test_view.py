"""The seat view (S2): what it holds, what it hides, and the sampler for search bots."""

from __future__ import annotations

import copy
import dataclasses
import gc
import pickle
import random
import re
import sys
import types
import typing
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.rules import PASS, GameSettings, GameState, Move, MoveSet, deal
from arena.rules.tiles import N_TILES
from arena.rules.view import SeatView, seat_view


def played_state(players: int, seed: int, turns: int) -> GameState:
    settings = GameSettings.for_players(players)
    state = GameState(settings, deal(seed, settings))
    rng = random.Random(seed)
    for _ in range(turns):
        if state.over:
            break
        moves = state.legal_moves()
        state.push(moves.choice(rng) if moves else PASS)
    return state


POSITIONS = [(players, seed, turns) for players in (2, 3, 4, 5) for seed, turns in ((1, 0), (2, 13), (3, 57), (4, 500))]


def _module_dicts() -> set[int]:
    return {id(vars(m)) for m in list(sys.modules.values()) if m is not None}


def reachable(root: object) -> Iterator[object]:
    """Every object reachable from ``root``: attributes, slots, containers, closures, anything the
    garbage collector sees as referenced, but not the code around them (classes, modules, functions'
    globals), which every object reaches."""
    skip = _module_dicts()
    seen = {id(root)}
    stack = [root]
    while stack:
        obj = stack.pop()
        yield obj
        if isinstance(obj, (type, types.ModuleType)) or id(obj) in skip:
            continue
        children: list[object] = list(gc.get_referents(obj))
        if isinstance(obj, types.FunctionType):
            children = [*(c.cell_contents for c in obj.__closure__ or ()), *(obj.__defaults__ or ()),
                        *(obj.__kwdefaults__ or {}).values()]
        for slot in getattr(type(obj), "__slots__", ()):
            if hasattr(obj, slot):
                children.append(getattr(obj, slot))
        for child in children:
            if id(child) not in seen and not isinstance(child, (type, types.ModuleType)):
                seen.add(id(child))
                stack.append(child)


def secrets(state: GameState, seat: int) -> tuple[list[tuple[int, ...]], list[set[int]]]:
    """Sequences and sets a view of ``seat`` must never hold: other racks, every pile and deal."""
    sequences: list[tuple[int, ...]] = []
    sets: list[set[int]] = []
    own = state.settings.seat_colors[seat]
    for color in state.settings.colors:
        pile = state.pile(color)
        sequences.append(tuple(state.deals[color]))
        if len(pile) >= 2:
            sequences.append(tuple(pile))
        if color not in own and state.racks[color] and pile:
            # Once the pile is empty the rack is public knowledge (the unplayed tiles), so only before.
            sequences.append(tuple(state.racks[color]))
            sets.append(set(state.racks[color]))
    return sequences, sets


@pytest.mark.parametrize("players, seed, turns", POSITIONS)
def test_S2_nothing_reachable_from_the_view_leads_to_hidden_tiles(players: int, seed: int, turns: int) -> None:
    state = played_state(players, seed, turns)
    for seat in range(players):
        view = SeatView.of(state, seat)
        sequences, sets = secrets(state, seat)
        for obj in reachable(view):
            assert not isinstance(obj, (GameState, random.Random)), type(obj)
            if isinstance(obj, (tuple, list)) and len(obj) >= 2 and all(type(x) is int for x in obj):
                assert tuple(obj) not in sequences, obj
            if isinstance(obj, (set, frozenset)):
                assert set(obj) not in sets, obj
        blob = pickle.dumps(view)
        assert b"GameState" not in blob and b"deals" not in blob and b"Random" not in blob
        # What it does hold: its own racks and the moves of those racks only.
        assert set(view.racks) == set(state.settings.seat_colors[seat])
        for color, tile, _ in view.legal.options:
            assert color in view.racks and tile in view.racks[color]


def test_S2_the_view_holds_the_public_facts() -> None:
    state = played_state(4, 9, 40)
    view = SeatView.of(state, 2)
    assert view.seat == 2 and view.to_move == state.to_move and view.over is False
    assert view.board_masks == tuple(state.boards) and view.history == tuple(state.history)
    assert view.captures == tuple(tuple(r) for r in state.captures)
    assert view.rack_sizes == tuple(len(r) for r in state.racks)
    assert view.pile_sizes == tuple(len(state.pile(c)) if c in state.settings.colors else 0 for c in range(5))
    for color in range(5):
        assert view.unplayed(color) == set(state.racks[color]) | set(state.pile(color))
        assert view.played_count(color) == (state.played[color] if color in state.settings.colors else 0)
        assert list(view.played_tiles[color]) == [m.tile for m, _ in state.history if m.color == color]
        assert view.is_finished(color) == (color in state.settings.colors and state.is_finished(color))
    assert view.board_cells() == [state.color_at(c) for c in range(81)]
    assert view.colors == (2,)
    assert "seat 2" in repr(view)
    other = SeatView.of(state, state.to_move)
    assert {str(m) for m in other.legal} == {str(m) for m in state.legal_moves()}
    assert not view.legal or state.to_move == 2


def snapshot(state: GameState) -> tuple:
    return (state.deals, tuple(state.drawn), tuple(map(tuple, state.racks)), tuple(state.boards), state.occupied,
            tuple(state.played), tuple(map(tuple, state.captures)), state.to_move, state.passes,
            tuple(state.history), state.over, state.legal_moves().options)


def test_mutating_the_view_changes_nothing_in_the_state() -> None:
    state = played_state(2, 5, 31)
    before = snapshot(state)
    referee_moves = state.legal_moves()
    view = SeatView.of(state, state.to_move, referee_moves)
    for color in list(view.racks):
        view.racks[color] = (0, 1, 2)
    view.racks.clear()
    view.racks[9] = ()
    view.legal.options = ()
    view.legal._count = 0
    for name in (f.name for f in dataclasses.fields(SeatView)):
        with pytest.raises(AttributeError):
            setattr(view, name, None)
    with pytest.raises(TypeError):
        view.board_masks[0] = 0  # type: ignore[index]
    # Nothing can be added either (Python 3.11's frozen slotted dataclass says so with a TypeError).
    with pytest.raises((AttributeError, TypeError)):
        view.extra = 1  # type: ignore[attr-defined]
    assert snapshot(state) == before
    assert referee_moves.options == before[-1] and len(referee_moves) > 0
    # The view a bot got changes nothing in the next one either.
    assert SeatView.of(state, state.to_move).legal.options == before[-1]


def test_views_pickle_and_compare_by_their_fields() -> None:
    state = played_state(3, 6, 20)
    view = SeatView.of(state, 1)
    again = pickle.loads(pickle.dumps(view))
    assert isinstance(again, SeatView) and isinstance(again.legal, MoveSet)
    assert again.board_masks == view.board_masks and again.racks == view.racks and again.history == view.history
    assert again.legal.options == view.legal.options
    # A frozen dataclass: equal field by field (the MoveSets by their moves), and no hash (racks is a dict).
    assert again == view == SeatView.of(state, 1) == copy.copy(view)
    assert view != SeatView.of(state, 2) and view != dataclasses.replace(view, passes=view.passes + 1)
    with pytest.raises(TypeError, match="unhashable"):
        hash(view)


def test_the_fast_constructor_makes_the_view_the_dataclass_makes() -> None:
    state = played_state(4, 6, 9)
    view = SeatView.of(state, state.to_move)
    fields = [getattr(view, f.name) for f in dataclasses.fields(SeatView)]
    made = seat_view(*fields)
    assert type(made) is SeatView and made == view == SeatView(*fields)
    with pytest.raises(AttributeError):
        made.seat = 0  # type: ignore[misc]


# -- the sampler -----------------------------------------------------------------------------------


def assert_consistent(sample: GameState, view: SeatView) -> None:
    settings = view.settings
    assert sample.settings == settings
    assert tuple(sample.boards) == view.board_masks
    assert tuple(map(tuple, sample.captures)) == view.captures
    assert tuple(sample.history) == view.history
    assert (sample.to_move, sample.passes, sample.over) == (view.to_move, view.passes, view.over)
    for color in settings.colors:
        assert len(sample.racks[color]) == view.rack_sizes[color]
        assert len(sample.pile(color)) == view.pile_sizes[color]
        assert set(sample.racks[color]) | set(sample.pile(color)) == view.unplayed(color)
        assert sample.played[color] == view.played_count(color)
        assert sample.played_tiles[color] == view.played_tiles[color]
    for color, rack in view.racks.items():
        assert tuple(sample.racks[color]) == rack
    if view.to_move == view.seat and not view.over:
        assert sample.legal_moves().options == view.legal.options


@pytest.mark.parametrize("players, seed, turns", POSITIONS)
def test_sample_is_consistent_with_the_view(players: int, seed: int, turns: int) -> None:
    state = played_state(players, seed, turns)
    for seat in range(players):
        view = SeatView.of(state, seat)
        for k in range(3):
            assert_consistent(view.sample(random.Random(k)), view)


def test_sample_is_seeded_by_the_callers_generator() -> None:
    state = played_state(4, 12, 30)
    view = SeatView.of(state, state.to_move)
    first = view.sample(random.Random(99))
    second = view.sample(random.Random(99))
    assert first.deals == second.deals and first.racks == second.racks
    draws = {view.sample(random.Random(k)).deals for k in range(10)}
    assert len(draws) == 10
    # Opponent racks vary; and the real hidden order is not what comes out each time.
    real_piles = [state.pile(c) for c in state.settings.colors]
    assert sum(
        [s.pile(c) for c in state.settings.colors] == real_piles
        for s in (view.sample(random.Random(k)) for k in range(10))
    ) <= 1


def test_sample_draws_opponent_racks_uniformly_from_the_unplayed_tiles() -> None:
    state = played_state(3, 4, 9)
    view = SeatView.of(state, 0)
    unseen = view.unplayed(1)
    counts: Counter[int] = Counter()
    runs = 600
    for k in range(runs):
        counts.update(view.sample(random.Random(k)).racks[1])
    assert set(counts) == set(unseen)
    expected = runs * view.rack_sizes[1] / len(unseen)
    assert all(abs(n - expected) < 0.5 * expected for n in counts.values())


@pytest.mark.parametrize("players, seed, turns", POSITIONS)
def test_sampled_state_plays_on_to_a_legal_end(players: int, seed: int, turns: int) -> None:
    state = played_state(players, seed, turns)
    view = SeatView.of(state, state.to_move)
    sample = view.sample(random.Random(seed))
    rng = random.Random(seed + 1)
    while not sample.over:
        moves = sample.legal_moves()
        move = moves.choice(rng) if moves else PASS
        assert move is PASS or move in moves
        sample.push(move)
    assert len(sample.result()) == players
    for color in sample.settings.colors:
        tiles = Counter(sample.racks[color]) + Counter(sample.pile(color))
        tiles.update(m.tile for m, _ in sample.history if m.color == color)
        assert tiles == Counter(range(N_TILES))


def test_view_of_a_finished_game() -> None:
    state = played_state(5, 3, 1000)
    assert state.over
    view = SeatView.of(state, 0)
    assert view.over and not view.legal
    assert all(view.is_finished(c) for c in state.settings.colors)
    sample = view.sample(random.Random(0))
    assert sample.over and not sample.legal_moves()
    assert [r.to_dict() for r in sample.result()] == [r.to_dict() for r in state.result()]


def test_view_legal_is_what_the_state_allows() -> None:
    state = played_state(2, 8, 44)
    view = SeatView.of(state, state.to_move)
    assert set(view.legal) == set(state.legal_moves())
    given = state.legal_moves()
    assert SeatView.of(state, state.to_move, given).legal is not given
    assert isinstance(next(iter(view.legal)), Move)


# -- the view as the bot author's guide describes it ----------------------------------------------

GUIDE = (Path(__file__).resolve().parents[2] / "docs" / "reference" / "bots.md").read_text(encoding="utf-8")


def guide_rows() -> dict[str, tuple[str, str]]:
    """``name: (type, meaning)`` for every row of the guide's tables of three columns."""
    rows = {}
    for line in GUIDE.splitlines():
        # A type's "|" is written "\|" inside a table.
        match = re.match(r"^\| `([a-z_]+)(?:\([a-z_, ]*\))?` \| `((?:\\\||[^|])+)` \| (.+) \|$", line)
        if match:
            rows[match.group(1)] = (match.group(2).replace("\\|", "|"), match.group(3))
    return rows


def test_every_view_field_is_in_the_guide_with_its_type() -> None:
    rows = guide_rows()
    hints = typing.get_type_hints(SeatView)
    for name in (f.name for f in dataclasses.fields(SeatView)):
        assert name in rows, f"docs/reference/bots.md does not describe SeatView.{name}"
        written = rows[name][0]
        assert written == _type_text(hints[name]), (name, written, hints[name])


def _type_text(hint: object) -> str:
    text = getattr(hint, "__name__", None) if isinstance(hint, type) else None
    return text or str(hint).replace("arena.rules.state.", "").replace("arena.rules.moves.", "").replace("arena.rules.base.", "").replace("arena.rules.view.", "")


def test_every_public_property_and_method_of_the_view_is_in_the_guide() -> None:
    rows = guide_rows()
    public = [name for name in vars(SeatView) if not name.startswith("_") and name not in {f.name for f in dataclasses.fields(SeatView)}]
    public.remove("of")  # the referee's, not the bot's
    assert {"occupied", "empty", "cells_of", "groups_of", "capturable", "sample"} <= set(public)
    for name in public:
        assert name in rows, f"docs/reference/bots.md does not describe SeatView.{name}"
        member = getattr(SeatView, name)
        assert (member.fget if isinstance(member, property) else member).__doc__, name


def test_every_public_helper_has_a_docstring_and_is_in_the_guide() -> None:
    from arena.rules import cells

    names = [n for n, v in vars(cells).items() if not n.startswith("_") and getattr(v, "__module__", None) == cells.__name__]
    assert {"Cells", "neighbours", "groups", "fits", "row", "column", "region", "row_of", "column_of", "region_of"} <= set(
        names)
    for name in names:
        assert getattr(cells, name).__doc__, name
        assert f"`{name}(" in GUIDE or f"`{name}`" in GUIDE, name
    for name, member in vars(cells.Cells).items():
        if not name.startswith("_") and callable(member):
            assert member.__doc__ and f"c.{name}(" in GUIDE, name
    assert "BOARD" in GUIDE


def test_masks_and_cells_are_two_levels_of_the_same_facts() -> None:
    """A name ending in _mask is the bitboard, the same name without it the Cells."""
    settings = GameSettings.for_players(2)
    state = GameState(settings, deal(3, settings))
    for _ in range(30):
        state.push(state.legal_moves()[0])
    view = SeatView.of(state, state.to_move)
    assert view.board_masks == tuple(state.boards)
    for name in ("occupied", "empty", "own"):
        assert type(getattr(view, name + "_mask")) is int and getattr(view, name).mask == getattr(view, name + "_mask")
    for color in settings.colors:
        assert view.capturable(color).mask == view.capturable_mask(color)
        assert view.cells_of(color).mask == view.board_masks[color]
    for color, tile, cells in view.legal.options:
        assert view.legal.targets_mask(color, tile) == cells
