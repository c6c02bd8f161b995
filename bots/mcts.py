"""The ``mcts`` bot: information-set Monte Carlo tree search."""

from __future__ import annotations

import math
import time
from random import Random
from typing import Any, ClassVar

from arena.api import PASS, Bot, GameState, Move, Option, SeatView, SplitMix64, TurnClock
from arena.rules.engine import ENGINE, WHY, NativeSearch
from arena.rules.playout import greedy_move, play_out
from arena.rules.state import GameState as PureGameState

from .greedy import move_costs
from .lookahead import future_cost, ranked_moves

#: How many of the greedy bot's cheapest moves the lookahead bot ranks for the root.
LOOKAHEAD_WIDTH = 16


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
    """Information-set MCTS over determinizations of the seat's view, in C when the native engine is built.

    Single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012): one tree
    over the moves as this seat sees them, shared by all determinizations.
    Every iteration draws a full game state consistent with what the seat
    knows (as ``view.sample`` draws them: rival racks and every pile order at random), walks
    down the tree, adds one move to it, plays the game out to its end and
    backs the result up the path, each node from the point of view of the
    seat that made its move.

    * The root considers only the ``candidates`` cheapest moves by the
      lookahead bot's cost (greedy's cost plus its look at the tiles to
      come); its moves are legal in every determinization.  A bigger budget
      affords a wider root: once ``n`` iterations are done it considers the
      ``candidates * sqrt(n / widen_root)`` cheapest (never fewer than
      ``candidates``, at most ``MAX_ROOT``; ``widen_root = 0`` keeps it
      fixed).  Up to ``widen_root`` iterations nothing changes: with the
      defaults the root widens only past 2,722 iterations, where the
      narrow root stops turning iterations into strength.  The lookahead
      ranks only as many moves as the search is likely to reach (all of an
      iteration budget's; a time budget's at 100,000 iterations a second);
      any further moves a long search widens to follow in greedy's order.
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
      random legal moves (:mod:`arena.rules.playout`).
    * A finished playout is scored by the game's own scoring (groups, the
      Blockers! penalty under that scoring, captures as the tie-breaker): a
      seat's reward is half its share of the rivals it beat (ties count
      half) and half a logistic function of its score margin over the
      average rival, so that narrow losses still count for more than heavy
      ones.

    The search stops after ``iterations`` iterations or ``seconds`` seconds,
    or when its share of the game clock is spent (``clock_share``, see
    :func:`clock_budget`), whichever comes first (0 switches a budget off); the most visited root
    move is played.  Its randomness is a :class:`~arena.rules.SplitMix64`
    seeded from the bot's generator at each move, and the search runs in C
    (``engine = "auto"`` with the native engine built, or ``"native"``) or in
    Python (``"pure"``) drawing the same numbers: with an iteration budget
    only, the bot is deterministic for a given generator and plays the same
    moves with either engine.
    """

    options: ClassVar[dict[str, Option]] = {
        "iterations": Option(600, min=0, doc="iterations per move, 0 for no iteration budget"),
        "seconds": Option(0.0, min=0, doc="seconds per move, 0 for no time budget"),
        "clock_share": Option(0.0, min=0, max=1, doc="the share of its remaining game clock a move may use "
                                                     "(plus most of the increment), 0 to ignore the clock"),
        "exploration": Option(0.7, min=0, doc="the exploration constant of UCB1"),
        "candidates": Option(6, min=0, doc="root moves, the cheapest by the lookahead bot's cost; 0 for every legal move"),
        "widening": Option(1.0, min=0, doc="below the root, children per square root of a node's visits"),
        "widen_root": Option(2000, min=0, doc="iterations before the root widens, 0 for never"),
        "playout": Option("greedy", choices=("greedy", "random"), doc="how a playout picks its moves"),
        "engine": Option("auto", choices=("auto", "native", "pure"), doc="where the search runs: in C, in Python, "
                                                                         "or in C when it is built"),
    }

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> None:
        if options["iterations"] == 0 and options["seconds"] == 0 and options["clock_share"] == 0:
            raise ValueError("set an iteration budget (iterations), a time budget (seconds or clock_share), or both")
        if options["engine"] == "native" and ENGINE != "native":
            raise ValueError(f"engine=native, but the native engine is not in use: {WHY}")

    def __init__(self, seat, settings, options, rng: Random) -> None:
        super().__init__(seat, settings, options, rng)
        if self.config["playout"] not in ("greedy", "random"):
            raise ValueError(f"playout must be greedy or random, not {self.config['playout']!r}")
        if self.config["engine"] not in ("auto", "native", "pure"):
            raise ValueError(f"engine must be auto, native or pure, not {self.config['engine']!r}")
        if self.config["iterations"] < 0 or self.config["seconds"] < 0:
            raise ValueError("iterations and seconds must not be negative")
        self.check_options(self.config)
        self.last_iterations = 0

    def choose(self, view: SeatView) -> Move:
        # The time budget covers the whole answer, ranking the root moves included.
        seconds = self.config["seconds"]
        budget = seconds if seconds > 0 else math.inf
        share = self.config["clock_share"]
        if share > 0:
            budget = min(budget, clock_budget(view.clock, share, bool(self.config["iterations"])))
        deadline = time.perf_counter() + budget
        self.last_iterations = 0
        width = self.config["candidates"]
        if width > 0:
            # As many moves as the root may widen to within the budget; a time budget may take up to MAX_ROOT.
            # The lookahead ranks as many of them as the search is likely to reach: within an iteration budget,
            # all; within a time budget, as many as it reaches at a nominal rate (the rest in greedy's order).
            widen, iterations = self.config["widen_root"], self.config["iterations"]
            likely = iterations or max(1, int(min(budget, MAX_SECONDS) * NOMINAL_RATE))
            allowed = root_moves(view, widest_root(width, widen, iterations), widest_root(width, widen, likely))
        else:
            allowed = [move for _, move in ranked_moves(view, 0)]
        if len(allowed) == 1:
            return allowed[0]
        return self.search(view, allowed, deadline)

    def search(self, view: SeatView, allowed: list[Move], deadline: float = math.inf) -> Move:
        """Search from ``view`` over the root moves ``allowed`` until the budget or ``deadline``; the most visited."""
        iterations = self.config["iterations"]
        timed = deadline < math.inf
        native = self.config["engine"] == "native" or (self.config["engine"] == "auto" and NativeSearch is not None)
        width = self.config["candidates"]
        tree = (NativeSearch if native else PySearch)(
            seat_state(view, GameState if native else PureGameState), view.seat, allowed,
            float(self.config["exploration"]), float(self.config["widening"]), self.config["playout"],
            self.rng.getrandbits(64), min(width, len(allowed)) if width > 0 else len(allowed),
            int(self.config["widen_root"]) if width > 0 else 0,
        )
        # The native tree runs a batch per call (a millisecond or so), the Python one an iteration:
        # either way the clock is read between calls and the iterations are the same.
        batch = NATIVE_BATCH if native else 1
        if not timed:
            tree.run(iterations)
        while timed and (not iterations or tree.done < iterations) and time.perf_counter() < deadline:
            tree.run(min(batch, iterations - tree.done) if iterations else batch)
        self.last_iterations = tree.done
        best = max(zip(tree.stats(), allowed), key=lambda s: s[0])  # visits, then reward; the first of equals
        return best[1]


def root_moves(view: SeatView, most: int, ranked: int) -> list[Move]:
    """The ``most`` root moves in the order the root takes them: the lookahead bot's ranking of greedy's
    ``ranked`` cheapest moves (at least :data:`LOOKAHEAD_WIDTH`), then greedy's next cheapest by greedy's
    cost alone.

    The lookahead's look costs some 20 µs a move in Python: ranking all of a widening root's
    :data:`MAX_ROOT` moves with it took a millisecond or more of every timed move, where a short search
    reaches only its first few.
    """
    costs = sorted(move_costs(view), key=lambda cm: cm[0])
    ranked = max(ranked, LOOKAHEAD_WIDTH)
    head = sorted(((cost + future_cost(view, move), move) for cost, move in costs[:ranked]), key=lambda cm: cm[0])
    return [move for _, move in head[:most]] + [move for _, move in costs[ranked:most]]


#: The time budget of a move under ``clock_share`` in a game without a clock, and no other budget.
NO_CLOCK_SECONDS = 1.0
#: The part of the increment a move may use on top of its share of the clock.
INCREMENT_USE = 0.8
#: Seconds kept back from every budget under ``clock_share``: ranking the moves, the round trip.
CLOCK_MARGIN = 0.02


def clock_budget(clock: TurnClock | None, share: float, bounded: bool = False) -> float:
    """The seconds a move may think under ``clock_share = share``: ``share`` of what is left on the
    clock (or an even part of it over the moves to go in a period), plus most of the increment;
    never more than half of what is left, nor half of what this turn may take.  Without a clock,
    no bound when another budget (``bounded``) stops the search, else :data:`NO_CLOCK_SECONDS`."""
    if clock is None:
        return math.inf if bounded else NO_CLOCK_SECONDS
    budget = math.inf
    if clock.remaining is not None:
        left = clock.remaining
        part = left / clock.moves_to_go if clock.moves_to_go else left * share
        budget = min(part + INCREMENT_USE * clock.increment, left / 2)
    budget = min(budget, clock.time / 2)
    if math.isinf(budget):
        return math.inf if bounded else NO_CLOCK_SECONDS
    return max(budget - CLOCK_MARGIN, 0.0)


#: Iterations per call of the native search while a time budget runs (about 1 ms).
NATIVE_BATCH = 64
#: Iterations a second the root's ranking expects of a time budget (the native search does about 100,000).
NOMINAL_RATE = 100_000
#: The longest time budget the ranking reckons with (a clock share without a clock may be unbounded).
MAX_SECONDS = 10.0
#: The most root moves a widening root considers.
MAX_ROOT = 64


def root_width(width: int, base: int, widen_root: int, done: int, n_moves: int) -> int:
    """The root's width once ``done`` iterations are done, from ``width`` so far: the largest ``k`` with
    ``k * k * widen_root <= base * base * done`` (in integers, as the native search reckons it), at
    least ``width``, at most ``n_moves``; ``widen_root = 0`` keeps it."""
    while widen_root > 0 and width < n_moves and (width + 1) * (width + 1) * widen_root <= base * base * done:
        width += 1
    return width


def widest_root(candidates: int, widen_root: int, iterations: int) -> int:
    """How many root moves a search may come to consider: within an iteration budget, the width at its
    last iteration; without one (a time budget), up to :data:`MAX_ROOT`."""
    if not widen_root:
        return candidates
    if not iterations:
        return max(candidates, MAX_ROOT)
    return root_width(candidates, candidates, widen_root, iterations - 1, max(candidates, MAX_ROOT))


def seat_state(view: SeatView, cls: Any) -> Any:
    """A state of engine class ``cls`` as the view's seat knows the game: its own racks; rival racks and
    every pile in increasing tile order (the search draws them afresh each iteration)."""
    deals: dict[int, tuple[int, ...]] = {}
    drawn: dict[int, int] = {}
    racks: dict[int, tuple[int, ...]] = {}
    sizes = view.rack_sizes
    for color in view.settings.colors:
        played = view.played_tiles[color]
        unplayed = sorted(view.unplayed(color))
        rack = view.racks[color] if color in view.racks else tuple(unplayed[:sizes[color]])
        deals[color] = (*played, *rack, *(t for t in unplayed if t not in rack))
        drawn[color] = len(played) + len(rack)
        racks[color] = rack
    return cls.restore(view.settings, deals, drawn, racks, view.board_masks, view.captures, view.to_move, view.passes,
                       (), view.over)


class PySearch:
    """The search in Python on the pure engine; the native ``Search`` (arena/rules/native/search.c) is the
    same, draw for draw of the :class:`~arena.rules.SplitMix64` and float for float.

    ``state`` is :func:`seat_state` of the seat's view; ``seed`` seeds the generator; the root
    considers its first ``width`` moves, widening with ``widen_root`` (:func:`root_width`).
    """

    def __init__(self, state: PureGameState, seat: int, root_moves: list[Move], exploration: float,
                 widening: float, playout: str, seed: int, width: int = 0, widen_root: int = 0) -> None:
        self.settings = state.settings
        self.own = set(state.settings.seat_colors[seat])
        self.played = state.played_tiles[:]
        self.unplayed = [sorted(state.unplayed(c)) for c in range(len(state.racks))]
        self.racks = [list(rack) for rack in state.racks]
        self.rack_sizes = [len(rack) for rack in state.racks]
        self.boards = state.boards[:]
        self.captures = state.captures
        self.to_move = state.to_move
        self.passes = state.passes
        self.over = state.over
        self.c = exploration
        self.widen = widening
        self.policy = playout
        self.rng = SplitMix64(seed)
        self.root = [Node(move, seat) for move in root_moves]
        #: The root considers its first ``width`` moves (all when 0), more as it widens.
        self.base = self.width = min(width, len(root_moves)) if width > 0 else len(root_moves)
        self.widen_root = widen_root
        self.done = 0

    def sample(self) -> PureGameState:
        """A determinization: rival racks and every pile drawn from the unplayed tiles (as view.sample does)."""
        shuffle = self.rng.shuffle
        deals: dict[int, tuple[int, ...]] = {}
        drawn: dict[int, int] = {}
        racks: dict[int, list[int]] = {}
        for color in self.settings.colors:
            played = self.played[color]
            if color in self.own:
                rack = self.racks[color]
                pile = [t for t in self.unplayed[color] if t not in rack]
                shuffle(pile)
            else:
                pile = self.unplayed[color][:]
                shuffle(pile)
                size = self.rack_sizes[color]
                rack, pile = pile[:size], pile[size:]
            deals[color] = (*played, *rack, *pile)
            drawn[color] = len(played) + len(rack)
            racks[color] = rack
        return PureGameState.restore(self.settings, deals, drawn, racks, self.boards, self.captures, self.to_move,
                                     self.passes, (), self.over)

    def run(self, iterations: int) -> None:
        """Run ``iterations`` more iterations."""
        rng = self.rng
        c = self.c
        widen = self.widen
        policy = self.policy
        for _ in range(iterations):
            self.width = root_width(self.width, self.base, self.widen_root, self.done, len(self.root))
            root_moves = self.root[:self.width]
            state = self.sample()
            # The root: every allowed move is legal in every determinization.
            for first in root_moves:
                first.avail += 1
            node = _ucb(root_moves, c)
            state.push_unchecked(node.move)
            path = [node]
            while not state.over:
                # Below the root the moves depend on the hidden tiles: the playout
                # policy proposes one; it becomes a new child while the node may
                # still widen, else UCB picks among the children legal here.
                move = greedy_move(state, rng)
                if move.color < 0:
                    state.push_unchecked(PASS)
                    continue
                children = node.children
                child = children.get(move)
                if child is None and len(children) < 1 + widen * math.sqrt(node.visits):
                    child = Node(move, state.to_move)
                    children[move] = child
                    state.push_unchecked(move)
                    path.append(child)
                    break
                legal = state.legal_moves()
                options = [ch for ch in children.values() if ch.move in legal]
                if not options:
                    child = Node(move, state.to_move)
                    children[move] = child
                    state.push_unchecked(move)
                    path.append(child)
                    break
                for ch in options:
                    ch.avail += 1
                node = _ucb(options, c)
                state.push_unchecked(node.move)
                path.append(node)
            if not state.over:
                play_out(state, rng, policy)
            rewards = reward(state)
            for n in path:
                n.visits += 1
                n.reward += rewards[n.seat]
            self.done += 1

    def stats(self) -> list[tuple[int, float]]:
        """``(visits, reward)`` of every root move, in their order."""
        return [(n.visits, n.reward) for n in self.root]


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


def reward(state: Any) -> list[float]:
    """Each seat's reward in [0, 1] for a finished game, by the game's scoring (the native search's too)."""
    n = state.settings.players
    blockers = state.settings.scoring == "blockers"
    groups, totals, penalties = state._keys()
    # The C1 / C2 keys: groups (plus the Blockers! penalty, C4), then the tiles captured.
    keys = [(groups[seat] + penalties[seat] if blockers else groups[seat], totals[seat]) for seat in range(n)]
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
