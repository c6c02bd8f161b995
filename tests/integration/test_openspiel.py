"""python_uptown: OpenSpiel's own checks, the arena's game from a seed, resampling, and OpenSpiel bots as arena bots."""

from __future__ import annotations

import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra is not installed (pip install '.[openspiel]')")

from arena.cli import main  # noqa: E402
from arena.envs.openspiel_game import arena_draw, arena_state, to_record  # noqa: E402
from arena.records.writer import dumps  # noqa: E402
from arena.rules import COLORS, TILE_NAMES, GameSettings, GameState, deal  # noqa: E402
from arena.spaces import action_move  # noqa: E402


@pytest.mark.parametrize("params", ["", "(players=3,scoring=blockers)", "(players=5,penalty=opponent)"])
def test_random_sim_test_with_serialization(params: str) -> None:
    """OpenSpiel's own consistency checks for a game: random playouts, every observation and information
    state of every player, clones, returns, and serialize/deserialize at every state."""
    game = pyspiel.load_game("python_uptown" + params)
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize("players", [2, 3])
def test_python_answers_are_openspiels_own(players: int) -> None:
    """legal_actions (for every player) and is_chance_node answered in Python are what OpenSpiel's C++
    State answers, at every node of a game (the racks' draws, placements, their draws, passes, the end);
    the observation tensor is the arena's observation of the engine's state (S2)."""
    from arena.rules import SeatView
    from arena.spaces import observe

    game = pyspiel.load_game(f"python_uptown(players={players})")
    deals = deal(5, GameSettings.for_players(players))
    rng = random.Random(players)
    state = game.new_initial_state()
    while True:
        assert state.is_chance_node() == pyspiel.State.is_chance_node(state)
        assert state.legal_actions() == pyspiel.State.legal_actions(state)
        for player in range(players):
            assert state.legal_actions(player) == pyspiel.State.legal_actions(state, player)
        engine = state._p.engine
        if engine is not None and not state.is_chance_node():
            for seat in range(players):
                want = observe(SeatView.of(engine, seat))
                assert np.array_equal(np.asarray(state.observation_tensor(seat)), want)
        if state.is_terminal():
            break
        state.apply_action(arena_draw(state, deals) if state.is_chance_node() else rng.choice(state.legal_actions()))
    # Each draw went to the top of the engine's pile: its deal is the draws in order, then the rest in tile order.
    for color, drawn in state._p.draws.items():
        assert state._p.engine.deals[color] == (*drawn, *sorted(set(range(28)) - set(drawn)))


def test_game_description() -> None:
    game = pyspiel.load_game("python_uptown(players=4)")
    assert game.num_players() == 4
    assert game.num_distinct_actions() == 1621 and game.max_chance_outcomes() == 28
    assert game.observation_tensor_size() == 756
    kind = game.get_type()
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    with pytest.raises(Exception):
        pyspiel.load_game("python_uptown(players=6)")


def play(game, seed: int, rng: random.Random):
    """A game of ``game`` with the draws of the arena's deal of ``seed`` and random moves."""
    state = game.new_initial_state()
    deals = deal(seed, game.settings)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(arena_draw(state, deals))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("players", [2, 4])
def test_a_trajectory_is_the_arenas_game_and_its_record_verifies(players: int, cli, tmp_path) -> None:
    """The same seed, the same game: the moves played on the arena's own engine from ``deal(seed)`` give the
    same position, returns by the documented utility, and the record replays with ``arena replay --verify``."""
    game = pyspiel.load_game(f"python_uptown(players={players})")
    seed = 40 + players
    state = play(game, seed, random.Random(players))
    settings = GameSettings.for_players(players)
    arena = GameState(settings, deal(seed, settings))
    for step in state.full_history():
        if step.player >= 0:
            arena.push(action_move(step.action))
    assert arena.over and arena.boards == arena_state(state).boards
    ranks = [row.uptown_rank for row in arena.result()]
    assert state.returns() == [(sum(r > m for r in ranks) - sum(r < m for r in ranks)) / (players - 1) for m in ranks]
    assert sum(state.returns()) == 0
    record = to_record(state, [f"seat{s}" for s in range(players)], seed)
    assert record["deal"] == {COLORS[c]: [TILE_NAMES[t] for t in tiles] for c, tiles in deal(seed, settings).items()}
    path = tmp_path / "game.json"
    path.write_text(dumps(record), encoding="ascii")
    done = cli.invoke(main, ["replay", "--verify", str(path)])
    assert done.exit_code == 0, done.output


def test_resample_keeps_the_information_state() -> None:
    """resample_from_infostate: the same information state string and tensor for the seat, the same public
    facts, other rival racks (the arena's determinization), and a state that plays on."""
    game = pyspiel.load_game("python_uptown(players=3)")
    state = play_until(game, 7, 40)
    seat = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    racks = set()
    for _ in range(5):
        other = state.resample_from_infostate(seat, sampler)
        assert other.information_state_string(seat) == state.information_state_string(seat)
        assert np.array_equal(other.information_state_tensor(seat), state.information_state_tensor(seat))
        assert other.observation_string(seat) == state.observation_string(seat)
        assert other.legal_actions() == state.legal_actions()
        assert moves(other) == moves(state) and len(other.history()) == len(state.history())
        racks.add(tuple(arena_state(other).racks[(seat + 1) % 3]))
        other.apply_action(other.legal_actions()[0])
    assert len(racks) > 1


def moves(state) -> list[int]:
    return [step.action for step in state.full_history() if step.player >= 0]


def play_until(game, seed: int, moves: int):
    rng = random.Random(seed)
    state = game.new_initial_state()
    deals = deal(seed, game.settings)
    made = 0
    while made < moves or state.is_chance_node():
        if state.is_chance_node():
            state.apply_action(arena_draw(state, deals))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
            made += 1
    return state


def test_information_state_hides_rival_draws() -> None:
    game = pyspiel.load_game("python_uptown(players=3)")
    state = play_until(game, 3, 6)
    text = state.information_state_string(0)
    assert "red draws" in text and "blue draws ?" in text and "blue draws ?" not in state.information_state_string(1)


def test_ismcts_plays_python_uptown() -> None:
    """OpenSpiel's ISMCTS runs on the game (it resamples through resample_from_infostate)."""
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("python_uptown")
    state = play_until(game, 2, 10)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)), 2.0, 8,
                           random_state=np.random.RandomState(1))
    assert bot.step(state) in state.legal_actions()


@pytest.mark.slow
def test_openspiel_ismcts_plays_under_the_default_isolation(cli, tmp_path) -> None:
    """``arena play openspiel-ismcts mcts greedy``: pyspiel imports inside the sandbox's walls, the bot's
    options are declared like any bot's, and the game is a valid record."""
    record = tmp_path / "game.json"
    done = cli.invoke(main, ["play", "openspiel-ismcts:simulations=4,uct_c=1.5", "mcts:iterations=20", "greedy",
                             "--seed", "3", "--record", str(record)])
    assert done.exit_code == 0, done.output
    assert "bots ran in" in done.output
    assert cli.invoke(main, ["replay", "--verify", str(record)]).exit_code == 0


def test_openspiel_ismcts_is_seeded() -> None:
    """The same seed, the same moves: ISMCTS resamples with the seat's own generator."""
    from arena.envs.openspiel_bot import IsmctsBot
    from arena.rules import SeatView

    settings = GameSettings.for_players(3)
    moves = []
    for _ in range(2):
        state = GameState(settings, deal(8, settings))
        bot = IsmctsBot(0, settings, {"simulations": 6}, random.Random(5))
        moves.append(bot.choose(SeatView.of(state, 0)))
    assert moves[0] == moves[1] and moves[0] in GameState(settings, deal(8, settings)).legal_moves()


def test_options_are_checked_and_the_missing_extra_is_named(cli, monkeypatch) -> None:
    done = cli.invoke(main, ["play", "openspiel-ismcts:simulations=0", "random"])
    assert done.exit_code != 0 and "simulations" in done.output and "Traceback" not in done.output
    import arena.envs.extras as extras
    from arena.plugins.loading import parse_bot_spec
    from arena.plugins.specs import BotError

    monkeypatch.setattr(extras, "extra_status", lambda extra: (False, "open-spiel missing"))
    with pytest.raises(BotError, match=r"pip install 'uptown-arena\[openspiel\]'"):
        parse_bot_spec("openspiel-ismcts")
