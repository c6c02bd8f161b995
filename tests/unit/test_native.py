"""The native engine (arena.rules._native) against the pure one, the reference: the same game.

Perft counts, the legal moves at every position of 2,000 seeded games of 2-5 players under both
scorings (random and capture-heavy choices), results and the rule that ended each game, the seat
views' samples, restore, copy, pickling, whole playouts with the same SplitMix64 state, the
geometry of M3 and C1, SplitMix64's golden values, ``MoveSet.choice`` drawing from a
``random.Random`` as the pure MoveSet does, and the golden records written by either engine.

Each game is played by each engine on its own, its whole trace kept, and the traces compared: a
difference names the game and the first turn where the engines part.
"""

from __future__ import annotations

import dataclasses
import json
import pickle
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena import records
from arena.records import replayer
from arena.rules import PASS, GameSettings, IllegalMove, Move, SeatView, deal, geometry
from arena.rules import engine as native
from arena.rules import state as pure
from arena.rules.playout import playout as pure_playout
from arena.rules.rng import SplitMix64
from arena.rules.tiles import N_TILES

if native.ENGINE != "native":
    pytest.skip(f"the native engine is not in use: {native.WHY}", allow_module_level=True)

import test_properties  # noqa: E402  (the test modules next to this one: their positions and records)
import test_records  # noqa: E402
import test_rules  # noqa: E402

_native = native._native
Native = native.GameState
Pure = pure.GameState
ENGINES = {"pure": Pure, "native": Native}
PERFT = json.loads((Path(__file__).parents[1] / "data" / "perft.json").read_text())
GOLDEN = Path(__file__).parents[1] / "golden"


# -- helpers --------------------------------------------------------------------------------------


def parts(state: Any) -> dict[str, Any]:
    """Everything a state holds, as plain values (lists and tuples alike become tuples)."""
    colors = state.settings.colors
    return {
        "settings": state.settings,
        "deals": tuple(map(tuple, state.deals)),
        "drawn": tuple(state.drawn),
        "racks": tuple(map(tuple, state.racks)),
        "boards": tuple(state.boards),
        "occupied": state.occupied,
        "played": tuple(state.played),
        "played_tiles": tuple(map(tuple, state.played_tiles)),
        "captures": tuple(map(tuple, state.captures)),
        "to_move": state.to_move,
        "passes": state.passes,
        "history": tuple(state.history),
        "over": state.over,
        "piles": tuple(state.pile(c) for c in colors),
        "unplayed": tuple(state.unplayed(c) for c in colors),
    }


def restored(cls: Any, state: Any) -> Any:
    """``state`` set up again by ``cls.restore`` from its parts."""
    colors = state.settings.colors
    return cls.restore(state.settings, {c: state.deals[c] for c in colors}, {c: state.drawn[c] for c in colors},
                       {c: list(state.racks[c]) for c in colors}, list(state.boards),
                       [list(row) for row in state.captures], state.to_move, state.passes, list(state.history),
                       state.over)


def twins(state: Any) -> tuple[Any, Any]:
    """The position of ``state`` in the pure and in the native engine."""
    return restored(Pure, state), restored(Native, state)


def result_rows(state: Any) -> list[dict[str, Any]]:
    return [row.to_dict() for row in state.result()]


def all_combinations() -> list[tuple[int, str, str]]:
    return [(p, s, pen) for p in (2, 3, 4, 5) for s in ("uptown", "blockers")
            for pen in (("color", "opponent") if p == 2 else ("color",))]


def capture_moves(options: tuple[tuple[int, int, int], ...], occupied: int) -> list[Move]:
    """The captures among the legal moves, in their order (from the options: the same code for both)."""
    out = []
    for color, tile, cells in options:
        cells &= occupied
        while cells:
            low = cells & -cells
            out.append(Move(color, tile, low.bit_length() - 1))
            cells ^= low
    return out


def trace_game(state: Any, rng: random.Random, style: str) -> list[Any]:
    """Play ``state`` to its end; every turn's seat, passes, legal options and count, move and capture,
    then the end: the rule that ended it, the result rows, the winners and every part of the state.

    ``style`` ``random`` draws with ``MoveSet.choice``; ``captures`` takes a capture whenever there is
    one; ``mixed`` takes one seven times in ten.
    """
    trace: list[Any] = []
    while not state.over:
        moves = state.legal_moves()
        options = moves.options
        trace.append((state.to_move, state.passes, options, len(moves), moves.open_mask, bool(moves)))
        move = PASS
        if moves:
            captures = capture_moves(options, state.occupied) if style != "random" else []
            if captures and (style == "captures" or rng.random() < 0.7):
                move = captures[rng.randrange(len(captures))]
            else:
                move = moves.choice(rng)
        trace.append((move, state.push(move)))
    trace.append(("end", state.ended_by, result_rows(state), state.winners(), tuple(map(tuple, state._keys())),
                  parts(state)))
    return trace


def first_difference(a: list[Any], b: list[Any]) -> str:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"entry {i}: pure {x!r} / native {y!r}"
    return f"lengths {len(a)} / {len(b)}"


# -- perft ----------------------------------------------------------------------------------------


def perft_state(cls: Any, entry: dict[str, Any]) -> Any:
    players = entry["players"]
    if "seed" in entry:
        settings = GameSettings.for_players(players)
        state = cls(settings, deal(entry["seed"], settings))
        for text in entry["moves"]:
            state.push(Move.parse(text))
        return state
    return test_rules.position(players, board=entry["board"], racks=entry["racks"], to_move=entry["to_move"],
                               played=entry.get("played"), engine=cls)


def perft(state: Any, depth: int) -> int:
    if depth == 0 or state.over:
        return 1
    moves = state.legal_moves()
    if depth == 1:
        return len(moves) or 1
    total = 0
    for move in moves or (PASS,):
        child = state.copy()
        child.push(move)
        total += perft(child, depth - 1)
    return total


@pytest.mark.parametrize("entry", PERFT, ids=[e["name"] for e in PERFT])
def test_perft_counts_agree_with_the_file_and_one_ply_deeper(entry: dict[str, Any]) -> None:
    counts = {}
    for name, cls in ENGINES.items():
        state = perft_state(cls, entry)
        moves = state.legal_moves()
        assert len(moves) == entry["legal"], name
        assert sum(1 for m in moves if state.color_at(m.cell) >= 0) == entry["captures"], name
        assert perft(state, 2) == entry["perft2"], name
        counts[name] = (moves.options, perft(state, 3))
    assert counts["native"] == counts["pure"]


# -- 2,000 seeded games -----------------------------------------------------------------------------


@pytest.mark.slow
def test_two_thousand_games_play_alike_turn_by_turn() -> None:
    """Every position of 2,000 games of 2-5 players, both scorings: the same legal moves (M1-M4, E1),
    the same draws, captures, passes and end (E2, E3), the same result rows (C1-C4)."""
    combos = all_combinations()
    styles = ("random", "captures", "mixed")
    captured = ended = 0
    for game in range(2000):
        players, scoring, penalty = combos[game % len(combos)]
        style = styles[game % 3]
        settings = GameSettings.for_players(players, scoring, penalty)
        dealt = deal(game, settings)
        traces = [trace_game(cls(settings, dealt), random.Random(game), style) for cls in (Pure, Native)]
        assert traces[0] == traces[1], f"game {game} ({players}p {scoring} {penalty}, {style}): " + \
            first_difference(*traces)
        captured += sum(1 for entry in traces[1] if len(entry) == 2 and entry[1] >= 0)
        ended += traces[1][-1][1] == "E2"
    assert ended == 2000 and captured > 20000  # capture-heavy games capture thousands of tiles


@pytest.mark.slow
def test_crowded_positions_with_passes_end_alike() -> None:
    """Full boards of one-row lines (tests/unit/test_properties.py): passes and the end by passes (M6, E3)."""
    rng = random.Random(61)
    ends = set()
    passes = 0
    for trial in range(150):
        start = test_properties.striped_position(rng)
        traces = []
        for state in twins(start):
            traces.append(trace_game(state, random.Random(trial), ("random", "captures")[trial % 2]))
        assert traces[0] == traces[1], f"position {trial}: " + first_difference(*traces)
        ends.add(traces[1][-1][1])
        passes += sum(1 for entry in traces[1] if len(entry) == 2 and entry[0] is PASS)
    assert ends == {"E2", "E3"} and passes > 50


@pytest.mark.slow
def test_moveset_iteration_indexing_membership_and_targets_agree() -> None:
    """At positions of seeded games: list(moves), moves[i], ``in``, targets(), copy() and check()."""
    rng = random.Random(5)
    every = [Move(c, t, x) for c in range(5) for t in range(N_TILES) for x in range(0, 81, 4)]
    positions = 0
    for game in range(40):
        players = 2 + game % 4
        settings = GameSettings.for_players(players)
        pure_state, native_state = Pure(settings, deal(game, settings)), Native(settings, deal(game, settings))
        while not pure_state.over:
            p, n = pure_state.legal_moves(), native_state.legal_moves()
            if len(pure_state.history) % 9 == game % 9:
                positions += 1
                listed = list(p)
                assert list(n) == listed and list(n.copy()) == listed
                assert [n[i] for i in range(-len(n), len(n), 7)] == [p[i] for i in range(-len(p), len(p), 7)]
                for bad in (len(p), -len(p) - 1):
                    with pytest.raises(IndexError):
                        n[bad]
                probes = rng.sample(every, 60) + rng.sample(listed, min(5, len(listed)))
                assert [m in n for m in probes] == [m in p for m in probes]
                assert all(n.targets_mask(c, t) == p.targets_mask(c, t) for c in range(5) for t in range(N_TILES))
                for move in probes[:20]:
                    assert outcome(pure_state.check, move) == outcome(native_state.check, move)
                    assert outcome(lambda m: native_state.copy().push(m), move) == outcome(pure_state.check, move)
            move = p.choice(rng)
            pure_state.push(move)
            native_state.push(move)
    assert positions > 100


def outcome(call: Callable[[Any], Any], value: Any) -> tuple[str, Any]:
    """What ``call(value)`` does: its value, or the kind and message of what it raised."""
    try:
        return "ok", call(value)
    except IllegalMove as exc:
        return "IllegalMove", (exc.rule, str(exc))
    except (TypeError, ValueError) as exc:
        return type(exc).__name__, str(exc)


def crowded_state(rng: random.Random) -> Any:
    """A board fuller than real games reach, every color mixed, some colors finished (stresses M2, M3, E1)."""
    players = rng.choice((2, 3, 4, 5))
    settings = GameSettings.for_players(players)
    boards = [0] * 5
    for cell in range(81):
        if rng.random() < 0.65:
            boards[rng.choice(settings.colors)] |= 1 << cell
    deals, drawn, racks = {}, {}, {}
    for color in settings.colors:
        played = 24 if rng.random() < 0.15 else rng.randrange(0, 24)
        order = list(range(N_TILES))
        rng.shuffle(order)
        deals[color] = tuple(order)
        drawn[color] = min(N_TILES, played + 5)
        racks[color] = order[played:drawn[color]]
    return Native.restore(settings, deals, drawn, racks, boards, [[0] * 5 for _ in range(players)],
                          rng.randrange(players), 0, [])


@pytest.mark.slow
def test_native_push_refuses_exactly_what_legal_moves_leaves_out() -> None:
    """Every color, tile and cell on crowded boards: the native push plays a move iff it is legal,
    and refuses the rest with the reference engine's IllegalMove (T2, E1, M1-M3)."""
    rng = random.Random(23)
    every = [Move(c, t, x) for c in range(5) for t in range(N_TILES) for x in range(81)]
    for _ in range(12):
        state = crowded_state(rng)
        legal = set(state.legal_moves())
        assert legal == set(restored(Pure, state).legal_moves())
        played = set()
        for move in every:
            try:
                state.copy().push(move)
            except IllegalMove as exc:
                assert exc.rule in {"T2", "E1", "M1", "M2", "M3"}
                continue
            played.add(move)
        assert played == legal


# -- samples, restore, copy, pickling ------------------------------------------------------------


def mid_game_pairs(games: int, every: int) -> list[tuple[Any, Any, int]]:
    """(pure, native) states of the same position, taken from seeded games every ``every`` turns."""
    out = []
    combos = all_combinations()
    for game in range(games):
        players, scoring, penalty = combos[game % len(combos)]
        settings = GameSettings.for_players(players, scoring, penalty)
        pure_state, native_state = Pure(settings, deal(100 + game, settings)), Native(settings, deal(100 + game,
                                                                                                      settings))
        rng = random.Random(game)
        while not pure_state.over:
            if len(pure_state.history) % every == game % every:
                out.append((pure_state.copy(), native_state.copy(), game))
            move = pure_state.legal_moves().choice(rng)
            pure_state.push(move)
            native_state.push(move)
        out.append((pure_state, native_state, game))
    return out


def test_views_and_their_samples_are_the_same_with_either_engine() -> None:
    for pure_state, native_state, k in mid_game_pairs(24, 23):
        for seat in range(pure_state.settings.players):
            vp, vn = SeatView.of(pure_state, seat), SeatView.of(native_state, seat)
            assert type(vn.legal) is pure.MoveSet
            fields = [f.name for f in dataclasses.fields(SeatView) if f.name != "legal"]
            assert [getattr(vp, f) for f in fields] == [getattr(vn, f) for f in fields]
            assert vp.legal.options == vn.legal.options
            sp, sn = vp.sample(random.Random(k)), vn.sample(random.Random(k))
            assert parts(sp) == parts(sn)
            # The sample set up natively: the same position, moves and playouts.
            native_sample = restored(Native, sn)
            assert parts(native_sample) == parts(sp)
            assert native_sample.legal_moves().options == sp.legal_moves().options
            a, b = SplitMix64(k), SplitMix64(k)
            assert native_sample.playout(a, "greedy") == pure_playout(sp, b, "greedy") and a.state == b.state


def test_restore_round_trips_in_both_directions() -> None:
    for pure_state, native_state, k in mid_game_pairs(16, 31):
        expected = parts(pure_state)
        assert parts(native_state) == expected
        for cls in (Pure, Native):
            for source in (pure_state, native_state):
                again = restored(cls, source)
                assert parts(again) == expected
                assert again.legal_moves().options == pure_state.legal_moves().options
                assert result_rows(again) == result_rows(pure_state) and again.ended_by == pure_state.ended_by
        # Both play on alike from the restored position.
        a, b = restored(Native, pure_state), restored(Pure, native_state)
        rng_a, rng_b = random.Random(k), random.Random(k)
        assert trace_game(a, rng_a, "mixed") == trace_game(b, rng_b, "mixed")


def test_a_history_that_does_not_tell_all_restores_the_played_tiles_from_the_deal() -> None:
    settings = GameSettings.for_players(3)
    dealt = deal(4, settings)
    state = Pure(settings, dealt)
    rng = random.Random(4)
    for _ in range(12):
        state.push(state.legal_moves().choice(rng))
    colors = settings.colors
    args = (settings, dealt, {c: state.drawn[c] for c in colors}, {c: list(state.racks[c]) for c in colors},
            list(state.boards), [list(r) for r in state.captures], state.to_move, 0)
    short = [Pure.restore(*args, state.history[6:]), Native.restore(*args, state.history[6:])]
    assert parts(short[0]) == parts(short[1])
    assert short[1].played_tiles[0] == dealt[0][:state.played[0]]


def test_copies_are_independent() -> None:
    for pure_state, native_state, _ in mid_game_pairs(8, 17):
        if native_state.over:
            continue
        before = parts(native_state)
        twin = native_state.copy()
        assert parts(twin) == before and twin.history is not native_state.history
        for _ in range(5):
            if twin.over:
                break
            twin.push(twin.legal_moves()[0] if twin.legal_moves() else PASS)
        twin.history.append("not a move")  # the copy's history is its own list
        assert parts(native_state) == before == parts(pure_state)
        assert native_state.legal_moves().options == pure_state.legal_moves().options


def test_a_native_state_pickles_and_deep_copies_as_it_is() -> None:
    import copy

    for pure_state, native_state, _ in mid_game_pairs(6, 29):
        for twin in (pickle.loads(pickle.dumps(native_state)), copy.deepcopy(native_state)):
            assert type(twin) is Native and parts(twin) == parts(native_state)
            assert twin.legal_moves().options == pure_state.legal_moves().options
    # Played tiles that the history does not tell (a restored position) survive the round trip.
    settings = GameSettings.for_players(2)
    state = Native(settings, deal(3, settings))
    for _ in range(8):
        state.push(state.legal_moves()[-1])
    colors = settings.colors
    short = Native.restore(settings, {c: state.deals[c] for c in colors}, {c: state.drawn[c] for c in colors},
                           {c: state.racks[c] for c in colors}, state.boards, state.captures, state.to_move, 0, [])
    short.push(short.legal_moves()[-1])
    assert parts(pickle.loads(pickle.dumps(short))) == parts(short)
    moves = state.legal_moves()
    again = pickle.loads(pickle.dumps(moves))
    assert again.options == moves.options and again.open_mask == moves.open_mask and list(again) == list(moves)


# -- whole playouts --------------------------------------------------------------------------------


@pytest.mark.parametrize("policy", ["random", "greedy"])
@pytest.mark.slow
def test_playouts_give_the_same_result_and_leave_the_generator_alike(policy: str) -> None:
    checked = 0
    for pure_state, native_state, k in mid_game_pairs(40, 13):
        before = parts(native_state)
        seed = (k * 0x9E3779B97F4A7C15 + len(native_state.history)) % 2**64
        a, b, c = SplitMix64(seed), SplitMix64(seed), SplitMix64(seed)
        expected = pure_playout(pure_state, b, policy)
        assert native_state.playout(a, policy) == expected == pure_state.playout(c, policy)
        assert a.state == b.state == c.state
        assert parts(native_state) == before  # the state is left as it was
        checked += 1
    assert checked > 200


def test_a_playout_from_a_finished_game_draws_nothing() -> None:
    _, native_state, _ = mid_game_pairs(1, 1000)[-1]
    assert native_state.over
    rng = SplitMix64(7)
    assert native_state.playout(rng, "greedy") == tuple(zip(*native_state._keys()))
    assert rng.state == 7


# -- geometry ---------------------------------------------------------------------------------------


@pytest.mark.slow
def test_removable_and_count_groups_agree_with_the_geometry_module() -> None:
    rng = random.Random(3)
    boards = [0, geometry.FULL, 1, 1 << 80, sum(1 << (9 * r) for r in range(9))]
    ring = sum(1 << geometry.cell_index(f"{r}{c}") for r in "ABC" for c in "123") & ~(1 << geometry.cell_index("B2"))
    boards += [ring, geometry.FULL ^ (1 << 40)]
    for _ in range(4000):
        density = rng.random()
        boards.append(sum(1 << cell for cell in range(81) if rng.random() < density))
    for board in boards:
        assert _native.capturable_mask(board) == geometry.capturable_mask(board), hex(board)
        assert _native.count_groups(board) == geometry.count_groups(board), hex(board)


# -- SplitMix64 -------------------------------------------------------------------------------------


def test_splitmix64_golden_values() -> None:
    rng = SplitMix64(0)
    assert rng.next() == 0xE220A8397B1DCDAF
    assert rng.next() == 0x6E789E6AA1B965F4
    assert rng.state == 2 * 0x9E3779B97F4A7C15 % 2**64
    # below(n) is the multiply-shift of next(): the first draws below 10 and 81 from seed 0.
    assert SplitMix64(0).below(10) == (0xE220A8397B1DCDAF * 10) >> 64 == 8
    draws, state = _native.below(0, 81, 2)
    assert draws == [(0xE220A8397B1DCDAF * 81) >> 64, (0x6E789E6AA1B965F4 * 81) >> 64]
    assert state == 2 * 0x9E3779B97F4A7C15 % 2**64
    assert _native.below(5, 1, 10) == ([0] * 10, 5)  # below(1) draws nothing


@pytest.mark.parametrize("seed", [0, 1, 2**63, 2**64 - 1, 0x0123456789ABCDEF])
def test_splitmix64_below_is_the_same_in_c_and_python(seed: int) -> None:
    for n in (1, 2, 3, 7, 45, 81, 1000, 2**31 - 1):
        py = SplitMix64(seed)
        draws = [py.below(n) for _ in range(500)]
        assert _native.below(seed, n, 500) == (draws, py.state)
        assert all(0 <= d < n for d in draws)


# -- MoveSet.choice with random.Random ---------------------------------------------------------------


class OwnRandom(random.Random):
    """A subclass: the native choice calls its randrange, as the pure one does."""

    def randrange(self, *args: Any, **kwargs: Any) -> int:  # type: ignore[override]
        return (super().randrange(*args, **kwargs) * 7 + 3) % args[0]


@pytest.mark.parametrize("rng_type", [random.Random, OwnRandom])
def test_choice_draws_the_same_moves_and_leaves_the_generator_alike(rng_type: type) -> None:
    sizes = set()
    for pure_state, native_state, k in mid_game_pairs(12, 7):
        p, n = pure_state.legal_moves(), native_state.legal_moves()
        sizes.add(len(p))
        a, b = rng_type(k), rng_type(k)
        assert [n.choice(a) for _ in range(50)] == [p.choice(b) for _ in range(50)]
        assert a.getstate() == b.getstate()
    # Sizes around powers of two, where getrandbits draws again.
    for count in (1, 2, 3, 4, 5, 8, 9, 16, 63, 64, 65, 81):
        cells = (1 << count) - 1
        options = ((0, 26, cells),) if count <= 9 else ((0, 27, cells),)
        p, n = pure.MoveSet(options), _native.MoveSet(options, None)
        a, b = rng_type(count), rng_type(count)
        assert [n.choice(a) for _ in range(200)] == [p.choice(b) for _ in range(200)]
        assert a.getstate() == b.getstate()
    assert _native.MoveSet((), None).choice(random.Random(0)) is PASS
    assert len(sizes) > 20


# -- golden records, by either engine -----------------------------------------------------------------


@pytest.mark.parametrize("engine", sorted(ENGINES))
@pytest.mark.parametrize("name", sorted(test_records.GOLDEN_RECORDS))
def test_golden_records_are_made_and_replayed_byte_for_byte_by_either_engine(
        name: str, engine: str, monkeypatch: pytest.MonkeyPatch) -> None:
    cls = ENGINES[engine]
    # The record writer, the reader and the golden games of tests/unit/test_records.py, on this engine.
    monkeypatch.setattr(test_records, "GameState", cls)
    monkeypatch.setattr(replayer, "GameState", cls)
    text = (GOLDEN / name).read_text(encoding="ascii")
    assert records.dumps(test_records.GOLDEN_RECORDS[name]()) == text
    record = json.loads(text)
    game = records.replay(record)
    assert [row.to_dict() for row in game.result] == record["result"]
    state = cls(game.settings, game.deals)
    for move in game.moves:
        state.push(move)
    assert type(state) is cls and records.dumps(records.build_record(
        state, [p["name"] for p in record["players"]], seed=record.get("seed"),
        extra={k: v for k, v in record.items() if k in ("note", "time_limit")} or None)) == text


# -- one contract (arena.rules.base.BaseGameState): the same API, checking and mutability ----------

ATTRIBUTES = ("settings", "deals", "drawn", "racks", "boards", "occupied", "played", "played_tiles", "captures",
              "to_move", "passes", "history", "over")


def public_names(cls: Any) -> set[str]:
    return {name for name in dir(cls) if not name.startswith("_")}


def test_every_public_method_and_attribute_exists_on_both_engines() -> None:
    assert public_names(Pure) == public_names(Native)
    contract = public_names(pure.BaseGameState)
    assert contract <= public_names(Pure)
    assert {"push", "push_unchecked", "push_pass", "check", "copy", "restore", "capturable_mask", "capturable_at",
            "legal_moves", "color_at", "playout"} <= contract
    for name in ("pop", "can_capture", "removable", "_removable", "_judge", "_free", "_free_of"):
        assert not hasattr(Pure, name) and not hasattr(Native, name), name
    settings = GameSettings.for_players(3)
    for cls in (Pure, Native):
        state = cls(settings, deal(1, settings))
        assert set(ATTRIBUTES) <= public_names(state)
        assert public_names(state.legal_moves()) == public_names(Pure(settings, deal(1, settings)).legal_moves())


def test_attributes_are_read_only_alike() -> None:
    """Neither engine's attributes can be assigned; the per-color ones read as fresh tuples; history is a list."""
    settings = GameSettings.for_players(2)
    for state in (Pure(settings, deal(4, settings)), Native(settings, deal(4, settings))):
        state.push(state.legal_moves()[0])
        for name in ATTRIBUTES:
            with pytest.raises(AttributeError):
                setattr(state, name, getattr(state, name))
        for name in ("drawn", "racks", "boards", "played", "played_tiles", "captures"):
            value = getattr(state, name)
            assert type(value) is tuple and all(type(x) in (int, tuple) for x in value), name
            assert getattr(state, name) is not value or not value, name  # a fresh tuple at every read
        with pytest.raises(TypeError):
            state.boards[0] = 1  # type: ignore[index]
        assert type(state.history) is list and state.history is state.history


def test_push_unchecked_plays_as_push_on_both_engines() -> None:
    """The two speeds play the same game: the same captures, the same states, the same end."""
    for game in range(24):
        players = 2 + game % 4
        settings = GameSettings.for_players(players)
        states = [cls(settings, deal(300 + game, settings)) for cls in (Pure, Native) for _ in range(2)]
        rng = random.Random(game)
        while not states[0].over:
            moves = states[0].legal_moves()
            move = moves.choice(rng) if moves else PASS
            got = [states[0].push(move), states[1].push_unchecked(move), states[2].push(move),
                   states[3].push_unchecked(move)]
            assert len(set(got)) == 1, (game, move, got)
        assert len({repr(parts(s)) for s in states}) == 1
        assert all(s.over for s in states)


def test_illegal_pushes_are_refused_alike_and_change_nothing() -> None:
    """The same IllegalMove (rule id and message) from push, push_pass and check, on either engine."""
    rng = random.Random(8)
    every = [Move(c, t, x) for c in range(5) for t in range(N_TILES) for x in range(0, 81, 5)]
    seen: set[str] = set()
    for pure_state, native_state, _ in mid_game_pairs(12, 17):
        probes = rng.sample(every, 40) + [PASS, (1, 2), "red:A@A1", (0, 0, 0, 0), (0.0, 0, 0), (True, 0, 0)]
        for value in probes:
            before = parts(native_state), parts(pure_state)
            expected = outcome(pure_state.check, value)
            assert outcome(native_state.check, value) == expected
            for state in (pure_state, native_state):
                got = outcome(state.copy().push, value)
                if expected[0] == "ok":
                    assert got[0] == "ok"
                else:
                    assert got == expected, (value, got, expected)
                    seen.add(expected[1][0] if expected[0] == "IllegalMove" else expected[0])
            p = outcome(lambda _: pure_state.copy().push_pass(), None)
            n = outcome(lambda _: native_state.copy().push_pass(), None)
            assert p == n
            assert (parts(native_state), parts(pure_state)) == before
            # A refused push leaves the state as it was, on the state itself too.
            for state in (pure_state, native_state):
                if expected[0] != "ok":
                    outcome(state.push, value)
            assert (parts(native_state), parts(pure_state)) == before
    assert {"M1", "M2", "T2", "TypeError"} <= seen, seen


def test_copy_is_independent_and_there_is_no_pop_on_either_engine() -> None:
    settings = GameSettings.for_players(4)
    for cls in (Pure, Native):
        state = cls(settings, deal(12, settings))
        for _ in range(10):
            state.push(state.legal_moves()[0])
        before = parts(state)
        twin = state.copy()
        twin.push(twin.legal_moves()[-1])
        assert parts(state) == before and twin.history is not state.history
        assert len(twin.history) == len(state.history) + 1
        assert parts(restored(cls, state)) == before
        assert not hasattr(state, "pop")


def test_capture_legality_has_one_name_and_the_same_answers() -> None:
    """M3: capturable_mask(color) and capturable_at(cell) agree across engines and with the bare geometry."""
    for pure_state, native_state, _ in mid_game_pairs(10, 13):
        for color in pure_state.settings.colors:
            board = pure_state.boards[color]
            mask = geometry.capturable_mask(board)
            assert pure_state.capturable_mask(color) == native_state.capturable_mask(color) == mask
            assert _native.capturable_mask(board) == mask
        for cell in range(81):
            at = pure_state.capturable_at(cell)
            assert native_state.capturable_at(cell) == at
            color = pure_state.color_at(cell)
            assert at == (color >= 0 and geometry.capturable_at(pure_state.boards[color], cell))


def test_movesets_are_equal_when_they_hold_the_same_moves_with_either_engine() -> None:
    for pure_state, native_state, _ in mid_game_pairs(4, 5):
        p, n = pure_state.legal_moves(), native_state.legal_moves()
        assert p == n and n == p and not p != n  # across the engines, either way round
        assert n == native_state.legal_moves() and p == pure.MoveSet(p.options) == pickle.loads(pickle.dumps(n))
        fewer = pure.MoveSet(p.options[1:])
        assert (p != fewer and n != fewer and fewer != n) == bool(p.options)
        for moves in (p, n):
            assert moves != p.options and moves != list(moves)  # a MoveSet equals MoveSets only
            with pytest.raises(TypeError, match="unhashable"):
                hash(moves)


def test_the_masks_agree() -> None:
    """MoveSet.targets_mask and open_mask, on both engines."""
    for pure_state, native_state, _ in mid_game_pairs(6, 11):
        p, n = pure_state.legal_moves(), native_state.legal_moves()
        assert p.open_mask == n.open_mask
        for color, tile, cells in p.options:
            assert p.targets_mask(color, tile) == n.targets_mask(color, tile) == cells
