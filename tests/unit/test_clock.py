"""Game clocks: the control's text, each seat's clock, the turn message's clock, the record's, mcts's budget."""

from __future__ import annotations

import json
import math
import pickle

import pytest

from arena import records
from arena.play.clock import SeatClock
from arena.ranges import MAX_TIME_LIMIT, LimitError
from arena.rules import GameSettings, GameState, SeatView, TurnClock, deal
from arena.timecontrol import (
    DEFAULT_CONTROL,
    MAX_CLOCK,
    TimeControl,
    as_control,
    parse_clock,
    parse_overage,
    time_control,
)
from arena.wire.protocol import GameStart, TurnWriter, ViewReader, clock_json, parse_line
from bots.mcts import CLOCK_MARGIN, NO_CLOCK_SECONDS, MctsBot, clock_budget


@pytest.mark.parametrize(("text", "parsed"), [
    ("60+0.5", (60.0, 0.5, None)),
    ("24/60+0", (60.0, 0.0, 24)),
    ("20", (20.0, 0.0, None)),
    (" 1.5 + 0.25 ", (1.5, 0.25, None)),
    ("40 / 120+1", (120.0, 1.0, 40)),
    (f"{MAX_CLOCK:g}+{MAX_TIME_LIMIT:g}", (MAX_CLOCK, MAX_TIME_LIMIT, None)),
])
def test_a_clock_is_base_plus_increment_with_moves_per_period(text, parsed):
    assert parse_clock(text) == parsed


@pytest.mark.parametrize(("value", "reason"), [
    ("", "is not a clock"),
    ("abc", "is not a clock"),
    ("60+", "is not a clock"),
    ("60+0.5+1", "is not a clock"),
    ("1:30+2", "is not a clock"),
    ("inf+1", "is not a clock"),
    ("nan", "is not a clock"),
    ("0+1", "the base time must be above 0"),
    ("-5+1", "the base time must be above 0"),
    (f"{MAX_CLOCK * 2:g}+0", "the base time must be above 0 and at most 86400"),
    ("60+-1", "the increment must be from 0 to 3600"),
    ("60+5000", "the increment must be from 0 to 3600"),
    ("0/60+1", "the moves per period must be from 1 to 1000"),
    ("5000/60+1", "the moves per period must be from 1 to 1000"),
    (60, 'must be a text such as "60+0.5"'),
    (None, 'must be a text such as "60+0.5"'),
])
def test_a_clock_that_cannot_be_used_is_refused_in_one_line(value, reason):
    with pytest.raises(LimitError, match="^[^\n]*$") as caught:
        parse_clock(value)
    assert reason in str(caught.value)


@pytest.mark.parametrize("value", [0, -1, 0.0, True, "10", math.inf, math.nan, MAX_CLOCK + 1, 10**400])
def test_an_overage_is_seconds_above_zero(value):
    with pytest.raises(LimitError, match="must be a number of seconds above 0"):
        parse_overage(value)
    assert parse_overage(10) == 10.0


def test_a_control_is_written_as_it_is_read():
    control = time_control("24/60+0.5", 10)
    assert control == TimeControl(60.0, 0.5, 24, 10.0)
    assert control.clock_text == "24/60+0.5"
    assert parse_clock(control.clock_text) == (60.0, 0.5, 24)
    assert str(control) == "clock 24/60+0.5, overage 10 s"
    assert control.record() == {"control": "24/60+0.5", "overage": 10.0}
    assert time_control("0.1+0.05").clock_text == "0.1+0.05"
    assert not DEFAULT_CONTROL.clocked and not time_control().clocked
    assert time_control(overage=1).clocked and time_control("1").clocked
    assert time_control(overage=2).record() == {"control": None, "overage": 2.0}


def test_the_per_move_limit_travels_in_the_control_and_writes_back_as_the_files_keys():
    control = time_control("30+0.5", 3, limit=2.5)
    assert control.limit == 2.5 and control.file_keys() == {"time_limit": 2.5, "clock": "30+0.5", "overage": 3.0}
    assert DEFAULT_CONTROL.file_keys() == {"time_limit": 10.0, "clock": None, "overage": None}
    assert as_control(0.25) == TimeControl(limit=0.25) and as_control(control) is control
    assert control.with_limit(1.0) == time_control("30+0.5", 3, limit=1.0)
    assert TimeControl(limit=float("inf")).record_limit is None and control.record_limit == 2.5
    for bad in (0, -1.0, True, "5"):
        with pytest.raises(ValueError, match="the time limit must be a positive number of seconds"):
            TimeControl(limit=bad)  # type: ignore[arg-type]


def test_a_seat_clock_loses_each_turn_and_gains_the_increment():
    clock = SeatClock(time_control("10+1"))
    assert clock.allowed(5) == 5
    assert clock.charge(2.0, 5) is None
    assert clock.remaining == pytest.approx(9.0)
    assert clock.charge(4.0, 5) is None
    assert clock.remaining == pytest.approx(6.0)
    assert clock.allowed(20) == pytest.approx(6.0)  # never more than the clock has left
    view = clock.view(20)
    assert view == TurnClock(pytest.approx(6.0), pytest.approx(6.0), 1.0, None, None)


def test_running_out_of_the_clock_is_a_timeout_that_names_it():
    clock = SeatClock(time_control("1+0.5"))
    fault = clock.charge(1.25, 5)
    assert fault is not None and fault.kind == "timeout"
    assert fault.message == "lost on time: 1.250 s with 1.000 s left on its clock (1+0.5)"
    assert clock.remaining == 0


def test_moves_per_period_add_the_base_again():
    clock = SeatClock(time_control("3/10+0"))
    assert clock.moves_to_go() == 3
    for _ in range(3):
        assert clock.charge(2.0, 10) is None
    assert clock.remaining == pytest.approx(14.0)  # 10 - 6, then 10 more for the next 3 moves
    assert clock.moves_to_go() == 3
    clock.charge(1.0, 10)
    assert clock.view(10).moves_to_go == 2


def test_the_overage_bank_pays_for_turns_past_the_limit_until_it_is_spent():
    clock = SeatClock(time_control(overage=1.0))
    assert clock.allowed(0.5) == 1.5
    assert clock.charge(0.8, 0.5) is None  # 0.3 s from the bank
    assert clock.bank == pytest.approx(0.7)
    assert clock.view(0.5) == TurnClock(pytest.approx(1.2), None, 0.0, pytest.approx(0.7), None)
    fault = clock.charge(1.3, 0.5)
    assert fault is not None and fault.kind == "timeout"
    assert fault.message == "no move within the time limit of 0.5 s and its overage bank (1 s in all) spent"
    assert clock.bank == 0


def test_a_clock_and_a_bank_together():
    clock = SeatClock(time_control("2+0", 5))
    assert clock.allowed(1) == 2  # the bank stretches the limit, the clock caps it
    assert clock.charge(1.5, 1) is None
    assert (clock.remaining, clock.bank) == (pytest.approx(0.5), pytest.approx(4.5))
    assert "on its clock (2+0)" in clock.charge(0.6, 1).message


# -- what a bot is told ----------------------------------------------------------


def _state() -> GameState:
    settings = GameSettings.for_players(2)
    return GameState(settings, deal(5, settings))


def test_the_turn_message_tells_the_clock_and_the_bot_host_reads_it_into_the_view():
    state = _state()
    writer = TurnWriter(state)
    moves = state.legal_moves()
    told = TurnClock(1.5, 19.75, 0.2, 3.0, None)
    line = writer.line(0, moves, told.time, told)
    message = parse_line(line)
    assert message["time"] == 1.5
    assert message["clock"] == {"remaining": 19.75, "increment": 0.2, "overage": 3.0, "moves_to_go": None}
    assert json.loads(clock_json(told)) == message["clock"]
    reader = ViewReader(GameStart(0, state.settings, {}, 1.0, 1))
    view = reader.view(message)
    assert view.clock == told
    # A game without a clock writes no clock member (the message as before), and the view has none.
    plain = parse_line(TurnWriter(state).line(0, moves, 1.0))
    assert "clock" not in plain
    assert ViewReader(GameStart(0, state.settings, {}, 1.0, 1)).view(plain).clock is None


def test_a_view_with_a_clock_pickles_and_the_default_is_none():
    state = _state()
    assert SeatView.of(state, 0).clock is None
    from arena.rules.view import turn_view

    view = turn_view(state, 0, state.legal_moves(), state.settings, ((0,) * 5, (0,) * 5), TurnClock(1, 2, 0, None, 3))
    again = pickle.loads(pickle.dumps(view))
    assert again.clock == TurnClock(1, 2, 0, None, 3)


# -- the record's clock key -------------------------------------------------------------


def test_move_times_are_read_from_the_clock_key_and_anything_else_is_ignored():
    clock = {"control": "1+0", "overage": None, "used": [0.5, None], "left": [0.5, 1.0]}
    assert records.move_times(clock, 2) == (records.MoveTime(0.5, 0.5, None), records.MoveTime(None, 1.0, None))
    for bad in (None, [], {"used": [0.5]}, {"used": [0.5, "x"]}, {"used": [0.5, -1]}, {"used": [1, 1], "left": 3},
                {"used": [True, 1]}, {"used": [1, 1], "bank": [1, None]}):
        assert records.move_times(bad, 2) is None


# -- mcts's budget -----------------------------------------------------------------------


def test_mcts_spends_its_share_of_the_clock_and_most_of_the_increment():
    budget = clock_budget(TurnClock(10.0, 20.0, 0.5, None, None), 0.05)
    assert budget == pytest.approx(20 * 0.05 + 0.8 * 0.5 - CLOCK_MARGIN)
    # Never more than half of what is left, nor of what this turn may take.
    assert clock_budget(TurnClock(10.0, 1.0, 5.0, None, None), 0.05) == pytest.approx(0.5 - CLOCK_MARGIN)
    assert clock_budget(TurnClock(0.4, 100.0, 0.0, None, None), 0.5) == pytest.approx(0.2 - CLOCK_MARGIN)
    # A period: an even part over the moves to go.
    assert clock_budget(TurnClock(100.0, 30.0, 0.0, None, 10), 0.5) == pytest.approx(3.0 - CLOCK_MARGIN)
    assert clock_budget(TurnClock(0.01, 0.01, 0.0, None, None), 0.05) == 0.0
    # No clock: another budget bounds the search, else a second.
    assert clock_budget(None, 0.05, bounded=True) == math.inf
    assert clock_budget(None, 0.05) == NO_CLOCK_SECONDS


def test_mcts_needs_some_budget():
    with pytest.raises(ValueError, match="clock_share"):
        MctsBot.check_options({**{k: o.default for k, o in MctsBot.options.items()}, "iterations": 0})
    MctsBot.check_options({**{k: o.default for k, o in MctsBot.options.items()}, "iterations": 0, "clock_share": 0.1})
