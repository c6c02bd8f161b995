"""The ``mcts`` bot: information-set Monte Carlo tree search."""

from __future__ import annotations

import math
import time
from random import Random

from arena.bots import Bot
from arena.rules import PASS, GameState, Move
from arena.rules.geometry import FULL, NOT_COLUMN_1, NOT_COLUMN_9, count_groups
from arena.rules.state import TILES_PLAYED
from arena.rules.tiles import FITS, WILD
from arena.rules.view import SeatView

from .greedy import move_costs


class Node:
    """One node of the search tree: the move that led to it and its statistics.

    ``seat`` is the seat that made the move; ``reward`` is summed from that
    seat's point of view.  ``avail`` counts the iterations in which the move
    was legal in the determinization at hand (ISMCTS availability).
    """

    __slots__ = ("move", "seat", "visits", "reward", "avail", "children")

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
    over the moves as this seat sees them.  Every iteration draws a full game
    state consistent with what the seat knows (``view.sample``: opponent racks
    and pile orders at random), walks down the tree choosing among the moves
    legal in that determinization by UCB1 with availability counts, adds one
    new move, plays the game out to its end and backs up the result.

    The root only considers the ``candidates`` best moves by the greedy bot's
    cost, which keeps the search on moves worth comparing.  The playout policy
    ``greedy`` (the default) plays, for the seat to move, a random rack tile
    onto a random free cell next to a group of its color when there is one
    (keeping ``$`` back), and a random legal move otherwise; ``random`` plays
    uniformly random legal moves.  A finished playout is scored by the
    game's own scoring: the reward of each seat is its share of the seats it
    beat (ties count half), blended with its score margin over the average
    rival, so that playouts that are lost by little still count for more than
    heavy losses.

    The search stops after ``iterations`` iterations or ``seconds`` seconds,
    whichever comes first (0 switches a budget off).  With an iteration
    budget only, the bot is deterministic for a given generator; the most
    visited root move is played.
    """

    options = {
        "iterations": 400,
        "seconds": 0.0,
        "exploration": 0.7,
        "candidates": 12,
        "playout": "greedy",
    }

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
        legal = view.legal
        if not legal:
            return PASS
        costs = sorted(move_costs(view), key=lambda cm: cm[0])
        width = self.config["candidates"]
        allowed = [move for _, move in costs[:width]] if width > 0 else [move for _, move in costs]
        if len(allowed) == 1:
            return allowed[0]
        return self.search(view, allowed)

    def search(self, view: SeatView, allowed: list[Move]) -> Move:
        """Run the search from ``view`` over the root moves ``allowed``; the most visited one."""
        rng = self.rng
        iterations = self.config["iterations"]
        seconds = self.config["seconds"]
        c = self.config["exploration"]
        playout = rollout_greedy if self.config["playout"] == "greedy" else rollout_random
        deadline = time.perf_counter() + seconds if seconds > 0 else math.inf
        me = self.seat
        root = Node(PASS, -1)
        for move in allowed:
            root.children[move] = Node(move, me)
        root_moves = list(root.children.values())
        done = 0
        while (not iterations or done < iterations) and (seconds <= 0 or time.perf_counter() < deadline):
            done += 1
            state = view.sample(rng)
            path = []
            # The root: every allowed move is always legal for the observer.
            for child in root_moves:
                child.avail += 1
            node = _ucb(root_moves, c, rng)
            state.push(node.move)
            path.append(node)
            while not state.over:
                legal = state.legal_moves()
                if not legal:
                    state.push_pass()
                    continue
                mover = state.to_move
                children = node.children
                moves = list(legal)
                untried = [m for m in moves if m not in children]
                if untried:
                    move = untried[rng.randrange(len(untried))]
                    for m in moves:
                        if m in children:
                            children[m].avail += 1
                    child = Node(move, mover)
                    children[move] = child
                    state.push(move)
                    path.append(child)
                    break
                options = [children[m] for m in moves]
                for child in options:
                    child.avail += 1
                node = _ucb(options, c, rng)
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


def _ucb(children: list[Node], c: float, rng: Random) -> Node:
    """The child with the highest UCB1 score; unvisited children first."""
    best = None
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
    settings = state.settings
    boards = state.boards
    captures = state.captures
    n = settings.players
    blockers = settings.scoring == "blockers"
    keys = []
    for seat, colors in enumerate(settings.seat_colors):
        score = 0
        for color in colors:
            score += count_groups(boards[color])
        if blockers:
            score += max(captures[seat])
        keys.append((score, sum(captures[seat])))
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


def rollout_greedy(state: GameState, rng: Random) -> None:
    """Play to the end with a cheap policy that grows groups and rarely starts new ones.

    The seat to move plays, in this order of preference, a random one of:
    a rack tile onto a free cell next to its color's groups (``$`` only when
    nothing else fits); a capture next to its color's groups; a tile onto any
    free cell; any legal move.  Only the second step needs the capture test,
    and only on a few cells, so most turns skip full move generation.
    """
    boards = state.boards
    racks = state.racks
    played = state.played
    seat_colors = state.settings.seat_colors
    randrange = rng.randrange
    can_capture = state.can_capture
    while not state.over:
        occupied = state.occupied
        empty = FULL & ~occupied
        attach = []
        wild = None
        near = []
        free = []
        colors = seat_colors[state.to_move]
        own = 0
        for color in colors:
            own |= boards[color]
        for color in colors:
            if played[color] >= TILES_PLAYED:
                continue
            b = boards[color]
            if b:
                around = (b << 1 & NOT_COLUMN_1 | b >> 1 & NOT_COLUMN_9 | b << 9 | b >> 9) & FULL & ~b
            else:
                around = FULL
            front = around & empty
            rivals = around & occupied & ~own
            for tile in racks[color]:
                fits = FITS[tile]
                cells = fits & front
                if cells:
                    if tile == WILD:
                        wild = (color, tile, cells)
                    else:
                        attach.append((color, tile, cells))
                elif not attach:
                    if fits & rivals:
                        near.append((color, tile, fits & rivals))
                    if fits & empty:
                        free.append((color, tile, fits & empty))
        if not attach and wild is not None:
            attach.append(wild)
        if attach:
            color, tile, cells = attach[randrange(len(attach))] if len(attach) > 1 else attach[0]
            state.push(Move(color, tile, _pick(cells, randrange)))
            continue
        if near:
            start = randrange(len(near))
            move = None
            for i in range(len(near)):
                color, tile, cells = near[(start + i) % len(near)]
                while cells:
                    low = cells & -cells
                    cell = low.bit_length() - 1
                    if can_capture(cell):
                        move = Move(color, tile, cell)
                        break
                    cells ^= low
                if move is not None:
                    break
            if move is not None:
                state.push(move)
                continue
        if free:
            color, tile, cells = free[randrange(len(free))] if len(free) > 1 else free[0]
            state.push(Move(color, tile, _pick(cells, randrange)))
            continue
        legal = state.legal_moves()
        if legal:
            state.push(legal.choice(rng))
        else:
            state.push_pass()


def _pick(cells: int, randrange) -> int:
    """A cell of ``cells`` (not empty) drawn uniformly."""
    count = cells.bit_count()
    if count > 1:
        for _ in range(randrange(count)):
            cells &= cells - 1
    return (cells & -cells).bit_length() - 1
