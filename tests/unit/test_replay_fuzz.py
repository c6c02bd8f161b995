"""Fuzzing ``arena replay``: damaged, edited and hostile records give one line or a game, never a traceback,
and nothing a record holds reaches the terminal unescaped."""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.cli import main
from arena.records import dumps, dumps_line
from tests.fuzzing import examples

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
RECORDS = {name: json.loads((GOLDEN / name).read_text()) for name in ("2p-seed2.json", "5p-passes.json")}
FUZZ = settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

#: Text a hostile record might hold: terminal codes, line breaks, bidirectional overrides, lone surrogates.
NASTY = st.lists(
    st.sampled_from(["\x1b", "[", "2J", "]0;", "\x07", "\r", "\n", "\t", "\x00", "\x9b", "\u202e", "\u2028",
                     "\ud800", "\udfff", "\ufeff", "a", "名", "red", "$", "\\", '"']),
    max_size=8,
).map("".join) | st.text(st.characters(codec=None), max_size=8)

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10**20, 10**20) | st.floats(allow_nan=False) | NASTY,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(NASTY, inner, max_size=4),
    max_leaves=12,
)


def paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every place in a JSON value, as a tuple of keys and indices."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += paths(item, (*prefix, index))
    return found


def replace(value: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = replace(value[path[0]], path[1:], new)
    return copy


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@st.composite
def edited_records(draw) -> Any:
    """A golden record with hostile names and faults, and up to two of its parts replaced by arbitrary JSON."""
    record: Any = copy.deepcopy(RECORDS[draw(st.sampled_from(sorted(RECORDS)))])
    for player in record["players"]:
        if draw(st.booleans()):
            player["name"] = draw(NASTY)
    if draw(st.booleans()):
        fault = st.fixed_dictionaries({
            "seat": st.integers(-1, 5), "move": st.integers(0, 100) | NASTY, "kind": NASTY, "message": NASTY,
        })
        record["faults"] = draw(st.lists(fault, max_size=3))
    for _ in range(draw(st.integers(0, 2))):
        place = draw(st.sampled_from(paths(record)))
        record = replace(record, place, draw(JSON_VALUES))
    return record


@st.composite
def damaged_bytes(draw) -> bytes:
    """A record's text, then bytes flipped, cut, repeated or inserted."""
    record = RECORDS[draw(st.sampled_from(sorted(RECORDS)))]
    data = bytearray(dumps(record).encode())
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "cut", "insert", "nest"]))
        at = draw(st.integers(0, len(data)))
        if kind == "flip" and at < len(data):
            data[at] ^= draw(st.integers(1, 255))
        elif kind == "cut":
            del data[at:at + draw(st.integers(1, 200))]
        elif kind == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
        else:
            data[at:at] = nested(draw(st.sampled_from([10, 1000, 5000, 100_000]))).encode()
    return bytes(data)


def gzip_damaged(draw, data: bytes) -> bytes:
    packed = bytearray(gzip.compress(data))
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(packed) - 1))
        packed[at] ^= draw(st.integers(1, 255))
    if draw(st.booleans()):
        del packed[draw(st.integers(0, len(packed) - 1)):]
    return bytes(packed)


def assert_clean(result) -> None:
    """One line or a game: no traceback, a usual exit status, only printable text and line breaks."""
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code in (0, 1, 2)
    out = result.output
    assert "Traceback" not in out
    bad = {c for c in out if c != "\n" and not (c.isprintable() or c == " ")}
    assert not bad, f"unescaped {bad!r} in:\n{out}"
    if result.exit_code:
        assert out.strip().splitlines()[-1].startswith("Error: ")


ARGS = st.sampled_from([[], ["--verify"], ["--step"], ["--step", "--from", "1", "--to", "3"]])


@FUZZ
@given(record=edited_records(), args=ARGS)
@pytest.mark.slow
def test_edited_records(tmp_path_factory, record, args, cli):
    path = tmp_path_factory.mktemp("fuzz") / "game.json"
    path.write_text(json.dumps(record))  # ensure_ascii: any lone surrogate is written as an escape
    assert_clean(cli.invoke(main, ["replay", str(path), *args]))


@FUZZ
@given(data=damaged_bytes(), args=ARGS)
@pytest.mark.slow
def test_damaged_files(tmp_path_factory, data, args, cli):
    path = tmp_path_factory.mktemp("fuzz") / "game.json"
    path.write_bytes(data)
    assert_clean(cli.invoke(main, ["replay", str(path), *args]))


@FUZZ
@given(data=st.data(), args=ARGS)
@pytest.mark.slow
def test_damaged_gzip_records(tmp_path_factory, data, args, cli):
    path = tmp_path_factory.mktemp("fuzz") / "game.json.gz"
    path.write_bytes(gzip_damaged(data.draw, data.draw(damaged_bytes())))
    assert_clean(cli.invoke(main, ["replay", str(path), *args]))


@FUZZ
@given(data=st.data(), compress=st.booleans(), args=ARGS)
@pytest.mark.slow
def test_damaged_results_folders(tmp_path_factory, data, compress, args, cli):
    """A records file of several lines, some edited or cut, one game picked with --game."""
    lines = []
    for number in range(data.draw(st.integers(1, 3))):
        record = data.draw(edited_records())
        if isinstance(record, dict):
            record["game_id"] = data.draw(st.sampled_from(["g0", "g1", "g\x1b[2J", "g\ud800"]))
        try:
            line = dumps_line(record) if data.draw(st.booleans()) else json.dumps(record)
        except (TypeError, ValueError, KeyError):  # the writer expects a record; the reader must take anything
            line = json.dumps(record)
        if data.draw(st.booleans()):
            line = line[: data.draw(st.integers(0, len(line)))]
        lines.append(line)
    if data.draw(st.booleans()):
        lines.append('{"game_id": "g0", "x": ' + nested(100_000) + "}")
    text = ("\n".join(lines) + "\n").encode("utf-8", errors="surrogatepass")
    folder = tmp_path_factory.mktemp("fuzz")
    if compress:
        (folder / "records.jsonl.gz").write_bytes(gzip_damaged(data.draw, text))
    else:
        (folder / "records.jsonl").write_bytes(text)
    game = data.draw(st.sampled_from(["g0", "g1", "g\x1b[2J", "g\ud800", "nope"]))
    assert_clean(cli.invoke(main, ["replay", str(folder), "--game", game, *args]))
