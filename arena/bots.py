"""The Bot API, bot specs and discovery through entry points.

A bot is a class.  The referee makes a fresh instance for every game::

    bot = MyBot(seat, settings, options, rng)

and then calls ``bot.choose(view)`` each time its seat is to move, with that
seat's :class:`~arena.rules.view.SeatView` (and nothing else).  The bot
returns one of ``view.legal``'s moves, or :data:`~arena.rules.PASS` when
``view.legal`` is empty.  It may keep state between calls.  When the game is
over the referee calls ``bot.game_over(result)``.

Options are declared in :attr:`Bot.options` as ``{name: default}``; the type
of the default is the type of the option (``int``, ``float``, ``bool``, ``str``).
:attr:`Bot.option_ranges` says which values are valid (:class:`OptionRange`),
and :meth:`Bot.check_options` may check them together; both are checked
when a spec is read, before any game starts.

Bots are found through the entry-point group ``arena.bots`` (:func:`discover`).
A *bot spec* names a bot and its options in one line of text::

    REF                      random
    REF:key=value,key=value  mcts:iterations=400,seconds=0.5

where ``REF`` is an entry-point name, ``DIST:NAME`` (the entry point ``NAME``
of the distribution ``DIST``, for a name two distributions register),
``package.module:Name`` or ``path/to/file.py:Name``.  The options part starts after the last ``:`` that
comes before the first ``=``; so a ``REF`` never contains ``=``, and an option
value never contains ``,``.  Values are converted to the type of the option's
default: ``int``, ``float``, ``bool`` (``true/false/yes/no/1/0``) or ``str``.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import math
import os
import random
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

from arena.rules import GameSettings, Move, SeatResult

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

    from arena.rules.view import SeatView

#: The entry-point group bots are registered in.
GROUP = "arena.bots"
#: The types an option's default may have.
OPTION_TYPES = (bool, int, float, str)

#: The prefix of a bot that is a program: ``exec:COMMAND``.
EXEC_PREFIX = "exec:"
#: The most options a bot may declare (and a program in its ``hello``).
MAX_OPTIONS = 64
#: The longest name, description, option name and option default (as JSON text) a ``hello`` may hold.
MAX_DECLARED = 200
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
#: A distribution's name (PEP 508).
_DIST = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?")
_TRUE = ("true", "yes", "1")
_FALSE = ("false", "no", "0")


@dataclass(frozen=True)
class OptionRange:
    """The values an option may take: from ``min`` to ``max`` (either may be left open), or one of ``choices``."""

    min: float | None = None
    max: float | None = None
    choices: tuple[Any, ...] | None = None

    def allows(self, value: Any) -> bool:
        if self.choices is not None and value not in self.choices:
            return False
        if self.min is not None and value < self.min:
            return False
        return self.max is None or value <= self.max

    def __str__(self) -> str:
        parts = []
        if self.choices is not None:
            parts.append("one of " + ", ".join(format_option(c) for c in self.choices))
        if self.min is not None and self.max is not None:
            parts.append(f"from {format_option(self.min)} to {format_option(self.max)}")
        elif self.min is not None:
            parts.append(f"at least {format_option(self.min)}")
        elif self.max is not None:
            parts.append(f"at most {format_option(self.max)}")
        return " and ".join(parts) or "any value"


class Bot:
    """Base class of every bot.  Subclasses override :meth:`choose`.

    The first line of the class docstring is the bot's one-line description.
    """

    #: The options this bot accepts, with their defaults.
    options: ClassVar[dict[str, Any]] = {}
    #: The values some of its options may take, e.g. ``{"depth": OptionRange(min=1, max=5)}``.
    option_ranges: ClassVar[dict[str, OptionRange]] = {}

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> None:
        """Raise ValueError (its message one line) when ``options`` (every option, defaults filled
        in) do not go together; the default accepts any.  Called before any game starts."""

    def __init__(self, seat: int, settings: GameSettings, options: dict[str, Any], rng: random.Random) -> None:
        #: The seat this bot plays.
        self.seat = seat
        #: The game's settings (players, colors, scoring).
        self.settings = settings
        #: Every declared option, defaults filled in.
        self.config: dict[str, Any] = {**self.options, **options}
        #: The bot's own generator, seeded from the game seed and the seat.
        self.rng = rng

    def choose(self, view: SeatView) -> Move:
        """The move to play, one of ``view.legal`` (or PASS when it is empty)."""
        raise NotImplementedError

    def game_over(self, result: list[SeatResult]) -> None:
        """Called once with the final result; the default does nothing."""


class BotError(ValueError):
    """A bot that cannot be used: the message is one line naming the bot and the problem."""

    def __init__(self, ref: str, reason: str) -> None:
        #: The bot as the user wrote it.
        self.ref = ref
        #: What is wrong, without the bot's name.
        self.reason = " ".join(str(reason).split())
        super().__init__(f"bot {ref!r}: {self.reason}")


@dataclass(frozen=True)
class BotSpec:
    """A bot and the options it plays with, e.g. ``mcts:iterations=400``.

    ``options`` holds only the options given (already converted to their
    types); the bot's defaults fill in the rest (:func:`bot_options`).
    ``str(spec)`` is the canonical text: options sorted by name.
    """

    ref: str
    options: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        if not self.options:
            return self.ref
        return self.ref + ":" + ",".join(f"{k}={format_option(v)}" for k, v in sorted(self.options.items()))

    def __hash__(self) -> int:
        return hash(str(self))


class BotInfo(NamedTuple):
    """A bot found through the entry points."""

    name: str
    #: The entry point's value and the distribution it comes from.
    source: str
    #: The first line of the class docstring.
    description: str
    #: Every option with its default.
    options: dict[str, Any]
    cls: type[Bot]


class PluginFailure(NamedTuple):
    """An entry point of the ``arena.bots`` group that could not be used."""

    name: str
    source: str
    reason: str


# -- bot specs -------------------------------------------------------------------


def format_option(value: Any) -> str:
    """An option value as it is written in a spec: ``true``/``false``, ``400``, ``0.5``, ``text``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def split_bot_spec(text: str) -> tuple[str, dict[str, str]]:
    """Split spec text into its ``REF`` and its options as text, checking only the syntax."""
    if not isinstance(text, str) or not text:
        raise BotError(str(text), "a bot spec is REF or REF:key=value,... and cannot be empty")
    eq = text.find("=")
    if eq < 0:
        ref, rest = text, ""
    else:
        colon = text.rfind(":", 0, eq)
        if colon < 0:
            raise BotError(text, "options follow the bot after a colon, as in mcts:iterations=400")
        ref, rest = text[:colon], text[colon + 1:]
    if not ref:
        raise BotError(text, "the bot is missing before the options")
    _check_ref(ref, text)
    options: dict[str, str] = {}
    if eq >= 0:
        for item in rest.split(","):
            key, sep, value = item.partition("=")
            if not sep:
                raise BotError(ref, f"option {item!r} has no value (options are written key=value,key=value)")
            if not key:
                raise BotError(ref, f"option {item!r} has no name (options are written key=value,key=value)")
            if key in options:
                raise BotError(ref, f"option {key!r} is given twice")
            options[key] = value
    return ref, options


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


def parse_bot_spec(text: str) -> BotSpec:
    """Read ``REF`` or ``REF:key=value,...``; the bot is loaded to check and convert its options.

    Raises :class:`BotError` (one line) for bad syntax, an unknown bot, an
    option the bot does not take or a value of the wrong type.
    """
    ref, raw = split_bot_spec(text)
    return make_bot_spec(ref, raw)


def make_bot_spec(ref: str, options: Mapping[str, Any] | None = None) -> BotSpec:
    """A checked :class:`BotSpec` from a ``REF`` and options given as text or as typed values (TOML)."""
    split_ref, inline = split_bot_spec(ref)
    if inline:
        raise BotError(ref, "give the options apart from the bot, not inside its name")
    cls = load_bot(split_ref)
    return BotSpec(split_ref, check_options(cls, split_ref, options or {}))


def check_options(cls: type[Bot], ref: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` converted to the types of ``cls``'s defaults and checked against its
    :attr:`~Bot.option_ranges` and :meth:`~Bot.check_options`; :class:`BotError` for unknown or bad ones."""
    checked = check_declared(cls.options, ref, options, cls.option_ranges)
    try:
        cls.check_options({**cls.options, **checked})
    except ValueError as exc:
        raise BotError(ref, f"options: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - the check is the bot's code
        raise BotError(ref, f"its check_options failed: {_describe(exc)}") from None
    return checked


def check_declared(declared: Mapping[str, Any], ref: str, options: Mapping[str, Any],
                   ranges: Mapping[str, OptionRange] | None = None) -> dict[str, Any]:
    """``options`` converted to the types of the ``declared`` defaults (a class's, or what a bot
    program said in its handshake) and checked against ``ranges``; :class:`BotError` for unknown or bad ones."""
    checked: dict[str, Any] = {}
    for key, value in options.items():
        if key not in declared:
            takes = ", ".join(sorted(declared)) if declared else "none"
            raise BotError(ref, f"takes no option {key!r} (its options: {takes})")
        checked[key] = _convert(ref, key, declared[key], value)
        allowed = (ranges or {}).get(key)
        if allowed is not None and not allowed.allows(checked[key]):
            shown = repr(checked[key]) if isinstance(checked[key], str) else format_option(checked[key])
            raise BotError(ref, f"option {key!r} must be {allowed}, not {shown}")
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


def bot_options(spec: BotSpec) -> dict[str, Any]:
    """Every option the bot of ``spec`` plays with: its defaults, overridden by the spec's."""
    cls = _load_ref(spec.ref)
    return {**cls.options, **check_options(cls, spec.ref, spec.options)}


# -- loading ---------------------------------------------------------------------


def entry_points(group: str) -> Iterable[EntryPoint]:
    """The installed entry points of ``group`` (tests replace this function to fake plug-ins)."""
    from importlib.metadata import entry_points as installed

    return installed(group=group)


# Classes already loaded: a tournament asks for the same bots game after game.
# The key holds the entry_points function in use, so a replaced one is honoured.
_loaded: dict[tuple[Any, ...], type[Bot]] = {}


def load_bot(spec: BotSpec | str) -> type[Bot]:
    """The bot class named by ``spec`` (a :class:`BotSpec` or a ``REF``), checked.

    For a :class:`BotSpec` its options are checked too.  Raises
    :class:`BotError` (one line): unknown bot, no such module, file not found,
    no such class, not a Bot subclass, an option it does not take, a value of
    the wrong type.
    """
    if isinstance(spec, BotSpec):
        cls = _load_ref(spec.ref)
        check_options(cls, spec.ref, spec.options)
        return cls
    if isinstance(spec, str):
        ref, inline = split_bot_spec(spec)
        if inline:
            raise BotError(spec, "load_bot takes a bot without options; use parse_bot_spec for a whole spec")
        return _load_ref(ref)
    raise TypeError(f"a bot spec is a BotSpec or a str, not {type(spec).__name__}")


def _load_ref(ref: str) -> type[Bot]:
    if ref.startswith(EXEC_PREFIX):
        raise BotError(ref, "is a program, not a Python class: the referee runs it as a process of its own")
    where, colon, attr = ref.rpartition(":")
    # Which entry points there are depends on the import path too.
    if not colon:
        key: tuple[Any, ...] = ("entry point", ref, entry_points, tuple(sys.path))
    elif where.endswith(".py"):
        key = ("file", str(Path(where).resolve()), attr)
    else:
        key = ("module", ref, entry_points, tuple(sys.path))
    cls = _loaded.get(key)
    if cls is None:
        if not colon:
            ep = entry_point_of(ref)
            assert ep is not None  # a name that is not registered is an error
            cls = _load_entry_point(ep)
        elif where.endswith(".py"):
            cls = _check_class(_attribute(_load_file(ref, where), attr, ref, where), ref)
        else:
            cls = _load_module_ref(ref, where, attr)
        _loaded[key] = cls
    return cls


def _load_module_ref(ref: str, where: str, attr: str) -> type[Bot]:
    """``DIST:NAME`` when the distribution ``where`` registers ``attr``, else ``module:Class``."""
    ep = entry_point_of(ref)
    if ep is not None:
        return _load_entry_point(ep)
    registered = _registered_by(where)
    try:
        if not _DOTTED.fullmatch(where):
            raise BotError(ref, f"no module named {where!r}")
        return _check_class(_attribute(_import_module(ref, where), attr, ref, where), ref)
    except BotError as exc:
        if registered is not None:
            names = ", ".join(sorted({e.name for e in registered})) or "none"
            raise BotError(ref, f"distribution {where} registers no bot {attr!r} (it registers: {names})") from None
        if where in {e.name for e in entry_points(group=GROUP)}:
            # Most likely an option written without its value, as in mcts:400.
            hint = f"to give bot {where} an option, write {where}:name=value"
            raise BotError(ref, f"{exc.reason} ({hint})") from None
        raise


def _dist_key(name: str) -> str:
    """A distribution's name as PEP 503 compares them: ``Uptown_Arena`` is ``uptown-arena``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def dist_name(ep: EntryPoint) -> str:
    """The name of the distribution an entry point comes from ('' when it has none)."""
    dist = getattr(ep, "dist", None)
    return dist.name if dist is not None else ""


def _registered_by(dist: str) -> list[EntryPoint] | None:
    """The bots the distribution ``dist`` registers; None when no installed distribution has that name
    (or registers nothing in the group)."""
    wanted = _dist_key(dist)
    found = [ep for ep in entry_points(group=GROUP) if dist_name(ep) and _dist_key(dist_name(ep)) == wanted]
    return found or None


def _registrations(name: str) -> list[EntryPoint]:
    """Every entry point registered as ``name``, each distribution and value once."""
    found: list[EntryPoint] = []
    seen: set[tuple[str, str]] = set()
    for ep in entry_points(group=GROUP):
        if ep.name == name and (dist_name(ep), ep.value) not in seen:
            seen.add((dist_name(ep), ep.value))
            found.append(ep)
    return found


def clash(name: str, eps: list[EntryPoint]) -> str:
    """Why a name registered more than once cannot be used, and how to pick one (one line)."""
    parts = [f"{dist_name(ep) or 'an unnamed plug-in'} ({ep.value})" for ep in eps]
    picks = [f"{dist_name(ep)}:{name}" for ep in eps if dist_name(ep)]
    how = (f"pick one as {' or '.join(picks)}, or name its class: " if len(set(picks)) == len(eps)
           else "name its class: ")
    return f"is registered {len(eps)} times, by {' and '.join(parts)}; {how}{' or '.join(ep.value for ep in eps)}"


def entry_point_of(ref: str) -> EntryPoint | None:
    """The entry point a ``NAME`` or ``DIST:NAME`` ref names, without loading it; None for other refs.

    :class:`BotError` for an unknown name, or a name registered more than once.
    """
    if ref.startswith(EXEC_PREFIX):
        return None
    where, colon, attr = ref.rpartition(":")
    if colon:
        if where.endswith(".py"):
            return None
        registered = _registered_by(where)
        if registered is None:
            return None
        found = [ep for ep in registered if ep.name == attr]
        if len(found) > 1:
            raise BotError(ref, clash(attr, found))
        return found[0] if found else None
    found = _registrations(ref)
    if not found:
        known = sorted({ep.name for ep in entry_points(group=GROUP)})
        hint = f"known bots: {', '.join(known)}" if known else "no bots are installed"
        raise BotError(ref, f"unknown bot ({hint}; or give package.module:Name or path/to/file.py:Name)")
    if len(found) > 1:
        raise BotError(ref, clash(ref, found))
    return found[0]


def resolve_ref(ref: str) -> str:
    """``module:Class`` for a ref that names an entry point (``NAME``, ``DIST:NAME``), else ``ref``
    itself; read from the installed metadata, without loading anything.  :class:`BotError` for an
    unknown name or one registered more than once."""
    ep = entry_point_of(ref)
    return ref if ep is None else f"{ep.module}:{ep.attr}"


def _load_entry_point(ep: EntryPoint) -> type[Bot]:
    try:
        obj = ep.load()
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - a plug-in may fail in any way, even sys.exit
        raise BotError(ep.name, f"entry point {ep.value} failed to load: {_describe(exc)}") from None
    return _check_class(obj, ep.name)


def _load_file(ref: str, where: str) -> Any:
    path = Path(where)
    if not path.is_file():
        raise BotError(ref, f"file {where} not found" if not path.exists() else f"{where} is not a file")
    path = path.resolve()
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:12]
    name = f"arena_bot_file_{re.sub(r'[^A-Za-z0-9_]', '_', path.stem)}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise BotError(ref, f"{where} cannot be loaded as Python")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickle look the module up while it runs
    try:
        spec.loader.exec_module(module)
    except KeyboardInterrupt:
        del sys.modules[name]
        raise
    except BaseException as exc:  # noqa: BLE001
        del sys.modules[name]
        raise BotError(ref, f"{where} failed to load: {_describe(exc)}") from None
    return module


def _import_module(ref: str, module: str) -> Any:
    # Like `python -m`, let modules in the current directory be found, but after
    # everything installed so that they shadow nothing.
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.append(cwd)
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and (module == exc.name or module.startswith(exc.name + ".")):
            raise BotError(ref, f"no module named {exc.name!r}") from None
        raise BotError(ref, f"module {module} failed to load: {_describe(exc)}") from None
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001
        raise BotError(ref, f"module {module} failed to load: {_describe(exc)}") from None


def _attribute(module: Any, attr: str, ref: str, where: str) -> Any:
    obj = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise BotError(ref, f"{where} has no class {attr!r}") from None
    return obj


def _check_class(obj: Any, ref: str) -> type[Bot]:
    if not isinstance(obj, type):
        raise BotError(ref, f"{_name_of(obj)} is not a Bot subclass (it is {type(obj).__name__!r}, not a class)")
    if not issubclass(obj, Bot):
        raise BotError(ref, f"{_name_of(obj)} is not a Bot subclass (subclass arena.bots.Bot)")
    if obj.choose is Bot.choose:
        raise BotError(ref, f"{_name_of(obj)} does not define choose(view)")
    declared = obj.options
    if not isinstance(declared, dict):
        raise BotError(ref, f"{_name_of(obj)}.options must be a dict of name -> default")
    if len(declared) > MAX_OPTIONS:
        raise BotError(ref, f"{_name_of(obj)}.options: {len(declared)} options, more than {MAX_OPTIONS}")
    for key, default in declared.items():
        if not isinstance(key, str) or not _NAME.fullmatch(key):
            raise BotError(ref, f"{_name_of(obj)}.options: {key!r} is not a valid option name")
        if len(key) > MAX_DECLARED:
            raise BotError(ref, f"{_name_of(obj)}.options: an option's name is {len(key)} characters long, "
                                f"more than {MAX_DECLARED}")
        if type(default) not in OPTION_TYPES:
            raise BotError(
                ref, f"{_name_of(obj)}.options[{key!r}]: a default must be int, float, bool or str, not {default!r}"
            )
        if isinstance(default, float) and not math.isfinite(default):
            raise BotError(ref, f"{_name_of(obj)}.options[{key!r}]: a default must be a finite number")
        if isinstance(default, str) and "," in default:
            raise BotError(ref, f"{_name_of(obj)}.options[{key!r}]: a default may not contain ','")
        if len(json.dumps(default)) > MAX_DECLARED:
            raise BotError(ref, f"{_name_of(obj)}.options[{key!r}]: its default is {len(json.dumps(default))} "
                                f"characters long as JSON, more than {MAX_DECLARED}")
    ranges = obj.option_ranges
    if not isinstance(ranges, dict):
        raise BotError(ref, f"{_name_of(obj)}.option_ranges must be a dict of name -> OptionRange")
    for key, allowed in ranges.items():
        if key not in declared:
            raise BotError(ref, f"{_name_of(obj)}.option_ranges[{key!r}]: not one of its options")
        if not isinstance(allowed, OptionRange):
            raise BotError(ref, f"{_name_of(obj)}.option_ranges[{key!r}] must be an OptionRange")
        try:
            inside = allowed.allows(declared[key])
        except TypeError:
            inside = False
        if not inside:
            raise BotError(ref, f"{_name_of(obj)}.options[{key!r}]: the default {format_option(declared[key])} "
                                f"is outside its range ({allowed})")
    return obj


def _name_of(obj: Any) -> str:
    return getattr(obj, "__qualname__", None) or repr(obj)


def _describe(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def show_value(value: Any) -> str:
    """A value a bot returned, for a fault message, without running any of the bot's code."""
    if value is None or type(value) in (bool, int, float, str):
        text = repr(value)
        return text if len(text) <= 40 else text[:37] + "..."
    return f"a {type(value).__name__}"


# -- discovery -------------------------------------------------------------------


def description(cls: type) -> str:
    """The first line of a bot class's own docstring ('' when it has none)."""
    doc = cls.__dict__.get("__doc__") or ""
    for line in doc.strip().splitlines():
        if line.strip():
            return line.strip()
    return ""


def _source(ep: EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    if dist is not None:
        return f"{ep.value} ({dist.name} {dist.version})"
    return ep.value


def discover() -> tuple[dict[str, BotInfo], list[PluginFailure]]:
    """Every bot registered in the ``arena.bots`` group, and every entry point that failed.

    Each plug-in is loaded and checked on its own: one that fails to import,
    names something that is not a Bot subclass, or declares bad options is
    reported in the failures and never hides the others.  A name registered
    more than once (by two distributions, say) is a failure naming all of them:
    neither plays under it (``DIST:NAME`` picks one).
    """
    bots: dict[str, BotInfo] = {}
    failures: list[PluginFailure] = []
    names: dict[str, list[EntryPoint]] = {}
    for ep in entry_points(group=GROUP):
        names.setdefault(ep.name, [])
        if all((dist_name(e), e.value) != (dist_name(ep), ep.value) for e in names[ep.name]):
            names[ep.name].append(ep)
    for name, eps in names.items():
        if len(eps) > 1:
            failures.append(PluginFailure(name, ", ".join(_source(ep) for ep in eps), clash(name, eps)))
            continue
        (ep,) = eps
        try:
            cls = _load_entry_point(ep)
        except BotError as exc:
            failures.append(PluginFailure(name, _source(ep), exc.reason))
            continue
        bots[name] = BotInfo(name, _source(ep), description(cls), dict(cls.options), cls)
    return dict(sorted(bots.items())), failures
