"""The bot protocol uptown-bot/1: messages written and read, views rebuilt exactly, the transcript in docs.

Regenerate docs/reference/protocol-transcript.md after a deliberate change with
``python tests/integration/test_protocol.py --regenerate``.
"""

from __future__ import annotations

import dataclasses
import json
import random
import sys
from pathlib import Path

import pytest

from arena import records
from arena.api import Option
from arena.rules import PASS, GameSettings, GameState, Move, SeatView, deal, derived_random
from arena.wire import protocol
from arena.wire.protocol import (
    MAX_LINE,
    ProtocolError,
    TurnWriter,
    ViewReader,
    bot_seed,
    game_line,
    over_line,
    parse_line,
    read_answer,
    read_game,
    read_hello,
)

ROOT = Path(__file__).resolve().parents[2]
TRANSCRIPT = ROOT / "docs" / "reference" / "protocol-transcript.md"
EXAMPLE = ROOT / "examples" / "protocol" / "random_bot.py"


def played_states(players: int, seed: int, scoring: str = "uptown"):
    """(state, legal moves) before every turn of a random game."""
    settings = GameSettings.for_players(players, scoring)
    state = GameState(settings, deal(seed, settings))
    rng = derived_random("test-protocol", seed)
    while not state.over:
        moves = state.legal_moves()
        yield state, moves
        state.push(moves.choice(rng))


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_view_read_from_its_turn_message_equals_the_seats_own_view_S2(players, seed):
    """What the bot host rebuilds from the JSON is field for field the view an in-process bot gets."""
    writer = None
    readers = {}
    turns = 0
    for state, moves in played_states(players, seed):
        if writer is None:
            writer = TurnWriter(state)
            readers = {
                s: ViewReader(read_game(json.loads(game_line(state.settings, s, {}, 5.0, bot_seed(seed, s)))))
                for s in range(players)
            }
        if not moves:
            continue
        seat = state.to_move
        message = json.loads(writer.line(seat, moves, 5.0))
        rebuilt = readers[seat].view(message)
        expected = SeatView.of(state, seat, moves)
        for field in (f.name for f in dataclasses.fields(SeatView)):
            if field == "legal":
                assert rebuilt.legal.options == expected.legal.options
                assert list(rebuilt.legal) == list(expected.legal)
            else:
                assert getattr(rebuilt, field) == getattr(expected, field), field
        # The same sample for the same generator: search bots play the same in and out of process.
        assert rebuilt.sample(random.Random(7)).deals == expected.sample(random.Random(7)).deals
        turns += 1
    assert turns > 50


def test_turn_message_names_cells_tiles_and_colors_as_the_records_do():
    states = iter(played_states(4, 5))
    for _ in range(30):
        state, moves = next(states)
    line = TurnWriter(state).line(state.to_move, moves, 2.5)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    message = json.loads(line)
    assert message["type"] == "turn" and message["time"] == 2.5
    view = message["view"]
    assert set(view) == {"seat", "move", "board", "racks", "drawn", "played", "captures", "history", "passes"}
    assert view["move"] == 29 and len(view["history"]) == 29
    assert list(view["racks"]) == [["red", "blue", "green", "yellow"][state.to_move]]
    assert all(isinstance(m, str) and Move.parse(m) in moves for m in message["legal"])
    assert len(message["legal"]) == len(moves)
    for entry in view["history"]:
        assert isinstance(entry[0], int) and isinstance(Move.parse(entry[1]), Move)


def test_history_marks_captures_and_passes():
    # A real game with a pass (M6) after captures: the golden five-player record's moves, played again.
    game = records.replay(json.loads((Path(__file__).parents[1] / "golden" / "5p-passes.json").read_text()))
    state = GameState(game.settings, game.deals)
    writer = TurnWriter(state)
    moves = iter(game.moves)
    captured = None
    while captured is None:
        if state.push(next(moves)) >= 0:
            captured = len(state.history) - 1
    entry = json.loads(writer.line(state.to_move, state.legal_moves(), 1.0))["view"]["history"][captured]
    assert len(entry) == 3 and entry[2] in ("red", "blue", "green", "yellow", "purple")
    for move in moves:
        if move.is_pass:
            seat = state.to_move
            state.push_pass()
            break
        state.push(move)
    history = json.loads(writer.line(state.to_move, state.legal_moves(), 1.0))["view"]["history"]
    assert history[-1] == [seat, "pass"]


def test_game_message_and_bot_seed():
    settings = GameSettings.for_players(2, "blockers", "opponent")
    message = json.loads(game_line(settings, 1, {"depth": 3}, float("inf"), bot_seed(9, 1)))
    assert message == {
        "type": "game", "seat": 1,
        "players": [{"seat": 0, "colors": ["red", "blue"]}, {"seat": 1, "colors": ["green", "yellow"]}],
        "scoring": "blockers", "penalty": "opponent", "time_limit": None, "options": {"depth": 3},
        "seed": bot_seed(9, 1),
    }
    start = read_game(message)
    assert start.seat == 1 and start.settings == settings and start.time_limit == float("inf")
    # The seed gives the generator an in-process bot gets: the same stream either way.
    assert random.Random(start.seed).random() == derived_random("uptown-bot/1", 9, 1).random()
    assert len(message["seed"]) == 64 and bot_seed(9, 1) != bot_seed(9, 0) != bot_seed(10, 0)


def test_over_message_holds_the_result_rows():
    states = list(played_states(3, 2))
    state, _ = states[-1]
    final = GameState(state.settings, deal(2, state.settings))
    for move, _ in state.history:
        final.push(move)
    message = json.loads(over_line(final.result()))
    assert message["type"] == "over" and [row["seat"] for row in message["result"]] == [0, 1, 2]


@pytest.mark.parametrize("line, problem", [
    (b"not json\n", "not JSON"),
    (b"[1, 2]\n", "not a JSON object"),
    (b'{"move": "red:A@A1"}\n', 'without a "type"'),
    (b'{"type": 3}\n', 'without a "type"'),
])
def test_lines_that_are_not_messages_are_protocol_errors(line, problem):
    with pytest.raises(ProtocolError, match=problem):
        parse_line(line)


@pytest.mark.parametrize("answer, problem", [
    ({"type": "move", "move": 7}, "a move is a string"),
    ({"type": "move", "move": "red:A@Z9"}, "not written as a move"),
    ({"type": "move", "move": "orange:A@A1"}, "not written as a move"),
    ({"type": "move"}, "a move is a string"),
    ({"type": "hello"}, "answered a turn with a \"hello\" message"),
])
def test_answers_that_are_not_moves_are_protocol_errors(answer, problem):
    with pytest.raises(ProtocolError, match=problem):
        read_answer(answer)


def test_answers_read():
    assert read_answer({"type": "move", "move": "red:ring@B2"}) == Move.parse("red:ring@B2")
    assert read_answer({"type": "move", "move": "pass"}) == PASS
    assert read_answer({"type": "error", "message": "gave  up\nnow"}) == ("exception", "gave up now")
    assert read_answer({"type": "error", "kind": "exit", "message": "x"}) == ("exit", "x")
    assert read_answer({"type": "error", "kind": "timeout", "message": "x"}) == ("exception", "x")


@pytest.mark.parametrize("hello, problem", [
    ({"type": "hello", "protocol": "uptown-bot/2"}, "speaks protocol \"uptown-bot/2\""),
    ({"type": "hello"}, "speaks protocol null"),
    ({"type": "move", "protocol": protocol.PROTOCOL}, "answered hello with a \"move\""),
    ({"type": "hello", "protocol": protocol.PROTOCOL, "options": []}, "options are an object"),
    ({"type": "hello", "protocol": protocol.PROTOCOL, "options": {"x": [1]}}, "a default is"),
    ({"type": "hello", "protocol": protocol.PROTOCOL, "options": {"x": "a,b"}}, "may not contain"),
    ({"type": "hello", "protocol": protocol.PROTOCOL, "name": 5}, "are strings"),
    ({"type": "error", "message": "bot 'x': unknown bot"}, "unknown bot"),
    ({"type": "hello", "protocol": protocol.PROTOCOL, "options": {f"o{i}": i for i in range(65)}},
     "declares 65 options, more than 64"),
    ({"type": "hello", "protocol": protocol.PROTOCOL, "name": "n" * 201}, "name is 201 characters long, more than 200"),
    ({"type": "hello", "protocol": protocol.PROTOCOL, "description": "d" * 201},
     "description is 201 characters long, more than 200"),
    ({"type": "hello", "protocol": protocol.PROTOCOL, "options": {"k" * 201: 1}},
     "an option's name is 201 characters long, more than 200"),
    ({"type": "hello", "protocol": protocol.PROTOCOL, "options": {"k": "\u00e9" * 34}},
     "its default is 206 characters long as JSON, more than 200"),
])
def test_bad_handshakes_are_refused(hello, problem):
    with pytest.raises(ProtocolError, match=problem):
        read_hello(hello)


def test_a_good_handshake():
    declared = read_hello({"type": "hello", "protocol": protocol.PROTOCOL, "name": "x",
                           "description": "one\nline", "options": {"depth": 2, "fast": True}})
    assert declared == ("x", "one line", {"depth": Option(2), "fast": Option(True)})
    assert declared.defaults() == {"depth": 2, "fast": True}


def test_a_handshake_with_option_info():
    """``option_info`` (optional, each of its keys too) gives an option's range and doc."""
    declared = read_hello({"type": "hello", "protocol": protocol.PROTOCOL, "options": {"depth": 2, "style": "calm",
                           "rate": 0.5, "fast": True}, "option_info": {
                               "depth": {"min": 1, "max": 5, "doc": "moves\nahead \x1b[2J"},
                               "style": {"choices": ["calm", "wild"]}, "rate": {"min": 0}, "fast": {}}})
    assert declared.options == {"depth": Option(2, min=1, max=5, doc="moves ahead \\x1b[2J"),
                                "style": Option("calm", choices=("calm", "wild")), "rate": Option(0.5, min=0),
                                "fast": Option(True)}
    assert declared.defaults() == {"depth": 2, "style": "calm", "rate": 0.5, "fast": True}


@pytest.mark.parametrize("info, problem", [
    ([], "option_info is an object of name: {min, max, choices, doc}"),
    ({"depth": 1}, "option_info is an object of name: {min, max, choices, doc}"),
    ({"width": {"min": 1}}, "option_info names \"width\", which is not one of its options"),
    ({"depth": {"step": 1}}, "option \"depth\": option_info holds only min, max, choices, doc, not \"step\""),
    ({"depth": {"min": 3}}, "option \"depth\": the default 2 is outside its range \\(at least 3\\)"),
    ({"depth": {"min": "1"}}, "option \"depth\": min must be a finite number"),
    ({"depth": {"choices": 2}}, "option \"depth\": its choices are an array, not 2"),
    ({"depth": {"choices": [2, "x"]}}, "option \"depth\": a choice of a int option must be a int"),
    ({"depth": {"doc": "d" * 201}}, "option \"depth\": its doc is 201 characters long, more than 200"),
])
def test_bad_option_info_is_refused(info, problem):
    with pytest.raises(ProtocolError, match=problem):
        read_hello({"type": "hello", "protocol": protocol.PROTOCOL, "options": {"depth": 2}, "option_info": info})


def test_the_hello_of_declared_options():
    """What the bot host sends: defaults in ``options`` as ever; ranges and docs in ``option_info``, left
    out when no option has any (the hello of such a bot is what it was)."""
    assert protocol.hello_options({"depth": Option(2), "fast": Option(True)}) == {"options": {"depth": 2, "fast": True}}
    declared = {"depth": Option(2, min=1, max=5, doc="moves ahead"), "style": Option("calm", choices=("calm", "wild")),
                "fast": Option(True)}
    members = protocol.hello_options(declared)
    assert members == {"options": {"depth": 2, "style": "calm", "fast": True}, "option_info": {
        "depth": {"min": 1, "max": 5, "doc": "moves ahead"}, "style": {"choices": ["calm", "wild"]}}}
    assert read_hello({"type": "hello", "protocol": protocol.PROTOCOL, **members}).options == declared


def test_a_handshake_at_the_limits_and_its_text_made_safe():
    declared = read_hello({"type": "hello", "protocol": protocol.PROTOCOL, "name": "\x1b[2J" + "n" * 196,
                           "description": "d\u202e" * 100, "options": {f"o{i}": "v" * 198 for i in range(64)}})
    assert declared.name == "\\x1b[2J" + "n" * 70 + "..."
    assert declared.description == ("d\\u202e" * 100)[:197] + "..."
    assert len(declared.options) == 64


def test_a_refusal_and_an_error_message_are_escaped():
    with pytest.raises(protocol.Refused, match=r"^no \\x1b\[31mway$"):
        read_hello({"type": "error", "message": "no\n\x1b[31mway"})
    assert read_answer({"type": "error", "message": "bye\x07" + "x" * 500}) == (
        "exception", "bye\\x07" + "x" * (protocol.MAX_SHOWN - 10) + "...")


def test_the_line_cap_is_one_mebibyte():
    assert MAX_LINE == 1 << 20


# -- the transcript in docs ---------------------------------------------------------

TRANSCRIPT_HEAD = """# A whole game in `uptown-bot/1`

Every line between the referee and seat 0 in one complete three-player
game, as `arena play` writes it with `--transcript` (`>` the referee writes,
`<` the bot answers). Seat 0 is the stdlib example
`examples/protocol/random_bot.py`; seats 1 and 2 are the built-in `random`
bot. Made by

    arena play "exec:python3 examples/protocol/random_bot.py" random random --seed 11 --time-limit 5 --transcript FILE

and kept true by `tests/integration/test_protocol.py`.

```
"""


def make_transcript(tmp: Path) -> str:
    from click.testing import CliRunner

    from arena.cli import main

    path = tmp / "transcript.txt"
    result = CliRunner().invoke(main, [
        "play", f"exec:python3 {EXAMPLE.relative_to(ROOT)}", "random", "random", "--seed", "11",
        "--time-limit", "5", "--transcript", str(path), "-q", "--logs", str(tmp / "logs"),
    ])
    assert result.exit_code == 0, result.output
    lines = []
    for line in path.read_text().splitlines():
        label, _, text = line.partition("] ")
        if label in ("[seat 0", "[python3 examples/protocol/random_bot.py"):
            lines.append(text)
    return TRANSCRIPT_HEAD + "\n".join(lines) + "\n```\n"


def test_the_transcript_in_docs_is_a_real_game(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    text = make_transcript(tmp_path)
    assert text == TRANSCRIPT.read_text(), "run python tests/integration/test_protocol.py --regenerate"
    body = [line for line in text.splitlines() if line.startswith(("> ", "< "))]
    assert json.loads(body[0][2:]) == {"type": "hello", "protocol": protocol.PROTOCOL}
    assert json.loads(body[-1][2:]) == {"type": "quit"}
    kinds = [json.loads(line[2:])["type"] for line in body]
    assert kinds.count("turn") == kinds.count("move") == 24 and "over" in kinds


if __name__ == "__main__" and sys.argv[1:] == ["--regenerate"]:
    import os
    import tempfile

    os.chdir(ROOT)
    TRANSCRIPT.write_text(make_transcript(Path(tempfile.mkdtemp())))
    print(f"wrote {TRANSCRIPT}")
