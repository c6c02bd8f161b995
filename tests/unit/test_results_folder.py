"""A results folder's owner with canned chunks, no worker processes: open, append, interrupt, reopen, finish.

The chunks are played once, in this process (isolation none), as a worker plays them; every test then
appends them to folders of its own.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import NamedTuple

import pytest

from arena.plan.config import TournamentConfig, parse_config
from arena.plan.schedule import Schedule
from arena.report.columns import RATING_LOW
from arena.report.folder_tables import folder_tables
from arena.report.text import format_tables
from arena.results.checkpoints import read_checkpoints
from arena.results.files import GAMES_FILE, RECORDS_FILE, RunError
from arena.results.folder import Opening, ResultsFolder

TOURNAMENT = """\
name = "canned"
players = 2
deals = 3
seed = 7
isolation = "none"
public_deals = true

[[entrants]]
name = "a"
bot = "random"

[[entrants]]
name = "b"
bot = "greedy"
"""


class Chunk(NamedTuple):
    """What a worker sends back for a chunk of games."""

    ids: tuple[str, ...]
    records: bytes
    rows: str
    faults: list[dict]


@pytest.fixture(scope="module")
def config() -> TournamentConfig:
    return parse_config(TOURNAMENT, "canned.toml")


@pytest.fixture(scope="module")
def chunks(config: TournamentConfig, tmp_path_factory: pytest.TempPathFactory) -> list[Chunk]:
    """The schedule's games in three chunks of two, played here as a worker plays them."""
    from arena.tournament.run.settings import worker_settings
    from arena.tournament.run.workers import close_worker, init_worker, play_chunk

    games = list(Schedule(config))
    assert len(games) == 6
    init_worker(worker_settings(config, str(tmp_path_factory.mktemp("logs"))))
    try:
        played = [(games[i:i + 2], play_chunk(games[i:i + 2])) for i in range(0, len(games), 2)]
    finally:
        close_worker()
    return [Chunk(tuple(g.game_id for g in part), p.records, p.rows.decode("utf-8"), p.faults) for part, p in played]


def append(folder, chunk: Chunk) -> None:
    folder.append(chunk.records, chunk.rows, len(chunk.ids), chunk.faults)


def fill(out: Path, config: TournamentConfig, chunks: list[Chunk], opening: Opening = Opening()) -> None:
    with ResultsFolder(out).open(config, TOURNAMENT, opening) as folder:
        for chunk in chunks:
            append(folder, chunk)
        folder.finish()


def test_a_new_folder_holds_every_chunk_appended_in_schedule_order(tmp_path, config, chunks):
    out = tmp_path / "out"
    fill(out, config, list(reversed(chunks)))
    rows = (out / GAMES_FILE).read_text().splitlines()[1:]
    assert [row.split(",")[0] for row in rows[::2]] == [g.game_id for g in Schedule(config)]
    assert read_checkpoints(out)[-1].games == 6
    with ResultsFolder(out).open(config, TOURNAMENT, Opening(resume=True)) as again:
        assert len(again.recovered.done) == 6 and again.recovered.dropped == 0
        assert list(again.pending()) == [] and len(list(again.rows())) == 12


def test_an_interrupted_folder_is_made_whole_and_finished_like_an_uninterrupted_one(tmp_path, config, chunks):
    whole = tmp_path / "whole"
    fill(whole, config, chunks)
    out = tmp_path / "out"
    folder = ResultsFolder(out).open(config, TOURNAMENT, Opening())
    append(folder, chunks[0])
    append(folder, chunks[1])
    folder.close()  # killed while the third chunk was being written: half its record line, none of its rows
    with open(out / RECORDS_FILE, "ab") as records:
        records.write(chunks[2].records[:50])
    with pytest.raises(RunError, match="add --resume"):
        ResultsFolder(out).check(config, Opening(), bots=False)
    with ResultsFolder(out).open(config, TOURNAMENT, Opening(resume=True)) as folder:
        assert folder.recovered.done == {*chunks[0].ids, *chunks[1].ids}
        assert folder.recovered.cut_bytes == 50
        assert sorted(g.game_id for g in folder.pending()) == sorted(chunks[2].ids)
        append(folder, chunks[2])
        folder.finish()
    assert (out / GAMES_FILE).read_bytes() == (whole / GAMES_FILE).read_bytes()
    assert (out / RECORDS_FILE).read_bytes() == (whole / RECORDS_FILE).read_bytes()


def test_a_chunk_with_rows_but_no_record_is_played_again(tmp_path, config, chunks):
    out = tmp_path / "out"
    folder = ResultsFolder(out).open(config, TOURNAMENT, Opening())
    append(folder, chunks[0])
    folder.close()
    with open(out / GAMES_FILE, "a") as games:  # rows whose record never reached the disk
        games.write(chunks[1].rows)
    with ResultsFolder(out).open(config, TOURNAMENT, Opening(resume=True)) as folder:
        assert folder.recovered.done == set(chunks[0].ids)
        assert folder.recovered.reasons["incomplete"] == 2
    assert len((out / GAMES_FILE).read_text().splitlines()) == 1 + 2 * 2  # two games of two seats


def test_dropped_games_leave_both_files_and_a_resume_plays_them(tmp_path, config, chunks):
    out = tmp_path / "out"
    with ResultsFolder(out).open(config, TOURNAMENT, Opening()) as folder:
        for chunk in chunks:
            append(folder, chunk)
        folder.drop(chunks[2].ids)
        folder.finish()
    with ResultsFolder(out).open(config, TOURNAMENT, Opening(resume=True)) as folder:
        assert folder.recovered.done == {*chunks[0].ids, *chunks[1].ids} and folder.recovered.dropped == 0


def test_a_folder_is_one_run_s_at_a_time(tmp_path, config):
    out = tmp_path / "out"
    with ResultsFolder(out).open(config, TOURNAMENT, Opening()):
        with pytest.raises(RunError, match="being written by another run"):
            ResultsFolder(out).check(config, Opening(resume=True), bots=False)
        with pytest.raises(RunError, match="being written by another run"):
            ResultsFolder(out).open(config, TOURNAMENT, Opening(resume=True))


def test_a_folder_of_another_tournament_is_refused_before_anything_is_written(tmp_path, config, chunks):
    out = tmp_path / "out"
    fill(out, config, chunks[:1])
    other = dataclasses.replace(config, deals=4)
    before = {path.name: path.read_bytes() for path in out.iterdir() if path.is_file()}
    with pytest.raises(RunError, match="already holds a different tournament .* differs in deals"):
        ResultsFolder(out).open(other, TOURNAMENT.replace("deals = 3", "deals = 4"), Opening(resume=True))
    assert {path.name: path.read_bytes() for path in out.iterdir() if path.is_file()} == before


def test_printed_cached_and_rebuilt_tables_show_the_same_bound_at_a_rounding_edge(tmp_path, config, chunks,
                                                                                   monkeypatch):
    """A bound that the table files' six digits round to x.5: printed the same whichever way the tables came."""
    import arena.report.folder_tables as tables

    out = tmp_path / "out"
    fill(out, config, chunks)
    built = tables.build_tables

    def at_the_edge(*args, **kwargs):
        made = built(*args, **kwargs)
        made.standings.loc[0, RATING_LOW] = -299.4999996  # the files hold -299.5
        return made

    monkeypatch.setattr(tables, "build_tables", at_the_edge)
    schedule = Schedule(config)
    written = folder_tables(out, schedule, write=True, teams=True)  # what a run prints and puts in report.html
    cached = folder_tables(out, schedule)  # what arena report reads back
    assert not written.reused and cached.reused
    assert written.teams is None  # two players: no third party, no Teams? table
    monkeypatch.setattr(tables, "cached_tables", lambda folder, scoring: None)
    rebuilt = folder_tables(out, schedule)  # what arena report builds again
    shown = [format_tables(found.tables, "text", title="canned") for found in (written, cached, rebuilt)]
    assert shown[0] == shown[1] == shown[2] and "[-300, " in shown[0]
    assert written.tables.standings.equals(cached.tables.standings)
    assert written.tables.standings.equals(rebuilt.tables.standings)
