"""Game records (uptown-game/1): writing, golden records, reading, validation and rejection messages.

Regenerate the golden records after a deliberate change with
``python tests/unit/test_records.py --regenerate``.
"""

from __future__ import annotations

import copy
import gzip
import json
import random
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from arena import records
from arena.records import FORMAT, RecordError, build_record, dumps, dumps_line, loads, replay
from arena.rules import CELL_NAMES, COLORS, TILE_NAMES, GameSettings, GameState, Move, deal
from arena.rules.geometry import cell_index
from arena.rules.tiles import FITS, tile_index

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


# -- games to record -----------------------------------------------------------


def random_game(settings: GameSettings, seed: int) -> GameState:
    """A game of uniformly random legal moves: the deal from ``seed``, the moves from ``random.Random(seed)``."""
    state = GameState(settings, deal(seed, settings))
    rng = random.Random(seed)
    while not state.over:
        state.push(state.legal_moves().choice(rng))
    return state


def seeded_record(players: int, seed: int, scoring: str = "uptown", penalty: str = "color", **extra: Any) -> dict:
    settings = GameSettings.for_players(players, scoring, penalty)
    state = random_game(settings, seed)
    names = [f"random-{seat}" for seat in range(players)]
    return build_record(state, names, seed=seed, extra=extra or None)


# A five-player game steered into a pass (M6).  Random games practically never pass:
# a seat passes only when every cell each of its five tiles fits holds its own tile
# or an opponent tile that cannot be captured (M3).  So purple fills row A with its
# numbers, red lays a path D1-C1-B1…B9-C9-D9 and blue a path D2-C2…C8-D8 (every
# tile inside a path, but not its ends, is uncapturable), and purple's deal keeps
# A, B, C, man, ring and woman (tiles that fit rows A-C only) for last.
RED, BLUE, GREEN, YELLOW, PURPLE = range(5)
_TOP_ONLY = ("A", "B", "C", "man", "ring", "woman")
_PLAN = {
    RED: {**{str(n): f"B{n}" for n in range(1, 10)}, "man": "C1", "woman": "C9", "sign": "D1", "sax": "D9"},
    BLUE: {
        "man": "C2", "C": "C3", "ring": "C4", "5": "C5", "6": "C6", "woman": "C7", "8": "C8",
        "sign": "D2", "sax": "D8",
    },
    PURPLE: {str(n): f"A{n}" for n in range(1, 10)},
}
_PLAN_IDS = {c: {tile_index(t): cell_index(cell) for t, cell in p.items()} for c, p in _PLAN.items()}
_PLANNED_CELLS = {cell for p in _PLAN_IDS.values() for cell in p.values()}
_PROTECTED = set(range(27)) | _PLANNED_CELLS
# Cells that would join a path end to more of the same color and could close a loop.
_KEEP_OFF = {RED: {"E1", "E9"}, BLUE: {"E2", "E8", "D3", "D7"}}
_KEEP_OFF_IDS = {c: {cell_index(x) for x in cells} for c, cells in _KEEP_OFF.items()}
# Tiles a color keeps for the end of its deal: they could only be played into rows A-C.
_HELD_BACK = {RED: ("A", "B", "C", "ring"), BLUE: ("A", "B", "1", "9"), PURPLE: _TOP_ONLY}


def _passing_deal(rng: random.Random) -> dict[int, tuple[int, ...]]:
    deals = {}
    for color in range(5):
        planned = list(_PLAN_IDS.get(color, {}))
        tail = [tile_index(t) for t in _HELD_BACK.get(color, ())]
        rest = [t for t in range(28) if t not in planned and t not in tail]
        rng.shuffle(planned)
        rng.shuffle(rest)
        rng.shuffle(tail)
        if color == PURPLE:
            rest = planned + rest
            rng.shuffle(rest)
            planned = []
        deals[color] = (*planned, *rest, *tail)
    return deals


def _steered(state: GameState, move: Move) -> bool:
    color, tile, cell = move
    if tile in _PLAN_IDS.get(color, {}):
        return cell == _PLAN_IDS[color][tile]
    if TILE_NAMES[tile] in _HELD_BACK.get(color, ()) or cell in _KEEP_OFF_IDS.get(color, ()):
        return False
    if cell in _PROTECTED:
        # green and yellow may drop a tile on a planned cell that is still empty; the plan captures it later
        return color in (GREEN, YELLOW) and cell in _PLANNED_CELLS and state.color_at(cell) < 0
    return True


def passing_game() -> GameState:
    """A finished five-player game in which purple passes (M6), built from a hand-made deal."""
    settings = GameSettings.for_players(5)
    for attempt in range(100):
        rng = random.Random(attempt)
        state = GameState(settings, _passing_deal(rng))
        while not state.over:
            legal = list(state.legal_moves())
            if not legal:
                state.push_pass()
                continue
            allowed = [m for m in legal if _steered(state, m)]
            if not allowed:
                break
            planned = [m for m in allowed if m.tile in _PLAN_IDS.get(m.color, {})]
            state.push(rng.choice(planned or allowed))
        if state.over and any(move.is_pass for move, _ in state.history):
            return state
    raise AssertionError("no passing game found")


def passing_record() -> dict:
    names = ["red-path", "blue-path", "green", "yellow", "purple"]
    return build_record(passing_game(), names, extra={"note": "a hand-made deal steered into a pass (M6)"})


GOLDEN_RECORDS = {
    "2p-seed2.json": lambda: seeded_record(2, 2),
    "3p-seed3.json": lambda: seeded_record(3, 3),
    "4p-seed4.json": lambda: seeded_record(4, 4, time_limit=1.5),
    "5p-seed5.json": lambda: seeded_record(5, 5),
    "2p-seed6-blockers-opponent.json": lambda: seeded_record(2, 6, "blockers", "opponent"),
    "5p-passes.json": passing_record,
}


def golden(name: str) -> dict:
    return json.loads((GOLDEN / name).read_text(encoding="ascii"))


def regenerate() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for name, make in GOLDEN_RECORDS.items():
        records.write(GOLDEN / name, make())


# -- writing -------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(GOLDEN_RECORDS))
def test_golden_records_are_byte_identical(name):
    assert dumps(GOLDEN_RECORDS[name]()) == (GOLDEN / name).read_text(encoding="ascii")


@pytest.mark.parametrize("name", sorted(GOLDEN_RECORDS))
def test_golden_records_replay_to_their_result(name):
    record = golden(name)
    game = replay(record)
    assert [row.to_dict() for row in game.result] == record["result"]
    assert len(game.moves) == len(record["moves"])


def test_golden_record_shape():
    record = golden("4p-seed4.json")
    assert list(record) == ["format", "scoring", "seed", "players", "deal", "moves", "result", "time_limit"]
    assert record["format"] == FORMAT
    assert record["players"][2] == {"seat": 2, "name": "random-2", "colors": ["green"]}
    assert list(record["deal"]) == ["red", "blue", "green", "yellow"]
    text = (GOLDEN / "4p-seed4.json").read_text(encoding="ascii")
    # one move per line, one deal per line
    assert sum(line.strip().startswith('{"seat"') for line in text.splitlines()) == len(record["moves"]) + 8
    assert sum(line.strip().startswith('"red": [') for line in text.splitlines()) == 1
    assert text.endswith("}\n")


def test_C4_opponent_penalty_is_written_and_honoured():
    record = golden("2p-seed6-blockers-opponent.json")
    assert list(record)[:4] == ["format", "scoring", "penalty", "seed"]
    assert record["penalty"] == "opponent" and record["scoring"] == "blockers"
    game = replay(record)
    assert game.settings.penalty == "opponent"
    for row in record["result"]:
        taken = sum(record["result"][row["seat"]]["captures"].values())
        assert row["blockers_penalty"] == taken  # one opponent: everything taken counts
    # Read under the default penalty, the same moves give another result.
    plain = {k: v for k, v in record.items() if k != "penalty"}
    assert any(len(r["captures"]) > 1 for r in record["result"])
    with pytest.raises(RecordError, match="^result: seat 0 blockers_penalty is"):
        replay(plain)
    assert "penalty" not in seeded_record(2, 6, "blockers")


def test_M6_five_player_game_with_passes_replays():
    record = golden("5p-passes.json")
    passes = [i for i, move in enumerate(record["moves"]) if move.get("pass")]
    assert passes
    assert all(set(record["moves"][i]) == {"seat", "pass"} for i in passes)
    game = replay(record)
    assert all(game.moves[i].is_pass for i in passes)
    # Just before the first pass, the passing seat really had no legal play.
    state = GameState(game.settings, game.deals)
    for move in game.moves[: passes[0]]:
        state.push(move)
    assert state.to_move == record["moves"][passes[0]]["seat"]
    assert not state.legal_moves()


def test_build_record_of_moves_passes_and_captures():
    state = random_game(GameSettings.for_players(3), 11)
    record = build_record(state, ["a", "b", "c"])
    assert "seed" not in record
    assert list(record) == ["format", "scoring", "players", "deal", "moves", "result"]
    for entry, (move, captured) in zip(record["moves"], state.history):
        assert entry["seat"] == state.settings.seat_of(move.color)
        assert Move.parse(f"{entry['color']}:{entry['tile']}@{entry['cell']}") == move
        assert entry.get("capture") == (COLORS[captured] if captured >= 0 else None)
        assert ("capture" in entry) == (captured >= 0)
    assert any("capture" in entry for entry in record["moves"])


def test_build_record_of_an_unfinished_game_has_no_result():
    settings = GameSettings.for_players(4)
    state = GameState(settings, deal(1, settings))
    rng = random.Random(1)
    for _ in range(10):
        state.push(state.legal_moves().choice(rng))
    record = build_record(state, "abcd", seed=1, extra={"bots": ["random"] * 4})
    assert list(record) == ["format", "scoring", "seed", "players", "deal", "moves", "bots"]
    with pytest.raises(RecordError, match=r"moves missing at the end: after 10 move\(s\).*seat 2 is to move \(E2\)"):
        replay(record)


def test_build_record_refuses_wrong_names_and_clashing_extra_keys():
    state = random_game(GameSettings.for_players(2), 3)
    with pytest.raises(ValueError):
        build_record(state, ["only one"])
    with pytest.raises(ValueError):
        build_record(state, ["a", "b"], extra={"moves": []})


def test_dumps_is_json_and_dumps_line_is_one_line():
    record = golden("2p-seed2.json")
    record["players"][0]["name"] = "R\u00e9my \"the bot\"\n"
    text = dumps(record)
    assert text.isascii() and text.endswith("\n")
    assert json.loads(text) == record
    line = dumps_line(record)
    assert "\n" not in line and line.isascii()
    assert json.loads(line) == record
    assert dumps(json.loads(line)) == text


def test_a_byte_order_mark_is_ignored(tmp_path):
    text = dumps(golden("2p-seed2.json"))
    assert loads("\ufeff" + text) == loads(text)
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    replay(records.load(path))


def test_write_is_atomic_and_load_reads_it_back(tmp_path):
    record = golden("3p-seed3.json")
    path = tmp_path / "game.json"
    path.write_text("old")
    records.write(path, record)
    assert path.read_text(encoding="ascii") == dumps(record)
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]
    assert records.load(path) == record
    gz = tmp_path / "game.json.gz"
    gz.write_bytes(gzip.compress(dumps(record).encode()))
    assert records.load(gz) == record


def test_write_leaves_the_old_file_when_it_fails(tmp_path):
    path = tmp_path / "game.json"
    records.write(path, {"format": FORMAT})
    with pytest.raises(ValueError):
        records.write(path, {"format": FORMAT, "bad": float("nan")})
    assert json.loads(path.read_text()) == {"format": FORMAT}
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]


# -- reading what others wrote ------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_records_round_trip_over_random_games(players):
    for seed in range(25):
        scoring = ("uptown", "blockers")[seed % 2]
        record = seeded_record(players, 1000 + seed, scoring)
        text = dumps(record)
        assert loads(text) == record
        assert loads(dumps_line(record)) == record
        game = replay(loads(text))
        assert [r.to_dict() for r in game.result] == record["result"]
        assert game.seed == 1000 + seed and list(game.names) == [p["name"] for p in record["players"]]
        assert dumps(build_record(game.state, game.names, seed=game.seed)) == text



@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_record_line_is_dumps_line_of_build_record(players):
    extra = {"bots": [{"seat": 0, "spec": "random", "options": {"x": 1.5}}], "faults": [], "t": None}
    for seed in range(20):
        scoring, penalty = (("uptown", "color"), ("blockers", "opponent"))[seed % 2]
        settings = GameSettings.for_players(players, scoring, penalty)
        state = random_game(settings, seed)
        if seed % 3 == 0:  # an unfinished game: no result
            state = GameState.restore(
                settings, {c: state.deals[c] for c in settings.colors}, dict(enumerate(state.drawn)),
                dict(enumerate(state.racks)), state.boards, state.captures, state.to_move, 0, state.history[:30],
            )
        names = [f"R\u00e9my \"{seat}\"" for seat in range(players)]
        for seed_written, more in ((seed, extra), (None, None), (True, {"note": "x"})):
            line = records.record_line(state, names, seed_written, more)
            assert line == dumps_line(build_record(state, names, seed_written, more))
    # A pass, and colors seated out of order.
    assert records.record_line(passing_game(), "abcde", 1) == dumps_line(build_record(passing_game(), "abcde", 1))
    settings = GameSettings(((2,), (0,), (1,)))
    state = GameState(settings, deal(8, settings))
    rng = random.Random(8)
    while not state.over:
        state.push(state.legal_moves().choice(rng))
    assert records.record_line(state, "abc", 8) == dumps_line(build_record(state, "abc", 8))
    with pytest.raises(ValueError):
        records.record_line(state, "abc", extra={"moves": []})


def _as_another_program(record: dict) -> dict:
    """The same game as another program might write it: its own key order, null captures, extra keys, no result."""
    other: dict[str, Any] = {"generator": {"name": "elsewhere", "version": [1, 2]}}
    for key in reversed(list(record)):
        if key in ("result", "seed"):
            continue
        value = copy.deepcopy(record[key])
        if key == "moves":
            value = [
                {"clock": 1.25, **dict(reversed(list({**m, "capture": m.get("capture")}.items())))}
                if "pass" not in m else {"pass": True, "seat": m["seat"]}
                for m in value
            ]
        if key == "players":
            value = [{"rating": 1500, **dict(reversed(list(p.items())))} for p in value]
        if key == "deal":
            value = dict(reversed(list(value.items())))
        other[key] = value
    return other


def test_a_record_written_by_another_program_replays():
    record = golden("4p-seed4.json")
    other = _as_another_program(record)
    assert list(other)[:2] == ["generator", "time_limit"]
    assert any(m.get("capture", "x") is None for m in other["moves"])
    game = replay(other)
    assert [r.to_dict() for r in game.result] == record["result"]
    assert game.seed is None


@pytest.mark.parametrize(
    "seat_colors",
    [((4,), (0,), (3,)), ((2, 4), (0, 3)), ((1,), (4,), (2,), (0,)), ((3,), (2,), (1,), (0,), (4,))],
    ids=["3p purple-red-yellow", "2p green+purple vs red+yellow", "4p shuffled", "5p reversed"],
)
def test_T2_any_color_assignment_replays(seat_colors):
    settings = GameSettings(seat_colors)
    state = random_game(settings, 77)
    record = _as_another_program(build_record(state, [f"p{s}" for s in range(len(seat_colors))]))
    game = replay(record)
    assert game.settings.seat_colors == seat_colors
    assert [r.to_dict() for r in game.result] == [r.to_dict() for r in state.result()]
    steps = list(game.states())
    assert len(steps) == len(record["moves"])
    assert steps[-1].state.boards == game.state.boards
    assert [s.seat for s in steps] == [m["seat"] for m in record["moves"]]


def test_result_with_zero_counts_and_extra_fields_is_accepted():
    record = golden("3p-seed3.json")
    for row in record["result"]:
        row["captures"] = {**{c: 0 for c in COLORS[:3]}, **row["captures"]}
        row["score"] = -row["groups"]
    replay(record)


# -- rejections ------------------------------------------------------------------


def rejects(record: Any, pattern: str) -> str:
    with pytest.raises(RecordError) as info:
        replay(record)
    message = str(info.value)
    assert "\n" not in message
    assert re.search(pattern, message), message
    return message


def g4() -> dict:
    return golden("4p-seed4.json")


def test_reject_not_json():
    for text in ["{", "", "{'format': 1}", "[1, 2", "{\"a\": NaN}", "\xff", b"\xff\xfe"]:
        with pytest.raises(RecordError, match="^not JSON: "):
            loads(text)
    with pytest.raises(RecordError, match="^not JSON"):
        loads("[" * 100_000)


def test_reject_not_an_object():
    for text in ["[]", "3", "\"uptown\"", "null"]:
        with pytest.raises(RecordError, match="^not a JSON object"):
            loads(text)
    rejects([1, 2], "^not a JSON object")


def test_reject_unknown_format():
    record = g4()
    record["format"] = "uptown-game/2"
    rejects(record, r'^unknown format "uptown-game/2" \(this reader knows uptown-game/1\)$')


@pytest.mark.parametrize("key", ["format", "scoring", "players", "deal", "moves"])
def test_reject_missing_key(key):
    record = g4()
    del record[key]
    rejects(record, f'^missing key "{key}"$')


def test_reject_bad_scoring_penalty_and_seed():
    record = g4()
    record["scoring"] = "golf"
    rejects(record, "^unknown scoring \"golf\"")
    record = g4()
    record["penalty"] = "everything"
    rejects(record, "^unknown penalty \"everything\"")
    record = g4()
    record["seed"] = "4"
    rejects(record, '^"seed" must be an integer')


def test_T2_reject_bad_players():
    record = g4()
    record["players"] = record["players"][:1]
    rejects(record, r"^players: Uptown is played by 2 to 5 players, not 1 \(T2\)$")
    record = g4()
    record["players"] = record["players"] * 2
    rejects(record, "not 8")
    record = g4()
    record["players"][1]["seat"] = 2
    rejects(record, r"^players: entry 1 has seat 2; seats count from 0 in turn order \(T3\)$")
    record = g4()
    record["players"][3]["colors"] = ["pink"]
    rejects(record, '^players: seat 3: unknown color "pink"$')
    record = g4()
    record["players"][3]["colors"] = ["red"]
    rejects(record, r"^players: red is played by seat 0 and seat 3 \(T2\)$")
    record = g4()
    record["players"][0]["colors"] = ["red", "purple"]
    rejects(record, r"each seat plays 1 color\(s\); seat 0 has 2 \(T2\)$")
    record = golden("2p-seed2.json")
    record["players"][1]["colors"] = ["green"]
    rejects(record, r"each seat plays 2 color\(s\); seat 1 has 1 \(T2\)$")
    record = g4()
    record["players"][2] = "green"
    rejects(record, "^players: entry 2 is a string, not an object$")
    record = g4()
    del record["players"][2]["colors"]
    rejects(record, '^players: entry 2: missing key "colors"$')


def test_T1_reject_a_deal_that_is_not_the_28_tiles():
    record = g4()
    record["deal"]["blue"] = record["deal"]["blue"][:-1]
    last = golden("4p-seed4.json")["deal"]["blue"][-1]
    rejects(record, rf"^deal of blue is not the 28 tiles of that color \(27 tiles; missing: {last}\) \(T1\)$")
    record = g4()
    record["deal"]["red"][3] = record["deal"]["red"][4]
    rejects(record, r"^deal of red is not the 28 tiles of that color \(28 tiles; twice: .*; missing: .*\) \(T1\)$")
    record = g4()
    record["deal"]["green"][0] = "J"
    rejects(record, '^deal of green: unknown tile "J"$')
    record = g4()
    del record["deal"]["yellow"]
    rejects(record, "^deal: no tiles for yellow$")
    record = g4()
    record["deal"]["purple"] = record["deal"]["red"]
    rejects(record, "^deal: purple is not played by any seat$")
    record = g4()
    record["deal"]["pink"] = record["deal"]["red"]
    rejects(record, '^deal: unknown color "pink"$')


def test_reject_unknown_tile_cell_and_color_in_a_move():
    record = g4()
    record["moves"][7]["tile"] = "joker"
    rejects(record, '^move 7: unknown tile "joker"$')
    record = g4()
    record["moves"][7]["cell"] = "J1"
    rejects(record, '^move 7: unknown cell "J1"$')
    record = g4()
    record["moves"][7]["color"] = "orange"
    rejects(record, '^move 7: unknown color "orange"$')
    record = g4()
    del record["moves"][7]["cell"]
    rejects(record, '^move 7: missing key "cell"$')


def test_T3_reject_a_move_by_the_wrong_seat():
    record = g4()
    record["moves"][5]["seat"] = 3
    rejects(record, r"^move 5: seat 3 is not to move, seat 1 is \(T3\)$")
    record["moves"][5]["seat"] = 9
    rejects(record, "^move 5: there is no seat 9 in a 4-player game$")
    record["moves"][5]["seat"] = "1"
    rejects(record, '^move 5: seat must be an integer, not "1"$')


def test_T2_reject_a_color_of_another_seat():
    record = g4()
    record["moves"][5]["color"] = "green"
    rejects(record, r"^move 5: green is not a color of seat 1 \(T2\)$")


def _state_before(record: dict, index: int) -> GameState:
    game = replay(record)
    state = GameState(game.settings, game.deals)
    for move in game.moves[:index]:
        state.push(move)
    return state


def test_M1_reject_a_tile_that_is_not_on_the_rack():
    record = g4()
    state = _state_before(record, 9)
    color = COLORS.index(record["moves"][9]["color"])
    missing = next(t for t in range(28) if t not in state.racks[color])
    record["moves"][9]["tile"] = TILE_NAMES[missing]
    rejects(record, rf"^move 9: {COLORS[color]} has no {TILE_NAMES[missing]} on its rack \(M1\)$")


def test_M1_reject_a_tile_on_a_cell_it_does_not_fit():
    record = g4()
    move = record["moves"][3]
    tile = tile_index(move["tile"])
    cell = next(c for c in range(81) if not FITS[tile] >> c & 1)
    move["cell"] = CELL_NAMES[cell]
    rejects(record, rf"^move 3: {move['tile']} does not fit {CELL_NAMES[cell]} \(M1\)$")


def _find(record: dict, test) -> tuple[int, Any]:
    """The first move index (and what ``test`` found) at which ``test(state, rack tiles)`` finds something."""
    game = replay(record)
    state = GameState(game.settings, game.deals)
    for index, move in enumerate(game.moves):
        found = test(state)
        if found is not None:
            return index, found
        state.push(move)
    raise AssertionError("nothing found")


def test_M2_reject_a_tile_played_onto_its_own_color():
    record = g4()

    def onto_own(state: GameState):
        (color,) = state.settings.seat_colors[state.to_move]
        for tile in state.racks[color]:
            cells = FITS[tile] & state.boards[color]
            if cells:
                return color, tile, (cells & -cells).bit_length() - 1
        return None

    index, (color, tile, cell) = _find(record, onto_own)
    record["moves"][index] = {"seat": record["moves"][index]["seat"], "color": COLORS[color],
                              "tile": TILE_NAMES[tile], "cell": CELL_NAMES[cell], "capture": COLORS[color]}
    rejects(record, rf"^move {index}: {CELL_NAMES[cell]} holds {COLORS[color]}'s own tile \(M2\)$")


def test_M2_reject_a_tile_played_onto_the_seats_other_color():
    record = golden("2p-seed2.json")

    def onto_other(state: GameState):
        first, second = state.settings.seat_colors[state.to_move]
        for color, other in ((first, second), (second, first)):
            if state.is_finished(color):
                continue
            for tile in state.racks[color]:
                cells = FITS[tile] & state.boards[other]
                if cells:
                    return color, other, tile, (cells & -cells).bit_length() - 1
        return None

    index, (color, other, tile, cell) = _find(record, onto_other)
    seat = record["moves"][index]["seat"]
    record["moves"][index] = {"seat": seat, "color": COLORS[color], "tile": TILE_NAMES[tile],
                              "cell": CELL_NAMES[cell], "capture": COLORS[other]}
    rejects(record, rf"^move {index}: {CELL_NAMES[cell]} holds {COLORS[other]}, the other color of seat {seat} \(M2\)$")


def test_M3_reject_a_capture_that_splits_a_group():
    record = g4()

    def splitting(state: GameState):
        (color,) = state.settings.seat_colors[state.to_move]
        for tile in state.racks[color]:
            for cell in range(81):
                occupant = state.color_at(cell)
                if FITS[tile] >> cell & 1 and occupant not in (-1, color) and not state.capturable_at(cell):
                    return color, tile, cell, occupant
        return None

    index, (color, tile, cell, victim) = _find(record, splitting)
    record["moves"][index] = {"seat": record["moves"][index]["seat"], "color": COLORS[color],
                              "tile": TILE_NAMES[tile], "cell": CELL_NAMES[cell], "capture": COLORS[victim]}
    rejects(record, rf"^move {index}: capturing {CELL_NAMES[cell]} would split {COLORS[victim]}'s group \(M3\)$")


def test_reject_a_capture_field_that_does_not_match_the_board():
    record = g4()
    index = next(i for i, m in enumerate(record["moves"]) if "capture" in m)
    victim = record["moves"][index]["capture"]
    cell = record["moves"][index]["cell"]
    wrong = next(c for c in ("red", "blue", "green", "yellow") if c != victim)
    record["moves"][index]["capture"] = wrong
    rejects(record, rf'^move {index}: "capture" says {wrong} but {cell} holds {victim}$')
    record["moves"][index]["capture"] = None
    rejects(record, rf'^move {index}: {cell} holds {victim} but "capture" does not say so$')
    record = g4()
    index = next(i for i, m in enumerate(record["moves"]) if "capture" not in m)
    record["moves"][index]["capture"] = "red"
    rejects(record, rf'^move {index}: "capture" says red but {record["moves"][index]["cell"]} is empty$')
    record["moves"][index]["capture"] = 3
    rejects(record, rf'^move {index}: "capture": unknown color 3$')


def test_E1_reject_a_move_of_a_finished_color():
    record = golden("2p-seed2.json")
    # the first move of a seat after one of its two colors played its 24th tile
    counts: dict[str, int] = {}
    target = None
    for index, move in enumerate(record["moves"]):
        done = [c for c in record["players"][move["seat"]]["colors"] if counts.get(c, 0) == 24]
        if done:
            target = index, done[0]
            break
        counts[move["color"]] = counts.get(move["color"], 0) + 1
    assert target is not None
    index, color = target
    assert record["moves"][index]["color"] != color
    record["moves"][index]["color"] = color
    rejects(record, rf"^move {index}: {color} is finished \(E1\)$")


def test_M4_reject_a_pass_while_a_move_is_legal():
    record = g4()
    record["moves"][30] = {"seat": record["moves"][30]["seat"], "pass": True}
    seat = record["moves"][30]["seat"]
    rejects(record, rf"^move 30: seat {seat} passes but has \d+ legal move\(s\), e.g. \S+ \(M4\)$")
    record["moves"][30]["pass"] = "yes"
    rejects(record, '^move 30: "pass" must be true or false, not "yes"$')
    record["moves"][30] = {"seat": record["moves"][30]["seat"], "pass": True, "tile": "A"}
    rejects(record, "^move 30: a pass names no color, tile or cell$")


def test_E2_reject_moves_after_the_end_of_the_game():
    record = g4()
    n = len(record["moves"])
    record["moves"].append(dict(record["moves"][-1]))
    rejects(record, rf"^move {n}: the game is over after move {n - 1}, yet more moves follow \(E2\)$")


def test_E3_reject_moves_after_the_game_ended_by_passes():
    record = golden("5p-passes.json")
    assert record["moves"][-1].get("pass")
    n = len(record["moves"])
    record["moves"].append({"seat": 0, "pass": True})
    rejects(record, rf"^move {n}: the game is over after move {n - 1}, yet more moves follow \(E3\)$")


def test_E2_reject_moves_missing_at_the_end():
    record = g4()
    n = len(record["moves"])
    seat = record["moves"][-1]["seat"]
    del record["moves"][-1]
    rejects(
        record,
        rf"^moves missing at the end: after {n - 1} move\(s\) the game is not over, seat {seat} is to move \(E2\)$",
    )
    record["moves"] = []
    rejects(record, r"^moves missing at the end: after 0 move\(s\)")


def test_reject_a_result_that_does_not_match():
    record = g4()
    right = record["result"][1]["groups"]
    record["result"][1]["groups"] = right + 1
    rejects(record, rf"^result: seat 1 groups is {right + 1}, but the moves give {right}$")
    for key in ("captured_total", "blockers_penalty", "blockers_score", "uptown_rank", "blockers_rank"):
        record = g4()
        record["result"][2][key] = 99
        rejects(record, f"^result: seat 2 {key} is 99, but the moves give")
    record = g4()
    record["result"][0]["captures"] = {"blue": 99}
    rejects(record, r'^result: seat 0 captures is \{"blue": 99\}, but the moves give')
    record = g4()
    record["result"][3]["groups"] = str(record["result"][3]["groups"])
    rejects(record, "^result: seat 3 groups is \"")
    record = g4()
    del record["result"][2]["blockers_rank"]
    rejects(record, '^result: seat 2 has no "blockers_rank"$')
    record = g4()
    record["result"] = record["result"][:3]
    rejects(record, "^result: 3 rows for 4 seats$")
    record = g4()
    record["result"][0], record["result"][1] = record["result"][1], record["result"][0]
    rejects(record, "^result: row 0 has seat 1; rows go in seat order$")
    record = g4()
    record["result"] = {"0": 1}
    rejects(record, '^"result" must be a list')


def test_a_record_without_result_replays():
    record = g4()
    del record["result"]
    replay(record)
    record["result"] = None
    replay(record)


_ODD_VALUES = [None, True, False, 0, -1, 7, 10**40, 1.5, "", "A1", "red", "$", [], [None], {}, {"seat": 0}, [[1]]]


def _paths(value: Any, path: tuple = ()) -> list[tuple]:
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*path, index))
    return found


@pytest.mark.parametrize("name", ["2p-seed2.json", "5p-passes.json"])
@pytest.mark.slow
def test_malformed_records_give_record_errors_never_tracebacks(name):
    """Fuzz: replace values anywhere in a record with values of the wrong type."""
    rng = random.Random(2024)
    base = golden(name)
    paths = _paths(base)[1:]
    text = json.dumps(base)  # a fresh copy each time: json.loads copies a record several times faster than deepcopy
    outcomes = set()
    for _ in range(1500):
        record = json.loads(text)
        for _ in range(rng.choice((1, 1, 2))):
            path = rng.choice(paths)
            target = record
            try:
                for key in path[:-1]:
                    target = target[key]
                if rng.random() < 0.15 and isinstance(target, (dict, list)):
                    del target[path[-1]]
                else:
                    target[path[-1]] = copy.deepcopy(rng.choice(_ODD_VALUES))
            except (KeyError, IndexError, TypeError):
                continue
        try:
            replay(record)
            outcomes.add("valid")
        except RecordError as exc:
            assert "\n" not in str(exc)
            outcomes.add("rejected")
    assert outcomes == {"valid", "rejected"}


def test_malformed_text_gives_record_errors():
    text = dumps(golden("3p-seed3.json"))
    rng = random.Random(5)
    for _ in range(300):
        i = rng.randrange(len(text))
        mutated = text[:i] + rng.choice(['"', "{", "]", "1", ",", "", "null", "-"]) + text[i + rng.randrange(3):]
        try:
            replay(loads(mutated))
        except RecordError as exc:
            assert "\n" not in str(exc)


def test_load_of_a_missing_or_unreadable_file(tmp_path):
    with pytest.raises(RecordError, match="^cannot read .*nothing.json"):
        records.load(tmp_path / "nothing.json")
    with pytest.raises(RecordError, match="is a folder, not a regular file$"):
        records.load(tmp_path)
    bad = tmp_path / "bad.json.gz"
    bad.write_bytes(b"not gzip")
    with pytest.raises(RecordError, match="^cannot read"):
        records.load(bad)


if __name__ == "__main__":
    if sys.argv[1:] == ["--regenerate"]:
        regenerate()
        print(f"wrote {len(GOLDEN_RECORDS)} golden records to {GOLDEN}")
    else:
        print(__doc__)
