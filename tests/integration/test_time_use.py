"""Time use per entrant: the games.csv columns, the time_use table, the lines after a run, an older folder."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from arena.cli import main
from arena.results.games_table import COLUMNS, OPTIONAL_COLUMNS, VERSIONS

BAD = Path(__file__).parents[1] / "fixtures" / "bad_bots.py"

TOURNAMENT = f"""
name = "timed"
players = 2
deals = 3
seed = 5
public_deals = true
time_limit = 0.3
isolation = "none"

[[entrants]]
name = "sleepy"
bot = "{BAD}:SleepingBot:after=4"

[[entrants]]
name = "greedy"
bot = "greedy"
"""


def rows(out: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO((out / "games.csv").read_text(encoding="utf-8"))))


def test_a_run_counts_each_seat_s_time_and_its_games_lost_on_time(cli, write_tournament, tmp_path):
    out = tmp_path / "out"
    result = cli.invoke(main, ["run", str(write_tournament(TOURNAMENT)), "--out", str(out), "-j", "1"])
    assert result.exit_code == 0, result.output
    found = rows(out)
    assert list(found[0]) == list(COLUMNS)
    sleepy = [row for row in found if row["entrant"] == "sleepy"]
    greedy = [row for row in found if row["entrant"] == "greedy"]
    # SleepingBot answers four turns, then sleeps past the limit on its fifth: a game lost on time.
    assert {row["asked"] for row in sleepy} == {"5"} and {row["lost_on_time"] for row in sleepy} == {"1"}
    assert all(float(row["longest"]) >= 0.3 for row in sleepy)
    assert {row["lost_on_time"] for row in greedy} == {"0"} and all(int(row["asked"]) > 5 for row in greedy)
    assert all(row["clock_left"] == "" for row in found)  # no clock
    assert all(float(row["longest"]) <= float(row["seconds"]) for row in found)
    # The table beside the standings, and its lines after the standings (on standard error).
    table = list(csv.DictReader(io.StringIO((out / "time_use.csv").read_text(encoding="utf-8"))))
    by_name = {row["entrant"]: row for row in table}
    assert by_name["sleepy"]["lost_on_time"] == "6" and by_name["sleepy"]["moves_asked"] == "30"
    assert float(by_name["sleepy"]["longest_move_seconds"]) >= 0.3 and by_name["sleepy"]["mean_clock_left"] == ""
    assert by_name["greedy"]["lost_on_time"] == "0"
    lines = result.output.splitlines()
    at = lines.index("Time use (per move the bot was asked)")
    assert lines[at + 1].split() == ["entrant", "games", "moves", "mean", "a", "move", "longest", "lost", "on", "time",
                                     "clock", "left"]
    assert {lines[at + 2].split()[0], lines[at + 3].split()[0]} == {"sleepy", "greedy"}
    sleepy_line = next(line for line in lines[at + 2:at + 4] if line.startswith("sleepy"))
    assert sleepy_line.split()[-2:] == ["6", "-"]
    # arena report prints it too, and the page shows it.
    report = cli.invoke(main, ["report", str(out)])
    assert "Time use (per move the bot was asked)" in report.output
    assert "Time use (per move the bot was asked)" in (out / "report.html").read_text(encoding="utf-8")


def test_a_clock_s_time_left_is_counted(cli, tmp_path):
    out = tmp_path / "m"
    result = cli.invoke(main, ["match", "greedy", "random", "--games", "2", "--clock", "30+0.5", "--isolation", "none",
                               "--seed", "4", "--public-deals", "--out", str(out), "--workers", "1"])
    assert result.exit_code == 0, result.output
    for row in rows(out):
        assert 30 < float(row["clock_left"]) <= 30 + 0.5 * int(row["asked"])
        assert row["lost_on_time"] == "0"
    table = (out / "time_use.csv").read_text(encoding="utf-8").splitlines()
    assert table[0].endswith(",mean_clock_left") and all(line.rsplit(",", 1)[1] for line in table[1:])


def test_an_older_folder_shows_no_time_use_and_resumes_with_the_new_columns(cli, tmp_path):
    """A folder an arena before the time-use columns wrote: read with '-' for them; a resume writes its
    games.csv again with the whole header (the old rows' new fields empty) and goes on."""
    text = TOURNAMENT.replace(f"{BAD}:SleepingBot:after=4", "random").replace("time_limit = 0.3", "time_limit = 5")
    path = tmp_path / "t.toml"
    path.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    assert cli.invoke(main, ["run", str(path), "--out", str(out), "-q", "-j", "1"]).exit_code == 0
    games = (out / "games.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    cut = len(VERSIONS[0].columns)
    old = ["".join(f"{','.join(row[:cut])}\n" for row in csv.reader(games[:7]))]  # the header and 3 games
    (out / "games.csv").write_text(old[0], encoding="utf-8")
    for name in ("checkpoints.jsonl", "tables.json", "time_use.csv"):
        (out / name).unlink()
    records = (out / "records.jsonl.gz")
    import gzip
    kept_ids = {row[0] for row in csv.reader(old[0].splitlines()[1:])}
    kept = [line for line in gzip.decompress(records.read_bytes()).decode().splitlines(keepends=True)
            if json.loads(line)["game_id"] in kept_ids]  # the records of the games kept, whatever their order
    assert len(kept) == 3
    records.write_bytes(gzip.compress("".join(kept).encode()))

    report = cli.invoke(main, ["report", str(out), "--table", "time"])
    assert report.exit_code == 0, report.output
    lines = report.output.splitlines()
    assert [line.split()[-4:] for line in lines[2:4]] == [["-", "-", "-", "-"]] * 2
    assert [line.split()[1] for line in lines[2:4]] == ["3", "3"]  # the games are counted all the same

    resumed = cli.invoke(main, ["run", str(path), "--out", str(out), "--resume", "-q", "-j", "1"])
    assert resumed.exit_code == 0, resumed.output
    found = rows(out)
    assert list(found[0]) == list(COLUMNS) and len(found) == 12
    before = [row for row in found if row[COLUMNS[0]] in kept_ids]
    after = [row for row in found if row[COLUMNS[0]] not in kept_ids]
    assert len(before) == 6 and all(all(row[c] == "" for c in OPTIONAL_COLUMNS) for row in before)
    assert all(row["asked"] and row["longest"] for row in after)
    time_use = {row["entrant"]: row for row in csv.DictReader(io.StringIO((out / "time_use.csv").read_text()))}
    assert time_use["greedy"]["moves_asked"] == str(sum(int(row["asked"]) for row in after
                                                        if row["entrant"] == "greedy"))
