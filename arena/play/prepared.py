"""Bots resolved once, to be made into a fresh bot game after game: their class, or their program."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from typing import Any, NamedTuple

from arena import records
from arena.api import Bot
from arena.api.options import format_option
from arena.inputfiles import special_kind
from arena.play.botprocess import EXEC_PREFIX, BotProcessError, Program, exec_program, python_program
from arena.plugins import BotError, BotSpec, bot_options, load_bot, parse_bot_spec, resolve_ref
from arena.wire import protocol


class PreparedBot(NamedTuple):
    """A bot spec resolved once, to be made into a fresh bot game after game (see :meth:`Referee.prepare`).

    An in-process bot has its class; a bot program (any program, or a Python
    bot under process isolation) has its :class:`~arena.play.botprocess.Program`
    and what it declared in its handshake, and no class: its code never
    runs in the referee.
    """

    spec: BotSpec
    cls: type[Bot] | None
    #: Every option the bot plays with, its defaults filled in.
    options: dict[str, Any]
    #: ``str(spec)``: the spec as the record writes it.
    text: str
    #: The JSON text of the bot's entry in the record's ``bots`` list after its ``"seat"`` member.
    entry_tail: str
    program: Program | None = None
    #: The name its log file is called after (a tournament's entrant name).
    name: str = ""
    #: What a bot program said of itself in its handshake.
    declared: protocol.Declared | None = None
    #: Who the bot is (a tournament's entrants: see :mod:`arena.results.identity`), for the record.
    identity: dict[str, Any] | None = None

    def __str__(self) -> str:
        return self.text


def bot_error(index: int, bot: Any, exc: BotError | BotProcessError) -> BotError:
    """A one-line BotError about the bot at ``index`` (its message said once, not twice)."""
    if isinstance(exc, BotError):
        error = exc
    else:
        ref = bot.ref if isinstance(bot, BotSpec) else str(bot)
        reason = str(exc)
        prefix = f"bot {ref!r}: "
        error = BotError(ref, reason[len(prefix):] if reason.startswith(prefix) else reason)
    error.index = index  # type: ignore[attr-defined]
    return error


def entry_tail(text: str, options: Mapping[str, Any], identity: Mapping[str, Any] | None = None,
               name: str | None = None) -> str:
    """The JSON of a bot's entry in the record's ``bots`` list after its ``"seat"`` member."""
    return records.dumps_line(bot_entry(text, options, identity, name))[1:]


def bot_entry(text: str, options: Mapping[str, Any], identity: Mapping[str, Any] | None = None,
              name: str | None = None) -> dict[str, Any]:
    """A bot's entry in the record's ``bots`` list, without its ``"seat"``; ``name`` is what a bot program
    (``exec:``) declared itself in its handshake, so that a replay can show it rather than its command."""
    entry: dict[str, Any] = {"spec": text}
    if name:
        entry["name"] = name
    entry["options"] = dict(options)
    if identity is not None:
        entry["identity"] = dict(identity)
    return entry


def declared_name(bot: PreparedBot) -> str | None:
    """The name an ``exec:`` bot program declared in its handshake (None for any other bot: a Python bot is
    named by its spec, the same under every isolation)."""
    if bot.declared is None or not bot.text.startswith(EXEC_PREFIX):
        return None
    return bot.declared.name or None


def with_identity(bot: PreparedBot, identity: Mapping[str, Any]) -> PreparedBot:
    """``bot`` with who it is written into its record entry."""
    return bot._replace(identity=dict(identity),
                        entry_tail=entry_tail(bot.text, bot.options, identity, declared_name(bot)))


def prepare_bot(bot: PreparedBot | BotSpec | str) -> PreparedBot:
    """An in-process bot: load and check the bot of a spec (text or :class:`BotSpec`) once.

    A :class:`PreparedBot` is kept as it is.  Raises :class:`~arena.plugins.BotError`
    for a bot that cannot be loaded or options it does not take.  Bots that
    are programs are prepared by :meth:`Referee.prepare`.
    """
    if isinstance(bot, PreparedBot):
        return bot
    spec = bot if isinstance(bot, BotSpec) else parse_bot_spec(bot)
    options = bot_options(spec)
    text = str(spec)
    return PreparedBot(spec, load_bot(spec), options, text, entry_tail(text, options))


def program_of(ref: str, program: Program | None = None, given: Mapping[str, Any] | None = None) -> Program:
    """The program a ref runs as: ``exec:COMMAND``, or ``python -m arena.wire.bothost REF`` for a Python
    bot, whose host checks the ``given`` options against the class before its handshake.

    A bot named by its entry point runs as the ``module:Class`` the name resolves to here, so the
    bot process plays the class the referee chose (a name two distributions register is an error).
    """
    if program is not None:
        return named_files_checked(ref, program)
    if ref.startswith(EXEC_PREFIX):
        return named_files_checked(ref, exec_program(ref))
    where, colon, _ = ref.rpartition(":")
    if colon and where.endswith(".py") and not os.path.isfile(where):
        # Said here as the user wrote it: the bot host is given the file's absolute path.
        raise BotError(ref, f"file {where} not found" if not os.path.exists(where) else f"{where} is not a file")
    return with_given(python_program(resolve_ref(ref)), given)


def named_files_checked(ref: str, program: Program) -> Program:
    """``program``, when no word of its command names a FIFO, a device or a socket (the bot would wait on
    it, or read it without end); a :class:`~arena.plugins.BotError` naming the first that does."""
    base = program.cwd or os.getcwd()
    for index, word in enumerate(program.command):
        if index == 0 and "/" not in word:
            continue  # found through PATH
        kind = special_kind(os.path.join(base, word))
        if kind is not None:
            raise BotError(ref, f"{word}: is {kind}, not a regular file")
    return program


def with_given(program: Program, given: Mapping[str, Any] | None) -> Program:
    """A bot host's program with the given options in its environment (:data:`~arena.wire.bothost.OPTIONS_VARIABLE`),
    for the host to check before its handshake."""
    if not given:
        return program
    from arena.wire.bothost import OPTIONS_VARIABLE

    options = ",".join(f"{key}={format_option(value)}" for key, value in sorted(given.items()))
    return dataclasses.replace(program, env=(*program.env, (OPTIONS_VARIABLE, options)))
