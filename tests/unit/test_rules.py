"""The rules of RULES.md, one test (at least) per rule id, on small hand-built positions;
perft-style fixtures (tests/data/perft.json) and a slow reference implementation to check them.

The reference (``RefGame`` below) knows nothing of the engine: it names cells, tiles and colors
as the records do, keeps the board as a dict, and answers every question by breadth-first search.
``python tests/unit/test_rules.py`` rewrites tests/data/perft.json from it.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.rules import PASS, GameSettings, GameState, Move, MoveSet, deal, derived_random
from arena.rules.geometry import cell_index
from arena.rules.tiles import COLORS, FITS, TILE_NAMES, WILD, color_index, tile_index
from arena.rules.view import SeatView

PERFT = Path(__file__).parents[1] / "data" / "perft.json"

ROW_NAMES = "ABCDEFGHI"
COLUMN_NAMES = "123456789"
SYMBOLS = ("man", "ring", "woman", "sign", "skyline", "sax", "car", "cards", "champagne")
ALL_TILES = [*ROW_NAMES, *COLUMN_NAMES, *SYMBOLS, "$"]


# =============================================================================================
# The slow reference
# =============================================================================================


def ref_cells() -> list[str]:
    return [r + c for r in ROW_NAMES for c in COLUMN_NAMES]


def ref_fits(tile: str, cell: str) -> bool:
    """M1 read straight from RULES.md."""
    row, column = ROW_NAMES.index(cell[0]), COLUMN_NAMES.index(cell[1])
    if tile == "$":
        return True
    if tile in ROW_NAMES:
        return ROW_NAMES.index(tile) == row
    if tile in COLUMN_NAMES:
        return COLUMN_NAMES.index(tile) == column
    return SYMBOLS.index(tile) == 3 * (row // 3) + column // 3


def ref_touching(cell: str) -> list[str]:
    row, column = ROW_NAMES.index(cell[0]), COLUMN_NAMES.index(cell[1])
    out = []
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        r, c = row + dr, column + dc
        if 0 <= r < 9 and 0 <= c < 9:
            out.append(ROW_NAMES[r] + COLUMN_NAMES[c])
    return out


def ref_groups(cells: set[str]) -> list[set[str]]:
    left = set(cells)
    groups = []
    while left:
        start = left.pop()
        group, queue = {start}, [start]
        while queue:
            for n in ref_touching(queue.pop()):
                if n in left:
                    left.remove(n)
                    group.add(n)
                    queue.append(n)
        groups.append(group)
    return groups


class RefGame:
    """Uptown with dicts, lists and BFS; names instead of numbers."""

    def __init__(self, seat_colors: list[list[str]], deal_names: dict[str, list[str]], penalty: str = "color"):
        self.seat_colors = seat_colors
        self.penalty = penalty
        self.board: dict[str, str] = {}
        self.racks = {color: list(deal_names[color][:5]) for color in deal_names}
        self.piles = {color: list(deal_names[color][5:]) for color in deal_names}
        self.played = {color: 0 for color in deal_names}
        self.captured = [{} for _ in seat_colors]  # seat -> {color: n}
        self.to_move = 0
        self.passes = 0
        self.over = False

    def color_cells(self, color: str) -> set[str]:
        return {cell for cell, c in self.board.items() if c == color}

    def capture_ok(self, cell: str) -> bool:
        """M3: the tiles of that color that touched the cell still connect without it."""
        color = self.board[cell]
        rest = self.color_cells(color) - {cell}
        touching = [n for n in ref_touching(cell) if n in rest]
        if len(touching) <= 1:
            return True
        group = next(g for g in ref_groups(rest) if touching[0] in g)
        return all(t in group for t in touching)

    def has_colors_left(self, seat: int) -> bool:
        return any(self.played[c] < 24 for c in self.seat_colors[seat])

    def legal(self) -> set[str]:
        if self.over:
            return set()
        own = self.seat_colors[self.to_move]
        verdict: dict[str, bool] = {}
        moves = set()
        for color in own:
            if self.played[color] >= 24:
                continue
            for tile in self.racks[color]:
                for cell in ref_cells():
                    if not ref_fits(tile, cell):
                        continue
                    occupant = self.board.get(cell)
                    if occupant is None:
                        moves.add(f"{color}:{tile}@{cell}")
                    elif occupant not in own:
                        if cell not in verdict:
                            verdict[cell] = self.capture_ok(cell)
                        if verdict[cell]:
                            moves.add(f"{color}:{tile}@{cell}")
        return moves

    def play(self, text: str) -> None:
        if text == "pass":
            self.passes += 1
            active = sum(1 for s in range(len(self.seat_colors)) if self.has_colors_left(s))
            if self.passes >= active:
                self.over = True
                return
        else:
            color, rest = text.split(":")
            tile, cell = rest.split("@")
            victim = self.board.get(cell)
            if victim is not None:
                row = self.captured[self.to_move]
                row[victim] = row.get(victim, 0) + 1
            self.board[cell] = color
            self.racks[color].remove(tile)
            if self.piles[color]:
                self.racks[color].append(self.piles[color].pop(0))
            self.played[color] += 1
            self.passes = 0
        n = len(self.seat_colors)
        for step in range(1, n + 1):
            seat = (self.to_move + step) % n
            if self.has_colors_left(seat):
                self.to_move = seat
                return
        self.over = True

    def groups(self, seat: int) -> int:
        return sum(len(ref_groups(self.color_cells(c))) for c in self.seat_colors[seat])

    def scores(self) -> list[dict[str, Any]]:
        rows = []
        for seat, colors in enumerate(self.seat_colors):
            caps = self.captured[seat]
            if self.penalty == "opponent":
                penalty = max(
                    sum(caps.get(c, 0) for c in others)
                    for s, others in enumerate(self.seat_colors)
                    if s != seat
                )
            else:
                penalty = max(caps.values(), default=0)
            groups = self.groups(seat)
            rows.append({"seat": seat, "groups": groups, "captures": dict(caps), "captured_total": sum(caps.values()),
                         "blockers_penalty": penalty, "blockers_score": groups + penalty})
        for row in rows:
            row["uptown_rank"] = 1 + sum(
                (o["groups"], o["captured_total"]) < (row["groups"], row["captured_total"]) for o in rows
            )
            row["blockers_rank"] = 1 + sum(
                (o["blockers_score"], o["captured_total"]) < (row["blockers_score"], row["captured_total"])
                for o in rows
            )
        return rows


def ref_seat_colors(players: int) -> list[list[str]]:
    names = ["red", "blue", "green", "yellow", "purple"]
    return [["red", "blue"], ["green", "yellow"]] if players == 2 else [[names[s]] for s in range(players)]


def ref_deal(seed: int, players: int) -> dict[str, list[str]]:
    """The documented deal derivation, written out again here."""
    out = {}
    for colors in ref_seat_colors(players):
        for color in colors:
            digest = hashlib.sha256(f"uptown-deal/1:{seed}:{color}".encode()).digest()
            order = list(range(28))
            random.Random(int.from_bytes(digest, "big")).shuffle(order)
            out[color] = [ALL_TILES[t] for t in order]
    return out


# =============================================================================================
# Helpers to build positions in the engine
# =============================================================================================


def C(name: str) -> int:
    return cell_index(name)


def T(name: str) -> int:
    return tile_index(name)


def bits(*cells: str) -> int:
    board = 0
    for name in cells:
        board |= 1 << cell_index(name)
    return board


def position(
    players: int,
    board: dict[str, str] | None = None,
    racks: dict[str, list[str]] | None = None,
    to_move: int = 0,
    played: dict[str, int] | None = None,
    penalty: str = "color",
    scoring: str = "uptown",
    captures: list[list[int]] | None = None,
    engine: Any = GameState,
) -> GameState:
    """A hand-built state: ``board`` maps cells to colors, ``racks`` colors to tiles (default: the next tiles).

    Each color's deal is ``played[c]`` tiles taken as played, then its rack, then its pile.
    ``engine`` is the GameState class that restores it (the engine in use unless a test says otherwise).
    """
    settings = GameSettings.for_players(players, scoring=scoring, penalty=penalty)
    racks = racks or {}
    played = played or {}
    deals, drawn, rack_of = {}, {}, {}
    for color in settings.colors:
        name = COLORS[color]
        n = played.get(name, 0)
        if name in racks:
            rack = [T(t) for t in racks[name]]
            order = [t for t in range(28) if t not in rack]
            deals[color] = (*order[:n], *rack, *order[n:])
        else:
            deals[color] = tuple(range(28))
            rack = list(range(n, min(28, n + 5)))
        drawn[color] = n + len(rack)
        rack_of[color] = rack
    boards = [0] * 5
    for cell, color in (board or {}).items():
        boards[color_index(color)] |= 1 << cell_index(cell)
    return engine.restore(settings, deals, drawn, rack_of, boards, captures or [[0] * 5 for _ in range(players)],
                          to_move, 0, [])


def edited(
    state: GameState,
    *,
    racks: dict[int, list[int]] | None = None,
    boards: dict[int, int] | None = None,
    captures: list[list[int]] | None = None,
    to_move: int | None = None,
) -> GameState:
    """``state`` set up again through ``restore`` with some of its parts replaced (by color, or all captures).

    The engine-neutral way to change a position: a changed rack keeps the tiles played, so what was
    drawn follows it.
    """
    settings = state.settings
    rack_of = {c: list(state.racks[c]) for c in settings.colors} | (racks or {})
    board_of = list(state.boards)
    for color, board in (boards or {}).items():
        board_of[color] = board
    return type(state).restore(
        settings, {c: state.deals[c] for c in settings.colors},
        {c: state.played[c] + len(rack_of[c]) for c in settings.colors}, rack_of, board_of,
        [list(row) for row in (state.captures if captures is None else captures)],
        state.to_move if to_move is None else to_move, state.passes, state.history, state.over)


def moves_of(state: GameState) -> set[str]:
    return {str(m) for m in state.legal_moves()}


def targets(state: GameState, color: str, tile: str) -> set[str]:
    cells = state.legal_moves().targets_mask(color_index(color), T(tile))
    return {f"{ROW_NAMES[i // 9]}{COLUMN_NAMES[i % 9]}" for i in range(81) if cells >> i & 1}


def ref_of(state: GameState) -> RefGame:
    """The reference game for an engine position (board, racks, played, turn)."""
    settings = state.settings
    seat_colors = [[COLORS[c] for c in colors] for colors in settings.seat_colors]
    ref = RefGame(seat_colors, {COLORS[c]: [TILE_NAMES[t] for t in state.deals[c]] for c in settings.colors},
                  settings.penalty)
    for color in settings.colors:
        ref.racks[COLORS[color]] = [TILE_NAMES[t] for t in state.racks[color]]
        ref.piles[COLORS[color]] = [TILE_NAMES[t] for t in state.pile(color)]
        ref.played[COLORS[color]] = state.played[color]
    for cell in range(81):
        color = state.color_at(cell)
        if color >= 0:
            ref.board[f"{ROW_NAMES[cell // 9]}{COLUMN_NAMES[cell % 9]}"] = COLORS[color]
    ref.to_move = state.to_move
    ref.passes = state.passes
    ref.over = state.over
    return ref


# =============================================================================================
# Board (B1-B3) — geometry itself is in test_geometry.py; here, as the moves see it
# =============================================================================================


def test_B1_moves_name_cells_row_then_column() -> None:
    move = Move.parse("red:A@A9")
    assert move == Move(0, 0, 8) and str(move) == "red:A@A9"
    assert Move.parse("purple:champagne@I9") == Move(4, T("champagne"), 80)
    assert str(Move(1, T("5"), C("E5"))) == "blue:5@E5"
    assert eval(repr(move)) == move  # the repr pastes back
    assert Move.parse("pass") is PASS and str(PASS) == "pass" and PASS.is_pass
    for bad in ("red:A", "red@A1", "red:A@J1", "pink:A@A1", "red:Z@A1", "", "red:$@A1@B2"):
        with pytest.raises(ValueError):
            Move.parse(bad)
    with pytest.raises(TypeError):
        Move.parse(5)  # type: ignore[arg-type]


def test_B2_symbol_tiles_fit_their_region() -> None:
    state = position(3, racks={"red": ["ring", "car", "champagne", "sign", "skyline"]})
    assert targets(state, "red", "ring") == {r + c for r in "ABC" for c in "456"}
    assert targets(state, "red", "car") == {r + c for r in "GHI" for c in "123"}
    assert targets(state, "red", "champagne") == {r + c for r in "GHI" for c in "789"}
    assert targets(state, "red", "sign") == {r + c for r in "DEF" for c in "123"}


def test_B3_only_side_neighbours_join_groups() -> None:
    state = position(3, board={"D4": "red", "E5": "red", "E6": "red", "C9": "red", "D1": "red"})
    assert state.groups(0) == 4  # D4 | E5+E6 | C9 | D1: diagonals do not join, C9 and D1 do not wrap round
    state = position(3, board={"A9": "red", "B1": "red"})
    assert state.groups(0) == 2


# =============================================================================================
# Tiles and players (T1-T3)
# =============================================================================================


def test_T1_each_color_has_its_28_tiles() -> None:
    assert TILE_NAMES == tuple(ALL_TILES)
    assert COLORS == ("red", "blue", "green", "yellow", "purple")
    for players in (2, 3, 4, 5):
        settings = GameSettings.for_players(players)
        dealt = deal(11, settings)
        assert len(dealt) == (4 if players == 2 else players)
        for tiles in dealt.values():
            assert sorted(tiles) == list(range(28))
    assert {T(t) for t in "ABCDEFGHI"} == set(range(9))
    assert FITS[WILD] == (1 << 81) - 1
    with pytest.raises(ValueError, match="not its 28 tiles"):
        GameState(GameSettings.for_players(3), {0: tuple(range(27)) + (0,), 1: tuple(range(28)), 2: tuple(range(28))})


def test_T2_two_players_play_two_colors_scored_apart() -> None:
    settings = GameSettings.for_players(2)
    assert settings.seat_colors == ((0, 1), (2, 3))
    assert settings.colors == (0, 1, 2, 3)
    # A red tile beside the same player's blue tile is still two groups.
    state = position(2, board={"E5": "red", "E6": "blue", "A1": "green"})
    assert state.groups(0) == 2 and state.groups(1) == 1
    # The seat may play either rack.
    state = position(2, racks={"red": ["A"], "blue": ["B"], "green": ["C"], "yellow": ["D"]})
    assert {m.split(":")[0] for m in moves_of(state)} == {"red", "blue"}
    for bad in ([(0,), (1,)], [(0, 1), (1, 2)], [(0, 1, 2), (3, 4)], [(0,)], [(c,) for c in range(5)] + [(0,)]):
        with pytest.raises(ValueError):
            GameSettings(tuple(bad))  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        GameSettings.for_players(6)


def test_T3_seat_0_moves_first_then_seat_order() -> None:
    for players in (2, 3, 4, 5):
        settings = GameSettings.for_players(players)
        state = GameState(settings, deal(3, settings))
        seen = []
        for _ in range(2 * players + 1):
            seen.append(state.to_move)
            state.push(state.legal_moves()[0])
        assert seen == [i % players for i in range(2 * players + 1)]


# =============================================================================================
# Setup (S1-S2)
# =============================================================================================


def test_S1_racks_are_the_first_five_of_each_pile() -> None:
    settings = GameSettings.for_players(4)
    dealt = deal(5, settings)
    state = GameState(settings, dealt)
    for color in settings.colors:
        assert list(state.racks[color]) == list(dealt[color][:5])
        assert state.pile(color) == dealt[color][5:]
    assert list(state.racks[4]) == [] and state.pile(4) == ()  # purple is not in play
    two = GameSettings.for_players(2)
    state = GameState(two, deal(5, two))
    assert all(len(state.racks[c]) == 5 for c in (0, 1, 2, 3))


@pytest.mark.parametrize("parts", [("uptown-bot/1", 5, 0), ("uptown-deal/1", 2**62, "purple"), ("t", -3)])
def test_S1_derived_random_is_the_standard_generator_seeded_from_the_sha256(parts) -> None:
    key = int.from_bytes(hashlib.sha256(":".join(map(str, parts)).encode()).digest(), "big")
    made, standard = derived_random(*parts), random.Random(key)
    assert type(made) is random.Random
    assert made.getstate() == standard.getstate()
    for draw in (lambda r: r.gauss(0, 1), lambda r: r.random(), lambda r: r.randrange(97)):
        assert draw(made) == draw(standard)


def test_S2_a_seat_sees_its_racks_and_public_counts_only() -> None:
    settings = GameSettings.for_players(3)
    state = GameState(settings, deal(8, settings))
    for _ in range(7):
        state.push(state.legal_moves()[0])
    view = SeatView.of(state, 1)
    assert set(view.racks) == {1} and view.racks[1] == tuple(state.racks[1])
    assert view.rack_sizes[:3] == (5, 5, 5) and view.pile_sizes[:3] == tuple(len(state.pile(c)) for c in range(3))
    # Anyone can work out the unplayed tiles (rack and pile together), not which are on the rack.
    for color in range(3):
        assert view.unplayed(color) == set(state.racks[color]) | set(state.pile(color))
    assert view.board_masks == tuple(state.boards) and view.history == tuple(state.history)
    assert not hasattr(view, "deals") and not hasattr(view, "state")


# =============================================================================================
# A turn (M1-M6)
# =============================================================================================


def test_M1_each_kind_of_tile_fits_its_cells() -> None:
    state = position(3, racks={"red": ["C", "7", "sax", "$", "I"]})
    assert targets(state, "red", "C") == {"C" + c for c in COLUMN_NAMES}
    assert targets(state, "red", "7") == {r + "7" for r in ROW_NAMES}
    assert targets(state, "red", "sax") == {r + c for r in "DEF" for c in "789"}
    assert targets(state, "red", "$") == set(ref_cells())
    assert len(state.legal_moves()) == 9 + 9 + 9 + 81 + 9  # hand count on the empty board


def test_M2_never_onto_an_own_tile_nor_the_other_own_color() -> None:
    state = position(3, board={"C5": "red", "C6": "blue"}, racks={"red": ["C"]})
    assert targets(state, "red", "C") == {"C" + c for c in COLUMN_NAMES} - {"C5"}  # C6 (blue, lone) may be taken
    state = position(2, board={"C5": "red", "C6": "blue", "C7": "green"}, racks={"red": ["C"], "blue": ["C"]})
    assert targets(state, "red", "C") == targets(state, "blue", "C") == {"C" + c for c in COLUMN_NAMES} - {"C5", "C6"}


def test_M3_capture_keeps_the_victims_tiles_connected() -> None:
    board = {
        "B1": "blue", "B2": "blue", "B3": "blue",  # a line: the middle is held
        "H7": "blue", "H8": "blue", "I7": "blue", "I8": "blue",  # a 2x2 block: all free
        "A5": "green",  # a lone tile
        "E4": "green", "E5": "green", "E6": "green", "F5": "green",  # a T: the centre is held
    }
    state = position(3, board=board, racks={"red": ["$"]})
    captures = targets(state, "red", "$") & set(board)
    assert captures == {"B1", "B3", "H7", "H8", "I7", "I8", "A5", "E4", "E6", "F5"}
    for cell in board:
        assert state.capturable_at(C(cell)) == (cell in captures)
    assert not state.capturable_at(C("A1"))  # an empty cell holds nothing to capture


def test_M3_a_loop_round_the_board_keeps_it_connected() -> None:
    # A ring of blue round D4: without E4, E3 and E5 still meet by way of row C.
    ring = ["C3", "C4", "C5", "D3", "D5", "E3", "E4", "E5"]
    state = position(3, board={c: "blue" for c in ring}, racks={"red": ["E"]})
    assert {"E3", "E4", "E5"} <= targets(state, "red", "E")
    # Open the ring at C4 and E4 becomes a cut point.
    state = position(3, board={c: "blue" for c in ring if c != "C4"}, racks={"red": ["E"]})
    assert targets(state, "red", "E") == {"E" + c for c in COLUMN_NAMES} - {"E3", "E4", "E5"}


def test_M3_capture_replaces_the_tile_and_is_kept_by_the_capturer() -> None:
    state = position(3, board={"A5": "green", "B5": "blue"}, racks={"red": ["5", "A"]})
    state.push(Move.parse("red:5@A5"))
    assert state.color_at(C("A5")) == 0 and state.boards[2] == 0
    assert list(state.captures[0]) == [0, 0, 1, 0, 0]
    assert state.history[-1] == (Move.parse("red:5@A5"), 2)
    # The capturing tile can itself be captured later.
    state = edited(state, to_move=1, racks={1: [T("A")]})
    assert "blue:A@A5" in moves_of(state)


def test_M3_the_wild_tile_may_capture() -> None:
    state = position(4, board={"I9": "yellow"}, racks={"red": ["$"]})
    assert "red:$@I9" in moves_of(state)


def test_M4_a_capture_is_allowed_while_empty_cells_remain() -> None:
    state = position(3, board={"A1": "blue"}, racks={"red": ["A"]})
    moves = moves_of(state)
    assert "red:A@A1" in moves and "red:A@A2" in moves
    assert len(state.legal_moves()) == 9


def test_M5_draw_from_the_pile_of_the_color_played() -> None:
    settings = GameSettings.for_players(2)
    dealt = deal(21, settings)
    state = GameState(settings, dealt)
    move = next(m for m in state.legal_moves() if m.color == 1)  # seat 0 plays blue
    state.push(move)
    assert list(state.racks[1]) == [t for t in dealt[1][:5] if t != move.tile] + [dealt[1][5]]
    assert list(state.racks[0]) == list(dealt[0][:5])  # red did not draw
    # With the pile empty, nothing is drawn.
    state = position(3, racks={"red": ["A", "B", "C", "D", "E"]}, played={"red": 23})
    assert state.pile(0) == ()
    state.push(Move.parse("red:A@A1"))
    assert list(state.racks[0]) == [T("B"), T("C"), T("D"), T("E")] and state.drawn[0] == 28


def blocked_two_player_position(racks: dict[str, list[str]] | None = None,
                                played: dict[str, int] | None = None) -> GameState:
    """Seat 0's tiles all fit rows A-E, which it fills; seat 1's fit rows F-I, which it fills.

    ``racks`` and ``played`` replace those of some colors (3 tiles played by each, by default).
    """
    board = {}
    for i, r in enumerate("ABCDE"):
        for c in COLUMN_NAMES:
            board[r + c] = "red" if i % 2 else "blue"
    for i, r in enumerate("FGHI"):
        for c in COLUMN_NAMES:
            board[r + c] = "green" if i % 2 else "yellow"
    racks = {"red": list("ABCDE"), "blue": list("ABCDE"), "green": list("FGHI") + ["car"],
             "yellow": list("FGHI") + ["cards"], **(racks or {})}
    played = {"red": 3, "blue": 3, "green": 3, "yellow": 3, **(played or {})}
    return position(2, board=board, racks=racks, played=played)


def test_M6_no_legal_play_means_pass_and_nothing_else_changes() -> None:
    # Seat 1 could capture a red or blue end tile with its $.
    state = blocked_two_player_position(racks={"green": [*"FGHI", "$"]})
    assert not state.legal_moves() and len(state.legal_moves()) == 0
    racks = [list(r) for r in state.racks]
    drawn = list(state.drawn)
    state.push(PASS)
    assert state.history == [(PASS, -1)] and state.passes == 1
    assert [list(r) for r in state.racks] == racks and list(state.drawn) == drawn  # nothing played, nothing drawn
    assert state.to_move == 1 and not state.over
    moves = state.legal_moves()
    assert moves and all(str(m).startswith("green:$@") for m in moves)
    state.push(moves[0])
    assert state.passes == 0 and state.to_move == 0 and not state.over


def test_M6_passes_broken_by_a_placement_do_not_end_the_game() -> None:
    # Three players: red is blocked, blue and green can play.
    board = {r + c: "red" for r in "AB" for c in COLUMN_NAMES}
    state = position(3, board=board, racks={"red": ["A", "B"], "blue": ["C"], "green": ["D"]})
    state.push(PASS)
    state.push(state.legal_moves()[0])
    state.push(state.legal_moves()[0])
    assert state.to_move == 0 and not state.legal_moves()
    state.push(PASS)
    assert not state.over and state.passes == 1


def test_E1_a_color_is_finished_after_24_tiles() -> None:
    settings = GameSettings.for_players(2)
    state = GameState(settings, deal(4, settings))
    # Seat 0 plays only red until red is finished; seat 1 plays anything.
    while not state.is_finished(0):
        moves = state.legal_moves()
        if state.to_move == 0:
            state.push(next(m for m in moves if m.color == 0))
        else:
            state.push(moves[0])
    assert state.played[0] == 24 and len(state.racks[0]) == 4 and state.pile(0) == ()
    assert state.history[-1][0].color == 0
    # Red's last 4 tiles stay unplayed: seat 0 now only plays blue.
    state.push(state.legal_moves()[0])
    assert state.to_move == 0
    moves = state.legal_moves()
    assert moves and {m.color for m in moves} == {1}


def test_E1_the_finishing_play_is_the_one_made_with_the_pile_empty() -> None:
    state = position(3, racks={"red": ["A", "B", "C", "D", "E"]}, played={"red": 23})
    assert not state.is_finished(0)
    state.push(Move.parse("red:A@A1"))
    assert state.is_finished(0) and state.played[0] == 24


def test_E2_finished_seats_are_skipped_and_the_game_ends_when_all_are() -> None:
    # Blue is finished: red hands the turn straight to green.
    state = position(3, racks={"red": ["A"], "blue": ["B", "C", "D", "E"], "green": ["F"]},
                     played={"blue": 24})
    assert not state.seat_active(1) and state.seat_active(0)
    state.push(Move.parse("red:A@A1"))
    assert state.to_move == 2
    # Only green left: it plays on and on; its last tile ends the game.
    state = position(3, racks={"red": list("ABCD"), "blue": list("ABCD"), "green": list("ABCDE")},
                     played={"red": 24, "blue": 24, "green": 23}, to_move=2)
    state.push(Move.parse("green:A@A1"))
    assert state.over and not state.legal_moves()


@pytest.mark.parametrize("players, turns", [(2, 96), (3, 72), (4, 96), (5, 120)])
def test_E2_without_passes_every_color_plays_24_tiles(players: int, turns: int) -> None:
    settings = GameSettings.for_players(players)
    state = GameState(settings, deal(2, settings))
    rng = random.Random(2)
    while not state.over:
        moves = state.legal_moves()
        assert moves, "this game has no pass"
        state.push(moves.choice(rng))
    assert len(state.history) == turns
    assert all(state.played[c] == 24 for c in settings.colors)


def test_E2_a_two_player_seat_plays_on_while_the_other_is_finished() -> None:
    state = position(2, racks={"red": list("ABCD"), "blue": list("ABCD"), "green": list("ABCDE"),
                               "yellow": list("ABCD")},
                     played={"red": 24, "blue": 24, "yellow": 24, "green": 22}, to_move=1)
    assert len(state.pile(2)) == 1
    state.push(Move.parse("green:A@A1"))
    assert state.to_move == 1 and not state.over  # seat 0 is skipped
    state.push(Move.parse("green:B@B1"))
    assert state.over


def test_E3_the_game_ends_when_everyone_still_playing_passes() -> None:
    state = blocked_two_player_position()
    state.push(PASS)
    assert not state.over
    assert not state.legal_moves()
    state.push(PASS)
    assert state.over and state.history == [(PASS, -1), (PASS, -1)]
    assert not state.legal_moves()


def test_E3_finished_seats_do_not_count_among_those_who_must_pass() -> None:
    # Seat 1 has finished both colors (24 played, 4 left on each rack): seat 0's one pass ends the game.
    state = blocked_two_player_position(racks={"green": list("FGHI"), "yellow": list("FGHI")},
                                        played={"green": 24, "yellow": 24})
    assert not state.seat_active(1) and state.seat_active(0)
    state.push(PASS)
    assert state.over


# =============================================================================================
# Scoring (C1-C4)
# =============================================================================================


def scored(players: int, board: dict[str, str], captures: list[list[int]], **kw: Any) -> GameState:
    return position(players, board=board, captures=[row[:] for row in captures], **kw)


def test_C1_uptown_fewer_groups_then_fewer_captures_else_shared() -> None:
    board = {"A1": "red", "A2": "red",  # red 1 group
             "C1": "blue", "E1": "blue",  # blue 2 groups
             "G1": "green",  # green 1 group
             "I1": "yellow", "I3": "yellow", "I5": "yellow"}  # yellow 3 groups
    state = scored(4, board, [[0, 0, 1, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]])
    result = state.result()
    assert [r.groups for r in result] == [1, 2, 1, 3]
    # red and green both have 1 group; red captured one tile, so green ranks first.
    assert [r.uptown_rank for r in result] == [2, 3, 1, 4]
    assert state.winners() == [2]
    # Equal groups and equal captures share the rank.
    state = edited(state, captures=[[0] * 5, *state.captures[1:]])
    result = state.result()
    assert [r.uptown_rank for r in result] == [1, 3, 1, 4]
    assert state.winners() == [0, 2]


def test_C2_blockers_groups_plus_penalty_then_fewer_captures() -> None:
    board = {"A1": "red", "C1": "blue", "C3": "blue", "E1": "green", "E3": "green", "E5": "green"}
    # red 1 group + penalty 2 = 3; blue 2 + 1 = 3; green 3 + 0 = 3: all 3, then captured_total decides.
    state = scored(3, board, [[0, 2, 0, 0, 0], [1, 0, 0, 0, 0], [0, 0, 0, 0, 0]], scoring="blockers")
    result = state.result()
    assert [r.blockers_penalty for r in result] == [2, 1, 0]
    assert [r.blockers_score for r in result] == [3, 3, 3]
    assert [r.blockers_rank for r in result] == [3, 2, 1]
    assert [r.uptown_rank for r in result] == [1, 2, 3]
    assert state.winners() == [2]
    # The penalty is the largest count of one color, not the total.
    state = edited(state, captures=[[0, 1, 2, 0, 0], *state.captures[1:]])
    row = state.result()[0]
    assert row.blockers_penalty == 2 and row.captured_total == 3 and row.captures == {"blue": 1, "green": 2}


def test_C3_both_scorings_always_computed_the_setting_picks_winners() -> None:
    board = {"A1": "red", "C1": "blue", "C3": "blue"}
    captures = [[0, 3, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]]
    uptown = scored(3, board, captures)
    blockers = scored(3, board, captures, scoring="blockers")
    assert [r.to_dict() for r in uptown.result()] == [r.to_dict() for r in blockers.result()]
    # green has no tile at all: 0 groups wins both here; drop it to see the scorings differ.
    assert uptown.winners() == blockers.winners() == [2]
    uptown, blockers = (edited(s, boards={2: bits("E1", "E3", "E5", "E7")}) for s in (uptown, blockers))
    # red: 1 group + 3 = 4; blue: 2 + 0 = 2; green: 4 + 0 = 4
    assert uptown.winners() == [0]
    assert blockers.winners() == [1]
    row = uptown.result()[0].to_dict()
    assert row == {"seat": 0, "groups": 1, "captures": {"blue": 3}, "captured_total": 3, "blockers_penalty": 3,
                   "blockers_score": 4, "uptown_rank": 1, "blockers_rank": 3}


def test_C4_two_players_penalty_counts_each_color_apart_unless_opponent_is_chosen() -> None:
    board = {"A1": "red", "C1": "green"}
    captures = [[0, 0, 2, 3, 0], [1, 1, 0, 0, 0]]
    by_color = scored(2, board, captures)
    assert [r.blockers_penalty for r in by_color.result()] == [3, 1]
    by_opponent = scored(2, board, captures, penalty="opponent")
    assert [r.blockers_penalty for r in by_opponent.result()] == [5, 2]
    assert GameSettings.for_players(2).penalty == "color"  # the rule texts are the default
    # With 3-5 players each opponent has one color: both options agree.
    three = scored(3, board, [[0, 2, 1, 0, 0], [0, 0, 0, 0, 0], [1, 1, 0, 0, 0]], penalty="opponent")
    assert [r.blockers_penalty for r in three.result()] == [2, 0, 1]
    with pytest.raises(ValueError):
        GameSettings.for_players(2, penalty="seat")
    with pytest.raises(ValueError):
        GameSettings.for_players(2, scoring="chess")


# =============================================================================================
# Other parts of the public API
# =============================================================================================


def test_moveset_indexing_choice_and_membership() -> None:
    state = position(3, board={"A1": "blue"}, racks={"red": ["A", "1", "$"]})
    moves = state.legal_moves()
    listed = list(moves)
    assert len(listed) == len(moves) == 9 + 9 + 81
    assert [moves[i] for i in range(len(moves))] == listed
    assert moves[-1] == listed[-1] and moves[-len(moves)] == listed[0]
    for bad in (len(moves), -len(moves) - 1):
        with pytest.raises(IndexError):
            moves[bad]
    assert all(m in moves for m in listed)
    assert Move.parse("blue:A@A2") not in moves and PASS not in moves and "red:A@A1" not in moves
    rng = random.Random(1)
    expected = [listed[random.Random(1).randrange(len(listed))]]
    assert [moves.choice(rng)] == expected
    assert MoveSet().choice(rng) is PASS and not MoveSet() and len(MoveSet()) == 0
    assert moves.targets_mask(0, T("A")) == bits(*[f"A{c}" for c in COLUMN_NAMES])
    assert moves.targets_mask(0, T("B")) == 0
    assert moves.copy().options == moves.options


def test_copy_is_independent() -> None:
    settings = GameSettings.for_players(4)
    state = GameState(settings, deal(6, settings))
    for _ in range(10):
        state.push(state.legal_moves()[3])
    twin = state.copy()
    twin.push(twin.legal_moves()[0])
    assert len(state.history) == 10 and len(twin.history) == 11
    assert state.boards != twin.boards and state.racks != twin.racks
    assert moves_of(state) == moves_of(state.copy())


def test_states_pickle_and_deep_copy() -> None:
    import pickle

    settings = GameSettings.for_players(2, scoring="blockers", penalty="opponent")
    state = GameState(settings, deal(9, settings))
    for _ in range(12):
        state.push(state.legal_moves()[-1])
    for twin in (pickle.loads(pickle.dumps(state)), copy.deepcopy(state)):
        assert twin.settings == settings and twin.history == state.history and twin.racks == state.racks
        assert twin.legal_moves().options == state.legal_moves().options
        assert [r.to_dict() for r in twin.result()] == [r.to_dict() for r in state.result()]


def test_a_board_restored_after_moves_is_judged_afresh() -> None:
    """The engine in use, its position changed through restore: the capture memo is not carried over."""
    state = position(3, board={"B1": "blue", "B2": "blue"}, racks={"red": ["B"]})
    assert "red:B@B2" in moves_of(state)
    state = edited(state, boards={1: bits("B1", "B2", "B3")})
    assert "red:B@B2" not in moves_of(state)  # B2 is now the middle of a line


# =============================================================================================
# Reference checks: random games, perft fixtures
# =============================================================================================


def play_checked(players: int, seed: int, penalty: str = "color") -> int:
    """Play a seeded random game in the engine and the reference side by side; compare every turn."""
    settings = GameSettings.for_players(players, penalty=penalty)
    state = GameState(settings, deal(seed, settings))
    ref = RefGame(ref_seat_colors(players), ref_deal(seed, players), penalty)
    rng = random.Random(seed)
    turns = 0
    while not state.over:
        assert state.to_move == ref.to_move
        legal = state.legal_moves()
        assert {str(m) for m in legal} == ref.legal()
        assert len(legal) == len(ref.legal())
        move = legal.choice(rng)
        state.push(move)
        ref.play(str(move))
        turns += 1
    assert ref.over
    result = [r.to_dict() for r in state.result()]
    expected = ref.scores()
    for row, want in zip(result, expected):
        assert row == want
    return turns


@pytest.mark.parametrize("players, seed", [(p, 10 * p + k) for p in (2, 3, 4, 5) for k in range(3)])
def test_engine_matches_the_reference_over_whole_games(players: int, seed: int) -> None:
    assert play_checked(players, seed, "opponent" if seed % 2 else "color") > 0


def test_engine_matches_the_reference_on_random_crowded_positions() -> None:
    """Boards far fuller than real games reach, with every color mixed, to stress M2/M3."""
    rng = random.Random(2024)
    for trial in range(100):
        players = rng.choice((2, 3, 4, 5))
        settings = GameSettings.for_players(players)
        board = {cell: COLORS[rng.choice(settings.colors)] for cell in ref_cells() if rng.random() < 0.7}
        racks = {COLORS[c]: rng.sample(ALL_TILES, 5) for c in settings.colors}
        state = position(players, board=board, racks=racks, to_move=rng.randrange(players))
        assert moves_of(state) == ref_of(state).legal(), trial


def perft(state: GameState, depth: int) -> int:
    """Leaf count of the tree of legal moves (a pass counts as the one move when nothing is legal)."""
    if depth == 0 or state.over:
        return 1
    moves = state.legal_moves()
    if depth == 1:
        return len(moves) or 1
    total = 0
    for move in moves or (PASS,):
        child = state.copy()
        child.push(move)
        total += perft(child, depth - 1)
    return total


def ref_perft(ref: RefGame, depth: int) -> int:
    if depth == 0 or ref.over:
        return 1
    moves = sorted(ref.legal()) or ["pass"]
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        child = copy.deepcopy(ref)
        child.play(move)
        total += ref_perft(child, depth - 1)
    return total


def perft_state(entry: dict[str, Any]) -> GameState:
    players = entry["players"]
    if "seed" in entry:
        settings = GameSettings.for_players(players)
        state = GameState(settings, deal(entry["seed"], settings))
        for text in entry["moves"]:
            move = Move.parse(text)
            assert move in state.legal_moves() or (move is PASS and not state.legal_moves()), text
            state.push(move)
        return state
    return position(players, board=entry["board"], racks=entry["racks"], to_move=entry["to_move"],
                    played=entry.get("played"))


def perft_ref(entry: dict[str, Any]) -> RefGame:
    players = entry["players"]
    if "seed" in entry:
        ref = RefGame(ref_seat_colors(players), ref_deal(entry["seed"], players))
        for text in entry["moves"]:
            ref.play(text)
        return ref
    return ref_of(perft_state(entry))  # hand-built: only the board and racks are given


PERFT_ENTRIES = json.loads(PERFT.read_text()) if PERFT.exists() else []


def test_perft_file_is_there() -> None:
    assert len(PERFT_ENTRIES) >= 12
    assert any(e.get("hand_checked") for e in PERFT_ENTRIES)


@pytest.mark.parametrize("entry", PERFT_ENTRIES, ids=[e["name"] for e in PERFT_ENTRIES])
def test_perft_engine(entry: dict[str, Any]) -> None:
    state = perft_state(entry)
    moves = state.legal_moves()
    assert len(moves) == entry["legal"]
    assert sum(1 for m in moves if state.color_at(m.cell) >= 0) == entry["captures"]
    if "perft2" in entry:
        assert perft(state, 2) == entry["perft2"]


@pytest.mark.parametrize("entry", PERFT_ENTRIES, ids=[e["name"] for e in PERFT_ENTRIES])
def test_perft_reference_agrees_with_the_file(entry: dict[str, Any]) -> None:
    ref = perft_ref(entry)
    legal = ref.legal()
    assert len(legal) == entry["legal"]
    assert sum(1 for m in legal if m.split("@")[1] in ref.board) == entry["captures"]


def test_perft_hand_checked_values() -> None:
    """The counts of the hand-checked fixtures, worked out by hand in their notes."""
    by_name = {e["name"]: e for e in PERFT_ENTRIES}
    opening = by_name["opening-4p-seed-7"]
    rack = ref_deal(7, 4)["red"][:5]
    assert opening["legal"] == sum(81 if t == "$" else 9 for t in rack) and opening["captures"] == 0
    mixed = by_name["hand-mixed-captures"]
    assert (mixed["legal"], mixed["captures"]) == (114, 12)
    ring = by_name["hand-ring"]
    assert (ring["legal"], ring["captures"]) == (80 + 9 + 8 + 9 + 9, 11 + 3 + 2 + 3 + 3)
    blocked = by_name["hand-blocked"]
    assert (blocked["legal"], blocked["captures"], blocked["perft2"]) == (0, 0, 1)


# =============================================================================================
# Writing the fixtures from the reference
# =============================================================================================


def _ref_play_random(players: int, seed: int, plies: int) -> list[str]:
    ref = RefGame(ref_seat_colors(players), ref_deal(seed, players))
    rng = random.Random(seed * 1000 + plies)
    moves: list[str] = []
    while len(moves) < plies and not ref.over:
        legal = sorted(ref.legal()) or ["pass"]
        move = rng.choice(legal)
        ref.play(move)
        moves.append(move)
    return moves


def write_perft() -> None:
    hand = [
        {
            "name": "hand-mixed-captures",
            "hand_checked": True,
            "note": "red to move, rack A 5 ring $ I. Targets: A 9 (capture A5), 5 8 (E5 is red; capture A5), "
                    "ring 9 (capture A5), I 9 (capture I7 I8), $ 79 (not E5, not B2; captures A5 B1 B3 H7 H8 I7 I8)"
                    ": 114 moves, 12 captures",
            "players": 3,
            "to_move": 0,
            "board": {"B1": "blue", "B2": "blue", "B3": "blue", "H7": "blue", "H8": "blue", "I7": "blue",
                      "I8": "blue", "A5": "green", "E5": "red"},
            "racks": {"red": ["A", "5", "ring", "$", "I"]},
        },
        {
            "name": "hand-blocked",
            "hand_checked": True,
            "note": "seat 0 (red+blue, rack A-E each) owns rows A-E: no legal play, it must pass (M6); "
                    "seat 1 then has none either, so depth 2 is the one line pass, pass",
            "players": 2,
            "to_move": 0,
            "board": {r + c: ("red" if i % 2 else "blue") for i, r in enumerate("ABCDE") for c in COLUMN_NAMES}
            | {r + c: ("green" if i % 2 else "yellow") for i, r in enumerate("FGHI") for c in COLUMN_NAMES},
            "racks": {"red": list("ABCDE"), "blue": list("ABCDE"), "green": [*"FGHI", "car"],
                      "yellow": [*"FGHI", "cards"]},
            "played": {"red": 3, "blue": 3, "green": 3, "yellow": 3},
        },
        {
            "name": "hand-ring",
            "hand_checked": True,
            "note": "a blue ring round D4 (every tile capturable, C4 only by way round) and a green T (G5 held). "
                    "$ 80 (11 captures), E 9 (E3 E4 E5), G 8 (G4 G6), 4 9 (C4 E4 G4), skyline 9 (D5 E4 E5): "
                    "115 moves, 22 captures",
            "players": 4,
            "to_move": 0,
            "board": {c: "blue" for c in ("C3", "C4", "C5", "D3", "D5", "E3", "E4", "E5")}
            | {"G4": "green", "G5": "green", "G6": "green", "H5": "green"},
            "racks": {"red": ["$", "E", "G", "4", "skyline"]},
        },
        {
            "name": "hand-two-player-own-colors",
            "note": "seat 1 (green+yellow) may not play onto green or yellow; red and blue lines are capturable at "
                    "the ends only",
            "players": 2,
            "to_move": 1,
            "board": {"E1": "green", "E2": "yellow", "E3": "red", "E4": "red", "E5": "red", "F5": "blue",
                      "G5": "blue"},
            "racks": {"green": ["E", "5", "$", "A", "sign"], "yellow": ["E", "3", "skyline", "I", "9"]},
        },
    ]
    entries: list[dict[str, Any]] = []
    for entry in hand:
        state = perft_state(entry)
        ref = ref_of(state)
        legal = ref.legal()
        entry["legal"] = len(legal)
        entry["captures"] = sum(1 for m in legal if m.split("@")[1] in ref.board)
        entry["perft2"] = ref_perft(ref, 2)
        entries.append(entry)
    entries.insert(0, {"name": "opening-4p-seed-7", "hand_checked": True,
                       "note": "the empty board: each rack tile fits 9 cells, $ fits 81",
                       "players": 4, "seed": 7, "moves": []})
    for players, seed, plies in [(2, 11, 30), (3, 12, 40), (4, 13, 60), (5, 14, 80), (2, 15, 90), (3, 16, 65),
                                 (4, 17, 90), (5, 18, 110), (4, 19, 20), (3, 20, 10)]:
        entries.append({"name": f"random-{players}p-seed-{seed}-ply-{plies}", "players": players, "seed": seed,
                        "moves": _ref_play_random(players, seed, plies)})
    for entry in entries:
        if "seed" in entry:
            ref = perft_ref(entry)
            legal = ref.legal()
            entry["legal"] = len(legal)
            entry["captures"] = sum(1 for m in legal if m.split("@")[1] in ref.board)
            entry["perft2"] = ref_perft(ref, 2)
    PERFT.parent.mkdir(parents=True, exist_ok=True)
    PERFT.write_text(json.dumps(entries, indent=1) + "\n")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write-perft"]:
        sys.exit("usage: python tests/unit/test_rules.py --write-perft")
    write_perft()
