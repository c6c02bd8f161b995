"""Finding and loading bot classes: entry points (group ``arena.bots``), ``module:Class`` and
``path/to/file.py:Class``; each class is checked when loaded, and so are the values given to it."""

from __future__ import annotations

import difflib
import hashlib
import importlib
import importlib.util
import os
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.api.bot import Bot
from arena.api.options import declared_options, defaults
from arena.plugins.specs import _DOTTED, EXEC_PREFIX, BotError, BotSpec, convert_given, split_bot_spec

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

#: The entry-point group bots are registered in.
GROUP = "arena.bots"


# -- bot specs checked against their bot ---------------------------------------------


def parse_bot_spec(text: str) -> BotSpec:
    """Read ``REF`` or ``REF:key=value,...``; the bot is loaded to check and convert the given values.

    Raises :class:`BotError` (one line) for bad syntax, an unknown bot, an
    option the bot does not take or a value of the wrong type.
    """
    ref, given = split_bot_spec(text)
    return make_bot_spec(ref, given)


def make_bot_spec(ref: str, given: Mapping[str, Any] | None = None) -> BotSpec:
    """A checked :class:`BotSpec` from a ``REF`` and values given as text or as typed values (TOML)."""
    split_ref, inline = split_bot_spec(ref)
    if inline:
        raise BotError(ref, "give the options apart from the bot, not inside its name")
    cls = load_bot(split_ref)
    return BotSpec(split_ref, check_given(cls, split_ref, given or {}))


def check_given(cls: type[Bot], ref: str, given: Mapping[str, Any]) -> dict[str, Any]:
    """The ``given`` values converted to the types of ``cls``'s options and checked against their
    ranges and :meth:`~arena.api.Bot.check_options`; :class:`BotError` for unknown or bad ones."""
    declared = declared_options(cls)
    checked = convert_given(declared, ref, given)
    try:
        cls.check_options({**defaults(declared), **checked})
    except ValueError as exc:
        raise BotError(ref, f"options: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - the check is the bot's code
        raise BotError(ref, f"its check_options failed: {_describe(exc)}") from None
    return checked


def bot_options(spec: BotSpec) -> dict[str, Any]:
    """Every option value the bot of ``spec`` plays with: its defaults, overridden by the given ones."""
    cls = _load_ref(spec.ref)
    return {**defaults(declared_options(cls)), **check_given(cls, spec.ref, spec.given)}


# -- loading ---------------------------------------------------------------------


def entry_points(group: str) -> Iterable[EntryPoint]:
    """The installed entry points of ``group`` (tests replace this function to fake plug-ins).

    Read once for the import path as it stands: a run asks for them for every entrant, in every worker,
    and reading every installed distribution's metadata takes milliseconds.  When a folder of the path
    changed since (a distribution installed there, or removed: its time of change, which
    :mod:`importlib.metadata` keys its own listings by too), they are read again."""
    from importlib.metadata import entry_points as installed

    stamp = tuple(_folder_stamp(folder) for folder in sys.path)
    kept = _installed.get(group)
    if kept is None or kept[0] != stamp:
        kept = _installed[group] = (stamp, tuple(installed(group=group)))
    return kept[1]


#: Each group's entry points, with the stamp of the import path they were read from.
_installed: dict[str, tuple[tuple[Any, ...], tuple[EntryPoint, ...]]] = {}


def _folder_stamp(folder: str) -> tuple[str, int | None]:
    try:
        return folder, os.stat(folder or ".").st_mtime_ns
    except OSError:
        return folder, None


# Classes already loaded: a tournament asks for the same bots game after game.
# The key holds the entry_points function in use, so a replaced one is honoured.
_loaded: dict[tuple[Any, ...], type[Bot]] = {}


def load_bot(spec: BotSpec | str) -> type[Bot]:
    """The bot class named by ``spec`` (a :class:`BotSpec` or a ``REF``), checked.

    For a :class:`BotSpec` its given values are checked too.  Raises
    :class:`BotError` (one line): unknown bot, no such module, file not found,
    no such class, not a Bot subclass, an option it does not take, a value of
    the wrong type.
    """
    if isinstance(spec, BotSpec):
        cls = _load_ref(spec.ref)
        check_given(cls, spec.ref, spec.given)
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


def import_class(ref: str) -> type[Bot] | None:
    """The bot class of a ``module:Class`` ref, imported straight away, without reading any installed
    distribution's metadata (None for a ref of another form); :class:`BotError` if it cannot be imported."""
    where, colon, attr = ref.rpartition(":")
    if not colon or not _DOTTED.fullmatch(where):
        return None
    return _check_class(_attribute(_import_module(ref, where), attr, ref, where), ref)


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
        near = difflib.get_close_matches(ref, known, n=1, cutoff=0.6)
        meant = f"; did you mean {near[0]!r}?" if near else ""
        raise BotError(ref, f"unknown bot{meant} ({hint}; or give package.module:Name, path/to/file.py:Name or "
                            "exec:COMMAND)")
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
    try:
        declared_options(obj)
    except ValueError as exc:
        raise BotError(ref, str(exc)) from None
    return obj


def _name_of(obj: Any) -> str:
    return getattr(obj, "__qualname__", None) or repr(obj)


def _describe(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
