"""The Teams? table is written and stamped with a run's tables, and read back as they are."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

import arena.report.folder_tables as folder_tables_module
from arena.plan.schedule import Schedule
from arena.report.folder_tables import folder_tables
from arena.report.teams import read_teams, teams_table
from arena.results.files import TEAMS_FILE
from arena.results.tournament_file import read_tournament

FOLDER = Path(__file__).resolve().parents[1] / "data" / "folders" / "before-time-use"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A copy of a small stored three-player tournament (12 games)."""
    return Path(shutil.copytree(FOLDER, tmp_path / "tiny"))


def schedule_of(folder: Path) -> Schedule:
    config, _ = read_tournament(folder)
    return Schedule(config)


def test_a_runs_teams_table_is_read_back_without_reading_games_csv_again(folder: Path, monkeypatch) -> None:
    schedule = schedule_of(folder)
    written = folder_tables(folder, schedule, write=True, teams=True)
    assert written.teams is not None and (folder / TEAMS_FILE).is_file()
    games = pd.read_csv(folder / "games.csv")
    expected = teams_table(games, "uptown", schedule.config.names)
    pd.testing.assert_frame_equal(written.teams.reset_index(drop=True), expected.reset_index(drop=True),
                                  check_dtype=False)

    def no_reading(*args: object) -> None:
        raise AssertionError("games.csv read again")

    monkeypatch.setattr(folder_tables_module, "_stored_games", no_reading)
    again = folder_tables(folder, schedule, teams=True)
    assert again.reused
    pd.testing.assert_frame_equal(again.teams, read_teams(folder / TEAMS_FILE))
    pd.testing.assert_frame_equal(again.teams.reset_index(drop=True), written.teams.reset_index(drop=True))


def test_a_changed_teams_file_or_other_scoring_is_tested_again_from_the_games(folder: Path) -> None:
    schedule = schedule_of(folder)
    written = folder_tables(folder, schedule, write=True, teams=True)
    (folder / TEAMS_FILE).write_text("helper,helped\nx,y\n", encoding="utf-8")
    again = folder_tables(folder, schedule, teams=True)
    assert again.reused and again.frame is not None  # the tables read back, the pairs tested on the games
    pd.testing.assert_frame_equal(again.teams.reset_index(drop=True), written.teams.reset_index(drop=True),
                                  check_dtype=False)
    other = folder_tables(folder, schedule, "blockers", teams=True)
    assert not other.reused and other.teams is not None


def test_tables_written_without_the_teams_table_get_it_stamped_at_the_next_writing(folder: Path) -> None:
    schedule = schedule_of(folder)
    folder_tables(folder, schedule, write=True)  # a report written during the run: no Teams? table
    assert not (folder / TEAMS_FILE).exists()
    ended = folder_tables(folder, schedule, write=True, teams=True)  # the run's end
    # the tables stand, the page is written again with the section (so not reused)
    assert not ended.reused and ended.teams is not None and (folder / TEAMS_FILE).is_file()
    assert folder_tables(folder, schedule, teams=True).frame is None  # read back, the games not read
