"""What the OpenSpiel game and the PettingZoo environment cost per move, against the engine's own per-move loop.

    python benchmarks/bridges.py --players 2 --games 20 --rounds 3

Side by side in one process, in rounds (the order of the loops alternating), random games of the same
seeds (game ``i`` is the arena's deal of seed ``--seed + i``), every loop picking uniformly among the
legal moves with its own generator:

* ``engine``: the engine's per-move loop (benchmarks/engine.py): ``legal_moves()``, ``choice``, ``push``;
* ``engine+spaces``: the same, plus what a bridge must compute for the mover every turn: its legal
  action ids and mask and its observation tensor (:mod:`arena.spaces`, from the state as the bridges
  compute them);
* ``pettingzoo``: ``uptown_v0``, ``last()`` (observation dict: tensor and mask), a masked sample, ``step``;
* ``openspiel``: ``python_uptown``, ``legal_actions()`` and ``apply_action`` for each move, the chance
  nodes' draws (``apply_action`` of the arena's deal) included in the move's cost;
* ``pettingzoo floor`` and ``openspiel floor``: the same loops over a game that does nothing (a constant
  observation and mask of the same sizes, as many moves as Uptown's): what each framework's API costs a
  move by itself, below which no bridge written on it can go;
* ``openspiel floor+chance``: the OpenSpiel one with what Uptown's game has besides: as many chance nodes
  (every draw is one) and as many legal actions a turn (on average) as the random games.

Per loop: microseconds per move (the median of the rounds, by the process's CPU time) and the ratio to
``engine``; then where the bridge's time goes (per move: legal ids, mask, observation, OpenSpiel's
chance node, and what they cost before they were computed in C: the observation through a SeatView, a
chance node's redeal by ``GameState.restore``), each bridge over its floor, and the frameworks' floors
against the engine.  The last line is ``<float>x engine per move (pettingzoo), <float>x (openspiel)``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from arena.rules import ENGINE, GameSettings, GameState, SeatView, deal
from arena.rules.moves import MoveSet
from arena.spaces import N_ACTIONS, OBSERVATION_SIZE, legal_ids, legal_mask, observe, observe_state_into

NO_MOVES = MoveSet()


def engine_loop(settings: GameSettings, seeds: list[int], spaces: bool) -> int:
    rng = random.Random(1)
    moves = 0
    for seed in seeds:
        state = GameState(settings, deal(seed, settings))
        while not state.over:
            legal = state.legal_moves()
            if spaces:
                legal_ids(legal)
                legal_mask(legal, np.empty(N_ACTIONS, np.int8))
                observe_state_into(np.empty(OBSERVATION_SIZE, np.float32), state, state.to_move)
            state.push_unchecked(legal.choice(rng))
            moves += 1
    return moves


def pettingzoo_loop(settings: GameSettings, seeds: list[int]) -> int:
    from arena.envs.pettingzoo_env import env

    game = env(players=settings.players, scoring=settings.scoring)
    return aec_moves(game, [{"seed": seed} for seed in seeds])


def aec_moves(game: Any, resets: list[dict[str, Any]]) -> int:
    """Play a game of the AEC environment ``game`` per ``resets`` (the arguments of its ``reset``), each move
    a uniform choice among the action mask's legal ids; the number of moves."""
    rng = np.random.default_rng(1)
    moves = 0
    for reset in resets:
        game.reset(**reset)
        for _ in game.agent_iter():
            observation, _, termination, truncation, _ = game.last()
            if termination or truncation:
                game.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            game.step(int(legal[rng.integers(len(legal))]))
            moves += 1
    return moves


def openspiel_loop(settings: GameSettings, seeds: list[int]) -> int:
    import pyspiel

    from arena.envs.openspiel_game import arena_draw

    game = pyspiel.load_game(f"python_uptown(players={settings.players},scoring={settings.scoring})")
    rng = random.Random(1)
    moves = 0
    for seed in seeds:
        deals = deal(seed, settings)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(arena_draw(state, deals))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                moves += 1
    return moves


def null_pettingzoo_loop(moves_per_game: int, games: int) -> int:
    """The PettingZoo loop over an AEC environment whose moves do nothing."""
    from gymnasium import spaces
    from pettingzoo import AECEnv

    from arena.spaces import N_ACTIONS as ACTIONS
    from arena.spaces import OBSERVATION_SIZE

    class Null(AECEnv):  # type: ignore[misc]
        metadata = {"name": "null_v0", "is_parallelizable": False}

        def __init__(self) -> None:
            super().__init__()
            self.possible_agents = ["player_0", "player_1"]
            self.mask = np.ones(ACTIONS, dtype=np.int8)
            self.seen = {"observation": np.zeros(OBSERVATION_SIZE, dtype=np.float32), "action_mask": self.mask}
            self.observation_spaces = {a: spaces.Dict({
                "observation": spaces.Box(0.0, 1.0, (OBSERVATION_SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (ACTIONS,), np.int8)}) for a in self.possible_agents}
            self.action_spaces = {a: spaces.Discrete(ACTIONS) for a in self.possible_agents}

        def reset(self, seed: int | None = None, options: dict | None = None) -> None:
            self.agents = list(self.possible_agents)
            self.left = moves_per_game
            self.rewards = {a: 0.0 for a in self.agents}
            self._cumulative_rewards = dict(self.rewards)
            self.terminations = {a: False for a in self.agents}
            self.truncations = dict(self.terminations)
            self.infos: dict = {a: {} for a in self.agents}
            self.agent_selection = self.agents[0]

        def observe(self, agent: str) -> dict:
            return self.seen

        def step(self, action: int | None) -> None:
            if self.terminations[self.agent_selection]:
                self._was_dead_step(action)
                return
            self.left -= 1
            if self.left == 0:
                self.terminations = {a: True for a in self.agents}
            self.agent_selection = self.agents[1 - self.agents.index(self.agent_selection)]

    return aec_moves(Null(), [{}] * games)


def null_openspiel_loop(moves_per_game: int, games: int, legal_count: int = 40, draws_per_game: int = 0) -> int:
    """The OpenSpiel loop over a registered Python game whose moves do nothing: ``legal_count`` legal actions a
    turn, and ``draws_per_game`` chance nodes spread over the game (one after a move, as Uptown's draws)."""
    import pyspiel

    from arena.spaces import N_ACTIONS as ACTIONS

    legal = list(range(legal_count))
    game_type = pyspiel.GameType(
        short_name=f"python_null_bridge_floor_{legal_count}_{draws_per_game}", long_name="nothing",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC if draws_per_game
        else pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION, utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL, max_num_players=2, min_num_players=2,
        provides_information_state_string=False, provides_information_state_tensor=False,
        provides_observation_string=False, provides_observation_tensor=False, parameter_specification={})
    info = pyspiel.GameInfo(num_distinct_actions=ACTIONS, max_chance_outcomes=1 if draws_per_game else 0,
                            num_players=2, min_utility=-1.0,
                            max_utility=1.0, utility_sum=0.0, max_game_length=moves_per_game + draws_per_game)
    terminal, chance = int(pyspiel.PlayerId.TERMINAL), int(pyspiel.PlayerId.CHANCE)

    class NullState(pyspiel.State):  # type: ignore[misc]
        def __init__(self, game: pyspiel.Game) -> None:
            super().__init__(game)
            self.left = moves_per_game

        def current_player(self) -> int:
            return pyspiel.PlayerId.TERMINAL if self.left == 0 else self.left % 2

        def _legal_actions(self, player: int) -> list[int]:
            return legal

        def _apply_action(self, action: int) -> None:
            self.left -= 1

        def is_terminal(self) -> bool:
            return self.left == 0

        def returns(self) -> list[float]:
            return [0.0, 0.0]

    class ChanceState(NullState):
        """Draws too: the k-th chance node comes after move ``k * moves_per_game // draws_per_game``."""

        def __init__(self, game: pyspiel.Game) -> None:
            super().__init__(game)
            self.draws = 0
            self.drawing = False

        def current_player(self) -> int:
            return terminal if self.left == 0 else chance if self.drawing else self.left % 2

        def _apply_action(self, action: int) -> None:
            if self.drawing:
                self.drawing = False
                self.draws += 1
                return
            self.left -= 1
            done = moves_per_game - self.left
            self.drawing = self.left > 0 and self.draws < draws_per_game * done // moves_per_game

        def chance_outcomes(self) -> list[tuple[int, float]]:
            return [(0, 1.0)]

    class NullGame(pyspiel.Game):  # type: ignore[misc]
        def __init__(self, params: dict | None = None) -> None:
            super().__init__(game_type, info, params or {})

        def new_initial_state(self) -> NullState:
            return ChanceState(self) if draws_per_game else NullState(self)

    game = NullGame()
    rng = random.Random(1)
    moves = 0
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if draws_per_game and state.is_chance_node():
                state.apply_action(0)
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                moves += 1
    return moves


def shape(settings: GameSettings, seeds: list[int]) -> tuple[int, int, int]:
    """The random games' moves a game, legal actions a turn and draws a game (every tile drawn, the first
    five of each rack included: OpenSpiel's chance nodes), rounded."""
    rng = random.Random(1)
    moves = actions = draws = 0
    for seed in seeds:
        state = GameState(settings, deal(seed, settings))
        while not state.over:
            legal = state.legal_moves()
            actions += max(len(legal), 1)
            moves += 1
            state.push_unchecked(legal.choice(rng))
        draws += sum(state.drawn)
    return max(1, moves // len(seeds)), max(1, round(actions / moves)), round(draws / len(seeds))


def timed(run: Callable[[], int]) -> tuple[float, int]:
    start = time.process_time()
    moves = run()
    return (time.process_time() - start) / moves * 1e6, moves


def parts(settings: GameSettings, seeds: list[int]) -> dict[str, float]:
    """Microseconds per move of each piece a bridge adds, on the positions of one random game per seed."""
    rng = random.Random(2)
    positions = []
    for seed in seeds:
        state = GameState(settings, deal(seed, settings))
        while not state.over:
            positions.append((state.copy(), state.legal_moves()))
            state.push_unchecked(positions[-1][1].choice(rng))
    out = {}
    for name, work in (
        ("legal_moves (engine)", lambda s, m: s.legal_moves()),
        ("legal ids", lambda s, m: legal_ids(m)),
        ("legal mask", lambda s, m: legal_mask(m)),
        ("observation tensor", lambda s, m: observe_state_into(np.empty(OBSERVATION_SIZE, np.float32), s,
                                                               s.to_move)),
        ("set_next_draw (a chance node's draw)", lambda s, m: s.copy().set_next_draw(
            s.settings.colors[0], s.deals[s.settings.colors[0]][-1]) if s.drawn[s.settings.colors[0]] < 28 else None),
        ("  state.copy (in the line above)", lambda s, m: s.copy()),
        ("SeatView.of", lambda s, m: SeatView.of(s, s.to_move, NO_MOVES)),
        ("observation through a SeatView", lambda s, m: observe(SeatView.of(s, s.to_move, NO_MOVES))),
        ("restore (the redeal it replaces)", lambda s, m: GameState.restore(
            s.settings, {c: s.deals[c] for c in s.settings.colors}, {c: s.drawn[c] for c in s.settings.colors},
            {c: s.racks[c] for c in s.settings.colors}, s.boards, s.captures, s.to_move, s.passes, s.history,
            s.over)),
    ):
        start = time.process_time()
        for state, moves in positions:
            work(state, moves)
        out[name] = (time.process_time() - start) / len(positions) * 1e6
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    settings = GameSettings.for_players(args.players)
    seeds = list(range(args.seed, args.seed + args.games))
    per_game, legal_count, draws = shape(settings, seeds)
    loops: dict[str, Callable[[], int]] = {
        "engine": lambda: engine_loop(settings, seeds, False),
        "engine+spaces": lambda: engine_loop(settings, seeds, True),
    }
    skipped = []
    try:
        import pettingzoo  # noqa: F401

        loops["pettingzoo"] = lambda: pettingzoo_loop(settings, seeds)
        loops["pettingzoo floor"] = lambda: null_pettingzoo_loop(per_game, args.games)
    except ImportError:
        skipped.append("pettingzoo (the rl extra is not installed)")
    try:
        import pyspiel  # noqa: F401

        loops["openspiel"] = lambda: openspiel_loop(settings, seeds)
        loops["openspiel floor"] = lambda: null_openspiel_loop(per_game, args.games)
        loops["openspiel floor+chance"] = lambda: null_openspiel_loop(per_game, args.games, legal_count, draws)
    except ImportError:
        skipped.append("openspiel (the openspiel extra is not installed)")
    figures: dict[str, list[float]] = {name: [] for name in loops}
    counts: dict[str, int] = {}
    names = list(loops)
    for r in range(args.rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            us, counts[name] = timed(loops[name])
            figures[name].append(us)
    print(f"rules engine: {ENGINE}; {args.games} random games of {args.players} players, {args.rounds} rounds, "
          "CPU time, median of the rounds")
    base = statistics.median(figures["engine"])
    for name in names:
        us = statistics.median(figures[name])
        print(f"{name:<22} {us:9.1f} us/move  {us / base:6.1f}x engine  ({counts[name]} moves a round)")
    for name in skipped:
        print(f"{name:<16} skipped: {name}")
    print("where a bridge's time goes, per move:")
    for name, us in parts(settings, seeds[:5]).items():
        print(f"  {name:<38} {us:8.1f} us")
    def ratio(name: str) -> float:
        return statistics.median(figures[name]) / base if name in figures else float("nan")

    pz, os_ = ratio("pettingzoo"), ratio("openspiel")
    print(f"over the frameworks' floor: {pz / ratio('pettingzoo floor'):.1f}x (pettingzoo), "
          f"{os_ / ratio('openspiel floor'):.1f}x (openspiel), {os_ / ratio('openspiel floor+chance'):.1f}x "
          "(openspiel, against the floor with Uptown's chance nodes and legal actions)")
    print(f"the frameworks alone (a game that does nothing): {ratio('pettingzoo floor'):.1f}x engine per move "
          f"(pettingzoo), {ratio('openspiel floor'):.1f}x (openspiel)")
    print(f"{pz:.1f}x engine per move (pettingzoo), {os_:.1f}x (openspiel)")


if __name__ == "__main__":
    main()
