"""The bot protocol ``uptown-bot/1``: JSON lines between the referee and a bot program.

``docs/reference/protocol.md`` is the specification.  This module writes and reads
its messages for both sides: the referee's (:class:`TurnWriter`,
:func:`read_hello`, :func:`read_turn_answer`) and a Python bot's
(:class:`ViewReader`, used by :mod:`arena.wire.bothost`).  Cells, tiles and colors
are written as the game records write them.  The module does no I/O.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import random
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from arena.api.options import MAX_DECLARED, MAX_OPTIONS, Option, defaults
from arena.errors import ArenaError, shorten
from arena.faults import Fault, FaultKind
from arena.rules import PASS, GameSettings, GameState, Move, MoveSet, SeatResult, engine
from arena.rules.geometry import CELL_NAMES, iter_cells
from arena.rules.tiles import COLORS, TILE_NAMES
from arena.rules.view import SeatView, TurnClock, seat_view

PROTOCOL = "uptown-bot/1"
#: The longest line either side may write, its newline included.
MAX_LINE = 1 << 20
#: The first turn of a game also covers setting up: it gets this many time limits.
FIRST_TURN_LIMITS = 2
#: The stream the bot's seed is derived from (the same as an in-process bot's generator).
SEED_STREAM = "uptown-bot/1"
#: Fault kinds a bot may name in an ``error`` message; any other is an ``exception``.
ERROR_KINDS = (FaultKind.EXCEPTION, FaultKind.EXIT, FaultKind.INVALID, FaultKind.INTERRUPT)
QUIT_LINE = b'{"type":"quit"}\n'
#: The longest text of a bot's the referee passes on: an ``error`` message, a refusal, last words.
MAX_SHOWN = 300
HELLO_LINE = b'{"type":"hello","protocol":"uptown-bot/1"}\n'

_encode = json.JSONEncoder(ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode
_COLOR_INDEX = {name: i for i, name in enumerate(COLORS)}
_TILE_INDEX = {name: i for i, name in enumerate(TILE_NAMES)}
_CELL_INDEX = {name: i for i, name in enumerate(CELL_NAMES)}


class ProtocolError(ArenaError, ValueError):
    """A line that breaks the protocol; the message is one line saying how."""


class Refused(ProtocolError):
    """The bot answered ``hello`` with an ``error``: it cannot play (its message says why)."""


class Declared(NamedTuple):
    """What a bot says of itself in its ``hello``."""

    name: str
    description: str
    #: Every option it accepts: its default, and the range and doc its ``option_info`` gives.
    options: dict[str, Option]

    def defaults(self) -> dict[str, Any]:
        """Every option's default."""
        return defaults(self.options)


#: The keys of an option's entry in a hello's ``option_info``, each optional.
OPTION_INFO_KEYS = ("min", "max", "choices", "doc")


def hello_options(declared: Mapping[str, Option]) -> dict[str, Any]:
    """The ``options`` and ``option_info`` members of a ``hello`` declaring ``declared``; an option of no
    range and no doc has no ``option_info`` entry, and the member is left out when none has one."""
    members: dict[str, Any] = {"options": defaults(declared)}
    info = {}
    for key, option in declared.items():
        entry = {k: getattr(option, k) for k in OPTION_INFO_KEYS if getattr(option, k) not in (None, "")}
        if "choices" in entry:
            entry["choices"] = list(entry["choices"])
        if entry:
            info[key] = entry
    if info:
        members["option_info"] = info
    return members


def bot_seed(seed: int, seat: int, key: str | None = None) -> str:
    """The ``seed`` of a ``game`` message: 64 hex digits.

    In a keyed tournament (``key``: the results folder's deal key, 64 hex digits) it is the
    HMAC-SHA256 of ``uptown-bot/1:SEED:SEAT`` under the key, so it says nothing about the
    game seed (nor the deal) to whoever lacks the key.  With public deals (``key`` None:
    ``arena play --seed``, ``public_deals = true``) it is the plain SHA-256 of that text,
    which anyone who knows the game seed can work out, as the deal itself.

    ``random.Random(int(bot_seed(seed, seat, key), 16))`` is the generator an
    in-process bot gets (:func:`bot_random`), so a Python bot plays the same game either way.
    """
    text = f"{SEED_STREAM}:{seed}:{seat}".encode()
    if key is None:
        return hashlib.sha256(text).hexdigest()
    return hmac.new(bytes.fromhex(key), text, hashlib.sha256).hexdigest()


def bot_random(seed: int, seat: int, key: str | None = None) -> random.Random:
    """The generator of an in-process bot: the one a program would make from its ``seed`` (:func:`bot_seed`)."""
    return random.Random(int(bot_seed(seed, seat, key), 16))


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


class PyTurnWriter:
    """Writes the ``turn`` messages of one game, from the referee's state, in Python: the pure
    engine's writer, and the reference the one in C (:class:`TurnWriter`) is held to.

    What changes little from turn to turn is kept as JSON text: the history
    grows by one entry a move, a color's board and played tiles change only
    when it plays or is captured.
    """

    def __init__(self, state: GameState) -> None:
        self.state = state
        self._entries = 0
        self._history = ""
        self._colors = state.settings.colors
        self._keys = tuple(f'"{COLORS[c]}":' for c in range(len(COLORS)))
        self._boards: dict[int, tuple[int, str]] = {}
        self._played: dict[int, tuple[int, str]] = {}
        # A rack tile's legal cells change slowly from turn to turn: their text is kept by bitboard.
        self._targets: dict[tuple[int, int, int], str] = {}
        self._captures: tuple[tuple[tuple[int, ...], ...], str] = ((), "")
        self._seat_of = {c: s for s, colors in enumerate(state.settings.seat_colors) for c in colors}

    def _history_json(self) -> str:
        history = self.state.history
        if self._entries < len(history):
            seat_of = self._seat_of
            seats = None
            parts = [self._history] if self._history else []
            for index in range(self._entries, len(history)):
                move, captured = history[index]
                color, tile, cell = move
                if color < 0:
                    if seats is None:
                        from arena.records import turn_seats  # passes are rare: the turn order is replayed

                        seats = turn_seats(self.state)
                    parts.append(f'[{seats[index]},"pass"]')
                elif captured >= 0:
                    parts.append(f'[{seat_of[color]},{_MOVE_TEXTS[color][tile][cell]},"{COLORS[captured]}"]')
                else:
                    parts.append(f"[{seat_of[color]},{_MOVE_TEXTS[color][tile][cell]}]")
            self._history = ",".join(parts)
            self._entries = len(history)
        return self._history

    def _board(self, color: int) -> str:
        board = self.state.boards[color]
        kept = self._boards.get(color)
        if kept is None or kept[0] != board:
            kept = self._boards[color] = (board, ",".join([_CELL_TEXTS[x] for x in iter_cells(board)]))
        return kept[1]

    def _played_tiles(self, color: int) -> str:
        tiles = self.state.played_tiles[color]
        kept = self._played.get(color)
        if kept is None or kept[0] != len(tiles):
            kept = self._played[color] = (len(tiles), ",".join([_TILE_TEXTS[t] for t in tiles]))
        return kept[1]

    def line(self, seat: int, moves: MoveSet, time: float, clock: TurnClock | None = None) -> bytes:
        """The ``turn`` message for ``seat`` with its legal ``moves`` and ``time`` seconds to answer, and
        its ``clock`` in a game with a clock or an overage bank."""
        state = self.state
        keys = self._keys
        colors = self._colors
        board = ",".join([f"{keys[c]}[{self._board(c)}]" for c in colors])
        racks = ",".join([
            keys[c] + "[" + ",".join([_TILE_TEXTS[t] for t in state.racks[c]]) + "]"
            for c in state.settings.seat_colors[seat]
        ])
        drawn = ",".join([f"{keys[c]}{state.drawn[c]}" for c in colors])
        played = ",".join([f"{keys[c]}[{self._played_tiles(c)}]" for c in colors])
        counts = tuple(map(tuple, state.captures))
        if counts != self._captures[0]:
            self._captures = (counts, ",".join([
                "{" + ",".join([f"{keys[c]}{n}" for c, n in enumerate(row) if n]) + "}" for row in counts
            ]))
        captures = self._captures[1]
        targets = self._targets
        texts = []
        for option in moves.options:
            text = targets.get(option)
            if text is None:
                color, tile, cells = option
                text = targets[option] = ",".join(map(_MOVE_TEXTS[color][tile].__getitem__, iter_cells(cells)))
            texts.append(text)
        legal = ",".join(texts)
        shown_time = "null" if not math.isfinite(time) else repr(float(time))
        if clock is not None:
            shown_time += ',"clock":' + clock_json(clock)
        return (
            f'{{"type":"turn","time":{shown_time},"view":{{"seat":{seat},"move":{len(state.history)},'
            f'"board":{{{board}}},"racks":{{{racks}}},"drawn":{{{drawn}}},"played":{{{played}}},'
            f'"captures":[{captures}],"history":[{self._history_json()}],"passes":{state.passes}}},'
            f'"legal":[{legal}]}}\n'
        ).encode()


class TurnWriter(PyTurnWriter):
    """Writes the ``turn`` messages of one game: built in C beside the engine
    (:data:`~arena.rules.engine.NativeTurnLine`) for a state of the native engine, else by
    :class:`PyTurnWriter`.  The bytes are the same either way."""

    def __init__(self, state: GameState) -> None:
        super().__init__(state)
        native = engine.ENGINE == "native" and isinstance(state, engine.GameState)
        self._native = engine.NativeTurnLine(state).line if native else None

    def line(self, seat: int, moves: MoveSet, time: float, clock: TurnClock | None = None) -> bytes:
        native = self._native
        if native is not None and type(moves) is engine.NativeMoveSet:
            return native(seat, moves, time, None if clock is None else clock_json(clock))  # type: ignore[no-any-return]
        return PyTurnWriter.line(self, seat, moves, time, clock)


def clock_json(clock: TurnClock) -> str:
    """A turn's ``clock`` member: the seat's remaining clock, increment, bank and moves to go."""
    return _encode({
        "remaining": clock.remaining, "increment": clock.increment, "overage": clock.overage,
        "moves_to_go": clock.moves_to_go,
    })


def read_clock(obj: Any, time: float) -> TurnClock | None:
    """A turn's ``clock`` member as a :class:`~arena.rules.view.TurnClock` (None when it has none)."""
    if not isinstance(obj, dict):
        return None
    remaining, overage, to_go = obj.get("remaining"), obj.get("overage"), obj.get("moves_to_go")
    return TurnClock(time, None if remaining is None else float(remaining), float(obj.get("increment") or 0.0),
                     None if overage is None else float(overage), None if to_go is None else int(to_go))


#: What a bot that wrote a line that is not JSON should do: its standard output carries the protocol alone.
NOT_JSON_HINT = " (standard output carries the protocol's lines alone: write debug output to standard error)"


def parse_line(line: bytes) -> dict[str, Any]:
    """One line from the other side as a JSON object with a ``type``; :class:`ProtocolError` otherwise."""
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        raise ProtocolError(f"wrote a line that is not JSON: {_shown_line(line)}{NOT_JSON_HINT}") from None
    if not isinstance(obj, dict):
        raise ProtocolError(f"wrote {_kind(obj)}, not a JSON object: {_shown_line(line)}")
    kind = obj.get("type")
    if not isinstance(kind, str):
        raise ProtocolError(f"wrote an object without a \"type\": {_shown_line(line)}")
    return obj


_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(char: str) -> str:
    if char in _NAMED_ESCAPES:
        return _NAMED_ESCAPES[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def bot_text(text: str, limit: int = MAX_SHOWN) -> str:
    """Text a bot wrote, made one safe line for a fault message or a log: white space as single spaces,
    every other character that is not printable (control characters, escape sequences, bidirectional
    overrides) escaped as ``\\x1b``, ``\\u202e``..., at most ``limit`` characters (cut with ``...``)."""
    text = " ".join(text[:16 * limit].split())
    if not text.isprintable():
        text = "".join(c if c.isprintable() else _escape(c) for c in text)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def read_hello(obj: Mapping[str, Any]) -> Declared:
    """The bot's answer to ``hello``; :class:`ProtocolError` when it is not one, or it declares more
    than the protocol allows (:data:`MAX_OPTIONS`, :data:`MAX_DECLARED`)."""
    if obj.get("type") == "error":
        message = obj.get("message")
        raise Refused(bot_text(message) if isinstance(message, str) else "refused to play")
    if obj.get("type") != "hello":
        raise ProtocolError(f"answered hello with a {_json_or_kind(obj.get('type'))} message")
    protocol = obj.get("protocol")
    if protocol != PROTOCOL:
        raise ProtocolError(f"speaks protocol {_json_or_kind(protocol)}, not {PROTOCOL}")
    name = obj.get("name", "")
    description = obj.get("description", "")
    options = obj.get("options", {})
    if not isinstance(name, str) or not isinstance(description, str):
        raise ProtocolError("a hello's name and description are strings")
    for what, text in (("name", name), ("description", description)):
        if len(text) > MAX_DECLARED:
            raise ProtocolError(f"a hello's {what} is {len(text)} characters long, more than {MAX_DECLARED}")
    if not isinstance(options, dict):
        raise ProtocolError("a hello's options are an object of name: default")
    if len(options) > MAX_OPTIONS:
        raise ProtocolError(f"a hello declares {len(options)} options, more than {MAX_OPTIONS}")
    info = obj.get("option_info", {})
    if not isinstance(info, dict) or not all(isinstance(entry, dict) for entry in info.values()):
        raise ProtocolError("a hello's option_info is an object of name: {min, max, choices, doc}")
    for key in info:
        if key not in options:
            raise ProtocolError(f"option_info names {_json_or_kind(key)}, which is not one of its options")
    declared: dict[str, Option] = {}
    for key, default in options.items():
        if len(key) > MAX_DECLARED:
            raise ProtocolError(f"an option's name is {len(key)} characters long, more than {MAX_DECLARED}: "
                                f"{_json_or_kind(key)}")
        if type(default) not in (bool, int, float, str) or (isinstance(default, float) and not math.isfinite(default)):
            raise ProtocolError(f"option {_json_or_kind(key)}: a default is a number, true/false or a string, "
                                f"not {_json_or_kind(default)}")
        entry = info.get(key, {})
        unknown = sorted(set(entry) - set(OPTION_INFO_KEYS))
        if unknown:
            raise ProtocolError(f"option {_json_or_kind(key)}: option_info holds only {', '.join(OPTION_INFO_KEYS)}, "
                                f"not {_json_or_kind(unknown[0])}")
        choices = entry.get("choices")
        if choices is not None and not isinstance(choices, list):
            raise ProtocolError(f"option {_json_or_kind(key)}: its choices are an array, not {_json_or_kind(choices)}")
        doc = entry.get("doc", "")
        if isinstance(doc, str) and len(doc) <= MAX_DECLARED:
            doc = bot_text(doc, MAX_DECLARED)  # shown on a terminal: escape sequences escaped
        try:
            declared[key] = Option(default, min=entry.get("min"), max=entry.get("max"),
                                   choices=None if choices is None else tuple(choices), doc=doc)
        except ValueError as exc:
            raise ProtocolError(f"option {_json_or_kind(key)}: {bot_text(str(exc))}") from None
    return Declared(bot_text(name, 80), bot_text(description, MAX_DECLARED), declared)



def read_answer(obj: Mapping[str, Any]) -> Move | Fault:
    """The bot's answer to a ``turn``: a :class:`Move` as written (not yet checked against the legal
    moves), or the :class:`~arena.faults.Fault` of an ``error``.  :class:`ProtocolError` for anything else."""
    kind = obj.get("type")
    if kind == "move":
        text = obj.get("move")
        if not isinstance(text, str):
            raise ProtocolError(f"a move is a string color:tile@cell, not {_json_or_kind(text)}")
        move = _parse_move(text)
        if move is None:
            raise ProtocolError(f"answered {_json_or_kind(text)}, which is not written as a move (color:tile@cell)")
        return move
    if kind == "error":
        message = obj.get("message")
        message = bot_text(message) if isinstance(message, str) else "gave up"
        fault = obj.get("kind")
        return Fault(FaultKind(fault) if fault in ERROR_KINDS else FaultKind.EXCEPTION, message)
    raise ProtocolError(f"answered a turn with a {_json_or_kind(kind)} message")


#: Answer lines read before -> the Move each one is.  The same bytes parse to the same answer, so a
#: line found here is read as parse_line and read_answer would read it; kept for short lines, and
#: only so many (what a bot writes cannot grow it without bound).
_answers_read: dict[bytes, Move] = {}
_ANSWERS_KEPT = 1 << 15
_ANSWER_KEPT_LENGTH = 96


def read_turn_answer(line: bytes) -> Move | Fault:
    """A bot's answer line to a ``turn``, as :func:`read_answer` reads :func:`parse_line`'s object: a move
    line read before is found by its bytes (about 0.1 us against 3 us for parsing it again)."""
    move = _answers_read.get(line)
    if move is not None:
        return move
    answer = read_answer(parse_line(line))
    if type(answer) is Move and len(line) <= _ANSWER_KEPT_LENGTH and len(_answers_read) < _ANSWERS_KEPT:
        _answers_read[line] = answer
    return answer


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


def _json_or_kind(value: Any) -> str:
    """A value the bot sent, for a message: short JSON text for a scalar, else what sort of value it is."""
    text = json.dumps(value) if isinstance(value, (str, int, float, bool, type(None))) else _kind(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _shown_line(line: bytes) -> str:
    """A line the bot wrote, for a message: its text's ``repr``, cut short."""
    return shorten(line.decode("utf-8", "replace").rstrip("\n"))


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

    The history is read once: each turn adds only the entries since the last,
    and the boards, played tiles and captures follow from it (the referee is
    trusted: what it sends is not checked again).
    """

    def __init__(self, start: GameStart) -> None:
        self.start = start
        n = len(COLORS)
        self._history: list[tuple[Move, int]] = []
        self._boards = [0] * n
        # Kept as the view holds them, so a turn without a capture copies nothing but the outer tuple.
        self._played: list[tuple[int, ...]] = [()] * n
        self._captures: tuple[tuple[int, ...], ...] = tuple((0,) * n for _ in start.settings.seat_colors)

    def view(self, obj: Mapping[str, Any], new: Sequence[Any] | None = None) -> SeatView:
        """The seat's view in a ``turn`` message; ``new``: the history's entries since the last turn, when
        the caller has read only those (``obj``'s own history is then not read)."""
        view = obj["view"]
        history = self._history
        boards = self._boards
        played = self._played
        for entry in view["history"][len(history):] if new is None else new:
            color, tile, cell = _moves_read.get(entry[1]) or _read_move(entry[1])
            if color < 0:
                history.append((PASS, -1))
                continue
            bit = 1 << cell
            boards[color] |= bit
            played[color] += (tile,)
            captured = -1
            if len(entry) > 2:
                captured = _COLOR_INDEX[entry[2]]
                boards[captured] &= ~bit
                rows = [list(row) for row in self._captures]
                rows[entry[0]][captured] += 1
                self._captures = tuple(map(tuple, rows))
            history.append((_new_move(Move, color, tile, cell), captured))
        # Colors not in play are left out of ``drawn``: they hold 0.
        drawn = tuple(map(view["drawn"].get, COLORS, _ZEROS))
        racks = {_COLOR_INDEX[c]: tuple(map(_tile_index, tiles)) for c, tiles in view["racks"].items()}
        seat = view["seat"]
        clock = obj.get("clock")
        if clock is not None:
            time = obj.get("time")
            clock = read_clock(clock, math.inf if time is None else float(time))
        return seat_view(self.start.settings, seat, seat, False, tuple(boards), racks, drawn, tuple(played),
                         self._captures, tuple(history), view["passes"], _move_set(obj["legal"]), clock)


_new_move = Move.__new__
_ZEROS = (0,) * len(COLORS)
_tile_index = _TILE_INDEX.__getitem__


def _read_move(text: str) -> tuple[int, int, int]:
    parsed = _parse_move(text)
    if parsed is None:
        raise ProtocolError(f"the referee sent {text!r} as a move")
    move = _moves_read[text] = tuple(parsed)  # type: ignore[assignment]
    return move  # type: ignore[return-value]


# A legal move's text -> (color * 32 + tile, its cell's bit), for _move_set.
_legal_read: dict[str, tuple[int, int]] = {}


def _move_set(texts: Sequence[str]) -> MoveSet:
    """The MoveSet of a turn's ``legal`` list, its options in the order written (the referee's)."""
    options: list[tuple[int, int, int]] = []
    last = -1
    cells = 0
    read = _legal_read
    for text in texts:
        found = read.get(text)
        if found is None:
            color, tile, cell = _read_move(text)
            found = read[text] = (color * 32 + tile, 1 << cell)
        key, bit = found
        if key != last:
            if last >= 0:
                options.append((last >> 5, last & 31, cells))
            last, cells = key, 0
        cells |= bit
    if last >= 0:
        options.append((last >> 5, last & 31, cells))
    return MoveSet._of(tuple(options), len(texts))
