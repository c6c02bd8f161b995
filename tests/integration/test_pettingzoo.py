"""uptown_v0: PettingZoo's own API, seed and render tests, and arena bots as opponents inside it."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install '.[rl]')")

from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402

from arena.envs.opponents import ArenaOpponents  # noqa: E402
from arena.envs.pettingzoo_env import env  # noqa: E402
from arena.rules import GameSettings, GameState, deal  # noqa: E402
from arena.spaces import action_move, utility  # noqa: E402


@pytest.mark.parametrize("players", [2, 3, 5])
def test_pettingzoo_api_test(players: int) -> None:
    api_test(env(players=players), num_cycles=200)


def test_pettingzoo_seed_test() -> None:
    seed_test(lambda: env(players=3), num_cycles=200)


def test_pettingzoo_render_test() -> None:
    render_test(lambda render_mode=None: env(render_mode=render_mode))


def test_a_seeded_episode_is_the_arenas_game() -> None:
    """reset(seed=N) deals the arena's game of seed N; the rewards are the documented utility (C1-C3)."""
    game = env(players=4, scoring="blockers")
    game.reset(seed=9)
    settings = GameSettings.for_players(4, "blockers")
    arena = GameState(settings, deal(9, settings))
    rng = np.random.default_rng(0)
    rewards = {}
    for agent in game.agent_iter():
        observation, reward, termination, truncation, _ = game.last()
        rewards[agent] = reward
        if termination:
            game.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        arena.push(action_move(action))
        game.step(action)
    assert arena.over
    assert [rewards[f"seat_{s}"] for s in range(4)] == utility(arena)
    assert sum(rewards.values()) == pytest.approx(0)


def test_an_illegal_action_is_refused_by_rule() -> None:
    game = env()
    game.reset(seed=1)
    mask = game.observe(game.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match=r"\((M1|T2|M2|M3|M4)\)"):
        game.step(illegal)


def test_arena_bots_play_the_other_seats() -> None:
    """ArenaOpponents: the learner is only ever asked for its own seat, the game goes to its end, and the
    bots play the same game for the same seed."""
    finals = []
    for _ in range(2):
        game = ArenaOpponents(env(players=3), {"seat_1": "greedy", "seat_2": "random"})
        game.reset(seed=4)
        for agent in game.agent_iter():
            assert agent == "seat_0"
            observation, reward, termination, truncation, _ = game.last()
            game.step(None if termination else int(np.flatnonzero(observation["action_mask"])[0]))
        state = game.unwrapped.state_
        assert state.over and reward == utility(state)[0]
        finals.append(list(state.history))
    assert finals[0] == finals[1]
    with pytest.raises(ValueError, match="learner"):
        ArenaOpponents(env(), {"seat_0": "random", "seat_1": "random"})
    with pytest.raises(ValueError, match="is a program"):
        ArenaOpponents(env(), {"seat_1": "exec:node examples/protocol/random_bot.js"})
    with pytest.raises(ValueError, match="no such agents"):
        ArenaOpponents(env(), {"seat_7": "random"})
