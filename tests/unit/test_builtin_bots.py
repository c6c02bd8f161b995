"""The built-in bots: legal play for 2-5 players, determinism, options, passes, and greedy's strength."""

from __future__ import annotations

import pytest
from arena_bots.greedy import GreedyBot, move_costs
from arena_bots.lookahead import LookaheadBot, ranked_moves
from arena_bots.mcts import (
    LOOKAHEAD_WIDTH,
    MAX_ROOT,
    MctsBot,
    PySearch,
    reward,
    root_moves,
    root_width,
    seat_state,
    widest_root,
)

from arena.play.referee import play_game
from arena.plugins import load_bot, parse_bot_spec
from arena.rules import PASS, GameSettings, GameState, Move, SplitMix64, cell_index, deal, derived_random, tile_index
from arena.rules.engine import ENGINE, NativeSearch
from arena.rules.playout import play_out
from arena.rules.state import GameState as PureGameState
from arena.rules.view import SeatView

# Small budgets keep the search bot fast enough for the suite.
SEARCH = "mcts:iterations=6"
BOTS = ["greedy", "lookahead", SEARCH]


def play(specs: list[str], seed: int, **kw):
    """A game with the bots in this process (what is tested is their play, not their isolation)."""
    outcome = play_game([parse_bot_spec(s) for s in specs], seed, isolation="none", **kw)
    assert outcome.faults == [], outcome.faults
    return outcome


def restored(players: int, seed: int, boards: dict[int, list[str]], racks: dict[int, list[str]]) -> GameState:
    """A position: the given tiles on the board (as if played), the given racks, the seat of color 0 to move."""
    settings = GameSettings.for_players(players)
    state = GameState(settings, deal(seed, settings))
    cells = [0] * 5
    for color, names in boards.items():
        for name in names:
            cells[color] |= 1 << cell_index(name)
    new_deals = {}
    drawn = {}
    rack_of = {}
    for color in settings.colors:
        rack = [tile_index(t) for t in racks.get(color, [])] or list(state.deals[color][:5])
        # The tiles on the board come first in the deal, as if played; the rest follow.
        on_board = [t for t in state.deals[color] if t not in rack][: len(boards.get(color, []))]
        rest = [t for t in state.deals[color] if t not in rack and t not in on_board]
        new_deals[color] = (*on_board, *rack, *rest)
        drawn[color] = len(on_board) + len(rack)
        rack_of[color] = rack
    history = []
    for color, names in boards.items():
        for name, tile in zip(names, new_deals[color]):
            history.append((Move(color, tile, cell_index(name)), -1))
    return GameState.restore(settings, new_deals, drawn, rack_of, cells, [[0] * 5 for _ in range(players)], 0, 0, history)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.slow
def test_bot_plays_whole_games_legally(bot: str, players: int) -> None:
    # The referee checks every answer; a wrong one would be a fault.
    for seed in (11, 12):
        specs = [bot if seat % 2 == seed % 2 else "random" for seat in range(players)]
        outcome = play(specs, seed)
        assert outcome.state.over


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.slow
def test_bot_is_deterministic_for_a_seed(bot: str) -> None:
    first = play([bot, "greedy", "random"], 5).record
    second = play([bot, "greedy", "random"], 5).record
    assert first["moves"] == second["moves"]


@pytest.mark.slow
def test_mcts_seats_against_each_other_are_deterministic() -> None:
    a = play([SEARCH, SEARCH], 21).record["moves"]
    b = play([SEARCH, SEARCH], 21).record["moves"]
    assert a == b


@pytest.mark.parametrize("cls", [GreedyBot, LookaheadBot, MctsBot])
def test_bot_answers_a_legal_move_on_its_first_turn(cls) -> None:
    for players in (2, 5):
        settings = GameSettings.for_players(players)
        state = GameState(settings, deal(3, settings))
        bot = cls(0, settings, {"iterations": 4} if cls is MctsBot else {}, derived_random("t", 3))
        assert bot.choose(SeatView.of(state, 0)) in state.legal_moves()


def test_builtin_bots_are_found_through_the_entry_points() -> None:
    assert load_bot("greedy") is GreedyBot
    assert load_bot("lookahead") is LookaheadBot
    assert load_bot("mcts") is MctsBot


@pytest.mark.parametrize("cls", [GreedyBot, LookaheadBot, MctsBot])
def test_docstring_explains_the_strategy(cls) -> None:
    lines = cls.__doc__.strip().splitlines()
    assert lines[0] and len(lines) > 5


def test_greedy_joins_two_groups_when_it_can() -> None:
    # Red at E4 and E6, red rack holds the E tile: E5 joins the two groups.
    state = restored(3, 7, {0: ["E4", "E6"]}, {0: ["E", "1", "2", "3", "4"]})
    view = SeatView.of(state, 0)
    assert Move(0, tile_index("E"), cell_index("E5")) in view.legal
    bot = GreedyBot(0, state.settings, {}, derived_random("t", 7))
    assert bot.choose(view) == Move(0, tile_index("E"), cell_index("E5"))


def test_greedy_grows_its_group_rather_than_starting_one() -> None:
    # Red at E5; of the rack's letters only E fits a cell touching it (rows D-F do).
    state = restored(4, 8, {0: ["E5"]}, {0: ["A", "E", "B", "C", "H"]})
    bot = GreedyBot(0, state.settings, {}, derived_random("t", 8))
    move = bot.choose(SeatView.of(state, 0))
    assert move.tile == tile_index("E") and move.cell in (cell_index("E4"), cell_index("E6"))


def test_greedy_keeps_the_wild_tile_when_another_tile_joins_as_well() -> None:
    state = restored(4, 9, {0: ["E5"]}, {0: ["$", "E", "A", "B", "H"]})
    bot = GreedyBot(0, state.settings, {}, derived_random("t", 9))
    assert bot.choose(SeatView.of(state, 0)).tile == tile_index("E")


def test_greedy_costs_cover_every_legal_move() -> None:
    settings = GameSettings.for_players(2)
    state = GameState(settings, deal(4, settings))
    view = SeatView.of(state, 0)
    costs = move_costs(view)
    assert [m for _, m in costs] == list(view.legal)


@pytest.mark.slow
def test_greedy_beats_random() -> None:
    # Over 200 measured games greedy lost none; 9 of 10 leaves room for a rare loss.
    wins = 0.0
    for seed in range(10):
        seat = seed % 2
        specs = ["greedy", "random"] if seat == 0 else ["random", "greedy"]
        result = play(specs, 100 + seed).result
        mine, theirs = result[seat].uptown_rank, result[1 - seat].uptown_rank
        wins += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
    assert wins >= 9


def test_mcts_runs_exactly_its_iteration_budget() -> None:
    settings = GameSettings.for_players(4)
    state = GameState(settings, deal(6, settings))
    for iterations in (1, 7, 20):
        bot = MctsBot(0, settings, {"iterations": iterations}, derived_random("t", 6))
        assert bot.choose(SeatView.of(state, 0)) in state.legal_moves()
        assert bot.last_iterations == iterations


def test_mcts_time_budget_alone_stops_the_search() -> None:
    settings = GameSettings.for_players(2)
    state = GameState(settings, deal(6, settings))
    bot = MctsBot(0, settings, {"iterations": 0, "seconds": 0.05}, derived_random("t", 6))
    assert bot.choose(SeatView.of(state, 0)) in state.legal_moves()
    assert bot.last_iterations >= 1


def test_mcts_same_generator_same_search() -> None:
    settings = GameSettings.for_players(2)
    state = GameState(settings, deal(13, settings))
    view = SeatView.of(state, 0)
    moves = set()
    for _ in range(2):
        bot = MctsBot(0, settings, {"iterations": 30}, derived_random("t", 13))
        moves.add(bot.choose(view))
        assert bot.last_iterations == 30
    assert len(moves) == 1


def test_mcts_with_one_candidate_plays_the_cheapest_move_without_searching() -> None:
    state = restored(3, 7, {0: ["E4", "E6"]}, {0: ["E", "1", "2", "3", "4"]})
    bot = MctsBot(0, state.settings, {"candidates": 1}, derived_random("t", 7))
    assert bot.choose(SeatView.of(state, 0)) == Move(0, tile_index("E"), cell_index("E5"))
    assert bot.last_iterations == 0


def test_mcts_rejects_bad_options() -> None:
    settings = GameSettings.for_players(2)
    rng = derived_random("t", 1)
    with pytest.raises(ValueError, match="playout"):
        MctsBot(0, settings, {"playout": "clever"}, rng)
    with pytest.raises(ValueError, match="budget"):
        MctsBot(0, settings, {"iterations": 0, "seconds": 0.0}, rng)
    with pytest.raises(ValueError):
        MctsBot(0, settings, {"iterations": -1}, rng)


def rollout_greedy(state, rng) -> None:
    play_out(state, SplitMix64(rng.getrandbits(64)), "greedy")


def rollout_random(state, rng) -> None:
    play_out(state, SplitMix64(rng.getrandbits(64)), "random")


@pytest.mark.parametrize("rollout", [rollout_greedy, rollout_random])
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_playouts_reach_the_end_with_legal_moves(rollout, players: int) -> None:
    settings = GameSettings.for_players(players)
    state = GameState(settings, deal(players, settings))
    for _ in range(10):
        state.push(state.legal_moves().choice(derived_random("t", len(state.history))))
    played = state.copy()
    rollout(played, derived_random("t", players))
    assert played.over
    # Replaying the playout move by move through the legal moves accepts every move.
    check = state.copy()
    for move, _ in played.history[len(state.history):]:
        if move == PASS:
            assert not check.legal_moves()
            check.push_pass()
        else:
            assert move in check.legal_moves()
            check.push(move)
    assert check.over


def test_reward_follows_the_scoring() -> None:
    settings = GameSettings.for_players(2)
    state = GameState(settings, deal(2, settings))
    rollout_greedy(state, derived_random("t", 2))
    rewards = reward(state)
    result = state.result()
    assert all(0.0 <= r <= 1.0 for r in rewards)
    if result[0].uptown_rank < result[1].uptown_rank:
        assert rewards[0] > 0.5 > rewards[1]
    elif result[0].uptown_rank > result[1].uptown_rank:
        assert rewards[0] < 0.5 < rewards[1]
    else:
        assert rewards[0] == pytest.approx(rewards[1])


@pytest.mark.slow
def test_options_reach_the_bots_through_specs() -> None:
    outcome = play(["mcts:iterations=3,candidates=4,playout=random", "lookahead:width=2"], 31)
    assert [b["options"]["playout"] if "playout" in b["options"] else b["options"]["width"]
            for b in outcome.record["bots"]] == ["random", 2]


def test_lookahead_of_width_one_keeps_to_greedys_cheapest_moves() -> None:
    settings = GameSettings.for_players(2)
    state = GameState(settings, deal(17, settings))
    for _ in range(20):
        state.push(GreedyBot(state.to_move, settings, {}, derived_random("t", 0)).choose(SeatView.of(state, state.to_move)))
    view = SeatView.of(state, state.to_move)
    costs = move_costs(view)
    low = min(c for c, _ in costs)
    cheapest = {m for c, m in costs if c < low + 1e-9}
    bot = LookaheadBot(state.to_move, settings, {"width": 1}, derived_random("t", 1))
    assert bot.choose(view) in cheapest


@pytest.mark.parametrize("scoring,penalty", [("uptown", "color"), ("blockers", "color"), ("blockers", "opponent")])
def test_reward_ranks_like_the_result(scoring: str, penalty: str) -> None:
    for players in (2, 4):
        settings = GameSettings.for_players(players, scoring, penalty)
        for seed in range(6):
            state = GameState(settings, deal(seed, settings))
            rollout_greedy(state, derived_random("t", seed))
            rewards = reward(state)
            key = "uptown_rank" if scoring == "uptown" else "blockers_rank"
            ranks = [getattr(r, key) for r in state.result()]
            for a in range(players):
                for b in range(players):
                    if ranks[a] < ranks[b]:
                        assert rewards[a] > rewards[b]


native_only = pytest.mark.skipif(ENGINE != "native", reason="the native engine is not built or ARENA_PURE is set")


@native_only
@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("playout", ["greedy", "random"])
@pytest.mark.slow
def test_the_native_search_is_the_python_search_draw_for_draw(players: int, playout: str) -> None:
    # Same seed, same iterations: the same visits and the same summed rewards, to the last bit.
    for seed in (1, 2):
        settings = GameSettings.for_players(players, scoring="blockers" if seed == 2 else "uptown")
        state = PureGameState(settings, deal(seed, settings))
        rng = derived_random("t", seed)
        while len(state.history) < 10 * players:
            state.push(state.legal_moves().choice(rng))
        view = SeatView.of(state, state.to_move)
        allowed = list(view.legal)[:12]
        # A root of 2 moves widening every few iterations: the widening is the same on both sides too.
        pure = PySearch(seat_state(view, PureGameState), view.seat, allowed, 0.7, 1.0, playout, seed, 2, 10)
        native = NativeSearch(seat_state(view, GameState), view.seat, allowed, 0.7, 1.0, playout, seed, 2, 10)
        for _ in range(3):  # in pieces: the tree and the generator carry over between calls
            pure.run(40)
            native.run(40)
            assert native.stats() == pure.stats()
        assert native.done == pure.done == 120


@native_only
@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.slow
def test_mcts_plays_the_same_game_with_either_engine(players: int) -> None:
    specs = ["mcts:iterations=25,engine={}", "greedy", "mcts:iterations=25,candidates=3,engine={}", "random",
             "lookahead"][:players]
    records = []
    for engine in ("native", "pure"):
        outcome = play([s.format(engine) for s in specs], 40 + players)
        records.append([m for m in outcome.record["moves"]])
    assert records[0] == records[1]


@native_only
def test_native_search_refuses_a_search_off_its_turn_or_without_moves() -> None:
    settings = GameSettings.for_players(3)
    state = GameState(settings, deal(3, settings))
    view = SeatView.of(state, 0)
    with pytest.raises(ValueError, match="at least one root move"):
        NativeSearch(seat_state(view, GameState), 0, [], 0.7, 1.0, "greedy", 1)
    with pytest.raises(ValueError, match="own turn"):
        NativeSearch(seat_state(view, GameState), 1, list(view.legal)[:1], 0.7, 1.0, "greedy", 1)
    with pytest.raises(ValueError, match="not legal"):
        NativeSearch(seat_state(view, GameState), 0, [Move(1, 0, 0)], 0.7, 1.0, "greedy", 1)
    with pytest.raises(ValueError, match="random or greedy"):
        NativeSearch(seat_state(view, GameState), 0, list(view.legal)[:1], 0.7, 1.0, "clever", 1)


def test_the_root_widens_as_the_square_root_of_the_iterations() -> None:
    # k * k * widen_root <= base * base * done: 6 moves up to 2,722 iterations done, 7 from 2,723, 24 at 32,000.
    assert root_width(6, 6, 2000, 2722, 64) == 6
    assert root_width(6, 6, 2000, 2723, 64) == 7
    assert root_width(6, 6, 2000, 32000, 64) == 24
    assert root_width(6, 6, 2000, 10**9, 30) == 30  # never more moves than there are
    assert root_width(6, 6, 0, 10**9, 64) == 6  # widen_root 0: a fixed root
    assert root_width(9, 6, 2000, 0, 64) == 9  # it never narrows
    # How many moves a search is given: the width of its last iteration, or MAX_ROOT with a time budget.
    assert widest_root(6, 2000, 600) == 6 and widest_root(6, 2000, 32001) == 24
    assert widest_root(6, 2000, 0) == MAX_ROOT and widest_root(6, 0, 0) == 6


def test_the_root_takes_the_lookaheads_ranking_then_greedys_order() -> None:
    settings = GameSettings.for_players(2)
    view = SeatView.of(GameState(settings, deal(5, settings)), 0)
    greedy_order = [move for _, move in sorted(move_costs(view), key=lambda cm: cm[0])]
    assert len(greedy_order) > MAX_ROOT
    # Ranked by the lookahead: its own order, whatever the width.
    for most in (1, 6, LOOKAHEAD_WIDTH, 40):
        assert root_moves(view, most, most) == [move for _, move in ranked_moves(view, max(most, LOOKAHEAD_WIDTH))][:most]
    # Past the moves ranked, greedy's order: the same moves as greedy's cheapest, the first ones in the lookahead's.
    wide = root_moves(view, MAX_ROOT, 6)
    assert wide[:LOOKAHEAD_WIDTH] == [move for _, move in ranked_moves(view, LOOKAHEAD_WIDTH)]
    assert wide[LOOKAHEAD_WIDTH:] == greedy_order[LOOKAHEAD_WIDTH:MAX_ROOT]


@pytest.mark.parametrize("engine", ["pure", "native"])
def test_a_bigger_budget_searches_a_wider_root(engine: str) -> None:
    if engine == "native" and ENGINE != "native":
        pytest.skip("the native engine is not built or ARENA_PURE is set")
    settings = GameSettings.for_players(2)
    state = GameState(settings, deal(4, settings))
    view = SeatView.of(state, 0)
    seen = []

    class Watched(MctsBot):
        def search(self, view, allowed, deadline=float("inf")):
            seen.append(len(allowed))
            return super().search(view, allowed, deadline)

    for iterations, widen_root in ((40, 20), (40, 0)):
        bot = Watched(0, settings, {"iterations": iterations, "widen_root": widen_root, "candidates": 3,
                                    "engine": engine}, derived_random("t", 9))
        assert bot.choose(view) in view.legal
    # 40 iterations widening from 3 every 20: 3 * sqrt(39 / 20) = 4.19, so 4 moves; without widening 3.
    assert seen == [4, 3]
