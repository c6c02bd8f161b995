"""``arena report`` as one library call: :func:`arena.report.folder_report.report_folder`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from arena.report.folder_report import ReportError, ReportOptions, report_folder

FOLDER = Path(__file__).resolve().parents[1] / "data" / "folders" / "before-time-use"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A copy of a small stored tournament (three entrants, 12 games), which the report may write into."""
    return Path(shutil.copytree(FOLDER, tmp_path / "tiny"))


def test_a_folder_reports_its_tables_and_the_teams_section(folder: Path) -> None:
    told: list[str] = []
    report = report_folder(folder, ReportOptions(), told.append)
    assert report.text.startswith("tiny - Standings") and "greedy" in report.text
    assert [s.splitlines()[1] for s in report.sections] == ["Teams?"]
    assert told == []  # nothing left out, nothing drawn or written


def test_one_table_as_csv_has_no_sections_and_the_page_written_is_told(folder: Path) -> None:
    told: list[str] = []
    report = report_folder(folder, ReportOptions(fmt="csv", table="seats", page=folder / "r.html"), told.append)
    assert report.text.splitlines()[0].startswith("seat,") and report.sections == []
    assert told == [str(folder / "r.html")] and (folder / "r.html").stat().st_size > 0


def test_one_pairs_detail_is_printed_alone(folder: Path) -> None:
    report = report_folder(folder, ReportOptions(collusion="random,greedy"))
    assert report.text == "" and len(report.sections) == 1 and "random" in report.sections[0]


def test_damaged_rows_are_told_and_a_folder_without_games_is_refused(folder: Path) -> None:
    games = folder / "games.csv"
    games.write_text(games.read_text(encoding="utf-8") + "t000-d0009-r0,0,9,0,1,0,x\n", encoding="utf-8")
    told: list[str] = []
    report_folder(folder, ReportOptions(), told.append)
    assert len(told) == 1 and "1 game(s) left out" in told[0]
    games.unlink()
    with pytest.raises(ReportError, match=r"no games\.csv yet"):
        report_folder(folder, ReportOptions())
