"""``uptown_v0``: Uptown as a PettingZoo AEC environment (agent-environment cycle), on the arena's engine.

    from arena.envs.pettingzoo_env import env
    game = env(players=3)
    game.reset(seed=7)                      # the arena's game of seed 7: deal(7, settings)
    for agent in game.agent_iter():
        observation, reward, termination, truncation, info = game.last()
        action = None if termination or truncation else game.action_space(agent).sample(observation["action_mask"])
        game.step(action)

Agents are ``seat_0`` … ``seat_{n-1}``; they move in the arena's turn order (T3; a finished seat is
skipped, E2).  An observation is ``{"observation": float32[756], "action_mask": int8[1621]}``
(:mod:`arena.spaces`: what the seat may see under S2, and its legal action ids; a seat that must pass has
only the pass).  Rewards come once, when the game ends: the OpenSpiel game's zero-sum utility (seats
beaten minus seats beaten by, over ``players - 1``, by the game's scoring).  Nothing truncates: a game
always ends (E2, E3).  ``render_mode``: ``"ansi"`` returns the board as text, ``"human"`` prints it.
Needs the ``rl`` extra.
"""

from __future__ import annotations

import random
from typing import Any

from arena.envs.extras import require

require("rl")

import numpy as np  # noqa: E402
from gymnasium import spaces  # noqa: E402
from pettingzoo import AECEnv  # noqa: E402

from arena.display.text import render_board  # noqa: E402
from arena.rules import GameSettings, GameState, SeatView, deal  # noqa: E402
from arena.spaces import (  # noqa: E402
    N_ACTIONS,
    OBSERVATION_SIZE,
    action_move,
    legal_mask,
    observe_state_into,
    utility,
)


class UptownEnv(AECEnv):
    """Uptown / Blockers! for PettingZoo (see the module's docstring)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "name": "uptown_v0", "is_parallelizable": False}

    def __init__(self, players: int = 2, scoring: str = "uptown", penalty: str = "color",
                 render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode is one of {self.metadata['render_modes']} or None, not {render_mode!r}")
        self.settings = GameSettings.for_players(players, scoring, penalty)
        self.render_mode = render_mode
        self.possible_agents = [f"seat_{s}" for s in range(players)]
        self._seat = {agent: s for s, agent in enumerate(self.possible_agents)}
        self.observation_spaces = {
            agent: spaces.Dict({
                "observation": spaces.Box(0.0, 28.0, (OBSERVATION_SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (N_ACTIONS,), np.int8),
            })
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(N_ACTIONS) for agent in self.possible_agents}
        self.state_: GameState | None = None
        #: The arena seed of the game in play (its deal is ``arena.rules.deal(game_seed, settings)``).
        self.game_seed = 0
        self._seeds = random.Random()

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game: the arena's game of ``seed`` when given, else of a seed drawn from the environment's
        generator (itself seeded by the last ``seed`` given)."""
        if seed is not None:
            self._seeds.seed(seed)
            self.game_seed = int(seed)
        else:
            self.game_seed = self._seeds.getrandbits(63)
        self.state_ = GameState(self.settings, deal(self.game_seed, self.settings))
        self.agents = self.possible_agents[:]
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[self.state_.to_move]

    def view(self, agent: str) -> SeatView:
        """The arena's view of ``agent``'s seat (its legal moves when it is to move): what an arena bot gets."""
        assert self.state_ is not None
        return SeatView.of(self.state_, self._seat[agent])

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        state = self.state_
        assert state is not None
        seat = self._seat[agent]
        # Fresh arrays every call: a learner may keep an observation while the game goes on.
        if state.to_move == seat and not state.over:
            mask = legal_mask(state.legal_moves(), np.empty(N_ACTIONS, np.int8))
        else:
            mask = np.zeros(N_ACTIONS, np.int8)
        observation = observe_state_into(np.empty(OBSERVATION_SIZE, np.float32), state, seat)
        return {"observation": observation, "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.state_
        assert state is not None
        self._cumulative_rewards[agent] = 0.0
        state.push(action_move(action))  # IllegalMove (a ValueError naming the rule) for an illegal action
        if state.over:
            for agent_, reward in zip(self.possible_agents, utility(state)):
                self.rewards[agent_] = reward
                self.terminations[agent_] = True
                self.infos[agent_] = {"result": [row.to_dict() for row in state.result()]}
            self._accumulate_rewards()
        self.agent_selection = self.possible_agents[state.to_move]
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None or self.state_ is None:
            return None
        text = render_board(self.state_)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self.state_ = None


def env(**kwargs: Any) -> UptownEnv:
    """A new ``uptown_v0`` environment (``players``, ``scoring``, ``penalty``, ``render_mode``)."""
    return UptownEnv(**kwargs)
