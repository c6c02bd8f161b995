"""The board and the result as text, plain or with ANSI colors.

Plain text tells colors apart by a letter (``r`` red, ``b`` blue, ``g`` green,
``y`` yellow, ``p`` purple) in front of the tile; ``color=True`` adds ANSI
colors on top.  Whether to use color is the caller's choice (the commands
decide, through :func:`arena.display.terminal.use_color`); nothing here knows about
Click or ``isatty``.  Every name and every text taken from a record (fault
kinds and messages) goes through :func:`arena.display.terminal.printable`, so a record
cannot write terminal codes.

A board cell shows up to three characters: ``rA``, ``b7``, ``gMn`` (a green ``man``),
``p$`` for tiles; an empty cell shows its region in lower case after a dot
(``.mn``, ``.rg`` …) so one can see which symbol fits it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from arena.display.terminal import Column, fit_table, printable, text_width, wrap
from arena.records import MoveTime, move_times, turn_seats
from arena.rules import CELL_NAMES, COLORS, REGIONS, TILE_NAMES, GameSettings, GameState, Move, SeatResult
from arena.rules import winners as rules_winners
from arena.rules.geometry import region_of

#: The letter that stands for each color on the plain-text board.
COLOR_LETTERS = {name: name[0] for name in COLORS}
#: Short names of the symbol tiles (the region they fit); letters, numbers and ``$`` stand for themselves.
SYMBOL_ABBREVIATIONS = {
    "man": "Mn", "ring": "Rg", "woman": "Wo", "sign": "Sg", "skyline": "Sk",
    "sax": "Sx", "car": "Cr", "cards": "Cd", "champagne": "Ch",
}
TILE_ABBREVIATIONS = tuple(SYMBOL_ABBREVIATIONS.get(name, name) for name in TILE_NAMES)

#: What follows the tile of the last move on the board.
LAST_MOVE_MARK = "*"

#: The ANSI colour code of each colour of tiles.
ANSI = {"red": "31", "blue": "34", "green": "32", "yellow": "33", "purple": "35"}
_RESET = "\x1b[0m"


class _Game(Protocol):
    """What the renderer needs: a GameState or a SeatView."""

    @property
    def settings(self) -> GameSettings: ...

    @property
    def history(self) -> Sequence[tuple[Move, int]]: ...


def paint(text: str, codes: str, color: bool) -> str:
    """``text`` in the ANSI ``codes`` (``"1;31"``), when ``color``."""
    return f"\x1b[{codes}m{text}{_RESET}" if color and codes else text


def tile_text(color: int, tile: int) -> str:
    """A placed tile as on the board: color letter and tile, e.g. ``gMn``."""
    return COLOR_LETTERS[COLORS[color]] + TILE_ABBREVIATIONS[tile]


def board_tiles(game: _Game) -> list[tuple[int, int] | None]:
    """``(color, tile)`` on each of the 81 cells (None if empty), from the move history."""
    cells: list[tuple[int, int] | None] = [None] * len(CELL_NAMES)
    for move, _ in game.history:
        if not move.is_pass:
            cells[move.cell] = (move.color, move.tile)
    return cells


def render_board(
    game: _Game,
    color: bool = False,
    highlight: int | None = None,
    names: Sequence[str] | None = None,
    legend: bool = True,
    width: int | None = None,
) -> str:
    """The 9x9 board with rows A-I and columns 1-9, regions framed.

    ``highlight`` marks one cell (the last move) with a ``*`` after it (and
    reverse video in color).  With ``legend`` a key of colors (with the seats' ``names``) and
    symbols follows the board, its lines broken to fit ``width`` columns if given.
    """
    cells = board_tiles(game)
    groups = ["".join(f"{c:<5}" for c in range(start, start + 3)) for start in (1, 4, 7)]
    lines = ["   " + "| ".join(groups).rstrip()]
    rule = "  " + "+".join(["-" * 16] * 3)
    for row in range(9):
        if row and row % 3 == 0:
            lines.append(rule)
        parts = []
        for col in range(9):
            cell = row * 9 + col
            occupant = cells[cell]
            if occupant is None:
                text = "." + SYMBOL_ABBREVIATIONS[REGIONS[region_of(cell)]].lower()
                body = paint(text, "2", color)
            else:
                c, tile = occupant
                text = tile_text(c, tile)
                codes = "1;" + ANSI[COLORS[c]] + (";7" if cell == highlight else "")
                body = paint(text, codes, color)
            mark = LAST_MOVE_MARK if cell == highlight else " "
            parts.append(body + " " * (3 - len(text)) + mark + " ")
            if col in (2, 5):
                parts.append("| ")
        lines.append(f"{'ABCDEFGHI'[row]}  " + "".join(parts).rstrip())
    if legend:
        lines.append("")
        lines.extend(_legend(game.settings, names, color, width))
    return "\n".join(lines) + "\n"


def _legend(settings: GameSettings, names: Sequence[str] | None, color: bool, width: int | None) -> list[str]:
    seats = []
    for seat, colors in enumerate(settings.seat_colors):
        who = f"seat {seat}" + (f" {printable(names[seat])}" if names and seat < len(names) else "")
        marks = [(f"{COLOR_LETTERS[COLORS[c]]}={COLORS[c]}", "1;" + ANSI[COLORS[c]]) for c in colors]
        plain = " ".join(text for text, _ in marks)
        painted = " ".join(paint(text, codes, color) for text, codes in marks)
        seats.append((f"{plain} ({who})", f"{painted} ({who})"))
    symbols = " ".join(f"{SYMBOL_ABBREVIATIONS[name]}={name}" for name in REGIONS)
    # Colors are painted after the lines are broken, so the codes take no room.
    lines, line, shown = [], "colors:", "colors:"
    for plain, painted in seats:
        if width is not None and line != "colors:" and text_width(line) + 2 + text_width(plain) > width:
            lines.append(shown)
            line = shown = " " * len("colors:")
        line, shown = f"{line}  {plain}", f"{shown}  {painted}"
    lines.append(shown)
    lines.extend(wrap(f"symbols: {symbols} $=wild; an empty cell shows its region as .mn, .rg ...", width))
    lines.extend(wrap(f"marks:   {LAST_MOVE_MARK} after a tile (rA{LAST_MOVE_MARK}) marks the last move played", width))
    return lines


def score_line(state: GameState, names: Sequence[str] | None = None, width: int | None = None) -> list[str]:
    """The score so far, seat by seat: its groups (C1) and the tiles it captured, by color (M3).

    ``score: red (seat 0 ann) 4 groups, took 1 blue 2 green | blue (seat 1 bob) 3 groups, took none``."""
    parts = []
    for seat, colors in enumerate(state.settings.seat_colors):
        who = f"seat {seat}" + (f" {printable(names[seat])}" if names and seat < len(names) else "")
        took = " ".join(f"{n} {COLORS[c]}" for c, n in enumerate(state.captures[seat]) if n) or "none"
        groups = state.groups(seat)
        parts.append(f"{'+'.join(COLORS[c] for c in colors)} ({who}) {groups} group{'' if groups == 1 else 's'}, "
                     f"took {took}")
    lines = ["score:"]
    for part in parts:  # broken between seats, never inside one
        joined = f"{lines[-1]}{' |' if lines[-1] != 'score:' else ''} {part}"
        if width is not None and lines[-1].strip() and lines[-1] != "score:" and text_width(joined) > width:
            lines.append(f"       {part}")
        else:
            lines[-1] = joined
    return lines


def describe_move(index: int, seat: int, move: Move, captured: int, names: Sequence[str] | None = None) -> str:
    """One line for a move: ``move 12: seat 1 (bob) plays green 7 on C5, capturing red``."""
    who = f"seat {seat}" + (f" ({printable(names[seat])})" if names and seat < len(names) else "")
    if move.is_pass:
        return f"move {index}: {who} passes (no legal play)"
    text = f"move {index}: {who} plays {COLORS[move.color]} {TILE_NAMES[move.tile]} on {CELL_NAMES[move.cell]}"
    if captured >= 0:
        text += f", capturing {COLORS[captured]}"
    return text


def move_time_text(time: MoveTime) -> str:
    """A move's time from the record's ``clock`` key: `` (0.412 s; 19.788 s left; bank 10 s)``, or ``""``."""
    parts = [] if time.used is None else [f"{time.used:.3f} s"]
    if time.left is not None:
        parts.append(f"{time.left:.3f} s left")
    if time.bank is not None:
        parts.append(f"bank {time.bank:.3f} s")
    return f" ({'; '.join(parts)})" if parts else ""


def render_clocks(clock: Mapping[str, Any], times: Sequence[MoveTime], seats: Sequence[int],
                  names: Sequence[str]) -> str:
    """Every seat's time from a record's ``clock`` key: the control, then per seat the seconds its bot
    used over how many moves, and its clock and bank at the end."""
    control = [f"clock {printable(clock['control'])}"] if isinstance(clock.get("control"), str) else []
    overage = clock.get("overage")
    if isinstance(overage, (int, float)) and not isinstance(overage, bool) and overage:
        control.append(f"overage {overage:g} s")
    lines = [f"clocks ({', '.join(control) or 'none'}):"]
    for seat, name in enumerate(names):
        mine = [t for t, s in zip(times, seats, strict=True) if s == seat]
        asked = [t.used for t in mine if t.used is not None]
        text = f"  seat {seat} ({printable(name)}): {sum(asked):.3f} s over {len(asked)} move(s)"
        if mine and mine[-1].left is not None:
            text += f", {mine[-1].left:.3f} s left"
        if mine and mine[-1].bank is not None:
            text += f", bank {mine[-1].bank:.3f} s"
        lines.append(text)
    return "\n".join(lines) + "\n"


def render_racks(state: GameState, names: Sequence[str] | None = None, color: bool = False) -> str:
    """Every color's rack at this moment, one line each, with its pile's size: ``red (seat 0 bob): A 7 Mn $ 3``."""
    lines = []
    for seat, colors in enumerate(state.settings.seat_colors):
        who = f"seat {seat}" + (f" {printable(names[seat])}" if names and seat < len(names) else "")
        for c in colors:
            label = paint(f"{COLORS[c]:<6}", "1;" + ANSI[COLORS[c]], color)
            tiles = " ".join(TILE_ABBREVIATIONS[t] for t in state.racks[c]) or "-"
            status = "finished" if state.is_finished(c) else f"{len(state.pile(c))} in the pile"
            lines.append(f"  {label} ({who}): {tiles:<14}  {status}")
    return "racks:\n" + "\n".join(lines) + "\n"


def _row_dict(row: SeatResult | Mapping[str, Any]) -> Mapping[str, Any]:
    return row.to_dict() if isinstance(row, SeatResult) else row


def winners(result_rows: Sequence[SeatResult | Mapping[str, Any]], scoring: str) -> list[int]:
    """The seats of rank 1 under ``scoring`` (C3, :func:`arena.rules.winners`)."""
    return rules_winners(result_rows, scoring)


def render_result(
    result_rows: Sequence[SeatResult | Mapping[str, Any]],
    names: Sequence[str],
    scoring: str,
    faults: Sequence[Mapping[str, Any]] | None = None,
    colors: Sequence[Sequence[int | str]] | None = None,
    color: bool = False,
    width: int | None = None,
) -> str:
    """The result table: per seat groups, captures, Blockers! penalty and score, both ranks; then the winner.

    ``colors[s]`` (ints or names) adds each seat's colors; ``faults`` (dicts with
    seat, move, kind, message) adds a faults column and a list of the faults.
    With ``width`` the table is fitted to that many columns (:func:`arena.display.terminal.fit_table`):
    shorter headings, then the columns captures, penalty, colors and captured
    left out in that order, then long names cut.
    """
    rows = [_row_dict(r) for r in result_rows]
    won = set(winners(rows, scoring))
    seats = [int(row["seat"]) for row in rows]
    columns = [
        Column("seat", [str(s) for s in seats]),
        Column("name", [names[s] if s < len(names) else "" for s in seats], left=True, shrink=True),
    ]
    if colors is not None:
        shown = ["+".join(COLORS[c] if isinstance(c, int) else str(c) for c in colors[s]) for s in seats]
        columns.append(Column("colors", shown, left=True, drop=3))
    captures = [", ".join(f"{n} {c}" for c, n in row["captures"].items() if n) or "-" for row in rows]
    columns += [
        Column("groups", [str(row["groups"]) for row in rows]),
        Column("captures", captures, left=True, drop=1),
        Column("captured", [str(row["captured_total"]) for row in rows], short="capt", drop=4),
        Column("penalty", [str(row["blockers_penalty"]) for row in rows], short="pen", drop=2),
        Column("blockers", [str(row["blockers_score"]) for row in rows], short="B score"),
        Column("uptown rank", [str(row["uptown_rank"]) for row in rows], short="U rank"),
        Column("blockers rank", [str(row["blockers_rank"]) for row in rows], short="B rank"),
    ]
    if faults is not None:
        columns.append(Column("faults", [str(sum(1 for f in faults if f.get("seat") == s)) for s in seats]))
    columns.append(Column("won", ["yes" if s in won else "" for s in seats], left=True))
    table = fit_table(columns, width, rule=True)
    out = [paint(table.lines[0], "1", color), *table.lines[1:]]
    if table.short:
        out.append("U: Uptown scoring, B: Blockers! scoring")
    if table.dropped:
        out.extend(wrap(f"left out to fit {width} columns: {', '.join(table.dropped)}", width))
    title = "Uptown" if scoring == "uptown" else "Blockers!"
    who = ", ".join(f"{printable(names[s])} (seat {s})" if s < len(names) else f"seat {s}" for s in sorted(won))
    shared = " (shared)" if len(won) > 1 else ""
    out.append("")
    out.append(paint(f"{'Winners' if len(won) > 1 else 'Winner'} under {title} scoring: {who}{shared}", "1", color))
    if faults:
        out.append("")
        out.append("faults:")
        for f in faults:
            seat = f.get("seat")
            name = f" ({printable(names[seat])})" if isinstance(seat, int) and 0 <= seat < len(names) else ""
            message = printable(" ".join(str(f.get("message", "")).split()))
            kind, move = printable(f.get("kind")), printable(f.get("move"))
            out.append(f"  seat {printable(seat)}{name}, move {move}: {kind}: {message}")
    return "\n".join(out) + "\n"


def render_final(
    state: GameState,
    names: Sequence[str],
    result_rows: Sequence[SeatResult | Mapping[str, Any]],
    *,
    faults: Sequence[Mapping[str, Any]] | None = None,
    clock: Any = None,
    color: bool = False,
    width: int | None = None,
) -> str:
    """A finished game as ``arena play`` and ``arena replay`` show it: the final board with its legend, the
    result table (:func:`render_result`) and, when ``clock`` is a record's ``clock`` key, every seat's time."""
    settings = state.settings
    last = next((move.cell for move, _ in reversed(state.history) if not move.is_pass), None)
    board = render_board(state, color=color, highlight=last, names=names, width=width)
    table = render_result(result_rows, names, settings.scoring, faults=faults, colors=settings.seat_colors,
                          color=color, width=width)
    times = move_times(clock, len(state.history))
    clocks = "" if times is None else render_clocks(clock, times, turn_seats(state), names)
    return f"{board}\n{table}{clocks}"
