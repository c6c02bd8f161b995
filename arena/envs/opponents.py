"""Arena bots as opponents inside ``uptown_v0``: the learner's agents act, the arena bots play every other seat.

    from arena.envs.opponents import ArenaOpponents
    from arena.envs.pettingzoo_env import env
    game = ArenaOpponents(env(players=3), {"seat_1": "greedy", "seat_2": "mcts:iterations=200"})
    game.reset(seed=1)        # the bots have played up to the learner's first turn
    for agent in game.agent_iter():   # only seat_0 from here on
        ...

Each bot is the spec of a Python bot as ``arena play`` takes it (an entry-point name, ``package.module:Name`` or
``path/to/file.py:Name``, with options), or a :class:`~arena.api.Bot` class, made afresh for
every game as the referee makes it: ``Bot(seat, settings, config, rng)`` with its own generator derived
from the game seed and the seat, and asked with its seat's :class:`~arena.rules.SeatView` only.  A seat
that must pass passes without its bot being asked (M6), as in the arena.  The bots run in this
process, as trusted code (as ``isolation = "none"``); a bot program (``exec:``) needs the referee's
processes and is refused with a :class:`~arena.plugins.specs.BotError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pettingzoo.utils.wrappers import BaseWrapper  # noqa: I001  (the rl extra, imported by pettingzoo_env first)

from arena.api import PASS, Bot
from arena.envs.pettingzoo_env import UptownEnv
from arena.plugins.loading import bot_options, load_bot, parse_bot_spec
from arena.rules import derived_random
from arena.spaces import action_id

#: The stream of an opponent's generator: ``derived_random(OPPONENT_STREAM, game_seed, seat)``.
OPPONENT_STREAM = "uptown-env-opponent/1"


class ArenaOpponents(BaseWrapper):
    """``uptown_v0`` with arena bots playing the seats of ``bots`` (``{agent: spec or Bot class}``)."""

    def __init__(self, env: UptownEnv, bots: Mapping[str, str | type[Bot]]) -> None:
        super().__init__(env)
        base = env.unwrapped
        assert isinstance(base, UptownEnv)
        self._base = base
        unknown = set(bots) - set(base.possible_agents)
        if unknown:
            raise ValueError(f"no such agents: {sorted(unknown)} (the agents are {base.possible_agents})")
        if len(bots) >= len(base.possible_agents):
            raise ValueError("leave at least one seat to the learner")
        self._kinds: dict[str, tuple[type[Bot], dict[str, Any]]] = {}
        for agent, bot in bots.items():
            if isinstance(bot, str):
                spec = parse_bot_spec(bot)
                self._kinds[agent] = (load_bot(spec), bot_options(spec))
            else:
                self._kinds[agent] = (bot, {})
        self._bots: dict[str, Bot] = {}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        super().reset(seed=seed, options=options)
        base = self._base
        settings = base.settings
        self._bots = {}
        for agent, (cls, config) in self._kinds.items():
            seat = base.possible_agents.index(agent)
            self._bots[agent] = cls(seat, settings, dict(config),
                                    derived_random(OPPONENT_STREAM, base.game_seed, seat))
        self._play_bots()

    def step(self, action: Any) -> None:
        super().step(action)
        self._play_bots()

    def _play_bots(self) -> None:
        """Play the bots' turns (and their steps once the game is over) until a learner's agent is selected."""
        env = self.env
        while env.agents and env.agent_selection in self._bots:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            view = self._base.view(agent)
            move = self._bots[agent].choose(view) if view.legal else PASS
            env.step(action_id(move))
