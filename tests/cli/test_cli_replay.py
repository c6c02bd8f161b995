"""``arena replay``: show, step through and verify game records; one-line errors for bad input."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from arena.cli import main
from arena.records import dumps, dumps_line

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


@pytest.fixture
def run(cli):
    """``arena replay`` with these arguments (``color=True``: as on a terminal)."""
    return lambda *args, color=False: cli.invoke(main, ["replay", *args], color=color)


def one_error_line(result) -> str:
    assert result.exit_code != 0
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.output.strip().splitlines()
    assert "Traceback" not in result.output
    return lines[-1]


def test_replay_shows_final_board_and_result(run):
    result = run(str(GOLDEN / "4p-seed4.json"))
    assert result.exit_code == 0, result.output
    out = result.output
    assert "seed 4, 4 players, uptown scoring" in out
    assert "Winner under Uptown scoring:" in out
    assert out.count("\nA  ") == 1 and "\nI  " in out
    assert "\x1b[" not in out  # not a terminal: plain text


def test_replay_colors_follow_color_options_and_NO_COLOR(cli, run):
    path = str(GOLDEN / "4p-seed4.json")
    result = run(path, "--color")  # not a terminal, but asked for
    assert result.exit_code == 0
    assert "\x1b[1;31m" in result.output
    assert "\x1b[" not in run(path, "--no-color", color=True).output
    no_color = cli.invoke(main, ["replay", path, "--step"], env={"NO_COLOR": "1"}, color=True)
    assert no_color.exit_code == 0 and "\x1b[" not in no_color.output
    forced = cli.invoke(main, ["replay", path, "--color"], env={"NO_COLOR": "1"})
    assert "\x1b[1;31m" in forced.output  # the option wins over the variable


def test_replay_step_shows_every_move(run):
    record = json.loads((GOLDEN / "5p-passes.json").read_text())
    result = run(str(GOLDEN / "5p-passes.json"), "--step")
    assert result.exit_code == 0, result.output
    out = result.output
    n = len(record["moves"])
    assert out.count("\nA  ") == n + 1  # a board after every move, then the final one
    assert "move 0: seat 0 (red-path) plays red" in out
    assert f"move {n - 1}: seat 4 (purple) passes (no legal play)" in out
    assert "final board:" in out


def test_verify_a_valid_record(run):
    result = run(str(GOLDEN / "2p-seed2.json"), "--verify")
    assert result.exit_code == 0
    record = json.loads((GOLDEN / "2p-seed2.json").read_text())
    winner = next(r["seat"] for r in record["result"] if r["uptown_rank"] == 1)
    assert result.output == (
        f"valid: {len(record['moves'])} moves, winner random-{winner} (seat {winner}) under uptown scoring\n"
    )


def test_verify_an_invalid_record(tmp_path, run):
    record = json.loads((GOLDEN / "3p-seed3.json").read_text())
    record["moves"][5]["seat"] = 0
    path = tmp_path / "bad.json"
    path.write_text(dumps(record))
    result = run(str(path), "--verify")
    assert result.exit_code == 1
    assert result.output == f"Error: {path}: move 5: seat 0 is not to move, seat 2 is (T3)\n"
    shown = run(str(path))
    assert shown.exit_code == 1 and "move 5: seat 0 is not to move" in one_error_line(shown)


def test_missing_file(run):
    line = one_error_line(run("no/such/game.json"))
    assert "cannot read no/such/game.json" in line


def test_not_json_and_not_an_object(tmp_path, run):
    path = tmp_path / "x.json"
    path.write_text("hello")
    result = run(str(path), "--verify")
    assert result.exit_code == 1
    assert one_error_line(result).startswith(f"Error: {path}: not JSON: ")
    path.write_text("[1, 2]")
    assert "not a JSON object" in one_error_line(run(str(path)))
    path.write_bytes(b"\xff\xfe\x00")
    assert "not JSON" in one_error_line(run(str(path)))


def test_verify_and_step_exclude_each_other(run):
    result = run(str(GOLDEN / "2p-seed2.json"), "--verify", "--step")
    assert result.exit_code == 2 and "--verify" in one_error_line(result)


def results_folder(tmp_path: Path, compress: bool = False) -> Path:
    folder = tmp_path / "results"
    folder.mkdir()
    lines = []
    for game_id, name in enumerate(["3p-seed3.json", "4p-seed4.json"]):
        record = json.loads((GOLDEN / name).read_text())
        record["game_id"] = f"t{game_id}"
        lines.append(dumps_line(record))
    text = "\n".join(lines) + "\n" + '{"format": "uptown-game/1", "game_id": "t2", "sc'  # interrupted write
    if compress:
        (folder / "records.jsonl.gz").write_bytes(gzip.compress(text.encode()))
    else:
        (folder / "records.jsonl").write_text(text)
    return folder


def test_replay_one_game_of_a_results_folder(tmp_path, run):
    folder = results_folder(tmp_path)
    result = run(str(folder), "--game", "t1")
    assert result.exit_code == 0, result.output
    assert "game t1: seed 4, 4 players" in result.output
    verify = run(str(folder), "--game", "t0", "--verify")
    assert verify.exit_code == 0 and verify.output.startswith("valid: ")
    direct = run(str(folder / "records.jsonl"), "--game", "t0", "--verify")
    assert direct.output == verify.output


def test_replay_one_game_of_a_compressed_results_folder(tmp_path, run):
    folder = results_folder(tmp_path, compress=True)
    result = run(str(folder), "--game", "t0", "--verify")
    assert result.exit_code == 0, result.output


def test_results_folder_errors(tmp_path, run):
    folder = results_folder(tmp_path)
    assert "no game with id t2" in one_error_line(run(str(folder), "--game", "t2"))
    assert "no game with id nope" in one_error_line(run(str(folder), "--game", "nope"))
    assert "--game ID" in one_error_line(run(str(folder)))
    assert "--game ID" in one_error_line(run(str(folder / "records.jsonl")))
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "holds no records.jsonl" in one_error_line(run(str(empty), "--game", "1"))
    single = tmp_path / "one.json"
    shutil.copy(GOLDEN / "2p-seed2.json", single)
    assert "--game" in one_error_line(run(str(single), "--game", "1"))


def test_an_invalid_game_in_a_results_folder(tmp_path, run):
    folder = tmp_path / "r"
    folder.mkdir()
    record = json.loads((GOLDEN / "3p-seed3.json").read_text())
    record["game_id"] = 7
    del record["moves"][-1]
    (folder / "records.jsonl").write_text(dumps_line(record) + "\n")
    result = run(str(folder), "--game", "7", "--verify")
    assert result.exit_code == 1
    assert one_error_line(result).startswith(f"Error: {folder} game 7: moves missing at the end")


# -- hostile files: one line, never a traceback; record text never reaches the terminal raw ---------


def corrupt_deflate(data: bytes) -> bytes:
    """``data`` gzipped, with its first deflate block made invalid (zlib.error, not a CRC mismatch)."""
    packed = bytearray(gzip.compress(data))
    packed[10] ^= 0xFF  # the first byte after the 10-byte gzip header: the block's type and codes
    return bytes(packed)


def test_corrupt_deflate_block_is_one_line(tmp_path, run):
    text = (GOLDEN / "3p-seed3.json").read_bytes()
    single = tmp_path / "game.json.gz"
    single.write_bytes(corrupt_deflate(text))
    line = one_error_line(run(str(single)))
    assert line.startswith(f"Error: cannot read {single}: ") and "gzip" in line
    folder = tmp_path / "r"
    folder.mkdir()
    (folder / "records.jsonl.gz").write_bytes(corrupt_deflate(dumps_line(json.loads(text)).encode()))
    line = one_error_line(run(str(folder), "--game", "t0"))
    assert line.startswith(f"Error: cannot read {folder / 'records.jsonl.gz'}: ")


def test_deeply_nested_line_with_game_is_one_line(tmp_path, run):
    path = tmp_path / "records.jsonl"
    path.write_text('{"game_id": "x", "deep": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    line = one_error_line(run(str(path), "--game", "x"))
    assert "line 1" in line and "not JSON" in line


def hostile_record(name: str) -> dict:
    """A valid record whose every player is called ``name`` followed by the seat number."""
    record = json.loads((GOLDEN / "3p-seed3.json").read_text())
    for player in record["players"]:
        player["name"] = f"{name}{player['seat']}"
    return record


def test_lone_surrogate_in_a_name_is_shown_escaped(tmp_path, run):
    path = tmp_path / "sur.json"
    path.write_text(json.dumps(hostile_record("bad\ud800name")))  # ensure_ascii: the file is valid JSON
    for args in ([], ["--step"], ["--verify"]):
        result = run(str(path), *args)
        assert result.exit_code == 0, result.output
        assert result.exception is None
        assert "bad\\ud800name0" in result.output or "bad\\ud800name1" in result.output


def test_control_characters_in_names_never_reach_the_terminal(tmp_path, run):
    name = "evil\x1b[2J\x1b]0;pwned\x07\r\nfake line\u202e"
    path = tmp_path / "esc.json"
    path.write_text(json.dumps(hostile_record(name)))
    for args in ([], ["--step"], ["--verify"], ["--color"]):
        result = run(str(path), *args)
        assert result.exit_code == 0, result.output
        out = result.output
        assert "\r" not in out and "\x07" not in out and "\u202e" not in out
        assert "\x1b[2J" not in out and "\x1b]" not in out
        assert not any(line.startswith("fake line") for line in out.splitlines())
        assert "evil\\x1b[2J\\x1b]0;pwned\\x07\\r\\nfake line\\u202e" in out


def test_fault_messages_from_the_record_are_escaped(tmp_path, run):
    record = json.loads((GOLDEN / "3p-seed3.json").read_text())
    record["faults"] = [{"seat": 1, "move": 3, "kind": "crash\x1b[31m", "message": "boom\x1b[2J\ud800"}]
    path = tmp_path / "f.json"
    path.write_text(json.dumps(record))
    result = run(str(path))
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output
    assert "crash\\x1b[31m: boom\\x1b[2J\\ud800" in result.output
