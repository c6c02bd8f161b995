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

from typing import Protocol

import numpy as np
import numpy.typing as npt

from arena.rules.base import TILES_PLAYED, GameSettings
from arena.rules.geometry import N_CELLS
from arena.rules.moves import Move
from arena.rules.tiles import COLORS, N_TILES, TILE_NAMES

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


class Seen(Protocol):
    """What the observation is made of: the public facts and one seat's racks (a
    :class:`~arena.rules.SeatView` is one)."""

    @property
    def settings(self) -> GameSettings: ...
    @property
    def seat(self) -> int: ...
    @property
    def to_move(self) -> int: ...
    @property
    def over(self) -> bool: ...
    @property
    def board_masks(self) -> tuple[int, ...]: ...
    @property
    def racks(self) -> dict[int, tuple[int, ...]]: ...
    @property
    def drawn(self) -> tuple[int, ...]: ...
    @property
    def played_tiles(self) -> tuple[tuple[int, ...], ...]: ...
    @property
    def captures(self) -> tuple[tuple[int, ...], ...]: ...
    @property
    def passes(self) -> int: ...


def _boards(masks: tuple[int, ...]) -> npt.NDArray[np.uint8]:
    raw = b"".join(mask.to_bytes(_BOARD_BYTES, "little") for mask in masks)
    bits = np.unpackbits(np.frombuffer(raw, np.uint8), bitorder="little")
    return bits.reshape(len(masks), _BOARD_BYTES * 8)[:, :N_CELLS]


def observe_into(out: npt.NDArray[np.float32], seen: Seen) -> npt.NDArray[np.float32]:
    """Write the observation of ``seen`` into the first :data:`OBSERVATION_SIZE` values of ``out``
    (which are cleared first); ``out``."""
    obs = out[:OBSERVATION_SIZE]
    obs.fill(0)
    settings = seen.settings
    at = _AT
    obs[:_N * N_CELLS] = _boards(tuple(seen.board_masks)).reshape(-1)
    for color, rack in seen.racks.items():
        obs[at["own_rack"] + color * N_TILES + np.asarray(rack, np.intp)] = 1
    for color, tiles in enumerate(seen.played_tiles):
        if tiles:
            obs[at["played"] + color * N_TILES + np.asarray(tiles, np.intp)] = 1
    obs[at["drawn"]:at["drawn"] + _N] = seen.drawn
    captures = np.asarray(seen.captures, np.float32)
    obs[at["captures"]:at["captures"] + captures.size] = captures.reshape(-1)
    for seat, colors in enumerate(settings.seat_colors):
        for color in colors:
            obs[at["seat_colors"] + seat * _N + color] = 1
    obs[at["observer"] + seen.seat] = 1
    if not seen.over and seen.to_move >= 0:
        obs[at["to_move"] + seen.to_move] = 1
    obs[at["passes"]] = seen.passes
    obs[at["over"]] = 1 if seen.over else 0
    obs[at["scoring"] + _SCORINGS.index(settings.scoring)] = 1
    obs[at["penalty"] + _PENALTIES.index(settings.penalty)] = 1
    return out


def observe(seen: Seen) -> npt.NDArray[np.float32]:
    """The observation of ``seen`` (a :class:`~arena.rules.SeatView`): a new vector of :data:`OBSERVATION_SIZE`."""
    return observe_into(np.zeros(OBSERVATION_SIZE, np.float32), seen)


def info_state_into(out: npt.NDArray[np.float32], seen: Seen, placements: list[Move],
                    own_draws: dict[int, list[int]]) -> npt.NDArray[np.float32]:
    """Write the information state into ``out`` (:data:`INFO_SIZE` values): the observation of ``seen``,
    ``placements`` (every placement so far, in order) and ``own_draws`` (the seat's colors' tiles in the
    order drawn); ``out``."""
    observe_into(out, seen)
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
