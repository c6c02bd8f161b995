"""The game as numbers for learners and search libraries: integer action ids and observation tensors.

One fixed action space (:mod:`.actions`: every move of any game as an id from 0 to 1620, and the mask
of the legal ones) and one observation of what a seat may see under rule S2 (:mod:`.observations`:
a float tensor and the same as text).  The OpenSpiel game and the PettingZoo environment
(:mod:`arena.envs`) are both built on it.  Pure functions of the engine's state or a seat's view,
the same with either engine.
"""

from arena.spaces.actions import (
    ACTION_TABLE,
    N_ACTIONS,
    PASS_ID,
    SLOTS_PER_COLOR,
    action_id,
    action_move,
    legal_array,
    legal_ids,
    legal_mask,
)
from arena.spaces.observations import (
    INFO_SIZE,
    INFO_STATE_PIECES,
    OBSERVATION_PIECES,
    OBSERVATION_SIZE,
    Facts,
    Seen,
    facts,
    info_state_into,
    observation_text,
    observe,
    observe_into,
    observe_state_into,
    pieces,
    recall_into,
)
from arena.spaces.rewards import utility

__all__ = [
    "ACTION_TABLE", "INFO_SIZE", "INFO_STATE_PIECES", "N_ACTIONS", "OBSERVATION_PIECES", "OBSERVATION_SIZE", "PASS_ID",
    "SLOTS_PER_COLOR", "Facts", "Seen", "action_id", "action_move", "facts", "info_state_into", "legal_array",
    "legal_ids", "legal_mask", "observation_text", "observe", "observe_into", "observe_state_into", "pieces",
    "recall_into", "utility",
]
