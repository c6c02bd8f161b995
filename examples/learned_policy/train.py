"""Train a small policy for Uptown in the PettingZoo environment against the arena's built-in bots, on CPU
with numpy, and save it for learned_bot.py, which enters it in tournaments as an ordinary bot.

    python examples/learned_policy/train.py --episodes 400     # writes trained.json beside this file
    arena play examples/learned_policy/learned_bot.py:LearnedBot:weights=trained.json random

The weights go beside the bot by default (a sandboxed bot reads the files of its own folder, and no other),
under a name of their own: the shipped ``policy.json``, which the documentation's figures were played
with, stays as it is (``--out policy.json`` replaces it).

REINFORCE with a running-mean baseline on a linear softmax policy over the features of each legal action
(learned_bot.features): two players, the learner in seat 0 or 1 at random, the opponent ``random`` or
``greedy`` at random, the reward the environment's end-of-game utility (+1 win, 0 tie, -1 loss).  It is
the route from learner to entrant, not a strong bot: six features cannot beat a searcher.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from learned_bot import FEATURES, features  # noqa: E402

from arena.envs.opponents import ArenaOpponents  # noqa: E402
from arena.envs.pettingzoo_env import env  # noqa: E402


def train(episodes: int, seed: int = 0, opponents: tuple[str, ...] = ("random", "greedy"),
          learning_rate: float = 0.01) -> tuple[np.ndarray, list[float]]:
    """The trained weights and the reward of every episode."""
    rng = np.random.default_rng(seed)
    picks = random.Random(seed)
    weights = np.zeros(len(FEATURES), np.float32)
    baseline, rewards = 0.0, []
    games = {(seat, bot): ArenaOpponents(env(players=2), {f"seat_{1 - seat}": bot})
             for seat in (0, 1) for bot in opponents}
    for episode in range(episodes):
        game = games[picks.randrange(2), picks.choice(opponents)]
        game.reset(seed=seed * 1_000_003 + episode)
        grads = []
        reward = 0.0
        for agent in game.agent_iter():
            observation, reward, termination, truncation, _ = game.last()
            if termination or truncation:
                game.step(None)
                continue
            ids = np.flatnonzero(observation["action_mask"])
            phi = features(observation["observation"], ids)
            logits = phi @ weights
            p = np.exp(logits - logits.max())
            p /= p.sum()
            k = rng.choice(len(ids), p=p)
            grads.append(phi[k] - p @ phi)        # the gradient of log p(action)
            game.step(int(ids[k]))
        advantage = reward - baseline
        baseline += 0.05 * (reward - baseline)
        if grads:
            weights += learning_rate * advantage * np.sum(grads, axis=0)
        rewards.append(float(reward))
    return weights, rewards


#: Where the weights go unless --out says: beside the bot, which then plays them with weights=trained.json.
TRAINED = Path(__file__).with_name("trained.json")


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=TRAINED,
                        help="the weights file (default: trained.json beside the bot; a relative path is the bot's "
                             "folder's for its weights option)")
    return parser.parse_args(argv)


def main() -> None:
    args = arguments()
    start = time.perf_counter()
    weights, rewards = train(args.episodes, args.seed)
    seconds = time.perf_counter() - start
    tail = rewards[-100:]
    print(f"{args.episodes} episodes in {seconds:.0f} s; mean reward of the last {len(tail)}: {np.mean(tail):+.2f}")
    print("weights: " + ", ".join(f"{n} {w:+.2f}" for n, w in zip(FEATURES, weights)))
    args.out.write_text(json.dumps({"features": list(FEATURES), "weights": [round(float(w), 4) for w in weights],
                                    "episodes": args.episodes, "seed": args.seed}, indent=1) + "\n",
                        encoding="utf-8")
    here = Path(__file__).resolve().parent
    shown = args.out.resolve().relative_to(here) if args.out.resolve().is_relative_to(here) else args.out.resolve()
    print(f"saved {args.out}; play it: arena play {here / 'learned_bot.py'}:LearnedBot:weights={shown} random")


if __name__ == "__main__":
    main()
