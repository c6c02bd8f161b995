"""Bot specs: a bot and the values given to its options, in one line of text.

::

    REF                      random
    REF:key=value,key=value  mcts:iterations=400,seconds=0.5

where ``REF`` is an entry-point name, ``DIST:NAME`` (the entry point ``NAME``
of the distribution ``DIST``, for a name two distributions register),
``package.module:Name``, ``path/to/file.py:Name`` or ``exec:COMMAND``.  The options part starts after
the last ``:`` that comes before the first ``=``; so a ``REF`` never contains ``=``, and an option
value never contains ``,``.  In ``exec:COMMAND`` the options can only follow the command's last word:
they start at its first ``:`` that an option's name and ``=`` follow, with no quote after it.  Everything
else is the command, whose words may hold ``:`` and ``=`` (``exec:java -XX:MaxMetaspaceSize=64m -cp bots
Bot:depth=2``); a last word that would read as options is quoted (``exec:./bot '-XX:Level=1'``).  Given values are converted to the type of the option's default:
``int``, ``float``, ``bool`` (``true/false/yes/no/1/0``) or ``str``, and checked against its range.
"""

from __future__ import annotations

import math
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.api.options import Option, format_option
from arena.errors import ArenaError

#: The prefix of a bot that is a program: ``exec:COMMAND``.
EXEC_PREFIX = "exec:"
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
#: A distribution's name (PEP 508).
_DIST = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?")
#: How the options of an ``exec:`` command start, in its last word (``bot.js:captures=false``): a name and ``=``.
_OPTIONS_START = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*=")
#: Characters that make a word of a command quoted or escaped: such a word is never options.
_QUOTING = re.compile(r"['\"\\]")
_TRUE = ("true", "yes", "1")
_FALSE = ("false", "no", "0")


class BotError(ArenaError, ValueError):
    """A bot that cannot be used: the message is one line naming the bot and the problem."""

    def __init__(self, ref: str, reason: str) -> None:
        #: The bot as the user wrote it.
        self.ref = ref
        #: What is wrong, without the bot's name.
        self.reason = " ".join(str(reason).split())
        super().__init__(f"bot {ref!r}: {self.reason}")


@dataclass(frozen=True)
class BotSpec:
    """A bot and the values given to its options, e.g. ``mcts:iterations=400``.

    ``given`` holds only the options given (already converted to their
    types); the bot's defaults fill in the rest (:func:`~arena.plugins.loading.bot_options`).
    ``str(spec)`` is the canonical text: options sorted by name.
    """

    ref: str
    given: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        if not self.given:
            return self.ref
        return self.ref + ":" + ",".join(f"{k}={format_option(v)}" for k, v in sorted(self.given.items()))

    def __hash__(self) -> int:
        return hash(str(self))


def split_bot_spec(text: str) -> tuple[str, dict[str, str]]:
    """Split spec text into its ``REF`` and its given values as text, checking only the syntax."""
    if not isinstance(text, str) or not text:
        raise BotError(str(text), "a bot spec is REF or REF:key=value,... and cannot be empty")
    if text.startswith(EXEC_PREFIX):
        ref, rest = _split_exec(text)
    else:
        eq = text.find("=")
        if eq < 0:
            ref, rest = text, None
        else:
            colon = text.rfind(":", 0, eq)
            if colon < 0:
                raise BotError(text, "options follow the bot after a colon, as in mcts:iterations=400")
            ref, rest = text[:colon], text[colon + 1:]
    if not ref:
        raise BotError(text, "the bot is missing before the options")
    _check_ref(ref, text)
    given: dict[str, str] = {}
    if rest is not None:
        for item in rest.split(","):
            key, sep, value = item.partition("=")
            if not sep:
                raise BotError(ref, f"option {item!r} has no value (options are written key=value,key=value)")
            if not key:
                raise BotError(ref, f"option {item!r} has no name (options are written key=value,key=value)")
            if key in given:
                raise BotError(ref, f"option {key!r} is given twice")
            given[key] = value
    return ref, given


def _split_exec(text: str) -> tuple[str, str | None]:
    """``exec:COMMAND[:key=value,...]`` as ``(ref, options text or None)``: the options are only in the
    command's last word, after its first ``:`` that an option's name and ``=`` follow, with no quote after."""
    word = re.split(r"\s", text[len(EXEC_PREFIX):])[-1]
    for found in re.finditer(":", word):
        tail = word[found.end():]
        if _OPTIONS_START.match(tail) and not _QUOTING.search(tail):
            cut = len(text) - len(word) + found.start()
            return text[:cut], text[cut + 1:]
    return text, None


def exec_ref(command: Sequence[str]) -> str:
    """The ``exec:`` ref of a command given as words, read back by :func:`split_bot_spec` as that command
    alone: a last word that would read as options is quoted."""
    text = EXEC_PREFIX + shlex.join(command)
    if _split_exec(text)[1] is None:
        return text
    return EXEC_PREFIX + shlex.join(command[:-1]) + (" " if len(command) > 1 else "") + \
        "'" + command[-1].replace("'", "'\"'\"'") + "'"


def _check_ref(ref: str, text: str) -> None:
    if ref != ref.strip():
        raise BotError(text, "a bot spec may not start or end with spaces")
    if ref.startswith(EXEC_PREFIX):
        if not ref[len(EXEC_PREFIX):].strip():
            raise BotError(text, "the command is missing after exec:")
        return
    where, colon, attr = ref.rpartition(":")
    if not colon:
        return  # an entry-point name
    if not where:
        raise BotError(text, "the module or file is missing before ':'")
    if not _DOTTED.fullmatch(attr):
        raise BotError(
            text,
            f"{attr!r} is not a class name; options are written REF:key=value (e.g. mcts:iterations=400)",
        )
    if not where.endswith(".py") and not _DOTTED.fullmatch(where) and not _DIST.fullmatch(where):
        raise BotError(
            text, f"{where!r} is neither a module name (package.module), a distribution's name nor a .py file",
        )


def convert_given(declared: Mapping[str, Option], ref: str, given: Mapping[str, Any]) -> dict[str, Any]:
    """The ``given`` values converted to the types of the ``declared`` options (a class's, or what a
    bot program said in its handshake) and checked against their ranges; :class:`BotError` for
    unknown or bad ones."""
    checked: dict[str, Any] = {}
    for key, value in given.items():
        option = declared.get(key)
        if option is None:
            takes = ", ".join(sorted(declared)) if declared else "none"
            raise BotError(ref, f"takes no option {key!r} (its options: {takes})")
        checked[key] = _convert(ref, key, option.default, value)
        if not option.allows(checked[key]):
            shown = repr(checked[key]) if isinstance(checked[key], str) else format_option(checked[key])
            raise BotError(ref, f"option {key!r} must be {option.range_text()}, not {shown}")
    return checked


def _convert(ref: str, key: str, default: Any, value: Any) -> Any:
    kind = type(default)
    if isinstance(value, str) and kind is not str:
        text = value.strip().lower()
        if kind is bool:
            if text in _TRUE:
                return True
            if text in _FALSE:
                return False
        elif kind is int:
            if re.fullmatch(r"[+-]?[0-9]+", text):
                return int(text)
        elif kind is float:
            try:
                number = float(text)
            except ValueError:
                pass
            else:
                if math.isfinite(number):
                    return number
    elif kind is bool:
        if isinstance(value, bool):
            return value
    elif kind is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif kind is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            return float(value)
    elif kind is str and isinstance(value, str):
        if "," in value:
            raise BotError(ref, f"option {key!r}: a value may not contain ','")
        return value
    wanted = {bool: "true or false", int: "a whole number", float: "a finite number", str: "text"}[kind]
    raise BotError(ref, f"option {key!r} takes {wanted} (default {format_option(default)}), not {value!r}")
