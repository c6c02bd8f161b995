"""A person at the table: the seat ``human`` (``arena play human BOT...``) reads its moves from the terminal.

The person is trusted: the seat runs in the referee's process whatever the
isolation (only this seat; the bots keep theirs), sees the board as
:func:`arena.display.text.render_board` draws it, and has no time limit.  A move
is typed as

* ``ring B2``: a tile of the rack (its name, or its short form ``Rg``) and a cell;
* ``C5``: a cell, when one rack tile may go there (else the person is asked which);
* ``1``: the number of a rack tile, when it fits one cell (else: which cell);
* ``#7``: the 7th of the legal moves ``?`` lists; ``red:ring@B2`` is read too.

``?`` lists the legal moves in columns, a page of at most :data:`LIST_ROWS` lines at a time (``? 2``: the
second page), so the board stays on the screen.  Under the board a line gives the score so far: each
seat's groups and the tiles it captured.

``q`` resigns, and so does the end of the input: the referee records a fault
of kind ``resign`` and the random fallback plays the seat's remaining moves,
as for any faulted bot.  There is no undo: every move is in the record.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any, TextIO

from arena.display.terminal import DEFAULT_WIDTH
from arena.display.text import ANSI, SYMBOL_ABBREVIATIONS, describe_move, paint, render_board, score_line, tile_text
from arena.faults import Fault, FaultKind
from arena.rules import COLORS, GameSettings, GameState, IllegalMove, Move, MoveSet, SeatResult
from arena.rules.geometry import CELL_NAMES, REGIONS, cell_index, region_of
from arena.rules.tiles import TILE_NAMES, tile_index

#: The spec of the human's seat, as given to ``arena play`` and written in the record's ``bots``.
HUMAN = "human"

_SHORT = {abbr.lower(): name for name, abbr in SYMBOL_ABBREVIATIONS.items()}


#: The most lines one page of ``?`` takes.
LIST_ROWS = 8


def move_pages(moves: list[Move], width: int | None, rows: int = LIST_ROWS) -> list[list[str]]:
    """The legal moves as ``?`` shows them: ``#12 rRg B2`` (number, tile, cell), in columns filled top to
    bottom that fit ``width``, at most ``rows`` lines a page."""
    entries = [f"#{n} {tile_text(m.color, m.tile)} {CELL_NAMES[m.cell]}" for n, m in enumerate(moves, 1)]
    if not entries:
        return [[]]
    wide = max(len(e) for e in entries) + 2
    columns = max(1, ((width or DEFAULT_WIDTH) - 2) // wide)
    per_page = columns * rows
    pages = []
    for start in range(0, len(entries), per_page):
        chunk = entries[start:start + per_page]
        height = -(-len(chunk) // columns)
        pages.append(["  " + "".join(f"{chunk[i]:<{wide}}" for i in range(r, len(chunk), height)).rstrip()
                      for r in range(height)])
    return pages


class Resign(Exception):
    """The person resigned: ``q``, or the end of the input."""


@dataclass
class Terminal:
    """Where the person reads the game and types moves, and how it is drawn."""

    input: TextIO = field(default_factory=lambda: sys.stdin)
    output: TextIO = field(default_factory=lambda: sys.stdout)
    color: bool = False
    width: int | None = None


def _tile(word: str) -> int | None:
    """The tile a word names (``ring``, ``Rg``, ``A``, ``7``, ``$``), or None."""
    name = _SHORT.get(word.lower(), word.lower() if word.lower() in SYMBOL_ABBREVIATIONS else word.upper())
    try:
        return tile_index(name)
    except ValueError:
        return None


def _cell(word: str) -> int | None:
    try:
        return cell_index(word.upper())
    except ValueError:
        return None


class Human:
    """Asks the person at the terminal for the moves of one seat of one game."""

    def __init__(self, terminal: Terminal, seat: int, names: list[str] | None = None) -> None:
        self.terminal = terminal
        self.seat = seat
        self.names = names
        self.seen = 0  # the moves already shown

    def say(self, text: str = "") -> None:
        self.terminal.output.write(text + "\n")
        self.terminal.output.flush()

    def read(self, prompt: str) -> str:
        """One line typed by the person; :class:`Resign` at the end of the input."""
        self.terminal.output.write(prompt)
        self.terminal.output.flush()
        line = self.terminal.input.readline()
        if not line:
            self.say()
            raise Resign("the input ended")
        return line.strip()

    def rack(self, state: GameState) -> list[tuple[int, int]]:
        """The seat's rack tiles ``(color, tile)``, numbered from 1 in this order."""
        return [(c, t) for c in state.settings.seat_colors[self.seat] for t in state.racks[c]]

    def show(self, state: GameState) -> None:
        """What happened since the person's last move, the board and the numbered rack."""
        history = state.history
        for index in range(self.seen, len(history)):
            move, captured = history[index]
            if move.is_pass:
                self.say(f"move {index}: a seat passes (no legal play)")
                continue
            seat = next(s for s, cs in enumerate(state.settings.seat_colors) if move.color in cs)
            self.say(describe_move(index, seat, move, captured, self.names))
        self.seen = len(history)
        last = history[-1][0].cell if history and not history[-1][0].is_pass else None
        color = self.terminal.color
        self.terminal.output.write(render_board(state, color=color, highlight=last, names=self.names,
                                                width=self.terminal.width))
        for line in score_line(state, self.names, self.terminal.width):
            self.say(line)
        tiles = "  ".join(f"{n}:" + paint(tile_text(c, t), "1;" + ANSI[COLORS[c]], color)
                          for n, (c, t) in enumerate(self.rack(state), 1))
        colors = " and ".join(COLORS[c] for c in state.settings.seat_colors[self.seat])
        self.say(f"move {len(history)}: your turn (seat {self.seat}, {colors}); your rack: {tiles}")

    def choose(self, state: GameState, moves: MoveSet) -> Move:
        """The move the person picks among ``moves`` (the legal moves of ``state``); :class:`Resign`."""
        self.show(state)
        listed = list(moves)
        while True:
            text = self.read("your move (ring B2, C5, 1, #N; ? lists the moves, q resigns): ")
            if not text:
                continue
            if text.lower() in ("q", "quit", "resign"):
                raise Resign("resigned")
            if text.lower() in ("u", "undo"):
                self.say("there is no undo: every move is in the game's record")
                continue
            if text.split()[0] == "?":
                self.list_moves(listed, text.split()[1:])
                continue
            found = self.parse(text, state, listed)
            if isinstance(found, str):
                self.say(found)
                continue
            if len(found) == 1:
                return found[0]
            if len(text.split()) == 1 and _cell(text) is not None:
                self.say(f"the tiles of your rack that fit {text.upper()}:")
            picked = self.pick(found)
            if picked is not None:
                return picked

    def list_moves(self, listed: list[Move], words: list[str]) -> None:
        """One page of the legal moves (``?``, ``? 2`` ...)."""
        pages = move_pages(listed, self.terminal.width)
        page = int(words[0]) if len(words) == 1 and words[0].isdigit() else 1
        if not 1 <= page <= len(pages):
            self.say(f"there {'is 1 page' if len(pages) == 1 else f'are {len(pages)} pages'} of moves: ? 1 to "
                     f"? {len(pages)}")
            return
        for line in pages[page - 1]:
            self.say(line)
        more = f"; ? {page + 1} shows the next" if page < len(pages) else ""
        self.say(f"{len(listed)} legal moves, page {page} of {len(pages)}{more}; type #N to play one")

    def pick(self, found: list[Move]) -> Move | None:
        """Which of several moves the person meant (None: asked again from the start)."""
        for n, move in enumerate(found, 1):
            self.say(f"  {n}: {TILE_NAMES[move.tile]} {CELL_NAMES[move.cell]}  ({move})")
        answer = self.read(f"which one (1-{len(found)}, anything else: back)? ")
        if answer.lower() in ("q", "quit", "resign"):
            raise Resign("resigned")
        if answer.isdigit() and 1 <= int(answer) <= len(found):
            return found[int(answer) - 1]
        return None

    def parse(self, text: str, state: GameState, listed: list[Move]) -> list[Move] | str:
        """The legal moves ``text`` may mean, or one line saying why it means none."""
        words = text.split()
        if len(words) == 1 and words[0].startswith("#"):
            digits = words[0][1:]
            if digits.isdigit() and 1 <= int(digits) <= len(listed):
                return [listed[int(digits) - 1]]
            return f"{text}: there are {len(listed)} legal moves, #1 to #{len(listed)} (? lists them)"
        if len(words) == 1 and ":" in text:
            try:
                move = Move.parse(text)
            except ValueError:
                return f"{text}: not a move (write it as red:ring@B2)"
            return self._checked([move], state)
        rack = self.rack(state)
        if len(words) == 1 and words[0].isdigit():
            number = int(words[0])
            if not 1 <= number <= len(rack):
                return f"{text}: your rack tiles are numbered 1 to {len(rack)}"
            color, rack_tile = rack[number - 1]
            found = [m for m in listed if (m.color, m.tile) == (color, rack_tile)]
            return found or f"{COLORS[color]} {TILE_NAMES[rack_tile]} cannot be played anywhere now (M1-M3)"
        cell = _cell(words[-1])
        if len(words) == 1 and cell is not None:
            found = [m for m in listed if m.cell == cell]
            return found or self._none_fits(cell, rack, state)
        tile = _tile(words[0])
        if len(words) == 2 and tile is not None and cell is not None:
            found = [m for m in listed if (m.tile, m.cell) == (tile, cell)]
            colors = state.settings.seat_colors[self.seat]
            return found or self._checked([Move(c, tile, cell) for c in colors], state)
        return (f"{text}: not a move; type a tile and a cell like ring B2, a cell like C5, a rack number like 1, "
                "#N from the list of ?, or q to resign")

    @staticmethod
    def _none_fits(cell: int, rack: list[tuple[int, int]], state: GameState) -> str:
        """Why no rack tile goes on ``cell``: what the cell takes (M1) against the rack, and the reason of
        each rack tile that would fit it but breaks another rule."""
        name = CELL_NAMES[cell]
        region = REGIONS[region_of(cell)]
        fitting = {name[0], name[1], region, "$"}
        others = []
        for c, t in dict.fromkeys(rack):
            if TILE_NAMES[t] in fitting:
                try:
                    state.check(Move(c, t, cell))
                except IllegalMove as exc:
                    others.append(f"{tile_text(c, t)}: {exc}")
        held = " ".join(tile_text(c, t) for c, t in rack)
        text = (f"no tile of your rack can go on {name}: it takes the letter {name[0]}, the number {name[1]}, "
                f"a {region} or $ (M1), and your rack holds {held}")
        return text + "".join(f"; {reason}" for reason in others)

    @staticmethod
    def _checked(moves: list[Move], state: GameState, lead: str = "") -> list[Move] | str:
        """The legal ones of ``moves``, or the rule the first breaks (:meth:`GameState.check`)."""
        reason = ""
        for move in moves:
            try:
                state.check(move)
            except IllegalMove as exc:
                reason = reason or f"{move}: {exc}"
                continue
            return [move]
        return f"{lead} ({reason})" if lead else f"not a legal move: {reason}"


class HumanSeat:
    """The seat of a person, as the referee's loop asks seats (see :mod:`arena.play.seats`); no time limit."""

    def __init__(self, terminal: Terminal, seat: int, settings: GameSettings, names: list[str]) -> None:
        self.human = Human(terminal, seat, names)
        self.settings = settings

    def start(self) -> tuple[float, Fault | None]:
        return 0.0, None

    def ask(self, state: GameState, moves: MoveSet) -> tuple[Any, float, Fault | None]:
        start = perf_counter()
        try:
            move = self.human.choose(state, moves)
        except Resign as exc:
            self.human.say(f"seat {self.human.seat} resigns: the rest of its moves are random legal moves")
            return None, perf_counter() - start, Fault(FaultKind.RESIGN, str(exc))
        return move, perf_counter() - start, None

    def listens(self) -> bool:
        return False

    def tell(self, result: list[SeatResult]) -> tuple[float, Fault | None]:
        return 0.0, None

    def close(self, healthy: bool = True) -> None:
        pass
