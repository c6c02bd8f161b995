"""Game records in the ``uptown-game/1`` format: write, read, validate, replay.

A record is one JSON object holding everything needed to replay and check a
game without the program that played it (see docs/GAME-RECORD.md).  This module
turns a finished :class:`~arena.rules.GameState` into a record
(:func:`build_record`), writes it as canonical text (:func:`dumps`,
:func:`dumps_line`, :func:`write`), and reads any valid record back, checking
every move with the rules engine (:func:`loads`, :func:`load`, :func:`replay`).

Every problem with a record is a :class:`RecordError` whose message is one
line naming the 0-based move index and the rule broken, or what is wrong with
the file.
"""

from __future__ import annotations

import functools
import gzip
import json
import os
import tempfile
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from arena.rules import CELL_NAMES, COLORS, PASS, TILE_NAMES, GameSettings, GameState, IllegalMove, Move, SeatResult
from arena.rules.state import PENALTIES, SCORINGS
from arena.rules.tiles import N_TILES

FORMAT = "uptown-game/1"

#: The keys this module writes itself, in the order it writes them.
STANDARD_KEYS = ("format", "scoring", "penalty", "seed", "players", "deal", "moves", "result")
#: The fields of one result row (RULES.md, Scoring), in the order they are written.
RESULT_FIELDS = (
    "seat", "groups", "captures", "captured_total", "blockers_penalty", "blockers_score",
    "uptown_rank", "blockers_rank",
)


class RecordError(ValueError):
    """A record that cannot be read or is not a valid game; the message is one line."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(str(message).split()))


# -- writing -----------------------------------------------------------------


def _move_dict(seat: int, move: Move, captured: int) -> dict[str, Any]:
    if move.is_pass:
        return {"seat": seat, "pass": True}
    entry: dict[str, Any] = {
        "seat": seat,
        "color": COLORS[move.color],
        "tile": TILE_NAMES[move.tile],
        "cell": CELL_NAMES[move.cell],
    }
    if captured >= 0:
        entry["capture"] = COLORS[captured]
    return entry


def turn_seats(state: GameState) -> list[int]:
    """The seat that made each turn of ``state.history``."""
    settings = state.settings
    history = state.history
    seat_of = _seat_of_color(settings.seat_colors)
    try:
        # Without passes every placement's color names its seat.
        return [seat_of[move[0]] for move, _ in history]
    except KeyError:
        pass
    # A pass names no color: follow the turn order by playing the moves again.
    deals = {c: state.deals[c] for c in settings.colors}
    game = GameState(settings, deals)
    seats = []
    for move, _ in history:
        seats.append(game.to_move)
        game.push(move)
    return seats


@functools.lru_cache(maxsize=64)
def _seat_of_color(seat_colors: tuple[tuple[int, ...], ...]) -> dict[int, int]:
    return {color: seat for seat, colors in enumerate(seat_colors) for color in colors}


def build_record(
    state: GameState,
    names: Sequence[str],
    seed: int | None = None,
    extra: Mapping[str, Any] | None = None,
    *,
    result: Sequence[SeatResult] | None = None,
) -> dict[str, Any]:
    """The ``uptown-game/1`` record of ``state`` (normally a finished game).

    ``names[s]`` is the name of seat ``s``.  ``seed`` is written when given;
    ``extra`` keys (bots, faults, time limit, tournament …) follow the
    standard ones.  ``result`` is written only when the game is over; a caller
    that has ``state.result()`` already may pass it.
    """
    settings = state.settings
    if len(names) != settings.players:
        raise ValueError(f"{settings.players} seats need {settings.players} names, not {len(names)}")
    record: dict[str, Any] = {"format": FORMAT, "scoring": settings.scoring}
    if settings.penalty != "color":
        # C4's option; readers of other programs ignore the key, this one honours it.
        record["penalty"] = settings.penalty
    if seed is not None:
        record["seed"] = seed
    record["players"] = _players(names, settings)
    record["deal"] = {COLORS[c]: [TILE_NAMES[t] for t in state.deals[c]] for c in settings.colors}
    seats = turn_seats(state)
    record["moves"] = [_move_dict(seat, move, captured) for seat, (move, captured) in zip(seats, state.history)]
    if state.over:
        record["result"] = [row.to_dict() for row in (state.result() if result is None else result)]
    for key, value in (extra or {}).items():
        if key in STANDARD_KEYS:
            raise ValueError(f"extra key {key!r} would overwrite a standard key of the record")
        record[key] = value
    return record


def _players(names: Sequence[str], settings: GameSettings) -> list[dict[str, Any]]:
    return [
        {"seat": seat, "name": str(name), "colors": [COLORS[c] for c in colors]}
        for seat, (name, colors) in enumerate(zip(names, settings.seat_colors))
    ]


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True, allow_nan=False, separators=(", ", ": "))


def _block(value: Any, indent: str) -> str:
    """``value`` with one element per line if it is a non-empty list or object, else compact."""
    inner = indent + "  "
    if isinstance(value, Mapping) and value:
        lines = [f"{inner}{_compact(str(k))}: {_compact(v)}" for k, v in value.items()]
        return "{\n" + ",\n".join(lines) + f"\n{indent}}}"
    if isinstance(value, (list, tuple)) and value:
        lines = [f"{inner}{_compact(v)}" for v in value]
        return "[\n" + ",\n".join(lines) + f"\n{indent}]"
    return _compact(value)


def dumps(record: Mapping[str, Any]) -> str:
    """The canonical text of ``record``: valid JSON, ASCII only, ending in a newline.

    One top-level key per line; a list or object value gets one element per
    line (one deal, one move, one result row), each written compactly.  Keys
    keep the record's order, so the same record gives the same bytes everywhere.
    """
    lines = [f"  {_compact(str(key))}: {_block(value, '  ')}" for key, value in record.items()]
    return "{\n" + ",\n".join(lines) + "\n}\n"


# What json.dumps(value, ensure_ascii=True, allow_nan=False, separators=(",", ":")) does, made once.
_encode_line = json.JSONEncoder(ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode


def dumps_line(record: Any) -> str:
    """``record`` (or any part of one) as one compact line of ASCII JSON (no newline), for JSON-lines files."""
    return _encode_line(record)


class _MoveParts(NamedTuple):
    """The pieces of a move entry's JSON text, for one seating: ``{color}{tile}{cell}{capture}``.

    Each piece is what :func:`dumps_line` writes there, so the joined text is
    exactly the entry's.  The tables are small enough to stay in the processor's
    cache while a game is written, which a table of whole entries is not.
    """

    #: By color: ``{"seat":S,"color":"red","tile":``.
    color: tuple[str, ...]
    #: By tile: ``"ring"``.
    tile: tuple[str, ...]
    #: By cell: ``,"cell":"B2"``.
    cell: tuple[str, ...]
    #: By captured color, -1 (nothing) last: ``,"capture":"blue"}`` or ``}``.
    capture: tuple[str, ...]


@functools.lru_cache(maxsize=5)  # one seating per number of players in a tournament
def _move_parts(seat_colors: tuple[tuple[int, ...], ...]) -> _MoveParts:
    seat_of = _seat_of_color(seat_colors)

    def piece(entry: dict[str, Any], start: str, end: int | None = None) -> str:
        text = _encode_line(entry)
        return text[text.index(start):end]

    return _MoveParts(
        tuple(piece({"seat": seat_of.get(c, 0), "color": name, "tile": ""}, "{", -3) for c, name in enumerate(COLORS)),
        _TILE_TEXTS,
        tuple(piece({"tile": "", "cell": name}, ',"cell"', -1) for name in CELL_NAMES),
        (*(piece({"cell": "", "capture": name}, ',"capture"') for name in COLORS), "}"),
    )


_TILE_TEXTS = tuple(_encode_line(name) for name in TILE_NAMES)
_COLOR_KEYS = tuple(_encode_line(name) + ":" for name in COLORS)
_CAPTURE_KEYS = {name: _encode_line(name) + ":" for name in COLORS}
# Small caches of texts that recur from game to game: a tournament plays each deal
# once per seat rotation, and the same names at the same seats table after table.
_CACHED = 64
_deal_texts: dict[tuple[Any, ...], str] = {}
_player_texts: dict[tuple[Any, ...], str] = {}


def _remember(cache: dict[Any, str], key: Any, text: str) -> str:
    if len(cache) >= _CACHED:
        cache.clear()
    cache[key] = text
    return text


def _deal_text(state: GameState) -> str:
    """The JSON text inside the braces of "deal"."""
    deals = state.deals
    colors = state.settings.colors
    key = (colors, deals)
    text = _deal_texts.get(key)
    if text is None:
        tiles = _TILE_TEXTS.__getitem__
        text = _remember(_deal_texts, key, ",".join(
            [_COLOR_KEYS[c] + "[" + ",".join(map(tiles, deals[c])) + "]" for c in colors]
        ))
    return text


def _head_text(settings: GameSettings, names: Sequence[str], seed: int | None) -> str:
    """The record's text from its start to the end of "players", without the closing brace."""
    names = [str(name) for name in names]
    key = (settings.seat_colors, settings.scoring, settings.penalty, *names)
    players = _player_texts.get(key)
    if players is None:
        players = _remember(_player_texts, key, _encode_line(_players(names, settings)))
    if type(seed) is int or seed is None:
        # The common case, written out: the format, scorings, penalties and an int need no escapes.
        text = f'{{"format":"{FORMAT}","scoring":"{settings.scoring}"'
        if settings.penalty != "color":
            text += f',"penalty":"{settings.penalty}"'
        if seed is not None:
            text += f',"seed":{seed}'
        return text + ',"players":' + players
    head: dict[str, Any] = {"format": FORMAT, "scoring": settings.scoring}
    if settings.penalty != "color":
        head["penalty"] = settings.penalty
    head["seed"] = seed
    head["players"] = None
    return _encode_line(head)[: -len("null}")] + players


def _result_text(result: Sequence[SeatResult]) -> str:
    """The JSON text of ``[row.to_dict() for row in result]`` for the rows of :meth:`GameState.result`."""
    keys = _CAPTURE_KEYS
    return "[" + ",".join([
        f'{{"seat":{row.seat},"groups":{row.groups},"captures":{{'
        + ",".join([keys[color] + str(count) for color, count in row.captures.items()])
        + f'}},"captured_total":{row.captured_total},"blockers_penalty":{row.blockers_penalty},'
        f'"blockers_score":{row.blockers_score},"uptown_rank":{row.uptown_rank},"blockers_rank":{row.blockers_rank}}}'
        for row in result
    ]) + "]"


def _moves_text(state: GameState) -> str:
    """The JSON text inside the brackets of "moves"."""
    colors, tiles, cells, captures = _move_parts(state.settings.seat_colors)
    history = state.history
    if sum(state.played) == len(history):  # no pass
        return ",".join([f"{colors[c]}{tiles[t]}{cells[x]}{captures[v]}" for (c, t, x), v in history])
    return ",".join([
        f'{{"seat":{seat},"pass":true}}' if c < 0 else f"{colors[c]}{tiles[t]}{cells[x]}{captures[v]}"
        for seat, ((c, t, x), v) in zip(turn_seats(state), history)
    ])


def record_line(
    state: GameState,
    names: Sequence[str],
    seed: int | None = None,
    extra: Mapping[str, Any] | None = None,
    *,
    result: Sequence[SeatResult] | None = None,
    members: str = "",
) -> str:
    """``dumps_line(build_record(state, names, seed, extra))``, byte for byte, without building the record.

    The tournament's hot path: the moves are written from small tables of
    pieces of text and the deal from texts made once per tile.  ``members``
    is JSON text of further keys (``"key":value,...``) written after ``extra``'s,
    for a caller that has them as text already (the referee).
    """
    settings = state.settings
    if len(names) != settings.players:
        raise ValueError(f"{settings.players} seats need {settings.players} names, not {len(names)}")
    extra = extra or {}
    for key in extra:
        if key in STANDARD_KEYS:
            raise ValueError(f"extra key {key!r} would overwrite a standard key of the record")
    parts = [_head_text(settings, names, seed), ',"deal":{', _deal_text(state), '},"moves":[', _moves_text(state), "]"]
    if state.over:
        parts.append(',"result":')
        parts.append(_result_text(state.result() if result is None else result))
    if extra:
        parts.append(",")
        parts.append(_encode_line(dict(extra))[1:-1])
    if members:
        parts.append(",")
        parts.append(members)
    parts.append("}")
    return "".join(parts)


def referee_members(
    bot_tails: Sequence[str],
    time_limit: float | None,
    faults: Sequence[Mapping[str, Any]],
    extra: Mapping[str, Any],
) -> str:
    """The referee's keys as :func:`record_line`'s ``members`` text: ``bots``, ``time_limit``, ``faults``,
    then ``extra``'s, exactly as :func:`dumps_line` writes them.

    ``bot_tails[s]`` is the JSON text of seat ``s``'s ``bots`` entry after its ``"seat"`` member
    (made once per bot, when it is prepared); ``time_limit`` None is written as null.
    """
    return "".join((
        '"bots":[', ",".join([f'{{"seat":{seat},{tail}' for seat, tail in enumerate(bot_tails)]),
        '],"time_limit":', "null" if time_limit is None else _encode_line(time_limit),
        ',"faults":', _encode_line(faults) if faults else "[]",
        "," + _encode_line(dict(extra))[1:-1] if extra else "",
    ))


def write(path: str | os.PathLike[str], record: Mapping[str, Any]) -> None:
    """Write ``record`` to ``path`` as :func:`dumps` text, never replacing anything but a regular file.

    A regular file, or a path where nothing is yet, is replaced atomically (a temporary file
    beside it, then a rename), so no reader sees half a record.  A symbolic link is followed:
    the file it points to is replaced that way and the link stays.  Anything else that is
    there (a device such as ``/dev/null``, a FIFO, a pipe) is written through, opened and
    written in place.  Raises :class:`OSError` (``IsADirectoryError`` for a folder).
    """
    import errno
    import stat

    text = dumps(record)
    try:
        mode = os.stat(path).st_mode  # follows links
    except FileNotFoundError:
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
    if mode is not None and not stat.S_ISREG(mode):
        with open(path, "w", encoding="ascii", newline="\n") as out:
            out.write(text)
        return
    # The file itself, where a link (or a chain of them) leads.
    target = Path(os.path.realpath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        # mkstemp makes the file private; give it the mode an ordinary new file would get.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        with os.fdopen(fd, "w", encoding="ascii", newline="\n") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


# -- reading -----------------------------------------------------------------


def _reject_constant(name: str) -> Any:
    raise RecordError(f"not JSON: {name} is not a JSON value")


def loads(text: str | bytes) -> dict[str, Any]:
    """The record object in ``text``; RecordError if it is not a JSON object (content is checked by :func:`replay`)."""
    # Some editors start UTF-8 files with a byte-order mark; it is not part of the JSON.
    if isinstance(text, bytes) and text.startswith(b"\xef\xbb\xbf"):
        text = text[3:]
    elif isinstance(text, str) and text.startswith("\ufeff"):
        text = text[1:]
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except RecordError:
        raise
    except json.JSONDecodeError as exc:
        raise RecordError(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except (ValueError, TypeError, RecursionError) as exc:
        # Undecodable bytes, absurdly long numbers, absurdly deep nesting.
        raise RecordError(f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise RecordError(f"not a JSON object: the text holds {_kind(value)}")
    return value


def load(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read the record in the file ``path`` (gzip-compressed if it ends in ``.gz``).

    A file that cannot be read, or whose gzip data is damaged, is a RecordError
    (``cannot read PATH: ...``), like any other bad record.
    """
    path = Path(path)
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rb") as raw:
                data = raw.read()
        else:
            data = path.read_bytes()
    except (OSError, EOFError, zlib.error) as exc:
        raise RecordError(f"cannot read {path}: {read_error(exc)}") from None
    return loads(data)


def read_error(exc: BaseException) -> str:
    """Why reading a (possibly gzipped) file failed, for a one-line message."""
    if isinstance(exc, (zlib.error, EOFError)) or isinstance(exc, gzip.BadGzipFile):
        return f"damaged gzip data ({exc or 'it ends too soon'})"
    return getattr(exc, "strerror", None) or str(exc)


# -- checking and replaying --------------------------------------------------


def _kind(value: Any) -> str:
    """What sort of JSON value ``value`` is, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


def _show(value: Any) -> str:
    """``value`` as short JSON text, for messages."""
    try:
        text = json.dumps(value, ensure_ascii=True, separators=(", ", ": "))
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_int(value: Any) -> bool:
    return type(value) is int


def _need(obj: Mapping[str, Any], key: str, where: str = "") -> Any:
    if key not in obj:
        raise RecordError(f'{where}missing key "{key}"')
    return obj[key]


def _color(value: Any, where: str) -> int:
    if not isinstance(value, str) or value not in COLORS:
        raise RecordError(f"{where}unknown color {_show(value)}")
    return COLORS.index(value)


_TILE = {name: i for i, name in enumerate(TILE_NAMES)}
_CELL = {name: i for i, name in enumerate(CELL_NAMES)}


def _tile(value: Any, where: str) -> int:
    if not isinstance(value, str) or value not in _TILE:
        raise RecordError(f"{where}unknown tile {_show(value)}")
    return _TILE[value]


def _cell(value: Any, where: str) -> int:
    if not isinstance(value, str) or value not in _CELL:
        raise RecordError(f"{where}unknown cell {_show(value)}")
    return _CELL[value]


class Step(NamedTuple):
    """One turn of a replayed game: the state right after ``move``."""

    #: The move's 0-based number in the record, as messages count them (``move 0``, ``move 1`` ...).
    number: int
    seat: int
    move: Move
    #: The color of the captured tile, -1 for none.
    captured: int
    state: GameState


@dataclass
class Replay:
    """A checked record: its settings, names, deal and moves, and the final state."""

    record: Mapping[str, Any]
    settings: GameSettings
    names: tuple[str, ...]
    seed: int | None
    deals: dict[int, tuple[int, ...]]
    moves: tuple[Move, ...]
    #: The final state, after the last move.
    state: GameState
    #: The seat that made each move.
    seats: tuple[int, ...] = field(default=())

    @property
    def result(self) -> list[SeatResult]:
        """Both scorings for every seat (RULES.md, Scoring)."""
        return self.state.result()

    @property
    def winners(self) -> list[int]:
        """The seats of rank 1 under the record's scoring."""
        return self.state.winners()

    @property
    def faults(self) -> list[Mapping[str, Any]]:
        """The well-formed entries of the record's ``faults`` key (seat, move, kind, message), if any."""
        faults = self.record.get("faults")
        if not isinstance(faults, list):
            return []
        return [f for f in faults if isinstance(f, Mapping) and _is_int(f.get("seat"))]

    def states(self) -> Iterator[Step]:
        """The game from the deal again, one :class:`Step` per move (each with its own state copy)."""
        game = GameState(self.settings, self.deals)
        for index, move in enumerate(self.moves):
            seat = game.to_move
            game.push(move)
            yield Step(index, seat, move, game.history[-1][1], game.copy())


def _settings(record: Mapping[str, Any]) -> tuple[GameSettings, tuple[str, ...]]:
    scoring = _need(record, "scoring")
    if scoring not in SCORINGS:
        raise RecordError(f"unknown scoring {_show(scoring)} (uptown or blockers)")
    penalty = record.get("penalty")
    if penalty is None:
        penalty = "color"
    elif penalty not in PENALTIES:
        raise RecordError(f"unknown penalty {_show(penalty)} (color or opponent)")
    players = _need(record, "players")
    if not isinstance(players, list):
        raise RecordError(f'"players" must be a list, not {_kind(players)}')
    if not 2 <= len(players) <= 5:
        raise RecordError(f"players: Uptown is played by 2 to 5 players, not {len(players)} (T2)")
    want = 2 if len(players) == 2 else 1
    seat_colors: list[tuple[int, ...]] = []
    names: list[str] = []
    owner: dict[int, int] = {}
    for index, player in enumerate(players):
        if not isinstance(player, Mapping):
            raise RecordError(f"players: entry {index} is {_kind(player)}, not an object")
        where = f"players: entry {index}: "
        seat = _need(player, "seat", where)
        if not _is_int(seat) or seat != index:
            raise RecordError(f"players: entry {index} has seat {_show(seat)}; seats count from 0 in turn order (T3)")
        name = player.get("name", f"seat {seat}")
        if not isinstance(name, str):
            raise RecordError(f"players: seat {seat} has name {_show(name)}, not a string")
        colors = _need(player, "colors", where)
        if not isinstance(colors, list):
            raise RecordError(f"players: seat {seat} colors must be a list of color names, not {_kind(colors)}")
        if len(colors) != want:
            raise RecordError(
                f"players: with {len(players)} players each seat plays {want} color(s); "
                f"seat {seat} has {len(colors)} (T2)"
            )
        indices = tuple(_color(c, f"players: seat {seat}: ") for c in colors)
        for c in indices:
            if c in owner:
                raise RecordError(f"players: {COLORS[c]} is played by seat {owner[c]} and seat {seat} (T2)")
            owner[c] = seat
        seat_colors.append(indices)
        names.append(name)
    return GameSettings(tuple(seat_colors), scoring, penalty), tuple(names)


def _deals(record: Mapping[str, Any], settings: GameSettings) -> dict[int, tuple[int, ...]]:
    deal = _need(record, "deal")
    if not isinstance(deal, Mapping):
        raise RecordError(f'"deal" must be an object of color: tiles, not {_kind(deal)}')
    for key in deal:
        color = _color(key, "deal: ")
        if color not in settings.colors:
            raise RecordError(f"deal: {key} is not played by any seat")
    deals: dict[int, tuple[int, ...]] = {}
    for color in settings.colors:
        name = COLORS[color]
        if name not in deal:
            raise RecordError(f"deal: no tiles for {name}")
        pile = deal[name]
        if not isinstance(pile, list):
            raise RecordError(f"deal of {name} must be a list of tiles, not {_kind(pile)}")
        tiles = tuple(_tile(t, f"deal of {name}: ") for t in pile)
        if len(set(tiles)) != len(tiles) or len(tiles) != N_TILES:
            seen: set[int] = set()
            twice = [t for t in tiles if t in seen or seen.add(t)]  # type: ignore[func-returns-value]
            missing = [t for t in range(N_TILES) if t not in seen]
            problem = []
            if twice:
                problem.append("twice: " + " ".join(TILE_NAMES[t] for t in twice))
            if missing:
                problem.append("missing: " + " ".join(TILE_NAMES[t] for t in missing))
            raise RecordError(
                f"deal of {name} is not the {N_TILES} tiles of that color "
                f"({len(tiles)} tiles; {'; '.join(problem)}) (T1)"
            )
        deals[color] = tiles
    return deals


def _play(state: GameState, index: int, entry: Any) -> None:
    """Check the ``index``-th entry of ``moves`` against ``state`` and play it.

    What the entry says is read here; whether the move is legal is the engine's
    to say (:meth:`GameState.check`, which names the rule broken).
    """
    where = f"move {index}: "
    if not isinstance(entry, Mapping):
        raise RecordError(f"{where}{_kind(entry)}, not an object")
    if state.over:
        raise RecordError(f"{where}the game is over after move {index - 1}, yet more moves follow ({state.ended_by})")
    seat = _need(entry, "seat", where)
    if not _is_int(seat):
        raise RecordError(f"{where}seat must be an integer, not {_show(seat)}")
    players = state.settings.players
    if not 0 <= seat < players:
        raise RecordError(f"{where}there is no seat {seat} in a {players}-player game")
    if seat != state.to_move:
        raise RecordError(f"{where}seat {seat} is not to move, seat {state.to_move} is (T3)")
    passing = entry.get("pass", False)
    if passing is not None and not isinstance(passing, bool):
        raise RecordError(f'{where}"pass" must be true or false, not {_show(passing)}')
    if passing:
        if any(entry.get(key) is not None for key in ("color", "tile", "cell")):
            raise RecordError(f"{where}a pass names no color, tile or cell")
        move = PASS
    else:
        color = _color(_need(entry, "color", where), where)
        tile = _tile(_need(entry, "tile", where), where)
        move = Move(color, tile, _cell(_need(entry, "cell", where), where))
    try:
        occupant = state.check(move)
    except IllegalMove as exc:
        raise RecordError(f"{where}{exc}") from None
    if not passing:
        cell_name = CELL_NAMES[move.cell]
        capture = entry.get("capture")
        if capture is not None:
            captured = _color(capture, f'{where}"capture": ')
            if occupant < 0:
                raise RecordError(f'{where}"capture" says {capture} but {cell_name} is empty')
            if captured != occupant:
                raise RecordError(f'{where}"capture" says {capture} but {cell_name} holds {COLORS[occupant]}')
        elif occupant >= 0:
            raise RecordError(f'{where}{cell_name} holds {COLORS[occupant]} but "capture" does not say so')
    state.push(move)


def _check_result(rows: Any, state: GameState) -> None:
    players = state.settings.players
    if not isinstance(rows, list):
        raise RecordError(f'"result" must be a list of one object per seat, not {_kind(rows)}')
    if len(rows) != players:
        raise RecordError(f"result: {len(rows)} rows for {players} seats")
    for index, (row, expected) in enumerate(zip(rows, state.result())):
        if not isinstance(row, Mapping):
            raise RecordError(f"result: row {index} is {_kind(row)}, not an object")
        want = expected.to_dict()
        for key in RESULT_FIELDS:
            if key not in row:
                raise RecordError(f'result: seat {index} has no "{key}"')
            value = row[key]
            if key == "seat":
                if not (_is_int(value) and value == index):
                    raise RecordError(f"result: row {index} has seat {_show(value)}; rows go in seat order")
                continue
            if key == "captures":
                ok = isinstance(value, Mapping) and all(_is_int(n) for n in value.values())
                if ok:
                    # Another writer may list colors with a count of 0.
                    ok = {k: n for k, n in value.items() if n} == want[key]
            else:
                ok = _is_int(value) and value == want[key]
            if not ok:
                raise RecordError(
                    f"result: seat {index} {key} is {_show(value)}, but the moves give {_show(want[key])}"
                )


def replay(record: Mapping[str, Any]) -> Replay:
    """Check ``record`` move by move with the rules engine and return the replayed game.

    Raises :class:`RecordError` (one line) for anything that makes it invalid:
    a malformed file, an illegal move (naming its 0-based index and the rule),
    moves after or missing at the end, or a ``result`` that does not match.
    """
    if not isinstance(record, Mapping):
        raise RecordError(f"not a JSON object: the record is {_kind(record)}")
    fmt = _need(record, "format")
    if fmt != FORMAT:
        raise RecordError(f"unknown format {_show(fmt)} (this reader knows {FORMAT})")
    settings, names = _settings(record)
    seed = record.get("seed")
    if seed is not None and not _is_int(seed):
        raise RecordError(f'"seed" must be an integer, not {_show(seed)}')
    deals = _deals(record, settings)
    moves = _need(record, "moves")
    if not isinstance(moves, list):
        raise RecordError(f'"moves" must be a list, not {_kind(moves)}')
    state = GameState(settings, deals)
    seats = []
    for index, entry in enumerate(moves):
        seats.append(state.to_move)
        _play(state, index, entry)
    if not state.over:
        raise RecordError(
            f"moves missing at the end: after {len(moves)} move(s) the game is not over, "
            f"seat {state.to_move} is to move (E2)"
        )
    if record.get("result") is not None:
        _check_result(record["result"], state)
    return Replay(
        record=record,
        settings=settings,
        names=names,
        seed=seed,
        deals=deals,
        moves=tuple(move for move, _ in state.history),
        state=state,
        seats=tuple(seats),
    )
