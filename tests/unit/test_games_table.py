"""games.csv has one owner: every version it has had, the upgrade of each to the current one, one row reader."""

from __future__ import annotations

import csv
import io

import pytest

from arena.results import games_table
from arena.results.games_table import (
    COLUMNS,
    CURRENT,
    TIMING_COLUMNS,
    VERSIONS,
    GameRow,
    GamesTableError,
    read_rows,
    read_version,
    upgrade_file,
    upgrader,
    version_of,
    without_timing,
)
from arena.results.rows import SeatTime, game_rows_text, header_text
from arena.rules import SeatResult

#: A row of each version as the arena of that version wrote it (seat 1 of a 3-player game).
ROW_V1 = "t000-d0001-r2,0,1,2,123456789012345678,1,greedy,greedy,2,0,0,0,0,0,0,0,2,1,1,1,0,24,0.004243\n"
ROW_V2 = ROW_V1[:-1] + ",24,0.001200,0,\n"


def test_the_versions_are_numbered_in_order_and_the_last_is_what_the_arena_writes():
    assert [v.number for v in VERSIONS] == list(range(1, len(VERSIONS) + 1))
    assert CURRENT is VERSIONS[-1] and header_text() == CURRENT.header
    assert len({v.columns for v in VERSIONS}) == len(VERSIONS)
    # Each version names what its new columns hold in the rows of the versions before it.
    for before, after in zip(VERSIONS, VERSIONS[1:]):
        assert set(after.defaults) == set(after.columns) - set(before.columns)


def test_a_header_is_read_as_its_version_and_an_unknown_one_is_refused(tmp_path):
    assert version_of(VERSIONS[0].header) is VERSIONS[0]
    assert version_of(list(COLUMNS)) is CURRENT
    assert version_of("game_id,seat\n") is None
    path = tmp_path / "games.csv"
    path.write_text("game_id,table,seat\nx,0,0\n", encoding="utf-8")
    with pytest.raises(GamesTableError, match="header differs from each of the 2 versions"):
        read_version(path)
    assert read_version(tmp_path / "none.csv") is None


def test_version_1_rows_upgrade_with_empty_time_use_fields():
    assert upgrader(VERSIONS[0])(ROW_V1) == ROW_V1[:-1] + ",,,,\n"
    assert upgrader(VERSIONS[0])(ROW_V1[:20]) == ROW_V1[:20]  # a half-written line stays as it is
    row = GameRow.parse(next(csv.reader([upgrader(VERSIONS[0])(ROW_V1)])))
    assert (row.entrant, row.seconds, row.asked, row.longest, row.lost_on_time, row.clock_left) == (
        "greedy", 0.004243, None, None, None, None)


def test_version_2_rows_are_the_current_rows_unchanged():
    assert upgrader(VERSIONS[1])(ROW_V2) == ROW_V2
    row = GameRow.parse(next(csv.reader([ROW_V2])))
    assert (row.asked, row.longest, row.lost_on_time, row.clock_left) == (24, 0.0012, 0, None)


def test_an_upgrade_by_column_name_puts_each_field_under_its_column(monkeypatch):
    # A version whose columns are not a prefix of the current ones is upgraded field by field, by name.
    shuffled = games_table.Version(99, tuple(reversed(VERSIONS[0].columns)), "test")
    line = ",".join(reversed(ROW_V1.rstrip("\n").split(","))) + "\n"
    assert upgrader(shuffled)(line) == upgrader(VERSIONS[0])(ROW_V1)


@pytest.mark.parametrize("version", VERSIONS, ids=lambda v: f"version {v.number}")
def test_a_file_of_each_version_is_read_as_rows_and_upgraded_whole(tmp_path, version):
    row = ROW_V1 if version.number == 1 else ROW_V2
    path = tmp_path / "games.csv"
    path.write_text(version.header + row + row.replace(",1,greedy,greedy,", ",0,random,random,")[:30],
                    encoding="utf-8")
    assert [r.entrant for r in read_rows(path)] == ["greedy"]  # the half-written last line is not a row
    upgraded = upgrade_file(path)
    assert upgraded == (None if version is CURRENT else version)
    text = path.read_text(encoding="utf-8")
    assert text.startswith(CURRENT.header) and text.splitlines()[1] == upgrader(version)(row).rstrip("\n")


def test_the_writer_and_the_reader_agree_on_every_column():
    from arena.plan.schedule import Game

    game = Game(game_id="t000-d0000-r0", table=0, deal=0, rotation=0, seed=42, seats=(0, 1))
    result = [SeatResult(seat=0, groups=3, captures={"red": 2}, captured_total=2, blockers_penalty=1, blockers_score=4,
                         uptown_rank=1, blockers_rank=2),
              SeatResult(seat=1, groups=5, captures={}, captured_total=0, blockers_penalty=0, blockers_score=5,
                         uptown_rank=2, blockers_rank=1)]
    text = game_rows_text(game, ["a", "b, c"], ["random", "greedy"], result, [10, 9], set(),
                          [SeatTime(0.5, 10, 0.1, False, 3.0), SeatTime(0.25, 9, 0.05, True, None)], "uptown")
    rows = list(csv.DictReader(io.StringIO(header_text() + text)))
    parsed = [GameRow.parse(list(r.values())) for r in rows]
    assert [r.entrant for r in parsed] == ["a", "b, c"]
    assert parsed[0].captures_red == 2 and parsed[0].clock_left == 3.0 and parsed[1].clock_left is None
    assert parsed[1].lost_on_time == 1 and parsed[0].rank("blockers") == 2
    assert all(str(getattr(p, c)) == r[c] or r[c] == "" for p, r in zip(parsed, rows) for c in ("seat", "seed"))


def test_a_row_without_its_timing_columns_is_the_same_whichever_run_wrote_it():
    slow = ROW_V2.replace(",0.004243,24,0.001200,0,", ",1.500000,24,0.900000,1,")
    assert without_timing(ROW_V2) == without_timing(slow) == ROW_V1.rsplit(",", 1)[0]
    assert len(TIMING_COLUMNS) == 5


def test_a_row_that_is_not_numbers_where_numbers_belong_is_not_a_row():
    with pytest.raises(ValueError):
        GameRow.parse(next(csv.reader([ROW_V2.replace(",greedy,2,", ",greedy,two,")])))
    with pytest.raises(ValueError, match="fields"):
        GameRow.parse(next(csv.reader([ROW_V1])))


@pytest.mark.parametrize("version", VERSIONS, ids=lambda v: f"v{v.number}")
def test_named_columns_read_each_version_by_name_and_pass_over_rows_of_another_length(version):
    row = ROW_V1 if version.number == 1 else ROW_V2
    lines = [version.header, row, "t000-d0002-r0,0,2\n", row.replace(",greedy,greedy,", ",mcts,mcts,")]
    read = list(games_table.named_columns(lines, ("game_id", "entrant", "asked")))
    asked = {} if version.number == 1 else {"asked": "24"}
    assert read == [{"game_id": "t000-d0001-r2", "entrant": "greedy", **asked},
                    {"game_id": "t000-d0001-r2", "entrant": "mcts", **asked}]
    assert list(games_table.named_columns(["a,b\n", "1,2\n"], ("a",))) == []  # a header of no version


def test_a_header_and_a_row_are_read_by_column_name(tmp_path):
    path = tmp_path / "games.csv"
    path.write_text(VERSIONS[0].header + ROW_V1, encoding="utf-8")
    assert games_table.header_fields(path) == list(VERSIONS[0].columns)
    (tmp_path / "empty.csv").write_text("", encoding="utf-8")
    assert games_table.header_fields(tmp_path / "empty.csv") == []
    fields = games_table.fields_by_name(ROW_V2)
    assert list(fields) == list(COLUMNS) and fields["entrant"] == "greedy" and fields["asked"] == "24"
    assert games_table.fields_by_name(ROW_V2[:-1] + ",x\n")[f"extra_{len(COLUMNS)}"] == "x"
