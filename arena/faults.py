"""The faults of bots: the kinds there are, the one shape a fault has, and an exception made a fault.

A bot *faults* when it fails in a way the referee contains (see
:mod:`arena.play.referee`): the fault goes into the game record's ``faults``
key (``docs/reference/game-record.md``) and the random fallback plays the seat from then
on.  A fault is a :class:`Fault`: its :class:`FaultKind` and a one-line message.

The kinds are text everywhere they leave the arena: in records, in logs, in the
tournament's fault summary and, for the kinds a bot may name itself, in the
``kind`` of a bot program's ``error`` message (``docs/reference/protocol.md``).
:class:`FaultKind` is a :class:`~enum.StrEnum`, so a kind *is* that text (it
compares, hashes, formats and encodes as JSON as it) and nothing written
changes.

This module is in the arena's lowest layer and imports nothing of the arena but :mod:`arena.errors`:
the bot host, the protocol, the referee's guard and seats, and the tournament's
summaries all name these kinds, and the bot host, which starts for every bot
process, pays for nothing more than ``enum``.
"""

from __future__ import annotations

import os
import traceback
from enum import StrEnum
from typing import Any, NamedTuple, TextIO

from arena.errors import shorten


class FaultKind(StrEnum):
    """What went wrong with a bot, as records, logs and the protocol write it."""

    #: The bot raised an exception; the message is the exception and where in the bot it was raised
    #: (:func:`describe_failure`), the whole traceback goes to the bot's log.  Raised by the guard (in
    #: process) and by the bot host, which names it in its ``error`` message; also what an ``error``
    #: message of a program that names no kind, or one it may not name, counts as.
    EXCEPTION = "exception"
    #: The bot called ``sys.exit`` (``called sys.exit(CODE)``).  The guard and the bot host.
    EXIT = "exit"
    #: The bot raised ``KeyboardInterrupt`` itself (the user's Ctrl-C stops the game instead).  The
    #: guard and the bot host.
    INTERRUPT = "interrupt"
    #: The bot returned something that is not a :class:`~arena.rules.Move`, or making it gave something
    #: that is not a :class:`~arena.bots.Bot`.  The referee's move check, the in-process seat and the
    #: bot host.
    INVALID = "invalid"
    #: The bot returned a Move that is not one of the legal moves (a pass while moves exist included);
    #: the message names the rule it breaks.  The referee's move check.
    ILLEGAL = "illegal"
    #: No answer within the time limit (a program: or it did not take the ``over`` message in time, and
    #: was killed).  The guard (in process) and the program seat (the referee's own clock).
    TIMEOUT = "timeout"
    #: The bot's process ended, or none could be started for the game.  The program seat.
    CRASH = "crash"
    #: The program broke ``uptown-bot/1``: a line that is not JSON, not an answer to the turn, more than
    #: one answer.  The program seat.
    PROTOCOL = "protocol"
    #: The seat ``human`` resigned (``q``, or the end of its input).  The human seat.
    RESIGN = "resign"


class Fault(NamedTuple):
    """One fault of a bot: its kind and its one-line message (a bot's words in it not yet escaped:
    the referee makes them one safe line when it records the fault)."""

    kind: FaultKind
    message: str


def describe_failure(exc: BaseException) -> str:
    """One line for a fault: the exception and where in the bot it was raised."""
    text = " ".join(str(exc).split())
    if len(text) > 200:
        text = text[:197] + "..."
    where = ""
    tb = exc.__traceback__
    if tb is not None:
        while tb.tb_next is not None:
            tb = tb.tb_next
        code = tb.tb_frame.f_code
        where = f" (at {os.path.basename(code.co_filename)}:{tb.tb_lineno} in {code.co_name})"
    return f"{type(exc).__name__}: {text}{where}" if text else f"{type(exc).__name__}{where}"


def fault_of(exc: BaseException, prefix: str = "", log: TextIO | None = None) -> Fault:
    """The fault a bot's exception is: ``exit`` for ``SystemExit``, ``interrupt`` for
    ``KeyboardInterrupt``, else ``exception``, its message after ``prefix``.  The traceback of an
    exception goes to ``log`` (the bot's log) when given."""
    if isinstance(exc, SystemExit):
        return Fault(FaultKind.EXIT, f"{prefix}called sys.exit({exc.code!r})")
    if isinstance(exc, KeyboardInterrupt):
        return Fault(FaultKind.INTERRUPT, prefix + "raised KeyboardInterrupt")
    if log is not None:
        try:
            traceback.print_exception(exc, file=log)
        except (OSError, ValueError):  # the bot may have closed its log
            pass
    return Fault(FaultKind.EXCEPTION, prefix + describe_failure(exc))


def show_value(value: Any) -> str:
    """A value a bot returned, for a fault message, without running any of the bot's code."""
    if value is None or type(value) in (bool, int, float, str):
        return shorten(value, 40)
    return f"a {type(value).__name__}"
