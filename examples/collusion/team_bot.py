"""A bot that plays as a team with its partners at the table: the collusion arena.stats.collusion looks for.

    arena play examples/collusion/team_bot.py:TeamBot examples/collusion/team_bot.py:TeamBot greedy lookahead
    arena run examples/collusion/tournament.toml

It plays like the built-in ``greedy`` bot until it knows its partners, then as its option ``play`` says:

* ``spare`` (the default): it never captures a partner's tile (rule M3), leaves a partner the empty
  cells next to the partner's groups, where the partner's tiles join up, and prefers the empty cells
  next to the other seats' groups, where their tiles would join up;
* ``throw``: it throws its game at a partner's table, playing a legal move at random;
* ``block``: it fills the empty cells next to the groups of the leader among the other seats (the
  fewest groups so far) whenever it can, its own game second;
* ``gift``: it captures a partner's lone tiles whenever it can (a group fewer for the partner, M3
  and C1), and otherwise plays ``greedy``.

With ``spare`` below 1 it plays as a team only on that share of its turns (a subtler team, for the
calibration of the test), and as ``greedy`` on the others.  Three or more bots with one secret are a
team of three or more.

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
#: Gain of filling an empty cell next to the leader's groups (``play = "block"``): above any of greedy's costs.
HEAVY = 3.0
#: Gain of capturing a partner's lone tile (``play = "gift"``): taken whenever it is legal.
GIFT = 5.0
#: The ways of playing as a team (the option ``play``).
PLAYS = ("spare", "throw", "block", "gift")
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
        "spare": Option(1.0, min=0.0, max=1.0, doc="the share of turns on which it plays as a team"),
        "play": Option("spare", choices=PLAYS, doc="how it helps: spare, throw, block or gift (the module's docstring)"),
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
                play = str(self.config["play"])
                if play == "throw":
                    return costs[self.rng.randrange(len(costs))][1]
                if play == "block":
                    costs = self._block_costs(view, costs, partners)
                elif play == "gift":
                    costs = self._gift_costs(view, costs, partners)
                else:
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

    @staticmethod
    def _block_costs(view: SeatView, costs: list[tuple[float, Move]], partners: list[int]) -> list[tuple[float, Move]]:
        """``costs`` with the empty cells next to the leader's groups made the cheapest: the leader is the
        other seat with the fewest groups so far (C1), partners and this seat left aside."""
        ours = set(view.colors) | set(partners)
        others = [colour for colour in view.settings.colors if colour not in ours and view.board_masks[colour]]
        if not others:
            return costs
        leader = min(others, key=lambda colour: (len(view.groups_of(colour)), colour))
        target = front(view.board_masks[leader], view.empty_mask)
        return [(cost - HEAVY if target >> move.cell & 1 else cost, move) for cost, move in costs]

    @staticmethod
    def _gift_costs(view: SeatView, costs: list[tuple[float, Move]], partners: list[int]) -> list[tuple[float, Move]]:
        """``costs`` with every capture of a partner's lone tile made the cheapest."""
        boards = view.board_masks
        lone = 0
        for colour in partners:
            tiles = boards[colour]
            rest = tiles
            while rest:
                low = rest & -rest
                if not AROUND[low.bit_length() - 1] & tiles:
                    lone |= low
                rest ^= low
        return [(cost - GIFT if lone >> move.cell & 1 else cost, move) for cost, move in costs]
