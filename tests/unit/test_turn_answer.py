"""The referee's reading of an answer to a turn (``protocol.read_turn_answer``): what ``parse_line`` then
``read_answer`` make of the line, the same value or the same ProtocolError, whether the line was read
before (a move line read before is found by its bytes) or not."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from arena.faults import Fault
from arena.rules import Move
from arena.rules.geometry import CELL_NAMES
from arena.rules.tiles import COLORS, TILE_NAMES
from arena.wire import protocol
from arena.wire.protocol import ProtocolError, parse_line, read_answer, read_turn_answer

MOVES = [f"{c}:{t}@{x}" for c, t, x in itertools.product(COLORS, TILE_NAMES, CELL_NAMES)][::211] + ["pass"]
LINES = [
    *(b'{"type":"move","move":"%s"}\n' % m.encode() for m in MOVES),
    *(json.dumps({"type": "move", "move": m}).encode() + b"\n" for m in MOVES),  # json.dumps' own spacing
    b'{"type":"move","move":"\\u0072ed:C@C5"}\n',  # an escape in the move's text
    b'{"move":"red:C@C5","type":"move","note":"thinking"}\n',
    b'{"type":"move","move":"red:C@C5"}',  # no newline
    b'  {"type":"move","move":"red:C@C5"}  \r\n',
    b'{"type":"move","move":"red:C@C5","type":"error"}\n',  # the last of two keys counts
    b'{"type":"move","move":"red:C@C5"}\n{"type":"move","move":"red:C@C6"}\n',
    b'{"type":"move","move":"red:C@Z9"}\n',
    b'{"type":"move","move":"orange:A@A1"}\n',
    b'{"type":"move","move":"red:c@C5"}\n',
    b'{"type":"move","move":"red:C@C5 "}\n',
    b'{"type":"move","move":"red:C\x01@C5"}\n',  # a control character: not JSON
    b'{"type":"move","move":"red:C@C5\xff"}\n',  # not UTF-8
    b'{"type":"move","move":7}\n',
    b'{"type":"move"}\n',
    b'{"type":"hello"}\n',
    b'{"type":"error","message":"gave  up\\nnow"}\n',
    b'{"type":"error","kind":"exit","message":"x"}\n',
    b'{"type":"error","kind":"timeout"}\n',
    b'["move","red:C@C5"]\n',
    b'{"move":"red:C@C5"}\n',
    b"not json\n",
    b"\n",
    b"",
]


def outcome(read: Any, line: bytes) -> tuple[Any, ...]:
    """What reading ``line`` gives: its value and type, or its error's type and message."""
    try:
        value = read(line)
    except ProtocolError as exc:
        return ("error", type(exc), str(exc))
    assert isinstance(value, (Move, Fault))
    return ("value", type(value), value)


@pytest.mark.parametrize("line", LINES)
def test_an_answer_reads_as_parse_line_and_read_answer_read_it(line: bytes) -> None:
    expected = outcome(lambda text: read_answer(parse_line(text)), line)
    for _ in range(3):  # the first time, and again when the line is kept
        assert outcome(read_turn_answer, line) == expected


def test_only_so_many_short_move_lines_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(protocol, "_answers_read", {})
    monkeypatch.setattr(protocol, "_ANSWERS_KEPT", 50)
    lines = [b'{"type":"move","move":"red:C@C5","n":%d}\n' % n for n in range(200)]
    long_line = b'{"type":"move","move":"red:C@C5","note":"%s"}\n' % (b"x" * 100)
    for line in [long_line, *lines, b'{"type":"error","message":"x"}\n']:
        assert read_turn_answer(line) == read_answer(parse_line(line))
    kept = protocol._answers_read
    assert len(kept) == 50 and long_line not in kept and all(type(move) is Move for move in kept.values())
