"""The bot processes a referee keeps between games, by program (isolation ``process``).

A new process costs a start and a handshake; a tournament plays thousands of
games with the same few programs.  So a :class:`BotPool` lends a seat a
process for one game (:meth:`BotPool.borrow`), takes it back after the game
(:meth:`BotPool.give_back`) and keeps a few idle ones per program for the next
games.  No process plays two games of one deal: a bot may learn within a game,
never across the games of a deal (the duplicate format deals the same piles
again).  A process that faulted is killed; one that has played
:data:`RETIRE_GAMES` games is stopped, so the deals it remembers stay few.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TextIO

from arena.play.botprocess import BotProcess, BotProcessError, Program, stop_all
from arena.play.logs import BotLogs
from arena.play.prepared import PreparedBot

log = logging.getLogger("arena.play.referee")

#: Idle processes a pool keeps per program, for games of deals the others have played (a
#: tournament plays each deal once per seating: about one process per seating is enough).
IDLE_PER_PROGRAM = 6
#: Games a process plays before it is replaced (it keeps the seeds of those it played: see ``deals``).
RETIRE_GAMES = 4096


class BotPool:
    """One referee's bot processes: lent to a seat for a game, kept idle between games, stopped by
    :meth:`close`.

    Every process writes its standard error to its bot's log (``logs``), may not see the paths
    ``hide``, copies its protocol lines to ``transcript`` and runs on ``cpu`` (None: any);
    ``time_limit`` is the referee's, given to each handshake.
    """

    def __init__(self, time_limit: float, logs: BotLogs, *, hide: Sequence[str] = (), transcript: TextIO | None = None,
                 cpu: int | None = None) -> None:
        self.time_limit = time_limit
        self.logs = logs
        self.hide = tuple(hide)
        self.transcript = transcript
        self.cpu = cpu
        #: Idle bot processes by program, ready for their next game.
        self.idle: dict[Program, list[BotProcess]] = {}
        #: The walls each bot process got, by program (the last started).
        self.walls: dict[Program, str] = {}

    def launch(self, program: Program, name: str) -> BotProcess:
        """A new process of ``program``, the bot ``name``'s (its log), launched but not yet past its
        handshake.  Raises BotProcessError."""
        process = BotProcess(program, log=self.logs.path(name), hide=self.hide,
                             transcript=self.transcript, cpu=self.cpu)
        process.launch()
        return process

    def keep(self, process: BotProcess) -> None:
        """Keep a process past its handshake, idle, for the first game of its program."""
        self.walls[process.program] = process.walls
        self.idle.setdefault(process.program, []).append(process)

    def borrow(self, player: PreparedBot, seed: int) -> BotProcess:
        """A process of the player's program for a game of the deal ``seed``: an idle one that never
        played that deal, else a new one, launched but not yet past its handshake (:meth:`handshake`).
        Raises BotProcessError."""
        assert player.program is not None
        idle = self.idle.get(player.program, [])
        for index in range(len(idle) - 1, -1, -1):  # the last given back first
            process = idle[index]
            if not process.alive:
                # It ended between games (after its game_over, say): another plays the next.
                del idle[index]
                log.warning("a process of %s ended between games (%s): starting another", player.text,
                            process.ended_text())
                process.kill()
            elif seed not in process.deals:
                del idle[index]
                process.deals.add(seed)
                return process
        process = self.launch(player.program, player.name or player.spec.ref)
        process.deals.add(seed)
        return process

    def handshake(self, player: PreparedBot, process: BotProcess) -> None:
        """The handshake of a process :meth:`borrow` launched, and its options checked (BotProcessError)."""
        assert player.program is not None
        declared = process.handshake(self.time_limit)
        self.walls[player.program] = process.walls
        if {**declared.defaults(), **player.spec.given} != player.options:
            process.stop()
            raise BotProcessError(f"{player.program.text}: declares other options than when it was checked")

    def give_back(self, player: PreparedBot, process: BotProcess, healthy: bool) -> None:
        """A process back after its game: kept idle, or killed after a fault, or stopped once retired."""
        if not (healthy and process.alive and player.program is not None):
            process.kill()  # after a fault: another process plays its next game
            return
        if len(process.deals) >= RETIRE_GAMES:
            process.stop()  # the deals it remembers stay few
            return
        idle = self.idle.setdefault(player.program, [])
        idle.append(process)
        if len(idle) > IDLE_PER_PROGRAM:
            # The one that has played the most deals: the one least likely to be of use for the next.
            most = max(range(len(idle)), key=lambda index: len(idle[index].deals))
            idle.pop(most).stop()

    def close(self) -> None:
        """Stop every idle process."""
        stop_all([process for processes in self.idle.values() for process in processes])
        self.idle.clear()
