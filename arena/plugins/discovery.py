"""Every bot registered in the entry-point group ``arena.bots``, each plug-in loaded and checked on its own."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from arena.api.bot import Bot
from arena.api.options import Option, declared_options
from arena.plugins import loading
from arena.plugins.loading import GROUP, clash, dist_name
from arena.plugins.specs import BotError

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint


class BotInfo(NamedTuple):
    """A bot found through the entry points."""

    name: str
    #: The entry point's value and the distribution it comes from.
    source: str
    #: The first line of the class docstring.
    description: str
    #: Every option it declares.
    options: dict[str, Option]
    cls: type[Bot]


class PluginFailure(NamedTuple):
    """An entry point of the ``arena.bots`` group that could not be used."""

    name: str
    source: str
    reason: str


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
    for ep in loading.entry_points(group=GROUP):
        names.setdefault(ep.name, [])
        if all((dist_name(e), e.value) != (dist_name(ep), ep.value) for e in names[ep.name]):
            names[ep.name].append(ep)
    for name, eps in names.items():
        if len(eps) > 1:
            failures.append(PluginFailure(name, ", ".join(_source(ep) for ep in eps), clash(name, eps)))
            continue
        (ep,) = eps
        try:
            cls = loading._load_entry_point(ep)
        except BotError as exc:
            failures.append(PluginFailure(name, _source(ep), exc.reason))
            continue
        bots[name] = BotInfo(name, _source(ep), description(cls), declared_options(cls), cls)
    return dict(sorted(bots.items())), failures
