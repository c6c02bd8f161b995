"""The ``mcts`` bot: information-set Monte Carlo tree search."""

from __future__ import annotations

import math
import time
from random import Random
from typing import Any, ClassVar

from arena.bots import Bot, OptionRange
from arena.rules import PASS, GameState, Move
from arena.rules.geometry import FULL, NOT_COLUMN_1, NOT_COLUMN_9
from arena.rules.state import TILES_PLAYED
from arena.rules.tiles import FITS, WILD
from arena.rules.view import SeatView

from .lookahead import ranked_moves

#: How many of the greedy bot's cheapest moves the lookahead bot ranks for the root.
LOOKAHEAD_WIDTH = 16


# Moves are made without the NamedTuple constructor's argument handling (a hot path).
_new_move = tuple.__new__


class Node:
    """One node of the search tree: the move that led to it and its statistics.

    ``seat`` is the seat that made the move; ``reward`` is summed from that
    seat's point of view.  ``avail`` counts the iterations in which the move
    was legal in the determinization at hand (ISMCTS availability).
    """

    __slots__ = ("avail", "children", "move", "reward", "seat", "visits")

    def __init__(self, move: Move, seat: int) -> None:
        self.move = move
        self.seat = seat
        self.visits = 0
        self.reward = 0.0
        self.avail = 1
        self.children: dict[Move, Node] = {}


class MctsBot(Bot):
    """Information-set MCTS over determinizations drawn with the view's sampler.

    Single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012): one tree
    over the moves as this seat sees them, shared by all determinizations.
    Every iteration draws a full game state consistent with what the seat
    knows (``view.sample``: rival racks and every pile order at random), walks
    down the tree, adds one move to it, plays the game out to its end and
    backs the result up the path, each node from the point of view of the
    seat that made its move.

    * The root considers only the ``candidates`` cheapest moves by the
      lookahead bot's cost (greedy's cost plus its look at the tiles to
      come); its moves are legal in every determinization.
    * Below the root, which moves exist depends on the hidden tiles.  The
      playout policy proposes a move; it becomes a new child while the node
      has fewer than ``1 + widening * sqrt(visits)`` children (progressive
      widening), otherwise UCB1 with availability counts (a child's
      exploration term counts only the iterations in which its move was
      legal) picks among the children legal in this determinization.
    * The playout policy ``greedy`` (the default) plays, for the seat to
      move, a random rack tile onto a random free cell next to a group of its
      color (``$`` only when nothing else fits), else a capture next to its
      groups, else a tile onto any free cell; ``random`` plays uniformly
      random legal moves.
    * A finished playout is scored by the game's own scoring (groups, the
      Blockers! penalty under that scoring, captures as the tie-breaker): a
      seat's reward is half its share of the rivals it beat (ties count
      half) and half a logistic function of its score margin over the
      average rival, so that narrow losses still count for more than heavy
      ones.

    The search stops after ``iterations`` iterations or ``seconds`` seconds,
    whichever comes first (0 switches a budget off); the most visited root
    move is played.  With an iteration budget only, the bot is deterministic
    for a given generator.
    """

    options: ClassVar[dict[str, Any]] = {
        "iterations": 600,
        "seconds": 0.0,
        "exploration": 0.7,
        "candidates": 6,
        "widening": 1.0,
        "playout": "greedy",
    }
    option_ranges: ClassVar[dict[str, OptionRange]] = {
        "iterations": OptionRange(min=0),
        "seconds": OptionRange(min=0),
        "exploration": OptionRange(min=0),
        "candidates": OptionRange(min=0),
        "widening": OptionRange(min=0),
        "playout": OptionRange(choices=("greedy", "random")),
    }

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> None:
        if options["iterations"] == 0 and options["seconds"] == 0:
            raise ValueError("set an iteration budget (iterations), a time budget (seconds), or both")

    def __init__(self, seat, settings, options, rng: Random) -> None:
        super().__init__(seat, settings, options, rng)
        if self.config["playout"] not in ("greedy", "random"):
            raise ValueError(f"playout must be greedy or random, not {self.config['playout']!r}")
        if self.config["iterations"] < 0 or self.config["seconds"] < 0:
            raise ValueError("iterations and seconds must not be negative")
        if self.config["iterations"] == 0 and self.config["seconds"] == 0:
            raise ValueError("set an iteration budget, a time budget, or both")
        self.last_iterations = 0

    def choose(self, view: SeatView) -> Move:
        # The time budget covers the whole answer, ranking the root moves included.
        seconds = self.config["seconds"]
        deadline = time.perf_counter() + seconds if seconds > 0 else math.inf
        self.last_iterations = 0
        legal = view.legal
        if not legal:
            return PASS
        width = self.config["candidates"]
        ranked = ranked_moves(view, max(width, LOOKAHEAD_WIDTH) if width > 0 else 0)
        allowed = [move for _, move in ranked[:width]] if width > 0 else [move for _, move in ranked]
        if len(allowed) == 1:
            return allowed[0]
        return self.search(view, allowed, deadline)

    def search(self, view: SeatView, allowed: list[Move], deadline: float = math.inf) -> Move:
        """Search from ``view`` over the root moves ``allowed`` until the budget or ``deadline``; the most visited."""
        rng = self.rng
        iterations = self.config["iterations"]
        timed = deadline < math.inf
        c = self.config["exploration"]
        widen = self.config["widening"]
        playout = rollout_greedy if self.config["playout"] == "greedy" else rollout_random
        me = self.seat
        root = Node(PASS, -1)
        for move in allowed:
            root.children[move] = Node(move, me)
        root_moves = list(root.children.values())
        done = 0
        while (not iterations or done < iterations) and (not timed or time.perf_counter() < deadline):
            done += 1
            state = view.sample(rng)
            # The root: every allowed move is legal in every determinization.
            for first in root_moves:
                first.avail += 1
            node = _ucb(root_moves, c)
            state.push(node.move)
            path = [node]
            while not state.over:
                # Below the root the moves depend on the hidden tiles: the playout
                # policy proposes one; it becomes a new child while the node may
                # still widen, else UCB picks among the children legal here.
                move = policy_move(state, rng)
                if move.color < 0:
                    state.push_pass()
                    continue
                children = node.children
                child = children.get(move)
                if child is None and len(children) < 1 + widen * math.sqrt(node.visits):
                    child = Node(move, state.to_move)
                    children[move] = child
                    state.push(move)
                    path.append(child)
                    break
                legal = state.legal_moves()
                options = [ch for ch in children.values() if ch.move in legal]
                if not options:
                    child = Node(move, state.to_move)
                    children[move] = child
                    state.push(move)
                    path.append(child)
                    break
                for ch in options:
                    ch.avail += 1
                node = _ucb(options, c)
                state.push(node.move)
                path.append(node)
            if not state.over:
                playout(state, rng)
            rewards = reward(state)
            for n in path:
                n.visits += 1
                n.reward += rewards[n.seat]
        self.last_iterations = done
        best = max(root_moves, key=lambda n: (n.visits, n.reward))
        return best.move


def _ucb(children: list[Node], c: float) -> Node:
    """The child with the highest UCB1 score; unvisited children first."""
    best = children[0]
    best_score = -math.inf
    for child in children:
        if not child.visits:
            return child
        score = child.reward / child.visits + c * math.sqrt(math.log(child.avail) / child.visits)
        if score > best_score:
            best_score = score
            best = child
    return best


def reward(state: GameState) -> list[float]:
    """Each seat's reward in [0, 1] for a finished game, by the game's scoring."""
    n = state.settings.players
    blockers = state.settings.scoring == "blockers"
    captures = state.captures
    # The C1 / C2 keys: groups (plus the Blockers! penalty, C4), then the tiles captured.
    keys = [
        (state.groups(seat) + state.penalty(seat) if blockers else state.groups(seat), sum(captures[seat]))
        for seat in range(n)
    ]
    out = []
    mean = sum(k[0] for k in keys) / n
    for seat in range(n):
        mine = keys[seat]
        beaten = sum(1.0 if mine < k else 0.5 if mine == k else 0.0 for k in keys) - 0.5
        rank = beaten / (n - 1)
        # Margin over the average rival, squashed into [0, 1].
        others = (mean * n - mine[0]) / (n - 1)
        margin = 1.0 / (1.0 + math.exp(mine[0] - others))
        out.append(0.5 * rank + 0.5 * margin)
    return out


def rollout_random(state: GameState, rng: Random) -> None:
    """Play uniformly random legal moves to the end of the game."""
    while not state.over:
        legal = state.legal_moves()
        if legal:
            state.push(legal.choice(rng))
        else:
            state.push_pass()


def policy_move(state: GameState, rng: Random) -> Move:
    """The move of the cheap playout policy for the seat to move (:data:`PASS` when nothing is legal).

    In this order of preference, a random one of: a rack tile onto a free cell
    next to its color's groups (``$`` only when nothing else fits); a capture
    next to its color's groups; a tile onto any free cell; any legal move.
    Only the second step needs the capture test, and only on a few cells, so
    most turns skip full move generation.
    """
    boards = state.boards
    racks = state.racks
    played = state.played
    occupied = state.occupied
    empty = FULL ^ occupied
    colors = state.settings.seat_colors[state.to_move]
    attach = []
    wild = None
    open_colors = []
    for color in colors:
        if played[color] >= TILES_PLAYED:
            continue
        b = boards[color]
        if b:
            around = (b << 1 & NOT_COLUMN_1 | b >> 1 & NOT_COLUMN_9 | b << 9 | b >> 9) & ~b
            front = around & empty
        else:
            around = front = empty
        rack = racks[color]
        if front:
            for tile in rack:
                cells = FITS[tile] & front
                if cells:
                    if tile == WILD:
                        wild = (color, tile, cells)
                    else:
                        attach.append((color, tile, cells))
        open_colors.append((color, around, rack))
    if attach:
        color, tile, cells = attach[rng.randrange(len(attach))] if len(attach) > 1 else attach[0]
        return _new_move(Move, (color, tile, _pick(cells, rng)))
    if wild is not None:
        color, tile, cells = wild
        return _new_move(Move, (color, tile, _pick(cells, rng)))
    own = 0
    for color in colors:
        own |= boards[color]
    rivals = occupied & ~own
    near = []
    can_capture = state.can_capture  # M3, from the state's memo
    for color, around, rack in open_colors:
        targets = around & rivals
        if targets:
            for tile in rack:
                cells = FITS[tile] & targets
                if cells:
                    near.append((color, tile, cells))
    if near:
        start = rng.randrange(len(near)) if len(near) > 1 else 0
        for i in range(len(near)):
            color, tile, cells = near[(start + i) % len(near)]
            while cells:
                low = cells & -cells
                cell = low.bit_length() - 1
                if can_capture(cell):
                    return _new_move(Move, (color, tile, cell))
                cells ^= low
    free = []
    for color, around, rack in open_colors:
        for tile in rack:
            cells = FITS[tile] & empty
            if cells:
                free.append((color, tile, cells))
    if free:
        color, tile, cells = free[rng.randrange(len(free))] if len(free) > 1 else free[0]
        return _new_move(Move, (color, tile, _pick(cells, rng)))
    return state.legal_moves().choice(rng)


def rollout_greedy(state: GameState, rng: Random) -> None:
    """Play to the end of the game with :func:`policy_move`."""
    while not state.over:
        move = policy_move(state, rng)
        if move.color < 0:
            state.push_pass()
        else:
            state.push(move)


def _pick(cells: int, rng: Random) -> int:
    """A cell of ``cells`` (not empty) drawn uniformly."""
    count = cells.bit_count()
    if count > 1:
        for _ in range(rng.randrange(count)):
            cells &= cells - 1
    return (cells & -cells).bit_length() - 1
