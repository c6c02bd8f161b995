"""``--resume`` trusts nothing it reads back: every stored record is replayed with the rules engine and
matched to the game the schedule plays, every game's rows to its record; a game that fails is dropped
and played again, and the run says how many and why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli import main
from arena.plan.config import load_config
from arena.plan.schedule import Schedule
from arena.results.recovery import recover
from arena.results.rows import COLUMNS
from arena.results.verify import without_timing as row_without_timing
from arena.tournament.run.runner import run_tournament

TOURNAMENT = """
name = "checked"
players = 2
deals = 2
seed = 23
deal_key = "0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f"  # the same deals in every folder compared
time_limit = 5
isolation = "none"
[[entrants]]
name = "rnd"
bot = "random"
[[entrants]]
name = "greedy"
bot = "greedy"
[[entrants]]
name = "other"
bot = "random"
"""


@pytest.fixture
def tournament(write_tournament) -> Path:
    return write_tournament(TOURNAMENT, "checked.toml")


@pytest.fixture
def whole(tournament: Path, tmp_path: Path) -> Path:
    """The folder of an uninterrupted run, to compare with."""
    out = tmp_path / "whole"
    run_tournament(load_config(tournament), tournament.read_text(), out, workers=1)
    return out


def played(tournament: Path, tmp_path: Path, name: str = "edited") -> Path:
    out = tmp_path / name
    run_tournament(load_config(tournament), tournament.read_text(), out, workers=1)
    return out


def resume(tournament: Path, out: Path) -> list[str]:
    """Resume ``out``; the lines the run tells the terminal about what it dropped."""
    told: list[str] = []
    run_tournament(load_config(tournament), tournament.read_text(), out, workers=1, resume=True, notify=told.append)
    return told


def without_timing(out: Path) -> list[str]:
    return [row_without_timing(line) for line in (out / "games.csv").read_text().splitlines()]


def records(out: Path) -> dict[str, str]:
    lines = (out / "records.jsonl").read_text().splitlines()
    by_id = {json.loads(line)["game_id"]: line for line in lines}
    assert len(by_id) == len(lines), "a game stored twice"
    return by_id


def assert_same_results(out: Path, whole: Path) -> None:
    assert records(out) == records(whole)
    assert without_timing(out) == without_timing(whole)
    for name in ("standings.csv", "head_to_head.csv", "seats.csv"):
        assert (out / name).read_text() == (whole / name).read_text(), name


def record_lines(out: Path) -> list[str]:
    return (out / "records.jsonl").read_text().splitlines(keepends=True)


@pytest.mark.slow
def test_a_record_edited_into_an_illegal_move_is_dropped_and_played_again_M1(tournament, whole, tmp_path):
    out = played(tournament, tmp_path)
    lines = record_lines(out)
    record = json.loads(lines[3])
    # The first letter tile played goes into another row: valid JSON, but the tile does not fit (M1).
    index, move = next((i, m) for i, m in enumerate(record["moves"]) if m.get("tile", "") in "ABCDEFGHI"
                       and len(m.get("tile", "")) == 1 and "capture" not in m)
    move["cell"] = ("A" if move["tile"] != "A" else "B") + move["cell"][1]
    lines[3] = json.dumps(record, separators=(",", ":")) + "\n"
    (out / "records.jsonl").write_text("".join(lines))

    told = resume(tournament, out)
    assert told == ["resume: dropped 1 game(s) to play again: record not valid under the rules"]
    log = (out / "arena.log").read_text()
    assert f"resume: dropped {record['game_id']}: illegal: move {index}: " in log and "(M1)" in log
    assert_same_results(out, whole)


@pytest.mark.slow
def test_a_record_whose_result_was_edited_is_dropped(tournament, whole, tmp_path):
    out = played(tournament, tmp_path)
    lines = record_lines(out)
    record = json.loads(lines[0])
    record["result"][0]["groups"] += 1
    lines[0] = json.dumps(record) + "\n"
    (out / "records.jsonl").write_text("".join(lines))
    assert resume(tournament, out) == ["resume: dropped 1 game(s) to play again: record not valid under the rules"]
    assert_same_results(out, whole)


@pytest.mark.slow
def test_a_row_whose_groups_was_changed_is_dropped_and_played_again(tournament, whole, tmp_path):
    out = played(tournament, tmp_path)
    lines = (out / "games.csv").read_text().splitlines(keepends=True)
    fields = lines[5].split(",")
    column = COLUMNS.index("groups")
    stored = fields[column]
    fields[column] = str(int(stored) + 3)
    lines[5] = ",".join(fields)
    (out / "games.csv").write_text("".join(lines))

    told = resume(tournament, out)
    assert told == ["resume: dropped 1 game(s) to play again: rows in games.csv differ from the record"]
    log = (out / "arena.log").read_text()
    assert f"{fields[0]}: rows: seat {fields[5]} groups is '{int(stored) + 3}', the record gives '{stored}'" in log
    assert_same_results(out, whole)


@pytest.mark.slow
def test_a_changed_won_or_faulted_column_is_caught_too(tournament, whole, tmp_path):
    out = played(tournament, tmp_path)
    lines = (out / "games.csv").read_text().splitlines(keepends=True)
    for number, column in ((2, "won"), (7, "faulted")):
        fields = lines[number].split(",")
        fields[COLUMNS.index(column)] = "1" if fields[COLUMNS.index(column)] == "0" else "0"
        lines[number] = ",".join(fields)
    (out / "games.csv").write_text("".join(lines))
    assert resume(tournament, out) == ["resume: dropped 2 game(s) to play again: rows in games.csv differ from the record"]
    assert_same_results(out, whole)


@pytest.mark.slow
def test_a_garbage_row_in_the_middle_of_games_csv_does_not_stop_a_resume(tournament, whole, tmp_path):
    out = played(tournament, tmp_path)
    lines = (out / "games.csv").read_text().splitlines(keepends=True)
    victim = lines[6].split(",")[0]
    lines[6] = "\x00\x00garbage, not a row\n"  # a row replaced: its game is incomplete
    lines.insert(3, "t9-nonsense,1,2\n")  # a line added: removed
    (out / "games.csv").write_text("".join(lines))

    told = resume(tournament, out)
    assert told == [
        "resume: dropped 1 game(s) to play again: incomplete (record or rows missing or half-written)",
        "resume: removed 2 line(s) that belong to no game of this tournament",
    ]
    log = (out / "arena.log").read_text()
    assert f"resume: dropped {victim}: incomplete: a record and 1 of 2 rows" in log
    assert "games.csv line 4: not a row of a game of this tournament: 't9-nonsense,1,2'" in log
    assert_same_results(out, whole)


@pytest.mark.slow
def test_garbage_and_a_foreign_game_in_the_records_are_removed(tournament, whole, tmp_path):
    out = played(tournament, tmp_path)
    lines = record_lines(out)
    foreign = json.loads(lines[1])
    foreign["game_id"] = "t7-d9999-r0"
    lines[2:2] = ["{not json\n", "[1, 2]\n", json.dumps(foreign) + "\n"]
    (out / "records.jsonl").write_text("".join(lines))
    assert resume(tournament, out) == ["resume: removed 3 line(s) that belong to no game of this tournament"]
    assert_same_results(out, whole)


@pytest.mark.slow
def test_two_records_swapped_between_games_are_both_dropped(tournament, whole, tmp_path):
    out = played(tournament, tmp_path)
    lines = record_lines(out)
    a, b = json.loads(lines[0]), json.loads(lines[5])
    # Each is still a legal game, but of another deal and seating than its id says.
    a["game_id"], b["game_id"] = b["game_id"], a["game_id"]
    lines[0], lines[5] = json.dumps(a) + "\n", json.dumps(b) + "\n"
    (out / "records.jsonl").write_text("".join(lines))
    told = resume(tournament, out)
    assert told == ["resume: dropped 2 game(s) to play again: record not the game the schedule plays"]
    assert "its seed is" in (out / "arena.log").read_text()
    assert_same_results(out, whole)


@pytest.mark.slow
def test_a_record_with_a_consistent_but_foreign_deal_is_dropped(tournament, whole, tmp_path):
    out = played(tournament, tmp_path)
    lines = record_lines(out)
    record = json.loads(lines[4])
    # Another game's deal and moves, legal as a game, under this game's id and seed.
    other = json.loads(lines[8])
    if other["players"] == record["players"]:
        record["deal"], record["moves"], record["result"] = other["deal"], other["moves"], other["result"]
        record["faults"] = other["faults"]
    else:
        record["deal"] = {color: list(reversed(tiles)) for color, tiles in record["deal"].items()}
        record.pop("result")
    lines[4] = json.dumps(record) + "\n"
    (out / "records.jsonl").write_text("".join(lines))
    told = resume(tournament, out)
    assert len(told) == 1 and told[0].startswith("resume: dropped 1 game(s) to play again: record not")
    assert_same_results(out, whole)


@pytest.mark.slow
def test_the_terminal_gets_one_line_per_reason_class(tournament, tmp_path, cli):
    out = tmp_path / "cli"
    assert cli.invoke(main, ["run", str(tournament), "--out", str(out), "-j", "1", "--no-compress"]).exit_code == 0
    lines = record_lines(out)
    for index in (0, 1, 2):
        record = json.loads(lines[index])
        record["moves"] = record["moves"][:-1]  # moves missing at the end (E2)
        lines[index] = json.dumps(record) + "\n"
    (out / "records.jsonl").write_text("".join(lines))
    rows = (out / "games.csv").read_text().splitlines(keepends=True)
    fields = rows[-1].split(",")
    fields[COLUMNS.index("captured_total")] = "99"
    rows[-1] = ",".join(fields)
    (out / "games.csv").write_text("".join(rows))
    result = cli.invoke(main, ["run", str(tournament), "--out", str(out), "-j", "1", "--resume"])
    assert result.exit_code == 0, result.output
    told = [line for line in result.stderr.splitlines() if line.startswith("resume:")]
    assert told == [
        "resume: dropped 3 game(s) to play again: record not valid under the rules",
        "resume: dropped 1 game(s) to play again: rows in games.csv differ from the record",
    ]
    assert "played 4 games" in result.stderr
    assert (out / "arena.log").read_text().count("(E2)") == 3


@pytest.mark.slow
def test_an_untouched_folder_keeps_every_game(tournament, whole):
    config = load_config(tournament)
    before = (whole / "records.jsonl").read_bytes(), (whole / "games.csv").read_bytes()
    recovered = recover(whole, Schedule(config))
    assert len(recovered.done) == 12 and recovered.dropped == 0 and not recovered.reasons and not recovered.details
    assert ((whole / "records.jsonl").read_bytes(), (whole / "games.csv").read_bytes()) == before

