"""A resume trusts what the run's checkpoints vouch for, byte for byte, and checks the rest: it starts at
once whatever the number of stored games, and still drops every damaged or foreign game."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

import arena.results.recovery as store
from arena.plan.config import load_config
from arena.results.checkpoints import read_checkpoints
from arena.results.verify import without_timing
from arena.tournament.run import workers as workers_module
from arena.tournament.run.runner import Interrupted, run_tournament
from tests.stored import record_lines

TOURNAMENT = """
name = "checkpointed"
players = 2
deals = 3
seed = 31
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
    return write_tournament(TOURNAMENT, "checkpointed.toml")


def run(tournament: Path, out: Path, **kwargs) -> object:
    return run_tournament(load_config(tournament), tournament.read_text(), out, workers=1, **kwargs)


def interrupted(tournament: Path, out: Path, monkeypatch, chunks: int, compress: bool) -> None:
    """A run stopped (as by Ctrl-C) after ``chunks`` chunks are stored."""
    play = workers_module.Workers.play

    def stopping(self, *args, **kwargs):
        for index, answer in enumerate(play(self, *args, **kwargs)):
            if index == chunks:
                raise KeyboardInterrupt
            yield answer

    with monkeypatch.context() as patch:
        patch.setattr(workers_module.Workers, "play", stopping)
        with pytest.raises(Interrupted):
            run(tournament, out, compress=compress)


def replays(monkeypatch) -> list[str]:
    """The game ids the resume check replays from now on."""
    seen: list[str] = []
    check = store.expected_rows

    def counted(record, game, config):
        seen.append(game.game_id)
        return check(record, game, config)

    monkeypatch.setattr(store, "expected_rows", counted)
    return seen


def rows_without_timing(out: Path) -> list[str]:
    return [without_timing(line) for line in (out / "games.csv").read_text().splitlines()]


@pytest.mark.parametrize("compress", [False, True])
def test_a_resume_replays_nothing_the_checkpoints_vouch_for(tournament, tmp_path, monkeypatch, compress):
    whole = tmp_path / "whole"
    run(tournament, whole, compress=compress)
    out = tmp_path / "cut"
    interrupted(tournament, out, monkeypatch, 4, compress)
    points = read_checkpoints(out)
    assert len(points) == 1 + 4  # the empty folder, then one per chunk stored
    stored = points[-1].games
    seen = replays(monkeypatch)
    summary = run(tournament, out, resume=True, compress=not compress)  # a resume keeps the folder's kind
    assert seen == [] and summary.already == stored and summary.played == 18 - stored
    assert sorted(record_lines(out)) == sorted(record_lines(whole))
    assert rows_without_timing(out) == rows_without_timing(whole)
    assert (out / "records.jsonl.gz").exists() == compress
    # The finished folder: one checkpoint for both files whole; a second resume replays nothing either.
    assert len(read_checkpoints(out)) == 1
    assert run(tournament, out, resume=True).played == 0 and seen == []


def test_a_game_changed_before_the_last_checkpoint_is_still_dropped_and_played_again(tournament, tmp_path,
                                                                                    monkeypatch):
    whole = tmp_path / "whole"
    run(tournament, whole)
    out = tmp_path / "cut"
    interrupted(tournament, out, monkeypatch, 5, False)
    stored = read_checkpoints(out)[-1].games
    lines = (out / "records.jsonl").read_text().splitlines(keepends=True)
    record = json.loads(lines[1])
    record["result"][0]["groups"] += 1  # valid JSON, a result the moves do not give
    lines[1] = json.dumps(record, separators=(",", ":")) + "\n"
    (out / "records.jsonl").write_text("".join(lines))
    seen = replays(monkeypatch)
    told: list[str] = []
    summary = run(tournament, out, resume=True, notify=told.append)
    # The chain breaks at the changed block: it and everything after it is checked, nothing before it.
    assert record["game_id"] in seen and lines and json.loads(lines[0])["game_id"] not in seen
    assert len(told) == 1 and told[0].startswith("resume: dropped 1 game(s) to play again")
    assert summary.already == stored - 1 and summary.played == 18 - stored + 1
    assert sorted(record_lines(out)) == sorted(record_lines(whole))
    assert rows_without_timing(out) == rows_without_timing(whole)


def test_a_half_written_chunk_after_the_last_checkpoint_is_cut(tournament, tmp_path, monkeypatch):
    whole = tmp_path / "whole"
    run(tournament, whole, compress=True)
    out = tmp_path / "cut"
    interrupted(tournament, out, monkeypatch, 3, True)
    stored = read_checkpoints(out)[-1].games
    # A chunk killed while written: part of a gzip member, and a row without its record.
    member = gzip.compress(b'{"game_id": "t0-d2-r1", "moves": [' * 50)
    with open(out / "records.jsonl.gz", "ab") as f:
        f.write(member[: len(member) // 2])
    with open(out / "games.csv", "a") as f:
        f.write("t0-d2-r1,0,2,1,5")
    seen = replays(monkeypatch)
    told: list[str] = []
    summary = run(tournament, out, resume=True, notify=told.append)
    assert seen == [] and summary.already == stored
    assert any(line.startswith("resume: cut ") for line in told)
    assert sorted(record_lines(out)) == sorted(record_lines(whole))
    assert rows_without_timing(out) == rows_without_timing(whole)


def test_a_foreign_game_appended_after_the_checkpoints_is_removed(tournament, tmp_path, monkeypatch):
    out = tmp_path / "out"
    run(tournament, out)
    lines = (out / "records.jsonl").read_text().splitlines(keepends=True)
    record = json.loads(lines[0])
    record["game_id"] = "t9-d9-r9"  # no game of this tournament
    with open(out / "records.jsonl", "a") as f:
        f.write(json.dumps(record) + "\n")
    seen = replays(monkeypatch)
    told: list[str] = []
    assert run(tournament, out, resume=True, notify=told.append).played == 0
    assert seen == [] and told == ["resume: removed 1 line(s) that belong to no game of this tournament"]
    assert (out / "records.jsonl").read_text().splitlines(keepends=True) == lines


def test_a_folder_without_checkpoints_is_checked_whole_once(tournament, tmp_path, monkeypatch):
    out = tmp_path / "out"
    run(tournament, out)
    (out / "checkpoints.jsonl").unlink()  # as a folder of an arena before checkpoints
    seen = replays(monkeypatch)
    assert run(tournament, out, resume=True).played == 0
    assert len(seen) == 18
    seen.clear()
    assert run(tournament, out, resume=True).played == 0
    assert seen == []
