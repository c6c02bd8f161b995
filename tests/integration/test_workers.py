"""The worker processes: games handed out and back, chunk sizes, the time a game may take, workers that end."""

from __future__ import annotations

import json
import multiprocessing
import os
from pathlib import Path

import pytest

from arena.plan.config import parse_config
from arena.plan.schedule import by_seating, count_games, schedule
from arena.tournament.run import workers
from arena.tournament.run.chunks import LOCAL_CHUNKS, PASS_MOST, ChunkSizes
from arena.tournament.run.settings import worker_settings
from arena.tournament.run.workers import (
    _BOUND_MARGIN,
    EXIT_PIPE_LOST,
    WorkerError,
    Workers,
    game_bound,
)

BAD = Path(__file__).parents[1] / "fixtures" / "bad_bots.py"
#: A results folder's deal key, for the schedules these tests list themselves.
KEY = "0f" * 32


def config_of(third: str, deals: int = 2, isolation: str = "process"):
    return parse_config(
        f'name = "w"\nplayers = 2\ndeals = {deals}\nseed = 4\ndeal_key = "{KEY}"\ntime_limit = 5\n'
        f'isolation = "{isolation}"\n'
        '[[entrants]]\nname = "rnd"\nbot = "random"\n'
        '[[entrants]]\nname = "greedy"\nbot = "greedy"\n'
        f'[[entrants]]\nname = "other"\nbot = "{third}"\n',
        "w.toml",
    )


def play_all(config, workers: int, settings=None) -> dict[str, dict]:
    """Every game of ``config`` played by ``workers`` workers: record by game id (each must come back once)."""
    ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
    found: dict[str, dict] = {}
    total = count_games(config)
    with Workers(ctx, workers, (settings or worker_settings(config), None)) as pool:
        for count, lines, rows, _faults in pool.play(schedule(config), total):
            records = [json.loads(line) for line in lines.decode().splitlines()]
            assert len(records) == count == len({r["game_id"] for r in records})
            assert len(rows.splitlines()) == 2 * count
            for record in records:
                assert record["game_id"] not in found, "a game came back twice"
                found[record["game_id"]] = record
    assert len(found) == total
    return found


@pytest.mark.slow
def test_every_game_comes_back_once_whatever_the_workers():
    config = config_of("random")
    one, two = play_all(config, 1), play_all(config, 2)
    assert one == two
    assert sorted(g.game_id for g in schedule(config)) == sorted(one)


@pytest.mark.slow
def test_a_game_whose_bot_ends_the_worker_comes_back_once_played_in_isolation():
    config = config_of(f"{BAD}:HardExitBot", isolation="none")
    found = play_all(config, 1)
    crashed = {game_id for game_id, record in found.items() if record["faults"]}
    assert len(crashed) == 8
    assert all(found[g]["faults"][0]["kind"] == "crash" for g in crashed)


@pytest.mark.parametrize("isolation", ["process", "none"])
@pytest.mark.slow
def test_workers_that_end_before_they_play_stop_the_games(isolation):
    # A bot that cannot be prepared in a worker (it was checked in the parent: something else is wrong).
    config = config_of("no.such.module:Bot", isolation=isolation)
    with pytest.raises(WorkerError, match="worker processes end before they play a game"):
        play_all(config, 1)


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="the worker is forked here")
def test_a_game_broken_by_a_bot_that_closed_the_workers_pipe_is_left_named_for_the_parent(monkeypatch):
    """A bot in the worker's process that closes its descriptors may break the game itself (the referee's
    files gone) as well as the pipe its answer would go by: the worker ends with the game still named in
    its slot, which the parent plays again with every bot in a process of its own.  A slot cleared first
    would read as a worker that ended before it played, and three of those stop the run."""
    ctx = multiprocessing.get_context("fork")
    parent_end, worker_end = ctx.Pipe()
    playing = ctx.RawArray("d", [-1.0] * 6)
    pipe = worker_end.fileno()

    def broken(games, isolate=False, mark=None, check=None, send=None):
        mark(0)
        os.close(pipe)
        raise WorkerError("game t-1 could not be played: OSError: [Errno 9] Bad file descriptor")

    monkeypatch.setattr(workers, "play_chunk", broken)
    worker = ctx.Process(target=workers._serve_chunks, args=(worker_end, 0, playing, os.getpid()))
    worker.start()
    worker_end.close()
    parent_end.send((7, False, ["a game"]))
    worker.join(60)
    assert worker.exitcode == EXIT_PIPE_LOST
    assert (playing[0], playing[1]) == (7.0, 0.0)


def test_chunks_follow_the_time_a_game_takes():
    chunk_size = LOCAL_CHUNKS.size
    assert chunk_size(100_000, 2, 0.001) == LOCAL_CHUNKS.most == 64  # random bots: big chunks save traffic
    assert chunk_size(100_000, 2, 0.02) == 12  # a quarter of a second per chunk
    assert chunk_size(100_000, 2, 2.0) == 1  # slow bots: one game at a time keeps the bar moving
    assert chunk_size(160, 2, 0.001) == 10  # at least eight chunks per worker
    assert chunk_size(3, 2, 0.001) == 1


def _chunks(games, workers: int, passes: bool) -> list[list]:
    sizes = ChunkSizes(LOCAL_CHUNKS, workers, 2 * workers, len(games), LOCAL_CHUNKS.most, passes)
    stream, chunks = iter(games), []
    while chunk := sizes.take(stream):
        chunks.append(chunk)
        sizes.timed(0.001 * len(chunk), len(chunk))  # random bots' pace
    return chunks


def test_with_bots_in_processes_a_chunk_is_one_seatings_run_of_deals():
    # 4 players, every seating: 24 games a deal; bots in processes get whole passes (one seating, every
    # deal once), so a worker's processes play a game of every deal before any needs replacing
    config = parse_config(f'name = "p"\nplayers = 4\ndeals = 40\nseed = 1\nseating = "all"\ndeal_key = "{KEY}"\n'
                          + "".join(f'[[entrants]]\nname = "r{i}"\nbot = "random"\n' for i in range(4)), "p.toml")
    games = list(by_seating(schedule(config)))
    chunks = _chunks(games, 2, passes=True)
    assert [g for chunk in chunks for g in chunk] == games  # every game once, in order
    assert all(len({g.rotation for g in chunk}) == 1 for chunk in chunks)
    assert all(len({g.seed for g in chunk}) == len(chunk) for chunk in chunks)  # no deal twice in a chunk
    assert max(len(c) for c in chunks) == 40  # whole passes while plenty is left, none longer than PASS_MOST
    assert max(len(c) for c in chunks) <= PASS_MOST
    # near the end a pass is cut so that every worker still gets a share
    assert min(len(c) for c in chunks) < 40
    # without processes the chunks follow the time a game takes, and cross seatings
    assert any(len({g.rotation for g in chunk}) > 1 for chunk in _chunks(games, 2, passes=False))


def test_the_longest_a_game_may_take_follows_the_bot_calls_it_can_make():
    assert game_bound(2, 1.0) == 4 * 24 + 4 + _BOUND_MARGIN  # two colors a seat
    assert game_bound(5, 0.5) == (5 * 24 + 10) * 0.5 + _BOUND_MARGIN
    assert game_bound(3, float("inf")) == float("inf")


def test_an_answer_comes_back_as_it_was_sent_and_anything_else_is_refused():
    from arena.tournament.run.codec import Answer, Played, decode_answer, encode_answer

    fault = {"game_id": "t-0001-0", "seat": 1, "entrant": "rnd", "move": 3, "kind": "timeout", "message": "slow"}
    answer = Answer(7, Played(b'{"a":1}\n', "rnd,é\n".encode(), 0.5, [fault], (0,), ((8, 7),)), log=["a line"])
    assert decode_answer(encode_answer(answer)) == answer
    part = Answer(7, answer.played, last=False)
    assert decode_answer(encode_answer(part)) == part
    assert decode_answer(encode_answer(Answer(3, error="no game"))) == Answer(3, error="no game")
    data = encode_answer(answer)
    for bad in (data[:-1], data + b"x", b"\x80" + data, "text", data.replace(b'"seat": 1', b'"seat": "1"')):
        with pytest.raises(WorkerError, match="a worker answered with data that is not an answer to a chunk"):
            decode_answer(bad)
