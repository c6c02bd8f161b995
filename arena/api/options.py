"""A bot's options, each declared once as an :class:`Option`: its default (whose type is the option's),
the values it may take and one line saying what it does.

Three things are told apart by name throughout the arena: the options a bot *declares*
(``Bot.options``, ``{name: Option}``), the values a user *gives* (spec text or a tournament file:
``given``) and the checked values a bot plays with, defaults filled in (``Bot.config``).
"""

from __future__ import annotations

import json
import math
import re
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arena.errors import shorten

#: The types an option's default may have.
OPTION_TYPES = (bool, int, float, str)
#: The most options a bot may declare (and a program in its ``hello``).
MAX_OPTIONS = 64
#: The longest name, description, option name, option default (as JSON text) and option doc a ``hello`` may hold.
MAX_DECLARED = 200

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_encode = json.JSONEncoder(ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode


def format_option(value: Any) -> str:
    """An option value as it is written in a spec: ``true``/``false``, ``400``, ``0.5``, ``text``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _range_text(low: float | None, high: float | None, choices: tuple[Any, ...] | None) -> str:
    parts = []
    if choices is not None:
        parts.append("one of " + ", ".join(format_option(c) for c in choices))
    if low is not None and high is not None:
        parts.append(f"from {format_option(low)} to {format_option(high)}")
    elif low is not None:
        parts.append(f"at least {format_option(low)}")
    elif high is not None:
        parts.append(f"at most {format_option(high)}")
    return " and ".join(parts) or "any value"


def _allows(low: float | None, high: float | None, choices: tuple[Any, ...] | None, value: Any) -> bool:
    if choices is not None and value not in choices:
        return False
    if low is not None and value < low:
        return False
    return high is None or value <= high


@dataclass(frozen=True)
class Option:
    """One option of a bot: ``Option(400, min=1, doc="playouts per move")``.

    The type of ``default`` is the option's type (``int``, ``float``, ``bool`` or ``str``): a given
    value is converted to it.  ``min`` and ``max`` (numbers only; either may be left out) and
    ``choices`` say which values are valid; ``doc`` is one line for ``arena bots``.  An option that
    cannot be right (a default of another type, outside its own range, ``min`` above ``max`` ...)
    is refused here, with a one-line :class:`ValueError`.
    """

    default: bool | int | float | str
    min: float | None = None
    max: float | None = None
    choices: tuple[Any, ...] | None = None
    doc: str = ""

    def __post_init__(self) -> None:
        default, kind = self.default, type(self.default)
        if kind not in OPTION_TYPES:
            raise ValueError(f"a default must be int, float, bool or str, not {default!r}")
        _check_value(default, "a default")
        if len(_encode(default)) > MAX_DECLARED:
            raise ValueError(f"its default is {len(_encode(default))} characters long as JSON, "
                             f"more than {MAX_DECLARED}")
        for bound in ("min", "max"):
            value = getattr(self, bound)
            if value is None:
                continue
            if kind not in (int, float):
                raise ValueError(f"{bound} is for numbers, not for a {kind.__name__} option")
            if type(value) not in (int, float) or not math.isfinite(value):
                raise ValueError(f"{bound} must be a finite number, not {value!r}")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min {format_option(self.min)} is above max {format_option(self.max)}")
        if self.choices is not None:
            if not isinstance(self.choices, (list, tuple)):
                raise ValueError(f"choices are a tuple of values, not {self.choices!r}")
            choices = tuple(_as_type(kind, c) for c in self.choices)
            if not choices:
                raise ValueError("choices cannot be empty")
            object.__setattr__(self, "choices", choices)
        if not isinstance(self.doc, str):
            raise ValueError(f"doc is one line of text, not {self.doc!r}")
        object.__setattr__(self, "doc", " ".join(self.doc.split()))
        if len(self.doc) > MAX_DECLARED:
            raise ValueError(f"its doc is {len(self.doc)} characters long, more than {MAX_DECLARED}")
        if not self.allows(default):
            raise ValueError(f"the default {format_option(default)} is outside its range ({self.range_text()})")

    @property
    def type(self) -> type:
        """The option's type: its default's."""
        return type(self.default)

    def allows(self, value: Any) -> bool:
        """Whether ``value`` is of the option's type (a whole number will do for a float) and within ``min``,
        ``max`` and ``choices``."""
        kind = type(value)
        if kind is not type(self.default) and not (kind is int and type(self.default) is float):
            return False
        try:
            return _allows(self.min, self.max, self.choices, value)
        except TypeError:
            return False

    def range_text(self) -> str:
        """The valid values in words: ``from 1 to 5``, ``one of calm, wild``, ``at least 0``, ``any value``."""
        return _range_text(self.min, self.max, self.choices)

    def show(self, value: Any = None) -> str:
        """``value`` (its default when None) with the option's range and doc, as ``arena bots`` shows it:
        ``600 (at least 0): iterations per move``."""
        text = format_option(self.default if value is None else value)
        if self.ranged:
            text += f" ({self.range_text()})"
        return text + (f": {self.doc}" if self.doc else "")

    @property
    def ranged(self) -> bool:
        """Whether it limits its values (``min``, ``max`` or ``choices``)."""
        return self.min is not None or self.max is not None or self.choices is not None


def _check_value(value: Any, what: str) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{what} must be a finite number")
    if isinstance(value, str) and "," in value:
        raise ValueError(f"{what} may not contain ','")


def _as_type(kind: type, value: Any) -> Any:
    """A choice of an option of type ``kind`` (an int stands for a float)."""
    if kind is float and type(value) is int:
        value = float(value)
    if type(value) is not kind:
        raise ValueError(f"a choice of a {kind.__name__} option must be a {kind.__name__}, not {value!r}")
    _check_value(value, "a choice")
    return value


# Each class's options, read once: (its options, what they declare).
_declared: weakref.WeakKeyDictionary[type, tuple[Any, dict[str, Option]]] = weakref.WeakKeyDictionary()


def declared_options(cls: type) -> dict[str, Option]:
    """Every option the bot class ``cls`` declares (its ``options``, ``{name: Option}``).

    :class:`ValueError` (one line naming the class and the option) for a declaration that cannot
    be used: not a dict, too many options, a name that is not an identifier, a value that is not
    an :class:`Option`.
    """
    options = getattr(cls, "options", {})
    seen = _declared.get(cls)
    if seen is not None and seen[0] is options:
        return seen[1]
    name = getattr(cls, "__qualname__", None) or repr(cls)
    if not isinstance(options, Mapping):
        raise ValueError(f"{name}.options must be a dict of name -> Option")
    if len(options) > MAX_OPTIONS:
        raise ValueError(f"{name}.options: {len(options)} options, more than {MAX_OPTIONS}")
    found: dict[str, Option] = {}
    for key, value in options.items():
        if not isinstance(key, str) or not _NAME.fullmatch(key):
            raise ValueError(f"{name}.options: {key!r} is not a valid option name")
        if len(key) > MAX_DECLARED:
            raise ValueError(f"{name}.options: an option's name is {len(key)} characters long, "
                             f"more than {MAX_DECLARED}")
        if not isinstance(value, Option):
            raise ValueError(f"{name}.options[{key!r}]: {shorten(value)} is not an Option; "
                             f"declare it as Option(default, min=..., max=..., choices=..., doc=...)")
        found[key] = value
    _declared[cls] = (options, found)
    return found


def defaults(declared: Mapping[str, Option]) -> dict[str, Any]:
    """Every declared option's default: ``{name: default}``."""
    return {key: option.default for key, option in declared.items()}
