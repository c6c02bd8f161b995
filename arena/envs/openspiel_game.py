"""The OpenSpiel game ``python_uptown``: the arena's engine behind OpenSpiel's ``pyspiel.Game`` interface.

Importing this module registers the game (``pyspiel.load_game("python_uptown(players=3)")``); it needs
the ``openspiel`` extra.  Parameters: ``players`` (2-5, default 2), ``scoring`` (``uptown`` or
``blockers``, C3) and ``penalty`` (``color`` or ``opponent``, C4).

* **Chance nodes for the draws** (``EXPLICIT_STOCHASTIC``): first every color's five rack tiles, color
  by color in seat order, then one draw after each placement while the color's pile holds tiles (M5).
  A chance outcome is the tile drawn (0-27), uniform over the tiles the color has not drawn.  Explicit
  chance nodes are what OpenSpiel's algorithms expect of a stochastic game: MCTS and ISMCTS sample
  them, the CFR family and the exact evaluators enumerate them, serialization replays them; a sampled
  stochastic game would hide the deal in the state, where none of those can see it.
* **Actions** are :mod:`arena.spaces` ids (1621 of them); a seat with no legal move has one legal action,
  the pass (M6).  A seat whose colors are finished is skipped (E2), as in the arena.
* **Returns** (the utility, zero-sum, terminal): for each seat, the seats it beats minus the seats that
  beat it under the game's scoring (C1-C3), divided by ``players - 1``: +1 for a sole winner of two,
  0 for a shared rank, from -1 to +1 with more players; the sum over seats is 0.
* **Observations** are :mod:`arena.spaces.observations`: the observation tensor and text of rule S2;
  the information state adds every placement in order and the seat's own draws in order (perfect
  recall), and its string is the game's history with the rival colors' draws hidden.
* ``resample_from_infostate`` keeps the seat's own draws and the public moves, and draws every rival
  rack and pile with the arena's own determinization (:meth:`arena.rules.SeatView.sample`).
* ``serialize``/``deserialize`` are OpenSpiel's own for Python games: the history of actions, replayed.

The engine underneath is the arena's (:data:`arena.rules.GameState`, native or pure), so a game played
here is a game of the arena: :func:`arena_draw` draws as the arena's deal of a seed does
(:func:`arena.rules.deal`), :func:`arena_state` is the engine's state and :func:`to_record` the game's
``uptown-game/1`` record.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from arena.envs.extras import require

require("openspiel")

import numpy as np  # noqa: E402
import pyspiel  # noqa: E402

from arena.records.writer import build_record, turn_seats  # noqa: E402
from arena.rules import GameSettings, GameState, Move, SeatView  # noqa: E402
from arena.rules.base import RACK_SIZE, TILES_PLAYED  # noqa: E402
from arena.rules.moves import MoveSet  # noqa: E402
from arena.rules.tiles import COLORS, N_TILES, TILE_NAMES  # noqa: E402
from arena.spaces import (  # noqa: E402
    INFO_STATE_PIECES,
    N_ACTIONS,
    OBSERVATION_PIECES,
    Facts,
    action_id,
    action_move,
    facts,
    legal_ids,
    observation_text,
    observe_into,
    observe_state_into,
    recall_into,
    utility,
)

SHORT_NAME = "python_uptown"
#: The parameters and their defaults.
DEFAULTS: dict[str, Any] = {"players": 2, "scoring": "uptown", "penalty": "color"}
#: Draws after a color's first five: one after each of its placements while its pile holds tiles.
PILE_DRAWS = N_TILES - RACK_SIZE

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Uptown / Blockers! (uptown-arena)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=5,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULTS,
)


def settings_of(params: dict[str, Any] | None) -> GameSettings:
    """The arena's settings for the game's parameters (the standard colors, :meth:`GameSettings.for_players`)."""
    given = {**DEFAULTS, **(params or {})}
    return GameSettings.for_players(int(given["players"]), str(given["scoring"]), str(given["penalty"]))


class UptownGame(pyspiel.Game):
    """Uptown / Blockers! as an OpenSpiel game (see the module's docstring)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        settings = settings_of(params)
        n = settings.players
        placements = TILES_PLAYED * len(settings.colors)
        info = pyspiel.GameInfo(
            num_distinct_actions=N_ACTIONS,
            max_chance_outcomes=N_TILES,
            num_players=n,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            # Between two placements every other seat may pass once; at the end every seat may pass (M6).
            max_game_length=n * placements + n,
        )
        super().__init__(GAME_TYPE, info, {**DEFAULTS, **(params or {})})
        self.settings = settings

    @classmethod
    def for_settings(cls, settings: GameSettings) -> UptownGame:
        """The game of an arena game's settings, whichever colors its seats play."""
        game = cls({"players": settings.players, "scoring": settings.scoring, "penalty": settings.penalty})
        game.settings = settings
        return game

    def new_initial_state(self) -> UptownState:
        return UptownState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> UptownObserver:
        return UptownObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class _Position:
    """The Python side of an :class:`UptownState`: the arena's :data:`~arena.rules.GameState` once the racks are
    dealt, the tiles each color drew in order, and a placement waiting for its draw."""

    __slots__ = ("draws", "engine", "log", "pending", "placements", "settings")

    def __init__(self, settings: GameSettings, draws: dict[int, list[int]] | None = None,
                 engine: GameState | None = None, pending: Move | None = None,
                 placements: list[Move] | None = None, log: list[tuple[int, int]] | None = None) -> None:
        self.settings = settings
        #: ``draws[color]``: the tiles drawn so far, in order.
        self.draws = draws if draws is not None else {c: [] for c in settings.colors}
        self.engine = engine
        #: A placement made whose draw (a chance node) comes next.
        self.pending = pending
        #: Every placement so far, in order (the pending one included).
        self.placements = placements if placements is not None else []
        #: Every action: ``(seat, action id)``, or ``(-1 - color, tile)`` for a draw.
        self.log = log if log is not None else []

    def __deepcopy__(self, memo: dict[int, Any]) -> _Position:
        # Moves and log entries are immutable tuples, settings are frozen: only the lists are new.
        return _Position(self.settings, {c: d[:] for c, d in self.draws.items()},
                         None if self.engine is None else self.engine.copy(), self.pending, self.placements[:],
                         self.log[:])

    def __getstate__(self) -> tuple[Any, ...]:
        return self.settings, self.draws, self.engine, self.pending, self.placements, self.log

    def __setstate__(self, parts: tuple[Any, ...]) -> None:
        self.settings, self.draws, self.engine, self.pending, self.placements, self.log = parts


class UptownState(pyspiel.State):
    """A game of ``python_uptown``: the arena's :data:`~arena.rules.GameState` once the racks are dealt,
    the tiles each color drew in order, and a placement waiting for its draw."""

    def __init__(self, game: UptownGame) -> None:
        super().__init__(game)
        # The whole Python side of the state is one attribute: OpenSpiel clones a Python state by
        # deep-copying each attribute, and a _Position copies itself cheaply.
        self._p = _Position(game.settings)

    # -- OpenSpiel's API ----------------------------------------------------------------------------------

    #: While a history is replayed (:meth:`_rebuilt`): the log replayed and how far; the state itself stays
    #: as it was made until the replay ends and the caller sets it.
    _replay: list[tuple[int, int]] | None = None
    _replay_at = 0

    def current_player(self) -> int:
        # OpenSpiel asks this several times an action: the common case first, no enum looked up.
        engine = self._p.engine
        if engine is None or self._p.pending is not None:
            if self._replay is not None:  # a replay runs on a state made new: no engine yet
                actor = self._replay[self._replay_at][0]
                return _CHANCE if actor < 0 else actor
            return _CHANCE
        if engine.over:
            return _TERMINAL
        return engine.to_move

    def is_terminal(self) -> bool:
        return self._p.engine is not None and self._p.pending is None and self._p.engine.over

    # legal_actions and is_chance_node answered in Python for Python callers: what OpenSpiel's own would
    # answer (its State.LegalActions: nothing once terminal, the outcomes at a chance node, the mover's
    # actions), without two trips through C++ and a list converted there and back.  C++ callers keep
    # OpenSpiel's, which calls current_player, chance_outcomes and _legal_actions.
    def legal_actions(self, player: int | None = None) -> list[int]:
        current = self.current_player()
        if current == _TERMINAL:
            return []
        if current == _CHANCE:
            return [tile for tile, _ in self.chance_outcomes()]
        if player is None or player == current:
            return self._legal_actions(current)
        return []

    def is_chance_node(self) -> bool:
        return self.current_player() == _CHANCE

    def _legal_actions(self, player: int) -> list[int]:
        assert self._p.engine is not None and player == self._p.engine.to_move
        return legal_ids(self._p.engine.legal_moves())

    def _drawing(self) -> int:
        """The color a chance node draws for."""
        if self._p.pending is not None:
            return self._p.pending.color
        return next(c for c in self._p.settings.colors if len(self._p.draws[c]) < RACK_SIZE)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        drawn = self._p.draws[self._drawing()]
        left = [t for t in range(N_TILES) if t not in drawn]
        p = 1.0 / len(left)
        return [(t, p) for t in left]

    def _apply_action(self, action: int) -> None:
        if self._replay is not None:
            self._replay_at += 1
            return
        action = int(action)
        position = self._p
        engine = position.engine
        if engine is None or position.pending is not None:
            self._draw(action)
            return
        move = action_move(action)
        legal = engine.legal_moves()
        if engine.over or (move not in legal and (legal or not move.is_pass)):
            engine.check(move)  # IllegalMove (a ValueError) naming the rule, nothing changed
        position.log.append((engine.to_move, action))
        if move.is_pass:
            engine.push_unchecked(move)
            return
        position.placements.append(move)
        if engine.drawn[move.color] < N_TILES:
            position.pending = move  # M5: its draw is the next chance node
        else:
            engine.push_unchecked(move)

    def _draw(self, tile: int) -> None:
        position = self._p
        move = position.pending
        color = self._drawing() if move is None else move.color
        drawn = position.draws[color]
        if not 0 <= tile < N_TILES or tile in drawn:
            raise ValueError(f"{COLORS[color]} cannot draw {tile}: not a tile of its pile")
        drawn.append(tile)
        position.log.append((-1 - color, tile))
        engine = position.engine
        if engine is None:
            if all(len(position.draws[c]) == RACK_SIZE for c in position.settings.colors):
                position.engine = GameState(position.settings, self._deals())
            return
        assert move is not None
        position.pending = None
        # The engine draws the next tile of its deal: make it this one.  The deal stays as _deals() makes
        # it (the tiles drawn in order, then the rest in tile order): the tile leaves the sorted rest.
        engine.set_next_draw(color, tile)
        engine.push_unchecked(move)

    def _deals(self) -> dict[int, tuple[int, ...]]:
        """Each color's deal as the engine takes it: the tiles drawn in order, then the rest in tile order."""
        deals = {}
        for color, drawn in self._p.draws.items():
            seen = set(drawn)
            deals[color] = (*drawn, *(t for t in range(N_TILES) if t not in seen))
        return deals

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"draw {TILE_NAMES[action]}"
        return str(action_move(action))

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self._p.settings.players
        assert self._p.engine is not None
        return utility(self._p.engine)

    def resample_from_infostate(self, player_id: int, probability_sampler: Callable[[], float]) -> UptownState:
        """A state ``player_id`` cannot tell from this one: its own draws and every move kept, every rival
        color's draws drawn anew by the arena's determinization (:meth:`SeatView.sample`) seeded from
        one number of ``probability_sampler``."""
        rng = random.Random(int(probability_sampler() * 2**53))
        own = self._p.settings.seat_colors[player_id]
        draws = {c: list(d) for c, d in self._p.draws.items()}
        engine = None
        if self._p.engine is not None:
            engine = SeatView.of(self._p.engine, player_id, _NO_MOVES).sample(rng)
            for color in self._p.settings.colors:
                if color not in own:
                    draws[color] = list(engine.deals[color][:len(draws[color])])
        else:
            for color in self._p.settings.colors:
                if color not in own:
                    draws[color] = rng.sample(range(N_TILES), len(draws[color]))
        return self._rebuilt(draws, engine)

    def _rebuilt(self, draws: dict[int, list[int]], engine: GameState | None) -> UptownState:
        """This game with other draws (the same number of each color) and ``engine`` standing for the position."""
        at = {c: 0 for c in draws}
        log = []
        for actor, value in self._p.log:
            if actor < 0:
                color = -1 - actor
                value = draws[color][at[color]]
                at[color] += 1
            log.append((actor, value))
        if engine is None and self._p.engine is not None:
            engine = self._p.engine.copy()
        return _assemble(self.get_game(), _Position(self._p.settings, draws, engine, self._p.pending,
                                                    list(self._p.placements), log))

    def __str__(self) -> str:
        """The whole history: every draw (``red draws A``) and every move (``red:A@A1``, ``pass``)."""
        return ", ".join(_token(actor, value, None) for actor, value in self._p.log)

    # -- what a seat sees -----------------------------------------------------------------------------------

    def seen(self, seat: int, private: bool = True) -> Facts:
        """What ``seat`` sees now (rule S2): its own racks only with ``private``."""
        settings = self._p.settings
        engine = self._p.engine
        if engine is None:
            own = settings.seat_colors[seat] if private else ()
            drawn = tuple(len(self._p.draws.get(c, ())) for c in range(len(COLORS)))
            return Facts(settings, seat, -1, False, (0,) * len(COLORS), {c: tuple(self._p.draws[c]) for c in own},
                         drawn, ((),) * len(COLORS), ((0,) * len(COLORS),) * settings.players, 0)
        return facts(engine, seat, private, self._p.pending is None)

    def observe_into(self, out: np.ndarray, seat: int, private: bool = True) -> np.ndarray:
        """The observation tensor of :meth:`seen` written into ``out`` (from the engine's arrays once the racks
        are dealt); ``out``."""
        engine = self._p.engine
        if engine is None:
            return observe_into(out, self.seen(seat, private))
        return observe_state_into(out, engine, seat, private=private, turn=self._p.pending is None)

    def information_string(self, seat: int, private: bool = True) -> str:
        """The history as ``seat`` remembers it: rival draws hidden as ``?`` (its own only with ``private``)."""
        own = self._p.settings.seat_colors[seat] if private else ()
        return f"seat {seat}: " + ", ".join(_token(actor, value, own) for actor, value in self._p.log)

    def own_draws(self, seat: int) -> dict[int, list[int]]:
        """The tiles ``seat``'s colors drew, in order."""
        return {c: self._p.draws[c] for c in self._p.settings.seat_colors[seat]}


_CHANCE = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)


def _token(actor: int, value: int, own: Sequence[int] | None) -> str:
    if actor >= 0:
        return str(action_move(value))
    color = -1 - actor
    if own is None or color in own:
        return f"{COLORS[color]} draws {TILE_NAMES[value]}"
    return f"{COLORS[color]} draws ?"


_NO_MOVES = MoveSet()


def _assemble(game: UptownGame, position: _Position) -> UptownState:
    """A state of ``game`` whose history is ``position.log``, standing at ``position``: the actions are
    replayed through OpenSpiel (its history and move number), not through the engine."""
    state = game.new_initial_state()
    state._replay = position.log
    for _, value in position.log:
        state.apply_action(value)
    del state._replay, state._replay_at
    state._p = position
    return state


def state_from_view(game: UptownGame, view: SeatView, rng: random.Random) -> UptownState:
    """A state of ``game`` that ``view``'s seat cannot tell from the game it is in: the public moves and its
    own racks as seen, its own colors drawn in the order placed then racked, every rival rack and pile
    drawn by :meth:`SeatView.sample` with ``rng``.  How an arena bot hands its turn to an OpenSpiel bot."""
    settings = view.settings
    if game.settings != settings:
        raise ValueError(f"the game is {game.settings}, the view's {settings}")
    sample = view.sample(rng)
    draws = {c: list(sample.deals[c][:view.drawn[c]]) for c in settings.colors}
    log: list[tuple[int, int]] = []
    at = {}
    for color in settings.colors:
        log += [(-1 - color, tile) for tile in draws[color][:RACK_SIZE]]
        at[color] = RACK_SIZE
    placements = []
    for seat, (move, _) in zip(turn_seats(sample), view.history):
        log.append((seat, action_id(move)))
        if move.is_pass:
            continue
        placements.append(move)
        color = move.color
        if at[color] < N_TILES:
            log.append((-1 - color, draws[color][at[color]]))
            at[color] += 1
    return _assemble(game, _Position(settings, draws, sample, None, placements, log))


class UptownObserver:
    """OpenSpiel's observer of ``python_uptown``: the observation (S2) or, with perfect recall, the
    information state (:mod:`arena.spaces.observations`)."""

    def __init__(self, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"python_uptown's observer takes no parameters, not {params}")
        self._recall = iig_obs_type.perfect_recall
        self._private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        pieces = INFO_STATE_PIECES if self._recall else OBSERVATION_PIECES
        self.tensor = np.zeros(sum(int(np.prod(shape)) for _, shape in pieces), np.float32)
        self.dict: dict[str, Any] = {}
        at = 0
        for name, shape in pieces:
            size = int(np.prod(shape))
            self.dict[name] = self.tensor[at:at + size].reshape(shape)
            at += size

    def set_from(self, state: UptownState, player: int) -> None:
        state.observe_into(self.tensor, player, self._private)
        if self._recall:
            recall_into(self.tensor, state._p.placements, state.own_draws(player) if self._private else {})

    def string_from(self, state: UptownState, player: int) -> str:
        if self._recall:
            return state.information_string(player, self._private)
        return observation_text(state.seen(player, self._private))


def arena_state(state: UptownState) -> GameState:
    """The arena's engine state of a game past its first draws (a copy); ValueError before them."""
    engine = state._p.engine
    if engine is None:
        raise ValueError("the racks are not dealt yet: the game has no arena state")
    return engine.copy()


def arena_draw(state: UptownState, deals: dict[int, Sequence[int]]) -> int:
    """The chance outcome of ``state`` (a chance node) that the arena's deal ``deals`` gives: the next tile
    of the color drawing.  With ``deals = arena.rules.deal(seed, settings)`` the game is the arena's game
    of that seed."""
    color = state._drawing()
    return int(deals[color][len(state._p.draws[color])])


def to_record(state: UptownState, names: Sequence[str], seed: int | None = None) -> dict[str, Any]:
    """The ``uptown-game/1`` record of ``state`` (:func:`arena.records.writer.build_record`): its deal is every
    color's draws in order, then the tiles never drawn in tile order; give ``seed`` only when the draws
    came from that seed's deal (:func:`arena_draw`)."""
    if state._p.pending is not None:
        raise ValueError("a placement waits for its draw: play the chance node first")
    return build_record(arena_state(state), names, seed)


pyspiel.register_game(GAME_TYPE, UptownGame)
