"""The board and the result as text: plain text tells colors apart, ANSI color only when asked."""

from __future__ import annotations

import json
import re
from pathlib import Path

from arena.display import text as render
from arena.records import replay
from arena.rules import CELL_NAMES, GameSettings, GameState, Move, deal

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def game(name: str):
    return replay(json.loads((GOLDEN / name).read_text()))


def grid(text: str) -> dict[str, str]:
    """Cell name -> what the board shows there, read back from the plain text."""
    cells = {}
    for line in text.splitlines():
        if line[:1] in "ABCDEFGHI" and line[1:3] == "  ":
            shown = line[3:].replace("| ", "").split()
            marks = [s.rstrip("*") for s in shown]
            for col, mark in enumerate(marks):
                cells[f"{line[0]}{col + 1}"] = mark
    return cells


def test_B1_board_has_rows_A_to_I_and_columns_1_to_9():
    settings = GameSettings.for_players(3)
    text = render.render_board(GameState(settings, deal(1, settings)))
    lines = text.splitlines()
    assert lines[0].split() == ["1", "2", "3", "|", "4", "5", "6", "|", "7", "8", "9"]
    assert [line[0] for line in lines[1:12] if line[0] in "ABCDEFGHI"] == list("ABCDEFGHI")
    assert len(grid(text)) == 81


def test_B2_empty_cells_show_their_region():
    settings = GameSettings.for_players(3)
    cells = grid(render.render_board(GameState(settings, deal(1, settings))))
    assert cells["A1"] == ".mn" and cells["B5"] == ".rg" and cells["C9"] == ".wo"
    assert cells["E2"] == ".sg" and cells["D4"] == ".sk" and cells["F7"] == ".sx"
    assert cells["I1"] == ".cr" and cells["G6"] == ".cd" and cells["H8"] == ".ch"


def test_tiles_show_color_letter_and_tile():
    replayed = game("5p-seed5.json")
    text = render.render_board(replayed.state)
    assert not ANSI.search(text)
    cells = grid(text)
    tiles = render.board_tiles(replayed.state)
    for cell, occupant in enumerate(tiles):
        name = f"{'ABCDEFGHI'[cell // 9]}{cell % 9 + 1}"
        if occupant is None:
            assert cells[name].startswith(".")
        else:
            color, tile = occupant
            assert replayed.state.color_at(cell) == color
            assert cells[name] == render.tile_text(color, tile)
    shown = {c[0] for c in cells.values() if not c.startswith(".")}
    assert shown == set("rbgyp")


def test_symbol_abbreviations_are_distinct_and_named_in_the_legend():
    abbreviations = list(render.SYMBOL_ABBREVIATIONS.values())
    assert len(set(abbreviations)) == 9
    assert all(len(a) == 2 and a[0].isupper() for a in abbreviations)
    settings = GameSettings.for_players(2)
    text = render.render_board(GameState(settings, deal(1, settings)), names=["ann", "bob"])
    assert "Mn=man" in text and "Ch=champagne" in text
    assert "r=red b=blue (seat 0 ann)" in text and "g=green y=yellow (seat 1 bob)" in text


def test_color_only_when_asked_and_otherwise_the_same_text():
    state = game("4p-seed4.json").state
    plain = render.render_board(state, highlight=40)
    colored = render.render_board(state, color=True, highlight=40)
    assert "\x1b[1;31m" in colored and "\x1b[1;34m" in colored
    assert ANSI.sub("", colored) == plain


def test_highlight_marks_the_last_move():
    settings = GameSettings.for_players(3)
    state = GameState(settings, deal(2, settings))
    move = next(iter(state.legal_moves()))
    state.push(move)
    text = render.render_board(state, highlight=move.cell)
    board, legend = text.split("\n\n")
    assert board.count("*") == 1 and "* after a tile (rA*) marks the last move" in legend
    assert grid(text)[CELL_NAMES[move.cell]] == render.tile_text(move.color, move.tile)


def test_describe_move():
    assert render.describe_move(3, 1, Move.parse("green:7@C7"), 0, ["a", "b"]) == (
        "move 3: seat 1 (b) plays green 7 on C7, capturing red"
    )
    assert render.describe_move(4, 0, Move.parse("red:man@A1"), -1) == "move 4: seat 0 plays red man on A1"
    assert render.describe_move(5, 0, Move.parse("pass"), -1, ["a"]) == "move 5: seat 0 (a) passes (no legal play)"


def test_C1_C3_result_table_and_winner():
    replayed = game("4p-seed4.json")
    rows = replayed.result
    names = ["ann", "bob", "cy", "di"]
    text = render.render_result(rows, names, "uptown", colors=replayed.settings.seat_colors)
    lines = text.splitlines()
    assert lines[0].split() == [
        "seat", "name", "colors", "groups", "captures", "captured", "penalty", "blockers",
        "uptown", "rank", "blockers", "rank", "won",
    ]
    body = lines[2:6]
    for row, line in zip(rows, body):
        assert line.split()[:4] == [str(row.seat), names[row.seat], ["red", "blue", "green", "yellow"][row.seat],
                                    str(row.groups)]
        assert line.rstrip().endswith("yes") == (row.uptown_rank == 1)
    (winner,) = [r.seat for r in rows if r.uptown_rank == 1]
    assert f"Winner under Uptown scoring: {names[winner]} (seat {winner})" in text
    assert "faults" not in text
    assert not ANSI.search(text)


def test_C2_winner_under_blockers_scoring_and_shared_rank():
    rows = [
        {"seat": 0, "groups": 5, "captures": {"blue": 2}, "captured_total": 2, "blockers_penalty": 2,
         "blockers_score": 7, "uptown_rank": 1, "blockers_rank": 1},
        {"seat": 1, "groups": 5, "captures": {"red": 2}, "captured_total": 2, "blockers_penalty": 2,
         "blockers_score": 7, "uptown_rank": 1, "blockers_rank": 1},
        {"seat": 2, "groups": 6, "captures": {}, "captured_total": 0, "blockers_penalty": 0,
         "blockers_score": 6, "uptown_rank": 3, "blockers_rank": 3},
    ]
    text = render.render_result(rows, ["a", "b", "c"], "blockers")
    assert "Winners under Blockers! scoring: a (seat 0), b (seat 1) (shared)" in text
    assert render.winners(rows, "uptown") == [0, 1]
    assert "2 blue" in text and " - " in text


def test_faults_column_and_list():
    replayed = game("3p-seed3.json")
    faults = [{"seat": 1, "move": 7, "kind": "timeout", "message": "no move within 1.0 s"},
              {"seat": 1, "move": 10, "kind": "illegal", "message": "returned red:A@I9"}]
    text = render.render_result(replayed.result, ["a", "b", "c"], "uptown", faults=faults)
    header = text.splitlines()[0]
    start = header.index("faults")
    counts = [line[start:start + len("faults")].strip() for line in text.splitlines()[2:5]]
    assert counts == ["0", "2", "0"]
    assert "seat 1 (b), move 7: timeout: no move within 1.0 s" in text
    assert "seat 1 (b), move 10: illegal: returned red:A@I9" in text
    empty = render.render_result(replayed.result, ["a", "b", "c"], "uptown", faults=[])
    assert "faults" in empty.splitlines()[0] and "move 7" not in empty
