"""The one root of the arena's errors, and the two helpers every one-line message uses.

Every error the arena reports to a user — a bad tournament file, a folder that cannot be used, a bot
that cannot be loaded, a record that does not replay — is an :class:`ArenaError` (its classes also
derive from the built-in class they refine, e.g. ``ValueError``, so older ``except`` clauses still
catch them).  The command line turns one into a single line and a non-zero exit in one place
(:meth:`arena.cli.LazyGroup.invoke`); nothing else needs to catch it to print it.
"""

from __future__ import annotations

import difflib
import reprlib
from collections.abc import Iterable

__all__ = ["ArenaError", "did_you_mean", "os_error_line", "shorten"]


class ArenaError(Exception):
    """An error reported in one line: what went wrong and, where it helps, what to do."""


def os_error_line(exc: BaseException) -> str:
    """An ``OSError``'s reason alone (``No such file or directory``), or the exception's text when it has none."""
    return getattr(exc, "strerror", None) or str(exc)


def shorten(value: object, limit: int = 60) -> str:
    """``value`` as ``repr`` shows it, cut to about ``limit`` characters with ``...`` where it was cut.

    >>> shorten("abc")
    "'abc'"
    >>> shorten("x" * 100, limit=10)
    "'xx...xxx'"
    >>> shorten(list(range(100)))
    '[0, 1, 2, 3, 4, 5, ...]'
    """
    short = reprlib.Repr()
    short.maxstring = short.maxother = limit
    short.maxlist = short.maxtuple = short.maxdict = short.maxset = 6
    return short.repr(value)


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """``"did you mean NAME? "`` for the known name ``word`` most looks like (a typo's), else ``""``."""
    near = difflib.get_close_matches(word, list(known), n=1)
    return f"did you mean {near[0]}? " if near else ""
