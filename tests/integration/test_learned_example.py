"""The route from learner to entrant (examples/learned_policy), in miniature: train a few episodes in
uptown_v0 against the built-in bots, save the weights, and play them in the arena as an ordinary bot."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install '.[rl]')")

from arena.cli import main  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "learned_policy"


def load(name: str):
    sys.path.insert(0, str(EXAMPLE))
    try:
        spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLE / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(EXAMPLE))


def test_train_save_and_enter_the_policy(tmp_path: Path, cli) -> None:
    train = load("train")
    weights, rewards = train.train(episodes=4, seed=3)
    assert len(rewards) == 4 and all(r in (-1.0, 0.0, 1.0) for r in rewards)
    assert weights.shape == (len(train.FEATURES),) and np.any(weights != 0)  # the episodes moved it
    again, _ = train.train(episodes=4, seed=3)
    assert np.array_equal(weights, again)  # seeded: the same route gives the same policy
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({"features": list(train.FEATURES), "weights": weights.tolist()}), encoding="utf-8")
    record = tmp_path / "game.json"
    done = cli.invoke(main, ["play", f"{EXAMPLE / 'learned_bot.py'}:LearnedBot:weights={path}", "random",
                             "--seed", "2", "--isolation", "none", "--record", str(record)])
    assert done.exit_code == 0, done.output
    assert json.loads(record.read_text())["result"]
    verified = cli.invoke(main, ["replay", "--verify", str(record)])
    assert verified.exit_code == 0, verified.output


def test_the_shipped_policy_loads_and_refuses_other_features(tmp_path: Path) -> None:
    bot = load("learned_bot")
    assert bot.load_weights().shape == (len(bot.FEATURES),)
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"features": ["x"], "weights": [1.0]}), encoding="utf-8")
    with pytest.raises(ValueError, match="features"):
        bot.load_weights(wrong)


def test_training_writes_beside_the_bot_under_a_name_of_its_own_and_the_bot_plays_it(tmp_path: Path) -> None:
    """By default train.py leaves the shipped policy.json as it is; weights=NAME is read from the bot's folder,
    where a sandboxed bot can read it."""
    train, bot = load("train"), load("learned_bot")
    default = train.arguments([]).out
    assert default.parent == EXAMPLE and default.name == "trained.json" != bot.WEIGHTS.name
    assert train.arguments(["--out", "elsewhere.json"]).out == Path("elsewhere.json")
    player = bot.LearnedBot(0, None, {"weights": "policy.json"}, None)
    assert np.array_equal(player.weights, bot.load_weights())
