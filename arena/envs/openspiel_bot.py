"""OpenSpiel's bots as arena bots: :class:`OpenSpielBot` hands each turn to a ``pyspiel.Bot`` (C++ or Python).

The arena gives a bot its seat's view only (S2); OpenSpiel's bots step on a game state.  So each turn the
view becomes a ``python_uptown`` state the seat cannot tell from its own game
(:func:`~arena.envs.openspiel_game.state_from_view`: rival racks and piles drawn by the arena's
determinization), the OpenSpiel bot steps on it, and its action id is the move.  A search that resamples
(ISMCTS) resamples from that state's information set, so it never sees more than the seat does.

Subclass :class:`OpenSpielBot` and override :meth:`~OpenSpielBot.make_bot`; :class:`IsmctsBot` (the
``openspiel-ismcts`` bot) is one.  The ``openspiel`` extra is imported when the first game starts; without
it the bot's options are refused with the command that installs it.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from arena.api import Bot, GameSettings, Move, Option, SeatView
from arena.envs.extras import require


class OpenSpielBot(Bot):
    """Base of the arena bots that play through an OpenSpiel bot: each turn the view as a python_uptown state."""

    @classmethod
    def check_options(cls, config: dict[str, Any]) -> None:
        try:
            require("openspiel")
        except ImportError as exc:
            raise ValueError(str(exc)) from None

    def __init__(self, seat: int, settings: GameSettings, config: dict[str, Any], rng: random.Random) -> None:
        super().__init__(seat, settings, config, rng)
        from arena.envs.openspiel_game import UptownGame

        self.game = UptownGame.for_settings(settings)
        self.bot = self.make_bot(self.game)

    def make_bot(self, game: Any) -> Any:
        """The ``pyspiel.Bot`` that plays this seat of ``game`` (``self.config`` holds the options, ``self.rng``
        seeds its randomness)."""
        raise NotImplementedError

    def choose(self, view: SeatView) -> Move:
        from arena.envs.openspiel_game import state_from_view
        from arena.spaces import action_move

        state = state_from_view(self.game, view, self.rng)
        return action_move(self.bot.step(state))


class IsmctsBot(OpenSpielBot):
    """OpenSpiel's information-set MCTS (open_spiel.python.algorithms.ismcts) with random rollouts.

    Every simulation resamples the rival racks and piles from the seat's information set
    (``resample_from_infostate``, the arena's determinization, seeded from the bot's generator), walks a
    tree keyed by information-state strings, and scores a random rollout by the game's zero-sum
    rank utility.  The move is the most visited.
    """

    options: ClassVar[dict[str, Option]] = {
        "simulations": Option(100, min=1, doc="ISMCTS simulations per move"),
        "uct_c": Option(2.0, min=0, doc="the UCT exploration constant"),
        "rollouts": Option(1, min=1, doc="random rollouts per leaf evaluation"),
        "world_samples": Option(0, min=0, doc="distinct determinizations per move, 0 for a new one per simulation"),
        "final_policy": Option("max_visit_count", choices=("max_visit_count", "max_value"),
                               doc="how the move is picked from the root's children"),
    }

    def make_bot(self, game: Any) -> Any:
        import numpy as np
        from open_spiel.python.algorithms import ismcts, mcts

        config = self.config
        random_state = np.random.RandomState(self.rng.getrandbits(32))
        evaluator = mcts.RandomRolloutEvaluator(config["rollouts"], random_state)
        final = (ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT if config["final_policy"] == "max_visit_count"
                 else ismcts.ISMCTSFinalPolicyType.MAX_VALUE)
        bot = ismcts.ISMCTSBot(
            game, evaluator, float(config["uct_c"]), config["simulations"],
            max_world_samples=config["world_samples"] or ismcts.UNLIMITED_NUM_WORLD_SAMPLES,
            random_state=random_state, final_policy_type=final)
        # Resample with the seat's own generator, so that a game replays the same from its seed.
        rng = self.rng
        bot.set_resampler(lambda state, player: state.resample_from_infostate(player, rng.random))
        return bot
