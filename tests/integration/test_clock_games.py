"""Games under a clock: the referee charges each turn, forfeits on time, tells the bot, records the times.

Under both isolations.  The bots' times here are sleeps far from the clocks they run into: no test
depends on how fast the machine is.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from arena import records
from arena.play.referee import play_game
from arena.timecontrol import time_control

FIXTURES = Path(__file__).parents[1] / "fixtures"
CLOCK_BOTS = FIXTURES / "clock_bots.py"
ISOLATIONS = ["none", pytest.param("process", marks=pytest.mark.slow)]


def paced(seconds: float) -> str:
    return f"{CLOCK_BOTS}:PacedBot:seconds={seconds}"


def checked(outcome) -> records.Replay:
    """The outcome's record written and read back: a valid game whose clock key covers every move."""
    game = records.replay(records.loads(records.dumps(outcome.record)))
    assert game.times is not None and len(game.times) == len(game.moves)
    return game


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_every_move_is_charged_to_its_seats_clock_and_recorded(isolation):
    outcome = play_game(["greedy", "random"], 4, time=time_control("30+0.25", limit=5), isolation=isolation)
    game = checked(outcome)
    assert outcome.faults == []
    clock = outcome.record["clock"]
    assert (clock["control"], clock["overage"]) == ("30+0.25", None)
    assert "bank" not in clock
    left: dict[int, float] = {}
    for seat, time in zip(game.seats, game.times, strict=True):
        assert time.used is not None and time.used >= 0
        if seat in left:  # each turn takes its time off and gives the increment (both rounded to the ms)
            assert time.left == pytest.approx(left[seat] - time.used + 0.25, abs=0.0015)
        else:  # the first also paid for making the bot (in this process) or inside its turn (a program)
            assert time.left <= 30 - time.used + 0.25 + 0.001
        left[seat] = time.left
    assert list(outcome.record)[-3:] == ["time_limit", "clock", "faults"]


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_bot_that_runs_out_of_its_clock_loses_on_time_and_the_fallback_plays_on(isolation):
    # 0.1 s a move against a clock of 0.45 s: the fifth turn (move 8 of the game) sleeps past it, if no
    # turn before it ran out (on a slow machine).
    outcome = play_game([paced(0.1), "random"], 3, time=time_control("0.45+0", limit=5), isolation=isolation)
    game = checked(outcome)
    [fault] = outcome.faults
    at = fault["move"]
    assert (fault["seat"], fault["kind"]) == (0, "timeout") and at <= 8
    assert fault["message"].startswith("lost on time: ") and "on its clock (0.45+0)" in fault["message"]
    assert outcome.faulted == {0}
    assert game.times[at].left == 0 and game.times[at].used is not None and game.times[at].used > 0
    # From the fault on, the fallback plays the seat: no time of the bot's, the clock stays where it ran out.
    later = [t for i, s, t in zip(range(len(game.seats)), game.seats, game.times, strict=True) if s == 0 and i > at]
    assert later and all(t.used is None and t.left == 0 for t in later)
    assert outcome.state.over


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_the_overage_bank_lets_turns_run_past_the_limit_until_it_is_spent(isolation):
    # 0.15 s a move, a limit of 0.05 s: each turn takes about 0.1 s of the bank of 0.35 s.
    outcome = play_game([paced(0.15), "random"], 3, time=time_control(overage=0.35, limit=0.05),
                        isolation=isolation)
    game = checked(outcome)
    # The opponent's turns have the same limit of 0.05 s; on a busy machine one may miss it (a fault of its own).
    [fault] = [fault for fault in outcome.faults if fault["seat"] == 0]
    assert fault["kind"] == "timeout"
    assert fault["message"] == "no move within the time limit of 0.05 s and its overage bank (0.35 s in all) spent"
    answered = [t for s, t in zip(game.seats, game.times, strict=True) if s == 0 and t.used is not None]
    # Turns paid for from the bank until it ran out: at most 3 (4 for a program, whose first turn has a
    # longer limit), fewer on a slow machine.
    assert 1 <= len(answered) <= 4
    assert answered[-1].bank < 0.35 or isolation == "process"
    fallback = [t for s, t in zip(game.seats, game.times, strict=True) if s == 0 and t.used is None]
    assert fallback and all(t.bank == 0 for t in fallback)
    assert "left" not in outcome.record["clock"]  # a bank, no game clock
    # Without the bank the first turn past the limit is the fault, as ever.
    plain = play_game([paced(0.15), "random"], 3, time=0.05, isolation=isolation)
    assert [fault["message"] for fault in plain.faults if fault["seat"] == 0] == ["no move within the time limit of 0.05 s"]
    assert "clock" not in plain.record


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_the_bot_is_told_its_clock_at_every_turn(isolation):
    reader = f"{CLOCK_BOTS}:ClockReaderBot"
    outcome = play_game([reader, "random"], 6, time=time_control("20+0.1", 3, limit=5), isolation=isolation)
    assert outcome.faults == []
    # Without a clock it is told none (the turn message as before).
    outcome = play_game([f"{reader}:want=none", "random"], 6, time=5, isolation=isolation)
    assert outcome.faults == []
    outcome = play_game([reader, "random"], 6, time=5, isolation=isolation)
    assert outcome.faults[0]["message"].startswith("ValueError: told no clock: None")


@pytest.mark.slow
def test_a_bot_program_is_not_charged_for_the_time_it_is_frozen_between_turns():
    # The opponent takes 0.03 s a move, 1.4 s in all, while the random bot is frozen: none of it is the random
    # bot's, whose clock goes down by its own turns only.
    outcome = play_game(["random", paced(0.03)], 8, time=time_control("3+0", limit=5), isolation="process")
    game = checked(outcome)
    assert outcome.faults == []
    mine = [t for s, t in zip(game.seats, game.times, strict=True) if s == 0]
    theirs = [t for s, t in zip(game.seats, game.times, strict=True) if s == 1]
    assert sum(t.used for t in theirs) > 1.4
    assert sum(t.used for t in mine) < 0.7 and mine[-1].left > 3 - 0.7


def test_clocks_hold_outside_the_main_thread():
    found = {}

    def play() -> None:
        found["outcome"] = play_game([paced(0.1), "random"], 3, time=time_control("0.25+0", limit=5),
                                     isolation="none")

    thread = threading.Thread(target=play)
    thread.start()
    thread.join(60)
    [fault] = found["outcome"].faults
    assert fault["kind"] == "timeout" and "(0.25+0)" in fault["message"]


def test_a_clock_stops_a_bot_that_would_run_far_past_it():
    # The bot sleeps an hour; a clock of 0.3 s with a limit of 60 s stops it at the clock, not the limit.
    sleeper = f"{FIXTURES / 'bad_bots.py'}:SleepingBot:after=0"
    outcome = play_game([sleeper, "random"], 3, time=time_control("0.3+0", limit=60), isolation="none")
    [fault] = outcome.faults
    assert fault["kind"] == "timeout" and fault["move"] == 0 and "(0.3+0)" in fault["message"]
    assert records.replay(outcome.record).times[0].used < 30


@pytest.mark.slow
def test_mcts_managing_its_own_clock_plays_every_move_in_time():
    outcome = play_game(["mcts:iterations=0,clock_share=0.05", "greedy"], 11, time=time_control("2+0.05", limit=5), isolation="process")
    assert outcome.faults == []
    game = checked(outcome)
    used = [t.used for s, t in zip(game.seats, game.times, strict=True) if s == 0]
    assert sum(used) > 1.0  # it did think: most of its clock went into the search
