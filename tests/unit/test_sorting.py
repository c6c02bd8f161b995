"""games.csv put in schedule order a block at a time (arena.results.sorting)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from arena.results import sorting
from arena.results.sorting import sort_games_file

HEADER = b"game_id,table,deal,seat,entrant\n"


def _games(count: int, players: int = 3) -> list[bytes]:
    return [b"".join(b"t000-d%05d-r%02d,0,%d,%d,e%d\n" % (g // 6, g % 6, g // 6, s, (g + s) % players)
                     for s in range(players)) for g in range(count)]


@pytest.mark.parametrize("block", [7, 64, 1 << 20])
def test_chunks_in_any_order_come_back_in_schedule_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         block: int) -> None:
    monkeypatch.setattr(sorting, "_BLOCK", block)  # lines cut across blocks, and whole files in one
    games = _games(300)
    chunks = [b"".join(games[i:i + 7]) for i in range(0, len(games), 7)]
    random.Random(block).shuffle(chunks)
    path = tmp_path / "games.csv"
    path.write_bytes(HEADER + b"".join(chunks))
    assert sort_games_file(path)
    assert path.read_bytes() == HEADER + b"".join(games)


def test_a_sorted_file_is_left_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "games.csv"
    path.write_bytes(HEADER + b"".join(_games(50)))
    inode = path.stat().st_ino
    assert not sort_games_file(path)
    assert path.stat().st_ino == inode  # not rewritten


def test_a_games_rows_keep_their_order_and_a_cut_last_line_stays_last(tmp_path: Path) -> None:
    games = _games(20)
    path = tmp_path / "games.csv"
    path.write_bytes(HEADER + b"".join(games[10:]) + b"".join(games[:10]) + b"t000-d00099-r00,0,9")
    assert sort_games_file(path)
    assert path.read_bytes() == HEADER + b"".join(games) + b"t000-d00099-r00,0,9"


def test_a_header_alone_or_one_row_is_nothing_to_sort(tmp_path: Path) -> None:
    path = tmp_path / "games.csv"
    path.write_bytes(HEADER)
    assert not sort_games_file(path)
    path.write_bytes(HEADER + _games(1, 1)[0])
    assert not sort_games_file(path)


@pytest.mark.parametrize("block", [5, 1 << 20])
def test_game_ids_are_those_of_the_rows_before_the_offset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          block: int) -> None:
    monkeypatch.setattr(sorting, "_BLOCK", block)
    games = _games(12)
    path = tmp_path / "games.csv"
    path.write_bytes(HEADER + b"".join(games))
    end = len(HEADER) + len(b"".join(games[:7]))
    assert sorting.game_ids(path, end) == {f"t000-d{g // 6:05d}-r{g % 6:02d}" for g in range(7)}
