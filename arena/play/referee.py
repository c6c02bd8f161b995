"""The referee: plays games between bots and contains every kind of bot failure.

:meth:`Referee.play` deals a game from its seed, makes a fresh bot for every
seat, hands each seat only its own view, and returns the finished game, whose
``uptown-game/1`` record is made when first asked for (or written straight to
its JSON line, as a tournament does).  A :class:`Referee` plays one game after
another and keeps its bot processes between them (a tournament worker keeps
one); :func:`play_game` plays a single game.

Where bots run (``isolation``):

* ``"process"`` (the default): every bot is a program of its own in the
  sandbox (:mod:`arena.isolation.sandbox`), spoken to in ``uptown-bot/1``
  (:mod:`arena.wire.protocol`, :mod:`arena.play.botprocess`); a Python bot runs under
  the bot host (:mod:`arena.wire.bothost`).  The referee runs none of a bot's
  code and reads nothing from it but checked JSON lines, and never waits on
  a bot without a deadline.  Its own wall clock times each turn, from the
  start of writing the question to reading the answer; at the limit, or when
  the bot ends or breaks the protocol, the bot and everything it started are
  killed, and another process plays its next game.  A bot is frozen between
  its turns, and no process of it plays two games of one deal: a bot may
  learn within a game, never across the games of a deal.
* ``"none"``: Python bots run in this process, called under the guard of
  :mod:`arena.play.guard` (an interval timer, a stdout sink, Ctrl-C told apart),
  each seat with its own copy of the settings.  For trusted code: such a bot
  can read and change anything in this process.  A bot that forks, starts a
  program or sends a signal trips an audit hook, and the game is played again
  with every bot in a process of its own.

What the referee guarantees either way:

* **Faults never stop the game.**  A bot that raises, calls ``sys.exit``,
  raises ``KeyboardInterrupt`` itself, returns something that is not a
  :class:`~arena.rules.Move`, returns an illegal move (a pass while moves
  exist included), runs past the per-move time limit, ends, or (a program)
  breaks the protocol is *faulted*: the fault (seat, 0-based move index,
  kind, message) goes into the record's ``faults`` list, and from that move on
  the seat's moves are drawn uniformly from the legal moves by a generator
  seeded from the game seed and the seat
  (``derived_random("uptown-fallback/1", seed, seat)``).  The bot is not asked
  again, nor told the result.  The record stays a valid game.
* **Moves are checked** against the referee's own legal moves, comparing
  exact ints only, so no code of a bot runs in the check
  (:func:`~arena.rules.state.legal_in`).  An illegal move's fault says the
  rule it breaks, as :meth:`~arena.rules.GameState.check` names it.
* **Determinism.** Same seed, same bots and options: the same record, byte
  for byte, with either isolation, as long as no bot runs into the time
  limit.  Timing stays out of the record (it is in :attr:`GameOutcome.seconds`),
  but for a game with a clock: its record's ``clock`` key holds each move's time.
* **Clocks.** With a game clock (:mod:`arena.play.clock`), every bot seat's turns are
  charged to a clock of its own (the same wall time, from sending the turn to reading
  the answer; never the time it is frozen between turns), and a turn may run past the
  per-move limit by what is left of the overage bank; a bot out of time is faulted
  (``timeout``, naming the clock) and the fallback plays on.

A seat with no legal move passes (M6) without its bot being asked.

The seat ``human`` (:mod:`arena.play.human`) is a person at the terminal: trusted,
it is played in this process under either isolation (the bots keep theirs),
with no time limit; resigning is its fault of kind ``resign``.
"""
from __future__ import annotations

import functools
import logging
import os
import signal
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Self, TextIO, TypedDict, Unpack

from arena.isolation.cpus import KeptToCpu, current_cpu
from arena.play.botprocess import EXEC_PREFIX, BotProcess, BotProcessError, Program
from arena.play.game import Game
from arena.play.guard import Guard, ThreadGuard, Tripwire
from arena.play.human import HUMAN, Terminal
from arena.play.logs import BotLogs
from arena.play.logs import log_name as log_name  # where it was first: arena play names its logs with it
from arena.play.outcome import GameOutcome
from arena.play.pool import BotPool
from arena.play.prepared import PreparedBot, bot_error, entry_tail, prepare_bot, program_of
from arena.play.setup import GameSetup
from arena.plugins import BotError, BotSpec, convert_given, split_bot_spec
from arena.ranges import ISOLATIONS
from arena.rules import GameSettings, GameState, Move, deal
from arena.timecontrol import DEFAULT_CONTROL, TimeControl, as_control
from arena.wire import protocol

log = logging.getLogger("arena.play.referee")

#: The stream of a bot's own generator: ``derived_random(BOT_STREAM, seed, seat)`` with public deals.
BOT_STREAM = protocol.SEED_STREAM
#: The extra keys the referee writes into every record.
RECORD_KEYS = ("bots", "time_limit", "clock", "faults")
# -- one game ----------------------------------------------------------------------


# A tournament plays each deal once per seat rotation, one after the other: a deal is
# made once per seed.  The cache holds only tuples, so no game can change another's deal.
_KEPT_DEALS = 32
_deals: dict[tuple[Any, ...], dict[int, tuple[int, ...]]] = {}


def _deal(seed: int, settings: GameSettings) -> dict[int, tuple[int, ...]]:
    """``deal(seed, settings)``, from the cache when the same seed was dealt lately."""
    key = (seed, settings.seat_colors, deal)  # the function too: tests replace it
    found = _deals.get(key)
    if found is None:
        if len(_deals) >= _KEPT_DEALS:
            _deals.clear()
        found = _deals[key] = {color: tuple(tiles) for color, tiles in deal(seed, settings).items()}
    return dict(found)


@functools.lru_cache(maxsize=64)
def _settings(players: int, scoring: str, penalty: str) -> GameSettings:
    """The standard settings, made once: they are frozen, and checking them costs more than a move."""
    return GameSettings.for_players(players, scoring, penalty)


class Referee:
    """Plays games one after another: its clock, its bot processes, its stdout sink and its Ctrl-C handling.

    ::

        with Referee(2.0) as referee:
            outcome = referee.play(["greedy", "random", "random"], seed=7)
        referee.close()

    ``time`` is the :class:`~arena.timecontrol.TimeControl` every bot seat gets (its per-move limit,
    game clock and overage bank), or a per-move limit in seconds alone (``math.inf`` for none).
    ``isolation`` is ``"process"`` (every bot a program in the sandbox, the
    default) or ``"none"`` (Python bots in this process: for trusted code, see
    the module docstring; programs still run as processes).  Bot processes
    are kept between games (a few per bot: one never plays two games of a
    deal, see :class:`~arena.play.pool.BotPool`) and stopped by :meth:`close`; their standard
    error is appended to ``logs/NAME.log`` (:func:`log_name`) when ``logs``
    names a folder; ``hide`` are paths the bots must not see (the results
    being written, a transcript).

    The timer and signal handlers are set when the block is entered and given
    back when it is left, so a tournament worker sets them once for many
    games.  :func:`play_game` plays a single game in a Referee of its own.
    """

    def __init__(self, time: TimeControl | float = DEFAULT_CONTROL, *, isolation: str = "process",
                 logs: str | os.PathLike[str] | None = None, hide: Sequence[str] = (),
                 transcript: TextIO | None = None, pin: bool = True, terminal: Terminal | None = None) -> None:
        if isolation not in ISOLATIONS:
            raise ValueError(f"isolation is one of {', '.join(ISOLATIONS)}, not {isolation!r}")
        #: The time every bot seat gets.
        self.time = as_control(time)
        self.isolation = isolation
        self.logs = None if logs is None else os.fspath(logs)
        self.hide = tuple(os.fspath(p) for p in hide) + ((self.logs,) if self.logs else ())
        self._guard: Guard | None = None
        self._isolated: Referee | None = None
        #: Where every protocol line is copied (see :attr:`~arena.play.botprocess.BotProcess.transcript`).
        self.transcript = transcript
        #: The CPU its bot programs run on, and the referee's thread while it plays (None: any).
        self.cpu = current_cpu() if pin and isolation == "process" else None
        self._kept: KeptToCpu | None = None
        self._logs = BotLogs(self.logs)
        #: Its bot processes, kept between games.
        self.pool = BotPool(self.time.limit, self._logs, hide=self.hide, transcript=transcript, cpu=self.cpu)
        #: The walls each bot process got, by program (the last started).
        self.walls: dict[Program, str] = self.pool.walls
        #: Where the seat ``human`` reads and draws the game (default: standard input and output).
        self.terminal = terminal

    def __enter__(self) -> Self:
        if self._guard is not None:
            raise RuntimeError("this Referee is already in use")
        in_main = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
        time = self.time
        guard = Guard(time.limit, time.clocked) if in_main else ThreadGuard(time.limit, time.clocked)
        guard.__enter__()
        self._guard = guard
        if self.isolation == "none":
            Tripwire.install()
            Tripwire.guard = guard
        if self.cpu is not None:
            # While it plays, the referee's thread keeps to its bots' CPU: a turn is a round trip
            # between them, and waking a process on another CPU costs more than the rest of it.
            self._kept = KeptToCpu(self.cpu).__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        kept, self._kept = self._kept, None
        if kept is not None:
            kept.__exit__(*exc)
        guard, self._guard = self._guard, None
        if guard is not None:
            if Tripwire.guard is guard:
                Tripwire.guard = None
            guard.__exit__(*exc)

    def close(self) -> None:
        """Stop every bot process this referee keeps, and close the logs of its in-process bots."""
        self._logs.close()
        self.pool.close()
        if self._isolated is not None:
            self._isolated.close()

    def log_path(self, bot: PreparedBot) -> str | None:
        """The log (standard error) of a bot this referee prepared, or None when it keeps no logs."""
        return self._logs.path(bot.name or bot.spec.ref)

    # Bot processes -------------------------------------------------------------------

    def prepare(self, bot: PreparedBot | BotSpec | str, *, name: str = "", program: Program | None = None) -> PreparedBot:
        """Resolve a bot once: its class in-process (``isolation="none"``), else start its program,
        shake hands and check the options against what it declares (the process is kept for its
        first game).  ``program`` gives the command of an entrant that names one.

        Raises :class:`~arena.plugins.BotError` (one line) for a bot that cannot be used.
        """
        return self.prepare_all([(bot, name, program)])[0]

    def prepare_all(self, bots: Sequence[tuple[PreparedBot | BotSpec | str, str, Program | None]]) -> list[PreparedBot]:
        """:meth:`prepare` for ``(bot, name, program)`` triples, their programs started all at once.

        A :class:`~arena.plugins.BotError` carries ``index``: the position of the bot it is about.
        """
        prepared: list[PreparedBot | None] = []
        waiting: list[tuple[int, str, dict[str, Any], str, BotProcess]] = []
        try:
            for index, (bot, name, program) in enumerate(bots):
                try:
                    if isinstance(bot, PreparedBot):
                        prepared.append(bot)
                        continue
                    ref, given = (bot.ref, dict(bot.given)) if isinstance(bot, BotSpec) else split_bot_spec(bot)
                    if ref == HUMAN:
                        if given:
                            raise BotError(ref, "a human seat takes no options")
                        prepared.append(PreparedBot(BotSpec(HUMAN, {}), None, {}, HUMAN, entry_tail(HUMAN, {}),
                                                    None, name or HUMAN))
                        continue
                    if program is None and self.isolation == "none" and not ref.startswith(EXEC_PREFIX):
                        prepared.append(prepare_bot(bot)._replace(name=name or ref))
                        continue
                    process = self.pool.launch(program_of(ref, program, given), name or ref)
                except (BotError, BotProcessError) as exc:
                    raise bot_error(index, bot, exc) from None
                waiting.append((index, ref, given, name or ref, process))
                prepared.append(None)
            while waiting:
                index, ref, given, name, process = waiting[0]
                try:
                    declared = process.handshake(self.time.limit)
                    checked = convert_given(declared.options, ref, given)
                except (BotError, BotProcessError) as exc:
                    raise bot_error(index, ref, exc) from None
                waiting.pop(0)
                self.pool.keep(process)
                spec = BotSpec(ref, checked)
                options = {**declared.defaults(), **checked}
                text = str(spec)
                shown = declared.name if ref.startswith(EXEC_PREFIX) else None
                prepared[index] = PreparedBot(spec, None, options, text, entry_tail(text, options, None, shown),
                                              process.program, name, declared)
        finally:
            for *_, process in waiting:
                process.stop()
        return [p for p in prepared if p is not None]

    def _isolated_referee(self) -> Referee:
        """A referee of the same settings with every bot in a process of its own, inside its block."""
        if self._isolated is None:
            self._isolated = Referee(self.time, isolation="process", logs=self.logs, hide=self.hide)
        isolated = self._isolated
        if isolated._guard is None:
            isolated.__enter__()
            # Left with this referee's block: its guard nests inside this one's.
            assert self._guard is not None
            self._guard._saved.append((lambda: isolated.__exit__(None, None, None),))
        return isolated

    def play(
        self,
        bots: Sequence[PreparedBot | BotSpec | str],
        seed: int,
        *,
        scoring: str = "uptown",
        penalty: str = "color",
        names: Sequence[str] | None = None,
        extra: Mapping[str, Any] | None = None,
        on_move: Callable[[GameState, Move], None] | None = None,
        deal_key: str | None = None,
    ) -> GameOutcome:
        """Play one game: seat ``i`` is played by a fresh bot made from ``bots[i]``.

        The deal comes from ``seed`` (:func:`arena.rules.deal`); each bot gets the ``seed``
        :func:`~arena.wire.protocol.bot_seed` makes of it, its seat and ``deal_key`` (the
        tournament's secret key; None for public deals), and the generator made of that.
        ``names`` are the players' names in the record (default: the spec texts);
        ``extra`` keys are added to the record after the referee's own.
        ``on_move(state, move)`` is called after every move, passes included.

        Raises ValueError for a bad number of bots, settings, names or seed,
        and :class:`~arena.plugins.BotError` for a bot that cannot be loaded.
        """
        guard = self._guard
        if guard is None:
            raise RuntimeError("a Referee plays games inside its with block")
        settings, players, names = self._game_of(bots, seed, scoring, penalty, names, extra)
        state = GameState(settings, _deal(seed, settings))
        label = str((extra or {}).get("game_id") or f"a game of {len(players)} players")
        setup = GameSetup(players, names, seed, label, self.time, deal_key, extra)
        game = Game(state, setup, guard=guard, pool=self.pool, logs=self._logs, terminal=self.terminal)
        Tripwire.tripped = ""
        result = game.play(on_move)
        if Tripwire.tripped:
            event, Tripwire.tripped = Tripwire.tripped, ""
            log.warning("a bot called %s in process: the game of seed %d is played again with every bot in a "
                        "process of its own", event, seed)
            return self._isolated_referee().play(
                [p.spec for p in players], seed, scoring=scoring, penalty=penalty, names=names, extra=extra,
                on_move=on_move, deal_key=deal_key,
            )
        return GameOutcome(state, setup, result, game.faults, game.faulted_seats(), game.seat_times(), game.clock_record())

    def _game_of(self, bots: Sequence[PreparedBot | BotSpec | str], seed: int, scoring: str, penalty: str,
                 names: Sequence[str] | None, extra: Mapping[str, Any] | None,
                 ) -> tuple[GameSettings, list[PreparedBot], list[str]]:
        """A game's settings, prepared players and names, checked (ValueError, BotError: see :meth:`play`)."""
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"a seed is an integer, not {seed!r}")
        settings = _settings(len(bots), scoring, penalty)
        players = [self.prepare(bot) for bot in bots]
        names = [p.text for p in players] if names is None else [str(name) for name in names]
        if len(names) != len(players):
            raise ValueError(f"{len(players)} bots need {len(players)} names, not {len(names)}")
        clash = set(extra or ()) & set(RECORD_KEYS)
        if clash:
            raise ValueError(f"extra key(s) {', '.join(sorted(clash))} are written by the referee")
        return settings, players, names


class GameOptions(TypedDict, total=False):
    """The keywords of :meth:`Referee.play` that :func:`play_game` passes on (see there)."""

    scoring: str
    penalty: str
    names: Sequence[str] | None
    extra: Mapping[str, Any] | None
    on_move: Callable[[GameState, Move], None] | None


def play_game(
    specs: Sequence[PreparedBot | BotSpec | str],
    seed: int,
    *,
    time: TimeControl | float = DEFAULT_CONTROL,
    isolation: str = "process",
    logs: str | os.PathLike[str] | None = None,
    **game: Unpack[GameOptions],
) -> GameOutcome:
    """Play one game in a :class:`Referee` of its own, made with ``time``, ``isolation`` and ``logs``; ``game`` are the keywords of :meth:`Referee.play` (``scoring``, ``penalty``, ``names``,
    ``extra``, ``on_move``).

    Raises ValueError for a bad number of bots, settings, names, seed or time
    limit, and :class:`~arena.plugins.BotError` for a bot that cannot be used.
    """
    referee = Referee(time, isolation=isolation, logs=logs)
    try:
        with referee:
            return referee.play(specs, seed, **game)
    finally:
        referee.close()
