"""The bot protocol ``uptown-bot/1``: JSON lines between the referee and a bot program.

``docs/PROTOCOL.md`` is the specification.  This module writes and reads
its messages for both sides: the referee's (:class:`TurnWriter`,
:func:`read_hello`, :func:`read_answer`) and a Python bot's
(:class:`ViewReader`, used by :mod:`arena.bothost`).  Cells, tiles and colors
are written as the game records write them.  The module does no I/O.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from .rules import PASS, GameSettings, GameState, Move, MoveSet, SeatResult
from .rules.geometry import CELL_NAMES, iter_cells
from .rules.tiles import COLORS, TILE_NAMES
from .rules.view import SeatView

PROTOCOL = "uptown-bot/1"
#: The longest line either side may write, its newline included.
MAX_LINE = 1 << 20
#: The first turn of a game also covers setting up: it gets this many time limits.
FIRST_TURN_LIMITS = 2
#: The stream the bot's seed is derived from (the same as an in-process bot's generator).
SEED_STREAM = "uptown-bot/1"
#: Fault kinds a bot may name in an ``error`` message; any other is an ``exception``.
ERROR_KINDS = ("exception", "exit", "invalid", "interrupt")
QUIT_LINE = b'{"type":"quit"}\n'
HELLO_LINE = b'{"type":"hello","protocol":"uptown-bot/1"}\n'

_encode = json.JSONEncoder(ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode
_COLOR_INDEX = {name: i for i, name in enumerate(COLORS)}
_TILE_INDEX = {name: i for i, name in enumerate(TILE_NAMES)}
_CELL_INDEX = {name: i for i, name in enumerate(CELL_NAMES)}
_OPTION_TYPES = (bool, int, float, str)


class ProtocolError(ValueError):
    """A line that breaks the protocol; the message is one line saying how."""


class Refused(ProtocolError):
    """The bot answered ``hello`` with an ``error``: it cannot play (its message says why)."""


class Declared(NamedTuple):
    """What a bot says of itself in its ``hello``."""

    name: str
    description: str
    #: Every option it accepts, with its default.
    options: dict[str, Any]


def bot_seed(seed: int, seat: int) -> str:
    """The ``seed`` of a ``game`` message: 64 hex digits, the SHA-256 of ``uptown-bot/1:SEED:SEAT``.

    ``random.Random(int(bot_seed(seed, seat), 16))`` is the generator an
    in-process bot gets, so a Python bot plays the same game either way.
    """
    return hashlib.sha256(f"{SEED_STREAM}:{seed}:{seat}".encode()).hexdigest()


# -- the referee's side ------------------------------------------------------------


def game_line(settings: GameSettings, seat: int, options: Mapping[str, Any], time_limit: float, seed: str) -> bytes:
    """The ``game`` message for ``seat``."""
    return (_encode({
        "type": "game",
        "seat": seat,
        "players": [{"seat": s, "colors": [COLORS[c] for c in colors]} for s, colors in enumerate(settings.seat_colors)],
        "scoring": settings.scoring,
        "penalty": settings.penalty,
        "time_limit": time_limit if math.isfinite(time_limit) else None,
        "options": dict(options),
        "seed": seed,
    }) + "\n").encode()


def over_line(result: Sequence[SeatResult]) -> bytes:
    """The ``over`` message: the result rows as the record writes them."""
    return (_encode({"type": "over", "result": [row.to_dict() for row in result]}) + "\n").encode()


# Quoted move texts, built once: _MOVE_TEXTS[color][tile][cell] == '"red:C@C5"'.
_MOVE_TEXTS = tuple(
    tuple(tuple(f'"{color}:{tile}@{cell}"' for cell in CELL_NAMES) for tile in TILE_NAMES) for color in COLORS
)
_CELL_TEXTS = tuple(f'"{cell}"' for cell in CELL_NAMES)
_TILE_TEXTS = tuple(_encode(tile) for tile in TILE_NAMES)


class TurnWriter:
    """Writes the ``turn`` messages of one game, from the referee's state.

    The history's JSON grows by one entry a move and is kept between turns.
    """

    def __init__(self, state: GameState) -> None:
        self.state = state
        self._history: list[str] = []
        self._colors = state.settings.colors
        self._keys = tuple(f'"{COLORS[c]}":' for c in range(len(COLORS)))

    def _history_json(self) -> str:
        history = self.state.history
        done = self._history
        if len(done) < len(history):
            seat_of = {c: s for s, colors in enumerate(self.state.settings.seat_colors) for c in colors}
            seats = None
            for index in range(len(done), len(history)):
                move, captured = history[index]
                color, tile, cell = move
                if color < 0:
                    if seats is None:
                        from .records import turn_seats  # passes are rare: the turn order is replayed

                        seats = turn_seats(self.state)
                    done.append(f'{{"seat":{seats[index]},"pass":true}}')
                    continue
                entry = f'{{"seat":{seat_of[color]},"color":"{COLORS[color]}","tile":{_TILE_TEXTS[tile]},' \
                        f'"cell":"{CELL_NAMES[cell]}"'
                done.append(entry + (f',"capture":"{COLORS[captured]}"}}' if captured >= 0 else "}"))
        return ",".join(done)

    def line(self, seat: int, moves: MoveSet, time: float) -> bytes:
        """The ``turn`` message for ``seat`` with its legal ``moves`` and ``time`` seconds to answer."""
        state = self.state
        keys = self._keys
        colors = self._colors
        boards = state.boards
        board = ",".join(keys[c] + "[" + ",".join([_CELL_TEXTS[x] for x in iter_cells(boards[c])]) + "]" for c in colors)
        racks = ",".join(
            keys[c] + "[" + ",".join([_TILE_TEXTS[t] for t in state.racks[c]]) + "]"
            for c in state.settings.seat_colors[seat]
        )
        drawn = ",".join(f"{keys[c]}{state.drawn[c]}" for c in colors)
        played = ",".join(keys[c] + "[" + ",".join([_TILE_TEXTS[t] for t in state.played_tiles[c]]) + "]" for c in colors)
        captures = ",".join(
            "{" + ",".join(f"{keys[c]}{n}" for c, n in enumerate(row) if n) + "}" for row in state.captures
        )
        legal = ",".join([
            _MOVE_TEXTS[color][tile][cell] for color, tile, cells in moves.options for cell in iter_cells(cells)
        ])
        shown_time = "null" if not math.isfinite(time) else repr(float(time))
        return (
            f'{{"type":"turn","time":{shown_time},"view":{{"seat":{seat},"move":{len(state.history)},'
            f'"board":{{{board}}},"racks":{{{racks}}},"drawn":{{{drawn}}},"played":{{{played}}},'
            f'"captures":[{captures}],"history":[{self._history_json()}],"passes":{state.passes}}},'
            f'"legal":[{legal}]}}\n'
        ).encode()


def parse_line(line: bytes) -> dict[str, Any]:
    """One line from the other side as a JSON object with a ``type``; :class:`ProtocolError` otherwise."""
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        raise ProtocolError(f"wrote a line that is not JSON: {_show_bytes(line)}") from None
    if not isinstance(obj, dict):
        raise ProtocolError(f"wrote {_kind(obj)}, not a JSON object: {_show_bytes(line)}")
    kind = obj.get("type")
    if not isinstance(kind, str):
        raise ProtocolError(f"wrote an object without a \"type\": {_show_bytes(line)}")
    return obj


def read_hello(obj: Mapping[str, Any]) -> Declared:
    """The bot's answer to ``hello``; :class:`ProtocolError` when it is not one."""
    if obj.get("type") == "error":
        message = obj.get("message")
        raise Refused(" ".join(message.split())[:300] if isinstance(message, str) else "refused to play")
    if obj.get("type") != "hello":
        raise ProtocolError(f"answered hello with a {_show(obj.get('type'))} message")
    protocol = obj.get("protocol")
    if protocol != PROTOCOL:
        raise ProtocolError(f"speaks protocol {_show(protocol)}, not {PROTOCOL}")
    name = obj.get("name", "")
    description = obj.get("description", "")
    options = obj.get("options", {})
    if not isinstance(name, str) or not isinstance(description, str):
        raise ProtocolError("a hello's name and description are strings")
    if not isinstance(options, dict):
        raise ProtocolError("a hello's options are an object of name: default")
    for key, default in options.items():
        if type(default) not in _OPTION_TYPES or (isinstance(default, float) and not math.isfinite(default)):
            raise ProtocolError(f"option {key!r}: a default is a number, true/false or a string, not {_show(default)}")
        if isinstance(default, str) and "," in default:
            raise ProtocolError(f"option {key!r}: a default may not contain ','")
    return Declared(" ".join(name.split())[:80], " ".join(description.split())[:200], dict(options))


def read_answer(obj: Mapping[str, Any]) -> Move | tuple[str, str]:
    """The bot's answer to a ``turn``: a :class:`Move` as written (not yet checked against the legal
    moves), or ``(kind, message)`` for an ``error``.  :class:`ProtocolError` for anything else."""
    kind = obj.get("type")
    if kind == "move":
        text = obj.get("move")
        if not isinstance(text, str):
            raise ProtocolError(f"a move is a string color:tile@cell, not {_show(text)}")
        move = _parse_move(text)
        if move is None:
            raise ProtocolError(f"answered {_show(text)}, which is not written as a move (color:tile@cell)")
        return move
    if kind == "error":
        message = obj.get("message")
        message = " ".join(message.split())[:300] if isinstance(message, str) else "gave up"
        fault = obj.get("kind")
        return (fault if fault in ERROR_KINDS else "exception"), message
    raise ProtocolError(f"answered a turn with a {_show(kind)} message")


def _parse_move(text: str) -> Move | None:
    if text == "pass":
        return PASS
    color, sep, rest = text.partition(":")
    tile, sep2, cell = rest.partition("@")
    c, t, x = _COLOR_INDEX.get(color), _TILE_INDEX.get(tile), _CELL_INDEX.get(cell)
    if not sep or not sep2 or c is None or t is None or x is None:
        return None
    return Move(c, t, x)


def _kind(value: Any) -> str:
    return {list: "an array", str: "a string", bool: "true/false", type(None): "null"}.get(type(value), "a number")


def _show(value: Any) -> str:
    text = json.dumps(value) if isinstance(value, (str, int, float, bool, type(None))) else _kind(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _show_bytes(line: bytes) -> str:
    text = line.decode("utf-8", "replace").rstrip("\n")
    return repr(text if len(text) <= 60 else text[:57] + "...")


# -- a Python bot's side -----------------------------------------------------------


class GameStart(NamedTuple):
    """A ``game`` message, read."""

    seat: int
    settings: GameSettings
    options: dict[str, Any]
    time_limit: float
    seed: int


def read_game(obj: Mapping[str, Any]) -> GameStart:
    """A ``game`` message as the bot needs it; :class:`ProtocolError` when it is malformed."""
    try:
        seat_colors = tuple(tuple(_COLOR_INDEX[c] for c in p["colors"]) for p in obj["players"])
        settings = GameSettings(seat_colors, obj["scoring"], obj["penalty"])
        seat = obj["seat"]
        if type(seat) is not int or not 0 <= seat < len(seat_colors):
            raise ValueError(f"no seat {seat!r}")
        limit = obj.get("time_limit")
        return GameStart(seat, settings, dict(obj.get("options") or {}), math.inf if limit is None else float(limit),
                         int(obj["seed"], 16))
    except (KeyError, TypeError, ValueError) as exc:
        raise ProtocolError(f"a malformed game message: {exc}") from None


# Parsed move texts, shared by every game: there are at most 5 * 28 * 81 of them.
_moves_read: dict[str, tuple[int, int, int]] = {}


class ViewReader:
    """Turns the ``turn`` messages of one game into :class:`~arena.rules.view.SeatView` objects.

    The history is read once: each turn adds only the entries since the last.
    """

    def __init__(self, start: GameStart) -> None:
        self.start = start
        self._history: list[tuple[Move, int]] = []

    def view(self, obj: Mapping[str, Any]) -> SeatView:
        """The seat's view in a ``turn`` message (the referee is trusted: the message is not re-checked)."""
        view = obj["view"]
        settings = self.start.settings
        n = len(COLORS)
        boards = [0] * n
        for color, cells in view["board"].items():
            board = 0
            for cell in cells:
                board |= 1 << _CELL_INDEX[cell]
            boards[_COLOR_INDEX[color]] = board
        drawn = [0] * n
        for color, count in view["drawn"].items():
            drawn[_COLOR_INDEX[color]] = count
        played: list[tuple[int, ...]] = [()] * n
        for color, tiles in view["played"].items():
            played[_COLOR_INDEX[color]] = tuple(_TILE_INDEX[t] for t in tiles)
        captures = []
        for row in view["captures"]:
            counts = [0] * n
            for color, count in row.items():
                counts[_COLOR_INDEX[color]] = count
            captures.append(tuple(counts))
        history = self._history
        entries = view["history"]
        if len(entries) < len(history):  # a new game under the same reader: start again
            history.clear()
        for entry in entries[len(history):]:
            if entry.get("pass"):
                history.append((PASS, -1))
            else:
                captured = entry.get("capture")
                history.append((
                    Move(_COLOR_INDEX[entry["color"]], _TILE_INDEX[entry["tile"]], _CELL_INDEX[entry["cell"]]),
                    -1 if captured is None else _COLOR_INDEX[captured],
                ))
        racks = {_COLOR_INDEX[c]: tuple(_TILE_INDEX[t] for t in tiles) for c, tiles in view["racks"].items()}
        seat = view["seat"]
        return SeatView(
            settings, seat, seat, False, tuple(boards), racks, tuple(drawn), tuple(played), tuple(captures),
            tuple(history), view["passes"], _move_set(obj["legal"]),
        )


def _move_set(texts: Sequence[str]) -> MoveSet:
    """The MoveSet of a turn's ``legal`` list, its options in the order written (the referee's)."""
    options: list[tuple[int, int, int]] = []
    last: tuple[int, int] | None = None
    cells = 0
    read = _moves_read
    for text in texts:
        move = read.get(text)
        if move is None:
            parsed = _parse_move(text)
            if parsed is None or parsed.color < 0:
                raise ProtocolError(f"the referee sent {text!r} as a legal move")
            move = read[text] = tuple(parsed)  # type: ignore[assignment]
        color, tile, cell = move
        if (color, tile) != last:
            if last is not None:
                options.append((*last, cells))
            last, cells = (color, tile), 0
        cells |= 1 << cell
    if last is not None:
        options.append((*last, cells))
    return MoveSet._of(tuple(options), len(texts))
