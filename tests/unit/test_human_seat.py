"""The human seat's screen: the running score, a move list that keeps the board in sight, the legend's marks,
and what a cell alone tells about the rack."""

from __future__ import annotations

import io
import re

from arena.display import text as render
from arena.play.human import LIST_ROWS, Human, Terminal
from arena.rules import CELL_NAMES, COLORS, GameSettings, GameState, Move, deal
from arena.rules.geometry import cell_index

NAMES = ["ann", "random", "greedy"]


def game(seed: int = 12, players: int = 3, moves: int = 0) -> GameState:
    settings = GameSettings.for_players(players)
    state = GameState(settings, deal(seed, settings))
    for _ in range(moves):
        state.push(next(iter(state.legal_moves())))
    return state


def human(typed: str, width: int = 80, seat: int = 0) -> tuple[Human, io.StringIO]:
    out = io.StringIO()
    return Human(Terminal(input=io.StringIO(typed), output=out, width=width), seat, NAMES), out


def test_the_screen_shows_the_score_so_far_groups_and_captures_by_color():
    state = game(moves=30)
    seat, out = human("")
    seat.show(state)
    lines = out.getvalue().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("score: "))
    score = " ".join(lines[start:start + 3])
    for s, colors in enumerate(state.settings.seat_colors):
        took = " ".join(f"{n} {COLORS[c]}" for c, n in enumerate(state.captures[s]) if n) or "none"
        groups = state.groups(s)
        assert f"{COLORS[colors[0]]} (seat {s} {NAMES[s]}) {groups} group{'' if groups == 1 else 's'}, took {took}" \
            in re.sub(r"\s+", " ", score)
    assert any(state.captures[s][c] for s in range(3) for c in range(5)), "the game has a capture to show"
    assert all(len(line) <= 80 for line in lines)


def test_the_move_list_is_in_columns_and_pages_that_keep_the_board_in_sight():
    state = game(moves=6)
    listed = list(state.legal_moves())
    assert len(listed) > 2 * LIST_ROWS
    seat, out = human("?\n? 2\n? 99\nq\n")
    try:
        seat.choose(state, state.legal_moves())
    except Exception as exc:  # q resigns
        assert type(exc).__name__ == "Resign"
    text = out.getvalue()
    pages = text.split("your move (")
    first = pages[1].splitlines()[1:]  # after the prompt: the page's lines and its footer
    assert 2 <= len(first) <= LIST_ROWS + 1 and all(len(line) <= 80 for line in first)
    entries = re.findall(r"#(\d+) ([rbgyp])(\S+) ([A-I][1-9])", pages[1] + pages[2])
    numbers = [int(n) for n, *_ in entries]
    shown = sorted(numbers)
    assert shown[0] == 1 and shown == list(range(1, len(shown) + 1))
    for n, _, _, cell in entries:
        assert CELL_NAMES[listed[int(n) - 1].cell] == cell
    assert f"{len(listed)} legal moves, page 1 of" in pages[1] and "? 2 shows the next" in pages[1]
    assert "page 2 of" in pages[2]
    assert "pages of moves: ? 1 to ?" in pages[3]


def test_the_legend_names_every_mark_the_last_move_too():
    state = game(moves=4)
    last = state.history[-1][0].cell
    board = render.render_board(state, highlight=last, width=80)
    assert re.search(rf"\b{CELL_NAMES[last][0]}  .*\*", board)  # the mark on the board ...
    assert "marks:   * after a tile (rA*) marks the last move played" in board  # ... and in the legend
    assert "an empty cell shows its region as .mn" in board and "r=red" in board and "$=wild" in board


def test_a_cell_alone_that_no_rack_tile_fits_lists_the_rack_against_what_the_cell_takes():
    state = game()
    rack = [t for t in state.racks[0]]
    cell = next(c for c in range(81) if not any(m.cell == c for m in state.legal_moves()))
    name = CELL_NAMES[cell]
    seat, _ = human("")
    reason = seat.parse(name, state, list(state.legal_moves()))
    assert isinstance(reason, str)
    assert reason.startswith(f"no tile of your rack can go on {name}: it takes the letter {name[0]}, "
                             f"the number {name[1]}, a ")
    held = reason.split("your rack holds ")[1].split(";")[0].split()
    assert len(held) == len(rack) == 5


def test_a_cell_alone_that_several_rack_tiles_fit_lists_them():
    state = game()
    by_cell: dict[int, list[Move]] = {}
    for move in state.legal_moves():
        by_cell.setdefault(move.cell, []).append(move)
    cell, moves = next((c, ms) for c, ms in by_cell.items() if len(ms) > 1)
    seat, out = human(f"{CELL_NAMES[cell]}\n2\n")
    chosen = seat.choose(state, state.legal_moves())
    assert chosen == moves[1] and cell_index(CELL_NAMES[cell]) == chosen.cell
    text = out.getvalue()
    assert f"the tiles of your rack that fit {CELL_NAMES[cell]}:" in text
    assert all(f"{n}: " in text for n in range(1, len(moves) + 1))
