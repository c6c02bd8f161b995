"""A bot that plays a policy trained in the PettingZoo environment (train.py): a linear score of a few
features of each legal action, computed from the observation tensor and the action id alone.

    arena play examples/learned_policy/learned_bot.py:LearnedBot random
    arena run examples/learned_policy/learned-vs-builtins.toml
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

import numpy as np

from arena.bots import Bot, Move, Option, SeatView
from arena.rules.geometry import NEIGHBOURS
from arena.spaces import ACTION_TABLE, action_move, legal_ids, observe, pieces

#: The weights train.py writes, beside this file.
WEIGHTS = Path(__file__).with_name("policy.json")
FEATURES = ("own_neighbours", "joins_two", "rival_neighbours", "empty_neighbours", "capture", "wild")

#: ``_NEIGHBOUR[cell]``: the four cells around it, 81 (a cell that is always empty) where the board ends.
_NEIGHBOUR = np.full((82, 4), 81, np.intp)
for _cell, _mask in enumerate(NEIGHBOURS):
    _around = [c for c in range(81) if _mask >> c & 1]
    _NEIGHBOUR[_cell, :len(_around)] = _around


def features(observation: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """One row of :data:`FEATURES` per action id of ``ids`` (legal actions of the seat to move)."""
    parts = pieces(observation)
    boards = np.zeros((5, 82), np.float32)
    boards[:, :81] = parts["boards"]
    occupied = boards.sum(axis=0)
    moves = ACTION_TABLE[ids]
    color, tile, cell = moves[:, 0].astype(np.intp), moves[:, 1], moves[:, 2].astype(np.intp)
    placing = color >= 0
    color, cell = np.where(placing, color, 0), np.where(placing, cell, 81)
    around = _NEIGHBOUR[cell]                                  # (n, 4)
    own = boards[color[:, None], around].sum(axis=1)            # tiles of the color played around the cell
    filled = occupied[around].sum(axis=1)
    rows = np.stack([own, own >= 2, filled - own, 4 - filled - (around == 81).sum(axis=1),
                     occupied[cell] > 0, tile == 27], axis=1).astype(np.float32)
    rows[~placing] = 0
    return rows


def policy_scores(weights: np.ndarray, observation: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """The policy's score of each action of ``ids``: a softmax over them is its distribution."""
    return features(observation, ids) @ weights


def load_weights(path: Path | str = WEIGHTS) -> np.ndarray:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if data.get("features") != list(FEATURES):
        raise ValueError(f"{path}: weights for features {data.get('features')}, not {list(FEATURES)}")
    return np.asarray(data["weights"], np.float32)


class LearnedBot(Bot):
    """Plays the best-scoring legal move of a linear policy trained against the built-in bots (train.py)."""

    options: ClassVar[dict[str, Option]] = {
        "weights": Option("", doc="the weights file train.py wrote, a relative path from the bot's folder "
                                  "(where a sandboxed bot can read it); empty for policy.json beside the bot"),
    }

    def __init__(self, seat, settings, config, rng) -> None:
        super().__init__(seat, settings, config, rng)
        self.weights = load_weights(WEIGHTS.parent / self.config["weights"] if self.config["weights"] else WEIGHTS)

    def choose(self, view: SeatView) -> Move:
        ids = np.asarray(legal_ids(view.legal), np.intp)
        scores = policy_scores(self.weights, observe(view), ids)
        best = np.flatnonzero(scores == scores.max())
        return action_move(int(ids[best[self.rng.randrange(len(best))]]))
