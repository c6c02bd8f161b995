"""Checking and replaying a record with the rules engine, move by move, naming the rule a bad move breaks."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from arena.records.reader import json_kind
from arena.records.spec import FORMAT, RESULT_FIELDS, RecordError
from arena.rules import CELL_NAMES, COLORS, PASS, TILE_NAMES, GameSettings, GameState, IllegalMove, Move, SeatResult
from arena.rules.state import PENALTIES, SCORINGS
from arena.rules.tiles import N_TILES


def _short_json(value: Any) -> str:
    """``value`` as short JSON text, for messages (JSON, as the record holds it: not Python's ``repr``)."""
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
        raise RecordError(f"{where}unknown color {_short_json(value)}")
    return COLORS.index(value)


_TILE = {name: i for i, name in enumerate(TILE_NAMES)}
_CELL = {name: i for i, name in enumerate(CELL_NAMES)}


def _tile(value: Any, where: str) -> int:
    if not isinstance(value, str) or value not in _TILE:
        raise RecordError(f"{where}unknown tile {_short_json(value)}")
    return _TILE[value]


def _cell(value: Any, where: str) -> int:
    if not isinstance(value, str) or value not in _CELL:
        raise RecordError(f"{where}unknown cell {_short_json(value)}")
    return _CELL[value]


class MoveTime(NamedTuple):
    """One move's entry in a record's ``clock`` key."""

    #: Seconds the seat's bot took (None: it was not asked, a forced pass or a faulted seat's move).
    used: float | None
    #: The seat's game clock after the move, its increment added (None: no game clock).
    left: float | None
    #: The seat's overage bank after the move (None: no bank).
    bank: float | None


def _seconds_list(value: Any, n: int, nullable: bool) -> list[float | None] | None:
    if not isinstance(value, list) or len(value) != n:
        return None
    for item in value:
        if item is None and nullable:
            continue
        if isinstance(item, bool) or not isinstance(item, (int, float)) or not item >= 0:
            return None
    return [None if item is None else float(item) for item in value]


def move_times(clock: Any, n: int) -> tuple[MoveTime, ...] | None:
    """The ``n`` moves' entries of a record's ``clock`` key (its ``used``, ``left`` and ``bank`` lists, one
    entry per move), or None when it is missing or not of that shape."""
    if not isinstance(clock, Mapping):
        return None
    used = _seconds_list(clock.get("used"), n, True)
    left = None if clock.get("left") is None else _seconds_list(clock.get("left"), n, True)
    bank = None if clock.get("bank") is None else _seconds_list(clock.get("bank"), n, False)
    if used is None or (left is None and clock.get("left") is not None) or (bank is None and clock.get("bank") is not None):
        return None
    return tuple(MoveTime(used[i], None if left is None else left[i], None if bank is None else bank[i])
                 for i in range(n))


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

    @property
    def times(self) -> tuple[MoveTime, ...] | None:
        """Every move's time and clocks from the record's ``clock`` key (the arena's, in a game with a
        clock), or None when it has none, or none of that shape."""
        return move_times(self.record.get("clock"), len(self.moves))

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
        raise RecordError(f"unknown scoring {_short_json(scoring)} (uptown or blockers)")
    penalty = record.get("penalty")
    if penalty is None:
        penalty = "color"
    elif penalty not in PENALTIES:
        raise RecordError(f"unknown penalty {_short_json(penalty)} (color or opponent)")
    players = _need(record, "players")
    if not isinstance(players, list):
        raise RecordError(f'"players" must be a list, not {json_kind(players)}')
    if not 2 <= len(players) <= 5:
        raise RecordError(f"players: Uptown is played by 2 to 5 players, not {len(players)} (T2)")
    want = 2 if len(players) == 2 else 1
    seat_colors: list[tuple[int, ...]] = []
    names: list[str] = []
    owner: dict[int, int] = {}
    for index, player in enumerate(players):
        if not isinstance(player, Mapping):
            raise RecordError(f"players: entry {index} is {json_kind(player)}, not an object")
        where = f"players: entry {index}: "
        seat = _need(player, "seat", where)
        if not _is_int(seat) or seat != index:
            raise RecordError(f"players: entry {index} has seat {_short_json(seat)}; seats count from 0 in turn order (T3)")
        name = player.get("name", f"seat {seat}")
        if not isinstance(name, str):
            raise RecordError(f"players: seat {seat} has name {_short_json(name)}, not a string")
        colors = _need(player, "colors", where)
        if not isinstance(colors, list):
            raise RecordError(f"players: seat {seat} colors must be a list of color names, not {json_kind(colors)}")
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
        raise RecordError(f'"deal" must be an object of color: tiles, not {json_kind(deal)}')
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
            raise RecordError(f"deal of {name} must be a list of tiles, not {json_kind(pile)}")
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
        raise RecordError(f"{where}{json_kind(entry)}, not an object")
    if state.over:
        raise RecordError(f"{where}the game is over after move {index - 1}, yet more moves follow ({state.ended_by})")
    seat = _need(entry, "seat", where)
    if not _is_int(seat):
        raise RecordError(f"{where}seat must be an integer, not {_short_json(seat)}")
    players = state.settings.players
    if not 0 <= seat < players:
        raise RecordError(f"{where}there is no seat {seat} in a {players}-player game")
    if seat != state.to_move:
        raise RecordError(f"{where}seat {seat} is not to move, seat {state.to_move} is (T3)")
    passing = entry.get("pass", False)
    if passing is not None and not isinstance(passing, bool):
        raise RecordError(f'{where}"pass" must be true or false, not {_short_json(passing)}')
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
        raise RecordError(f'"result" must be a list of one object per seat, not {json_kind(rows)}')
    if len(rows) != players:
        raise RecordError(f"result: {len(rows)} rows for {players} seats")
    for index, (row, expected) in enumerate(zip(rows, state.result())):
        if not isinstance(row, Mapping):
            raise RecordError(f"result: row {index} is {json_kind(row)}, not an object")
        want = expected.to_dict()
        for key in RESULT_FIELDS:
            if key not in row:
                raise RecordError(f'result: seat {index} has no "{key}"')
            value = row[key]
            if key == "seat":
                if not (_is_int(value) and value == index):
                    raise RecordError(f"result: row {index} has seat {_short_json(value)}; rows go in seat order")
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
                    f"result: seat {index} {key} is {_short_json(value)}, but the moves give {_short_json(want[key])}"
                )


def replay(record: Mapping[str, Any]) -> Replay:
    """Check ``record`` move by move with the rules engine and return the replayed game.

    Raises :class:`RecordError` (one line) for anything that makes it invalid:
    a malformed file, an illegal move (naming its 0-based index and the rule),
    moves after or missing at the end, or a ``result`` that does not match.
    """
    if not isinstance(record, Mapping):
        raise RecordError(f"not a JSON object: the record is {json_kind(record)}")
    fmt = _need(record, "format")
    if fmt != FORMAT:
        raise RecordError(f"unknown format {_short_json(fmt)} (this reader knows {FORMAT})")
    settings, names = _settings(record)
    seed = record.get("seed")
    if seed is not None and not _is_int(seed):
        raise RecordError(f'"seed" must be an integer, not {_short_json(seed)}')
    deals = _deals(record, settings)
    moves = _need(record, "moves")
    if not isinstance(moves, list):
        raise RecordError(f'"moves" must be a list, not {json_kind(moves)}')
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
