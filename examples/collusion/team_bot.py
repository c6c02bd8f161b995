"""A bot that plays as a team with its partners at the table: the collusion arena.stats.collusion looks for.

    arena play examples/collusion/team_bot.py:TeamBot examples/collusion/team_bot.py:TeamBot greedy lookahead
    arena run examples/collusion/tournament.toml

It plays like the built-in ``greedy`` bot until it knows its partners, then:

* it never captures a partner's tile (rule M3);
* it leaves a partner the empty cells next to the partner's groups, where the partner's tiles join up;
* it prefers the empty cells next to the other seats' groups, where their tiles would join up.

With ``spare`` below 1 it plays as a team only on that share of its turns (a subtler team, for the
calibration of the test), and as ``greedy`` on the others.

**How partners know each other with no channel.**  A bot sees no names, only the game
(:class:`~arena.bots.SeatView`), and seats are shuffled from game to game.  So the team agrees on a
secret beforehand, the option ``team``: from it each member derives a third of the board's cells (the
team's *sign*), and plays its first ``handshake`` tiles onto cells of the sign whenever it can.  A seat
whose first ``handshake`` tiles all landed on the sign is a partner; an honest bot's tiles do so by
chance about once in ``3 ** handshake`` games (once in 27 with the default 3).  The sign costs a team
member a little strength in the opening; nothing else in its play would tell a referee it is not honest.
"""

from __future__ import annotations

import hashlib
from typing import ClassVar

from arena_bots.greedy import move_costs

from arena.bots import BOARD, Bot, Move, Option, SeatView, neighbours

#: Cost of capturing a partner's tile: never, while anything else is legal.
SPARE = 100.0
#: Cost of filling an empty cell next to a partner's group (the partner's tiles would join up there).
LEAVE = 0.5
#: Gain of filling an empty cell next to another seat's group (its tiles would join up there).
BLOCK = 0.25
#: The cells around each cell, looked up once.
AROUND = tuple(neighbours(cell).mask for cell in BOARD)


def sign_of(team: str) -> int:
    """The team's sign: the cells (a bitboard) whose hash with the secret ``team`` is 0 modulo 3."""
    mask = 0
    for cell in BOARD:
        if hashlib.blake2b(f"{team}:{cell}".encode(), digest_size=1).digest()[0] % 3 == 0:
            mask |= 1 << cell
    return mask


def front(board: int, empty: int) -> int:
    """The empty cells next to the tiles of ``board``."""
    out = 0
    while board:
        low = board & -board
        out |= AROUND[low.bit_length() - 1]
        board ^= low
    return out & empty


class TeamBot(Bot):
    """``greedy`` that spares its partners' tiles and cells, partners known by a sign agreed in ``team``."""

    options: ClassVar[dict[str, Option]] = {
        "team": Option("crows", doc="the team's secret: bots with the same one are partners"),
        "handshake": Option(3, min=1, max=8, doc="first tiles played onto the team's sign"),
        "spare": Option(1.0, min=0.0, max=1.0, doc="the share of turns on which it spares its partners"),
    }

    def choose(self, view: SeatView) -> Move:
        costs = move_costs(view)
        sign = sign_of(str(self.config["team"]))
        length = int(self.config["handshake"])
        if len(self._placements(view, view.seat, length)) < length:
            signed = [(cost, move) for cost, move in costs if sign >> move.cell & 1]
            costs = signed or costs  # no legal cell on the sign: the handshake fails this game
        else:
            partners = [colour for seat, colours in enumerate(view.settings.seat_colors) if seat != view.seat
                        and self._is_partner(view, seat, sign, length) for colour in colours]
            if partners and self.rng.random() < float(self.config["spare"]):
                costs = self._team_costs(view, costs, partners)
        low = min(cost for cost, _ in costs)
        best = [move for cost, move in costs if cost < low + 1e-9]
        return best[0] if len(best) == 1 else best[self.rng.randrange(len(best))]

    @staticmethod
    def _placements(view: SeatView, seat: int, length: int) -> list[Move]:
        """The first ``length`` tiles ``seat`` placed (the history's moves of its colors; passes have none)."""
        colours = view.settings.seat_colors[seat]
        out = []
        for move, _captured in view.history:
            if move.color in colours:
                out.append(move)
                if len(out) == length:
                    break
        return out

    def _is_partner(self, view: SeatView, seat: int, sign: int, length: int) -> bool:
        first = self._placements(view, seat, length)
        return len(first) == length and all(sign >> move.cell & 1 for move in first)

    @staticmethod
    def _team_costs(view: SeatView, costs: list[tuple[float, Move]], partners: list[int]) -> list[tuple[float, Move]]:
        boards = view.board_masks
        empty = view.empty_mask
        ours = set(view.colors) | set(partners)
        theirs = 0
        for colour in view.settings.colors:
            if colour not in ours:
                theirs |= front(boards[colour], empty)
        spared = 0
        for colour in partners:
            spared |= boards[colour]
        leave = front(spared, empty)
        out = []
        for cost, move in costs:
            bit = 1 << move.cell
            if spared & bit:
                cost += SPARE
            elif leave & bit:
                cost += LEAVE
            if theirs & bit:
                cost -= BLOCK
            out.append((cost, move))
        return out
