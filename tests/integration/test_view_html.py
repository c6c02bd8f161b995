"""``arena view`` and ``report --html``: the pages' content, escaping, and one-line errors for bad input."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from arena import records
from arena.cli import main
from arena.display.html import game_data
from arena.rules import CELL_NAMES, COLORS, TILE_NAMES

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


@pytest.fixture
def run(cli):
    """``arena`` with these arguments."""
    return lambda *args: cli.invoke(main, list(args))


def one_error_line(result) -> str:
    assert result.exit_code != 0
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    return lines[0]


def embedded(page: str) -> dict:
    match = re.search(r'<script type="application/json" id="game">(.*?)</script>', page, re.S)
    assert match
    return json.loads(match.group(1))


def test_view_writes_one_self_contained_page(tmp_path, run):
    record = tmp_path / "g.json"
    record.write_text((GOLDEN / "4p-seed4.json").read_text())
    result = run("view", str(record))
    assert result.exit_code == 0, result.output
    page = (tmp_path / "g.html").read_text()  # the default: beside the record
    # Nothing fetched: no URL other than the SVG namespace, no external src/href.
    assert not re.search(r"(src|href)=\"(?!#|data:)", page)
    assert re.findall(r"https?://[^'\" ]+", page) == ["http://www.w3.org/2000/svg"]
    data = embedded(page)
    game = records.replay(records.load(record))
    assert len(data["steps"]) == len(game.moves) + 1
    assert len(data["regions"]) == 81 and set(data["regions"]) == set(data["glyphs"])
    assert all(len(glyph) == 1 or glyph.startswith("svg:") for glyph in data["glyphs"].values())  # not "Mn"
    for option in ("first", "back", "play", "forward", "last", "slider"):
        assert f'id="{option}"' in page
    assert "<th>blockers rank</th>" in page and "<th>penalty</th>" in page and "<th>faults</th>" in page


def full_steps(steps: Sequence[Mapping[str, Any]], before: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """``game_data``'s steps with each position whole, as the page's script makes them (``expand`` in
    ``replay.js``): a step's ``put`` and ``rack`` changes applied to the ``board`` and ``racks`` of the step
    before (``before`` for the first of ``steps``, which is the deal when None)."""
    whole: list[dict[str, Any]] = []
    for step in steps:
        step = dict(step)
        if "board" not in step:
            last = whole[-1] if whole else before
            assert last is not None, "the first step is the deal, whole"
            board, racks = list(last["board"]), list(last["racks"])
            for i, value in step.pop("put"):
                board[i] = value
            for i, value in step.pop("rack"):
                racks[i] = value
            step.update(board=board, racks=racks)
        whole.append(step)
    return whole


def test_game_data_follows_the_record_step_by_step():
    game = records.replay(records.load(GOLDEN / "5p-passes.json"))
    data = game_data(game)
    assert all(cell is None for cell in data["steps"][0]["board"])
    # After the deal a step holds what its move changed: the cell played (none for a pass) and the mover's rack.
    for move, step in zip(game.moves, data["steps"][1:]):
        assert "board" not in step and "racks" not in step
        assert len(step["put"]) == (0 if move.is_pass else 1) and len(step["rack"]) <= 1
    whole = full_steps(data["steps"])
    # Steps sent later (arena serve's live game) are made whole from the last step the page has.
    assert full_steps(data["steps"][40:], before=whole[39]) == whole[40:]
    for (index, seat, move, captured, state), step in zip(game.states(), whole[1:]):
        if not move.is_pass:
            color, tile = step["board"][move.cell][:2]
            assert (color, tile) == (COLORS[move.color], TILE_NAMES[move.tile])
            assert step["cell"] == CELL_NAMES[move.cell]
        assert [r["tiles"] for r in step["racks"]] == [
            [TILE_NAMES[t] for t in state.racks[c]] for cs in game.settings.seat_colors for c in cs
        ]
        assert [r["pile"] for r in step["racks"]] == [
            len(state.pile(c)) for cs in game.settings.seat_colors for c in cs
        ]
        if captured >= 0:  # captures marked on the cell (M3)
            assert step["board"][move.cell][2] == COLORS[captured]
        # the whole board at every step, not only the cell just played
        assert [cell and cell[0] for cell in step["board"]] == [
            next((COLORS[c] for c, board in enumerate(state.boards) if board >> i & 1), None) for i in range(len(CELL_NAMES))]


def test_hostile_names_are_escaped(tmp_path, run):
    record = json.loads((GOLDEN / "4p-seed4.json").read_text())
    record["players"][0]["name"] = "</script><script>alert(1)</script><b>&"
    path = tmp_path / "h.json"
    path.write_text(json.dumps(record))
    out = tmp_path / "h.html"
    assert run("view", str(path), "-o", str(out)).exit_code == 0
    page = out.read_text()
    assert "<script>alert(1)" not in page and "<b>&" not in page
    assert page.count("<script") == 2  # the data and the page's own script
    assert embedded(page)["names"][0] == "</script><script>alert(1)</script><b>&"


def test_a_record_that_fails_verification_writes_nothing(tmp_path, run):
    record = json.loads((GOLDEN / "4p-seed4.json").read_text())
    record["moves"][3]["cell"] = record["moves"][0]["cell"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    line = one_error_line(run("view", str(path)))
    assert line == one_error_line(run("replay", "--verify", str(path)))
    assert "move 3" in line
    assert not (tmp_path / "bad.html").exists()


def test_an_unknown_game_id_names_the_nearest(tmp_path, run):
    folder = tmp_path / "res"
    folder.mkdir()
    lines = []
    for game_id in ("t000-d0001-r02", "t000-d0002-r02", "t000-d0009-r11"):
        record = json.loads((GOLDEN / "4p-seed4.json").read_text())
        record["game_id"] = game_id
        lines.append(records.dumps_line(record) + "\n")
    (folder / "records.jsonl").write_text("".join(lines))
    line = one_error_line(run("view", str(folder), "--game", "t000-d0001-r2"))
    assert line.startswith("Error: no game with id t000-d0001-r2 in ")
    assert "nearest: t000-d0001-r02" in line
    out = tmp_path / "o.html"
    assert run("view", str(folder), "--game", "t000-d0002-r02", "-o", str(out)).exit_code == 0
    assert "t000-d0002-r02" in out.read_text()


def test_an_output_that_cannot_be_written_is_one_line(tmp_path, run):
    line = one_error_line(run("view", str(GOLDEN / "4p-seed4.json"), "-o", str(tmp_path / "no" / "g.html")))
    assert line.startswith("Error: ") and "no/g.html: cannot write" in line


TOURNAMENT = """name = "tiny"
players = 2
deals = 2
seed = 7
isolation = "none"
[[entrants]]
name = "random"
bot = "random"
[[entrants]]
name = "greedy"
bot = "greedy"
"""


@pytest.mark.slow
def test_run_writes_report_html_with_linked_replays(tmp_path, monkeypatch, run, write_tournament):
    import arena.report.html

    monkeypatch.setattr(arena.report.html, "REPLAY_LIMIT", 3)
    monkeypatch.setattr(arena.report.html.write_report, "__defaults__", (None, 3))
    config = write_tournament(TOURNAMENT, "tiny.toml")
    out = tmp_path / "res"
    result = run("run", str(config), "--out", str(out), "-q", "--workers", "1", "--no-compress")
    assert result.exit_code == 0, result.output
    page = (out / "report.html").read_text()
    ids = [json.loads(line)["game_id"] for line in (out / "records.jsonl").read_text().splitlines()]
    assert len(ids) > 3
    listed = json.loads(re.search(r'<script type="application/json" id="games-data">(.*?)</script>', page).group(1))
    links = [link.removeprefix("games/").removesuffix(".html") for link in listed["links"].values()]
    assert links == ids[:3]  # the first games get a page, linked
    assert sorted(row[0] for row in listed["rows"]) == sorted(ids)  # every game is listed
    assert all((out / "games" / f"{i}.html").is_file() for i in links)
    assert not (out / "games" / f"{ids[3]}.html").exists()
    assert f"{len(ids) - 3} games have no replay page here" in page and "arena view" in page
    assert "<h2>Standings</h2>" in page and "<h2>By seat</h2>" in page and "<h2>Head to head" in page
    assert "<h2>By who sits directly before whom</h2>" in page
    assert page.count("data:image/png;base64,") == sum(1 for p in out.glob("*.png"))
    assert "http" not in page.replace("http://www.w3.org", "").replace("http-equiv", "")

    # report --html rebuilds it elsewhere with -o: that page alone, linking the replays the folder holds.
    other = tmp_path / "elsewhere" / "r.html"
    other.parent.mkdir()
    result = run("report", str(out), "--html", "-o", str(other))
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in other.parent.iterdir()) == ["r.html"]
    listed = json.loads(re.search(r'<script type="application/json" id="games-data">(.*?)</script>',
                                  other.read_text()).group(1))
    assert sorted(listed["links"]) == sorted(ids[:3])
    assert all((other.parent / link).resolve() == (out / "games" / f"{i}.html").resolve()
               for i, link in listed["links"].items())
    # --replays writes them beside the page, as a run does.
    result = run("report", str(out), "--html", "-o", str(other), "--replays")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (other.parent / "games").iterdir()) == [f"{i}.html" for i in sorted(ids[:3])]
    usage = run("report", str(out), "--replays")
    assert usage.exit_code == 2 and usage.output.strip().splitlines()[-1].endswith("give --html too")
    (tmp_path / "a-file").write_text("")
    line = one_error_line(run("report", str(out), "--html", "-o", str(tmp_path / "a-file" / "r.html")))
    assert line.startswith("Error: cannot write the HTML report")
    usage = run("report", str(out), "-o", str(other))
    assert usage.exit_code == 2 and usage.output.strip().splitlines()[-1].endswith("give --html too")


@pytest.mark.slow
def test_overwrite_removes_the_old_report_and_its_replays(tmp_path, run, write_tournament):
    config = write_tournament(TOURNAMENT, "tiny.toml")
    out = tmp_path / "res"
    assert run("run", str(config), "--out", str(out), "-q", "--workers", "1").exit_code == 0
    stale = out / "games" / "old-game.html"
    stale.write_text("from an earlier run")
    assert run("run", str(config), "--out", str(out), "-q", "--workers", "1", "--overwrite").exit_code == 0
    assert not stale.exists()  # a replay of the earlier run is not left beside the new report
    assert (out / "report.html").is_file() and any((out / "games").iterdir())


@pytest.mark.parametrize("name", ["records.jsonl", "records.jsonl.gz"])
def test_the_report_reads_the_records_as_a_stream(tmp_path, name):
    """report.html needs the first games (the tables count the rest): memory and time follow the games
    shown, not the size of the records file, which is read no further than they are."""
    import gzip
    import tracemalloc

    from arena.report.html import _record_lines

    line = '{"game_id": "%06d", "padding": "' + "x" * 200 + '"}\n'
    text = "".join(line % i for i in range(40_000))  # ~9 MB of records
    path = tmp_path / name
    if name.endswith(".gz"):
        with gzip.open(path, "wt", encoding="utf-8") as out:
            out.write(text + "\n\n")
    else:
        path.write_text(text + "\n\n", encoding="utf-8")
    del text
    tracemalloc.start()
    try:
        first = _record_lines(tmp_path, 5)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [json.loads(x)["game_id"] for x in first] == ["000000", "000001", "000002", "000003", "000004"]
    assert peak < 200_000, f"{peak} bytes held to read {path.stat().st_size} bytes of records"


def test_a_game_with_a_clock_gets_a_time_column_in_the_moves_table(tmp_path, run):
    path = tmp_path / "clocked.json"
    assert run("play", "random", "greedy", "--seed", "3", "--clock", "30", "--record", str(path)).exit_code == 0
    game = records.replay(records.load(path))
    data = game_data(game)
    assert data["columns"][-1] == ["time", "time"]
    assert all(step["row"]["time"].endswith("s left") for step in data["steps"][1:])
    assert game_data(records.replay(records.load(GOLDEN / "4p-seed4.json")))["columns"] == [
        ["n", "#"], ["who", "seat"], ["play", "move"]]  # no clock, no time column
