"""What one seat may see (S2) as a float tensor and as text, the same for every engine and every bridge.

The observation is a flat ``float32`` vector of :data:`OBSERVATION_SIZE` (756) values, the pieces of
:data:`OBSERVATION_PIECES` one after another (each row-major in its shape), the same size for 2 to 5
players; colors, seats and tiles are indexed as in the records (colors 0-4 red … purple, tiles 0-27):

=============  ==========  =====================================================================
piece          shape       values
=============  ==========  =====================================================================
boards         (5, 81)     1 where the color has a tile on the cell
own_rack       (5, 28)     1 for each tile on the observing seat's own rack(s); 0 for rivals (S2)
played         (5, 28)     1 for each tile the color has placed (public)
drawn          (5,)        tiles each color has taken from its pile, the first five included
captures       (5, 5)      ``[seat, color]``: tiles of the color the seat captured
seat_colors    (5, 5)      ``[seat, color]``: 1 where the seat plays the color (T2)
observer       (5,)        one-hot: the observing seat
to_move        (5,)        one-hot: the seat to move (all 0 once the game is over)
passes         (1,)        passes in a row since the last placement (M6)
over           (1,)        1 once the game has ended (E2, E3)
scoring        (2,)        one-hot: uptown, blockers (C3)
penalty        (2,)        one-hot: color, opponent (C4)
=============  ==========  =====================================================================

Rack and pile sizes follow (``drawn - placed`` and ``28 - drawn``); nothing else about a rival's rack
or any pile's order is in it.  :data:`INFO_STATE_PIECES` adds what a seat remembers (perfect recall)
for OpenSpiel's information state: every placement in order and the order of its own draws.
"""

from __future__ import annotations

import functools
from typing import NamedTuple, TypeAlias

import numpy as np
import numpy.typing as npt

from arena.rules.base import TILES_PLAYED, BaseGameState, GameSettings
from arena.rules.geometry import N_CELLS
from arena.rules.moves import Move
from arena.rules.tiles import COLORS, N_TILES, TILE_NAMES
from arena.rules.view import SeatView

_N = len(COLORS)
#: The most placements in a game: every color plays 24 tiles (E1).
MAX_PLACEMENTS = TILES_PLAYED * _N

#: The observation's pieces in order: ``(name, shape)``.
OBSERVATION_PIECES: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("boards", (_N, N_CELLS)),
    ("own_rack", (_N, N_TILES)),
    ("played", (_N, N_TILES)),
    ("drawn", (_N,)),
    ("captures", (_N, _N)),
    ("seat_colors", (_N, _N)),
    ("observer", (_N,)),
    ("to_move", (_N,)),
    ("passes", (1,)),
    ("over", (1,)),
    ("scoring", (2,)),
    ("penalty", (2,)),
)
#: The information state's pieces: the observation's, then every placement so far (``[k]``: one-hot
#: color, tile and cell of the k-th placement, 0 past the last) and the seat's own draws (``[color, tile]``:
#: 1 + the place of the tile in the order the color drew, 0 for tiles not drawn and for rival colors).
INFO_STATE_PIECES: tuple[tuple[str, tuple[int, ...]], ...] = OBSERVATION_PIECES + (
    ("placements", (MAX_PLACEMENTS, _N + N_TILES + N_CELLS)),
    ("own_draws", (_N, N_TILES)),
)


def _size(pieces: tuple[tuple[str, tuple[int, ...]], ...]) -> int:
    return sum(int(np.prod(shape)) for _, shape in pieces)


OBSERVATION_SIZE = _size(OBSERVATION_PIECES)
INFO_SIZE = _size(INFO_STATE_PIECES)


def _offsets(pieces: tuple[tuple[str, tuple[int, ...]], ...]) -> dict[str, int]:
    found, at = {}, 0
    for name, shape in pieces:
        found[name] = at
        at += int(np.prod(shape))
    return found


_AT = _offsets(INFO_STATE_PIECES)
_SCORINGS = ("uptown", "blockers")
_PENALTIES = ("color", "opponent")
#: Bit ``i`` of an 81-bit board as a vector: the board's 11 bytes, little-endian, unpacked.
_BOARD_BYTES = (N_CELLS + 7) // 8
_BOARDS = _N * N_CELLS
_OWN_RACK, _PLAYED, _DRAWN, _CAPTURES = _AT["own_rack"], _AT["played"], _AT["drawn"], _AT["captures"]
_SEAT_COLORS, _OBSERVER, _TO_MOVE, _PASSES = _AT["seat_colors"], _AT["observer"], _AT["to_move"], _AT["passes"]
_OVER, _SCORING, _PENALTY = _AT["over"], _AT["scoring"], _AT["penalty"]


class Facts(NamedTuple):
    """What a seat sees (:class:`Seen`), read from a game state or made up (before the racks are dealt)."""

    settings: GameSettings
    seat: int
    to_move: int
    over: bool
    board_masks: tuple[int, ...]
    racks: dict[int, tuple[int, ...]]
    drawn: tuple[int, ...]
    played_tiles: tuple[tuple[int, ...], ...]
    captures: tuple[tuple[int, ...], ...]
    passes: int


#: What the observation is made of: the public facts and one seat's racks, as a seat's view or as facts.
Seen: TypeAlias = SeatView | Facts


def facts(state: BaseGameState, seat: int, private: bool = True, turn: bool = True) -> Facts:
    """What ``seat`` sees in ``state`` (S2): its own racks only with ``private``, the seat to move only with
    ``turn`` (-1 without)."""
    settings = state.settings
    racks = state.racks
    own = {c: racks[c] for c in settings.seat_colors[seat]} if private else {}
    return Facts(settings, seat, state.to_move if turn else -1, state.over, state.boards, own, state.drawn,
                 state.played_tiles, state.captures, state.passes)


def observe_state_into(out: npt.NDArray[np.float32], state: BaseGameState, seat: int, *, private: bool = True,
                       turn: bool = True) -> npt.NDArray[np.float32]:
    """:func:`observe_into` of :func:`facts` (``out`` a contiguous float32 vector): the native engine writes it
    in C, straight from its arrays (the same numbers); ``out``."""
    native = getattr(state, "_observe_into", None)
    if native is not None:
        native(out, seat, private, turn)
        return out
    return observe_into(out, facts(state, seat, private, turn))


def observe_into(out: npt.NDArray[np.float32], seen: Seen) -> npt.NDArray[np.float32]:
    """Write the observation of ``seen`` into the first :data:`OBSERVATION_SIZE` values of ``out``
    (which are cleared first); ``out``."""
    obs = out[:OBSERVATION_SIZE]
    raw = b"".join(mask.to_bytes(_BOARD_BYTES, "little") for mask in seen.board_masks)
    bits = np.unpackbits(np.frombuffer(raw, np.uint8), bitorder="little").reshape(-1, _BOARD_BYTES * 8)
    obs[:_BOARDS] = bits[:, :N_CELLS].reshape(-1)
    obs[_BOARDS:] = 0
    settings = seen.settings
    ones = _fixed(settings, seen.seat)[:]
    for color, rack in seen.racks.items():
        base = _OWN_RACK + color * N_TILES
        ones += [base + tile for tile in rack]
    for color, tiles in enumerate(seen.played_tiles):
        base = _PLAYED + color * N_TILES
        ones += [base + tile for tile in tiles]
    if not seen.over and seen.to_move >= 0:
        ones.append(_TO_MOVE + seen.to_move)
    obs[ones] = 1
    obs[_DRAWN:_DRAWN + _N] = seen.drawn
    at = _CAPTURES
    for row in seen.captures:
        obs[at:at + _N] = row
        at += _N
    obs[_PASSES] = seen.passes
    obs[_OVER] = 1 if seen.over else 0
    return out


@functools.lru_cache(maxsize=64)
def _fixed(settings: GameSettings, seat: int) -> list[int]:
    """The places of the 1s fixed for a whole game: seat colors, observer, scoring, penalty."""
    ones = [_SEAT_COLORS + s * _N + color for s, colors in enumerate(settings.seat_colors) for color in colors]
    ones += [_OBSERVER + seat, _SCORING + _SCORINGS.index(settings.scoring),
             _PENALTY + _PENALTIES.index(settings.penalty)]
    return ones


def observe(seen: Seen) -> npt.NDArray[np.float32]:
    """The observation of ``seen`` (a :class:`~arena.rules.SeatView`): a new vector of :data:`OBSERVATION_SIZE`."""
    return observe_into(np.zeros(OBSERVATION_SIZE, np.float32), seen)


def info_state_into(out: npt.NDArray[np.float32], seen: Seen, placements: list[Move],
                    own_draws: dict[int, list[int]]) -> npt.NDArray[np.float32]:
    """Write the information state into ``out`` (:data:`INFO_SIZE` values): the observation of ``seen``,
    ``placements`` (every placement so far, in order) and ``own_draws`` (the seat's colors' tiles in the
    order drawn); ``out``."""
    observe_into(out, seen)
    return recall_into(out, placements, own_draws)


def recall_into(out: npt.NDArray[np.float32], placements: list[Move],
                own_draws: dict[int, list[int]]) -> npt.NDArray[np.float32]:
    """Write what the information state adds to the observation (:data:`INFO_STATE_PIECES` past
    :data:`OBSERVATION_SIZE`) into ``out``: ``placements`` and ``own_draws`` as :func:`info_state_into`
    takes them; ``out``."""
    rest = out[OBSERVATION_SIZE:]
    rest.fill(0)
    width = _N + N_TILES + N_CELLS
    rows = np.arange(len(placements), dtype=np.intp) * width
    if placements:
        moves = np.asarray(placements, np.intp)
        rest[rows + moves[:, 0]] = 1
        rest[rows + _N + moves[:, 1]] = 1
        rest[rows + _N + N_TILES + moves[:, 2]] = 1
    base = _AT["own_draws"] - OBSERVATION_SIZE
    for color, tiles in own_draws.items():
        at = base + color * N_TILES
        for place, tile in enumerate(tiles):
            rest[at + tile] = place + 1
    return out


def pieces(observation: npt.NDArray[np.float32]) -> dict[str, npt.NDArray[np.float32]]:
    """The named pieces of an observation (or of an information state, whose pieces these begin), each a
    view of ``observation`` in its shape: ``pieces(obs)["boards"][color, cell]``."""
    found, at = {}, 0
    for name, shape in INFO_STATE_PIECES if observation.size == INFO_SIZE else OBSERVATION_PIECES:
        size = int(np.prod(shape))
        found[name] = observation[at:at + size].reshape(shape)
        at += size
    return found


def observation_text(seen: Seen) -> str:
    """The observation as text, one fact a line: the board (``.`` empty, ``r b g y p`` the colors' first
    letters), the seat's own racks, every color's drawn and placed counts, the captures and the turn."""
    letters = [name[0] for name in COLORS]
    masks = seen.board_masks
    lines = []
    for row in range(9):
        cells = []
        for col in range(9):
            bit = 1 << (9 * row + col)
            cells.append(next((letters[c] for c, m in enumerate(masks) if m & bit), "."))
        lines.append("".join(cells))
    settings = seen.settings
    out = [f"seat {seen.seat} of {settings.players} ({settings.scoring}, penalty {settings.penalty})",
           "board " + "/".join(lines)]
    for color, rack in sorted(seen.racks.items()):
        out.append(f"rack {COLORS[color]} " + (" ".join(TILE_NAMES[t] for t in rack) or "-"))
    for color in settings.colors:
        out.append(f"{COLORS[color]} drawn {seen.drawn[color]} placed {len(seen.played_tiles[color])}")
    for seat, row_ in enumerate(seen.captures):
        taken = ", ".join(f"{COLORS[c]} {k}" for c, k in enumerate(row_) if k)
        out.append(f"seat {seat} captured {taken or 'nothing'}")
    out.append("over" if seen.over else f"to move: seat {seen.to_move} (passes {seen.passes})")
    return "\n".join(out)
