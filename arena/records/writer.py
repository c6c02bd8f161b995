"""Writing a record: a finished game as the canonical ``uptown-game/1`` text, a line of it, or a file."""

from __future__ import annotations

import functools
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from arena.records.spec import FORMAT, STANDARD_KEYS
from arena.rules import CELL_NAMES, COLORS, TILE_NAMES, GameSettings, GameState, Move, SeatResult


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
    clock: Mapping[str, Any] | None = None,
) -> str:
    """The referee's keys as :func:`record_line`'s ``members`` text: ``bots``, ``time_limit``, ``clock``
    (only when given), ``faults``, then ``extra``'s, exactly as :func:`dumps_line` writes them.

    ``bot_tails[s]`` is the JSON text of seat ``s``'s ``bots`` entry after its ``"seat"`` member
    (made once per bot, when it is prepared); ``time_limit`` None is written as null.
    """
    return "".join((
        '"bots":[', ",".join([f'{{"seat":{seat},{tail}' for seat, tail in enumerate(bot_tails)]),
        '],"time_limit":', "null" if time_limit is None else _encode_line(time_limit),
        "" if clock is None else ',"clock":' + _encode_line(dict(clock)),
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
