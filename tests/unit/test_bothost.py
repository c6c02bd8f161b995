"""The bot host's side of a turn: its lines read whole from the pipe, parsed by orjson or the standard library
alike, and the view it rebuilds equal to the seat's own, turn after turn."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from arena.api.options import declared_options, defaults
from arena.play.botprocess import ARENA_PARENT
from arena.plugins import load_bot
from arena.rules import PASS, GameSettings, GameState, SeatView, deal, derived_random
from arena.rules.view import TurnClock
from arena.wire import bothost, protocol
from arena.wire.protocol import TurnWriter, ViewReader, bot_seed, game_line, read_game

HOST = "arena_bots.random_bot:RandomBot"


def turn_lines(players: int, seed: int):
    """(state, seat, legal moves, its turn line, its clock) before every turn of a random game that has a move;
    every third turn carries a clock."""
    settings = GameSettings.for_players(players)
    state = GameState(settings, deal(seed, settings))
    writer, rng = TurnWriter(state), derived_random("test-bothost", seed)
    while not state.over:
        moves = state.legal_moves()
        if not moves:
            state.push(PASS)
            continue
        clock = TurnClock(2.5, 30.0 - len(state.history) / 8, 0.25, None, None) if len(state.history) % 3 == 0 else None
        yield state, state.to_move, moves, writer.line(state.to_move, moves, 2.5, clock), clock
        state.push(moves.choice(rng))


PARSERS = {"the host's parse": bothost.parse, "json.loads": json.loads}


@pytest.mark.parametrize("parser", PARSERS.values(), ids=PARSERS.keys())
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_host_rebuilds_the_seats_own_view_turn_after_turn(players, parser):
    """Over many seeded games, the view rebuilt from each parsed line is the view an in-process bot gets."""
    turns = 0
    for seed in range(1, 13):
        readers: dict[int, ViewReader] = {}
        for state, seat, moves, line, clock in turn_lines(players, seed):
            if seat not in readers:
                readers[seat] = ViewReader(read_game(parser(game_line(state.settings, seat, {}, 2.5,
                                                                      bot_seed(seed, seat)))))
            rebuilt = readers[seat].view(parser(line))
            expected = dataclasses.replace(SeatView.of(state, seat, moves), clock=clock)
            assert rebuilt == expected
            assert rebuilt.legal.options == expected.legal.options and list(rebuilt.legal) == list(expected.legal)
            turns += 1
    assert turns > 400


@pytest.mark.parametrize("players", [2, 4])
def test_the_host_reads_each_history_entry_once_and_any_other_layout_whole(players):
    """TurnLines parses only the history's new entries of the referee's lines; a line laid out otherwise
    (here every third one, written again by json.dumps) is parsed whole.  Either way the view is the seat's."""
    turns = 0
    for seed in range(1, 7):
        readers: dict[int, bothost.TurnLines] = {}
        for state, seat, moves, line, clock in turn_lines(players, seed):
            if seat not in readers:
                readers[seat] = bothost.TurnLines(ViewReader(read_game(json.loads(game_line(
                    state.settings, seat, {}, 2.5, bot_seed(seed, seat))))))
            if turns % 3 == 2:
                line = (json.dumps(json.loads(line)) + "\n").encode()
            rebuilt = readers[seat].view(line)
            assert rebuilt == dataclasses.replace(SeatView.of(state, seat, moves), clock=clock)
            turns += 1
    assert turns > 200


def test_the_host_parses_what_orjson_refuses_as_the_standard_library_does():
    line = b'{"type":"game","options":{"big":' + str(2 ** 70).encode() + b',"x":1.5}}\n'
    assert bothost.parse(line) == json.loads(line)


def test_without_orjson_the_host_parses_with_the_standard_library():
    code = ("import sys; sys.modules['orjson'] = None; import json; from arena.wire import bothost; "
            "print(bothost._fast_loads is json.loads, bothost.parse(b'[1]'))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": ARENA_PARENT})
    assert done.stdout.split() == ["True", "[1]"]


def play_host(hide_orjson: bool, seed: int = 3) -> list[bytes]:
    """The answers of a bot host (a subprocess, no sandbox) to seat 0's turns of a seeded game."""
    code = (f"import sys; sys.path.insert(0, {ARENA_PARENT!r}); "
            + ("sys.modules['orjson'] = None; " if hide_orjson else "")
            + "from arena.wire.bothost import main; sys.exit(main())")
    host = subprocess.Popen([sys.executable, "-I", "-c", code, HOST], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert host.stdin is not None and host.stdout is not None
    answers = []
    try:
        host.stdin.write(protocol.HELLO_LINE)
        host.stdin.flush()
        assert json.loads(host.stdout.readline())["type"] == "hello"
        for state, seat, _, line, _ in turn_lines(2, seed):
            if seat == 0:
                # The game's message comes with its first turn, as the referee sends it.
                first = b"" if answers else game_line(state.settings, 0, {}, 2.5, bot_seed(seed, 0))
                host.stdin.write(first + line)
                host.stdin.flush()
                answers.append(host.stdout.readline())
        host.stdin.write(protocol.QUIT_LINE)
        host.stdin.close()
        assert host.wait(10) == 0
    finally:
        host.kill()
    return answers


def test_a_host_with_and_without_orjson_plays_the_same_moves_as_in_process():
    with_orjson, without = play_host(False), play_host(True)
    cls = load_bot("random")
    bot = cls(0, GameSettings.for_players(2), defaults(declared_options(cls)), protocol.bot_random(3, 0))
    expected = [(b'{"type":"move","move":"' + str(bot.choose(SeatView.of(state, 0, moves))).encode() + b'"}\n')
                for state, seat, moves, _, _ in turn_lines(2, 3) if seat == 0]
    assert len(expected) > 10 and with_orjson == without == expected


@pytest.fixture
def sigio_restored():
    """Input blocks and ignores SIGIO in the thread that makes it: as it was again afterwards."""
    mask, handler = signal.pthread_sigmask(signal.SIG_BLOCK, set()), signal.getsignal(signal.SIGIO)
    yield
    signal.signal(signal.SIGIO, handler)
    while signal.sigtimedwait({signal.SIGIO}, 0) is not None:
        pass  # raised by the test's pipe, never taken: it would end this process once unblocked
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)


@pytest.mark.parametrize("signalled", [True, False], ids=["woken by SIGIO", "blocking reads"])
def test_lines_are_read_whole_whatever_pieces_they_come_in(signalled, monkeypatch, sigio_restored):
    if not signalled:
        monkeypatch.setattr(bothost, "_signal_on_input", lambda fd: False)
    read, write = os.pipe()
    big = b'{"pad":"' + b"x" * 200_000 + b'"}\n'
    pieces = [b'{"a":1}\n{"b"', b":2}\n", big[:70_000], big[70_000:], b'{"c":3}\n{"d":4}\n{"last":', b"5}"]

    def writer():
        for piece in pieces:
            time.sleep(0.02)  # the host waits between pieces
            os.write(write, piece)
        os.close(write)

    source = bothost.Input(read)
    assert source.signalled is signalled
    thread = threading.Thread(target=writer)
    thread.start()
    try:
        lines = list(source.lines())
    finally:
        thread.join()
        os.close(read)
    assert lines == [b'{"a":1}\n', b'{"b":2}\n', big, b'{"c":3}\n', b'{"d":4}\n', b'{"last":5}']


def test_no_other_thread_can_take_the_signal_the_reader_waits_for(sigio_restored):
    """The pipe signals the thread that reads it, not the process: a thread that does not block SIGIO (one a
    bot starts as it is imported, or pytest-xdist's own) never gets it, even waiting for it.  Sent to the
    process, such a thread would take one now and then and drop it, and the reader would sleep on with a
    line in the pipe."""
    stop, done, taken = threading.Event(), threading.Event(), []

    def other():
        while not stop.is_set():
            if signal.sigtimedwait({signal.SIGIO}, 0.005) is not None:
                taken.append("SIGIO")

    thief = threading.Thread(target=other)
    thief.start()  # before the Input: SIGIO is not blocked in it
    read, write = os.pipe()
    reader = threading.get_ident()
    lines = [b'{"n":%d}\n' % n for n in range(60)]

    def writer():
        for line in lines:
            time.sleep(0.003)  # the reader waits between lines
            os.write(write, line)
        os.close(write)
        while not done.wait(0.05):
            # A reader left asleep by a signal the other thread took is woken here, so that the test fails
            # on what was taken rather than hangs; the reader reads the pipe before each wait, so a signal
            # more changes nothing.
            signal.pthread_kill(reader, signal.SIGIO)

    source = bothost.Input(read)
    assert source.signalled
    thread = threading.Thread(target=writer)
    thread.start()
    try:
        got = list(source.lines())
    finally:
        done.set()
        thread.join()
        stop.set()
        thief.join()
        os.close(read)
    assert got == lines
    assert taken == []
