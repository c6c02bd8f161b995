"""What starts an entrant's bot: its :class:`~arena.play.botprocess.Program` and what the referee prepares of it.
The entrant itself is plain data (:class:`~arena.plan.tournament.Entrant`), which starts nothing."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Protocol

from arena.isolation.sandbox import Limits
from arena.play.botprocess import Program, exec_program, python_program
from arena.play.prepared import entry_tail, prepare_bot, with_given
from arena.plugins import BotSpec, parse_bot_spec, resolve_ref, split_bot_spec
from arena.plugins.specs import EXEC_PREFIX


class Entrant(Protocol):
    """What starting a bot reads of an entrant (:class:`arena.plan.tournament.Entrant`, which this layer does not
    import: the tournament file's plan sits above the play of a game)."""

    @property
    def name(self) -> str: ...

    @property
    def spec(self) -> str: ...

    @property
    def command(self) -> tuple[str, ...] | None: ...

    @property
    def env(self) -> tuple[tuple[str, str], ...]: ...

    @property
    def memory_mb(self) -> int | None: ...

    def bot(self) -> Any: ...

    def folder(self) -> str: ...

    def bot_file_ref(self) -> tuple[str, str]: ...


def program(entrant: Entrant, isolation: str = "process") -> Program | None:
    """The program of an entrant whose spec or command names one, or that is a Python bot played as a program
    under ``isolation`` although the referee would find it elsewhere by its ref (a relative file); else None."""
    walls = Limits() if entrant.memory_mb is None else Limits(memory_mb=entrant.memory_mb)
    if entrant.command is not None:
        return Program(entrant.command, cwd=entrant.folder(), env=entrant.env, limits=walls)
    ref, loaded = entrant.bot_file_ref()
    if ref.startswith(EXEC_PREFIX):
        return replace(exec_program(ref, limits=walls), cwd=entrant.folder())
    if entrant.memory_mb is not None or (loaded != ref and isolation != "none"):
        return with_given(python_program(resolve_ref(loaded), walls), split_bot_spec(entrant.spec)[1])
    return None


def referee_args(entrant: Entrant, isolation: str) -> tuple[Any, str, Any]:
    """``(bot, name, program)`` for :meth:`~arena.play.referee.Referee.prepare_all` under ``isolation``.

    A relative ``file.py:Name`` bot played in process is loaded from the entrant's ``base`` here, and keeps the
    spec as written in its record.  Raises :class:`~arena.plugins.specs.BotError` for a bot that cannot be
    loaded."""
    found = program(entrant, isolation)
    ref, loaded = entrant.bot_file_ref()
    if found is not None or isolation != "none" or loaded == ref:
        return entrant.bot(), entrant.name, found
    prepared = prepare_bot(parse_bot_spec(loaded + entrant.spec[len(ref):]))
    text = str(BotSpec(ref, prepared.spec.given))
    return prepared._replace(text=text, entry_tail=entry_tail(text, prepared.options), name=entrant.name), \
        entrant.name, None
