"""Tournament files: TOML, read with :mod:`tomllib` and checked key by key.

A tournament file looks like this (docs/reference/tournament-file.md is the reference)::

    name = "quickstart"
    players = 4
    deals = 10              # rounds per table; or "deals.txt", a deals file of game seeds (arena.plan.deals)
    seed = 2024
    scoring = "uptown"
    time_limit = 5.0
    clock = "60+0.5"        # optional: a game clock per seat (base+increment seconds)
    overage = 10            # optional: seconds a bot may spend past time_limit over a game
    seating = "balanced"
    duplicate = false       # optional: true plays a round's seatings with one shared deal (trusted bots)
    public_deals = false    # optional: true derives the deals from this file alone (research runs)

    [[entrants]]
    name = "greedy"
    bot = "greedy"

    [[entrants]]
    name = "mcts-fast"
    bot = "mcts"
    options = { iterations = 100 }

Every problem is a :class:`ConfigError` whose message is one line naming the
file, the key and the reason.
"""

from __future__ import annotations

import json
import math
import os
import re
import tomllib
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from arena import ranges as limits
from arena.api.options import format_option
from arena.errors import ArenaError, did_you_mean
from arena.inputfiles import InputFileError, read_input
from arena.plan.deals import DealsError, deal_list
from arena.plan.seating import DESIGNS
from arena.plan.tournament import Entrant, TournamentConfig
from arena.plugins.specs import exec_ref
from arena.ranges import DEFAULT_TIME_LIMIT, ISOLATIONS
from arena.rules.state import PENALTIES, SCORINGS
from arena.timecontrol import TimeControl, parse_clock, parse_overage, time_control

#: The largest tournament file read: 100,000 deals kept as an array take 2 MiB.
TOURNAMENT_FILE_MB = 16
#: Tournament names become folder names: keep them to safe characters.
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
#: Entrant names appear in tables and records: printable, no separators used by the tables.
ENTRANT_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+@#-]{0,39}")

TOP_KEYS = (
    "name", "players", "deals", "seed", "scoring", "penalty", "time_limit", "clock", "overage", "seating", "rotate",
    "format",
    "challengers", "pool", "max_tables", "isolation", "duplicate", "public_deals", "deal_key", "entrants",
)
#: A deal key: 32 bytes as 64 hexadecimal digits (:mod:`arena.results.dealkey`).
DEAL_KEY_PATTERN = re.compile(r"[0-9a-fA-F]{64}")
#: The ways a tournament makes its tables (docs/reference/tournament-file.md, "The schedule").
TOURNAMENT_FORMATS = ("round-robin", "gauntlet")
ENTRANT_KEYS = ("name", "bot", "command", "cwd", "env", "memory_mb", "options")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
T = TypeVar("T")


class ConfigError(ArenaError, ValueError):
    """A tournament file that cannot be used; the message is one line."""


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def spec_text(bot: str, options: dict[str, Any]) -> str:
    """The one-string form ``REF:key=value,...`` of a bot and its options."""
    if not options:
        return bot
    return bot + ":" + ",".join(f"{key}={format_option(value)}" for key, value in options.items())


def check_deal_key(value: Any) -> str:
    """A deal key as 64 lowercase hexadecimal digits; ValueError (one line) for anything else."""
    if not isinstance(value, str) or not DEAL_KEY_PATTERN.fullmatch(value.strip()):
        raise ValueError("a deal key is 64 hexadecimal digits (32 bytes)")
    return value.strip().lower()


def field_error(source: str, key: str, reason: str) -> ConfigError:
    """The error of the tournament file ``source``'s ``key``: ``source: key: reason``."""
    return ConfigError(f"{source}: {key}: {reason}")


def _checked(source: str, key: str, rule: Callable[[Any], T], value: Any) -> T:
    """``value`` checked by one of the rules of :mod:`arena.play.ranges`, else a ConfigError naming ``key``."""
    try:
        return rule(value)
    except limits.LimitError as exc:
        raise field_error(source, key, str(exc)) from None


def _choice(source: str, key: str, value: Any, choices: Collection[str]) -> str:
    """``value`` when it is one of ``choices`` in any case, else a ConfigError naming ``key`` and the choices."""
    if isinstance(value, str) and value.lower() in choices:
        return value.lower()
    raise field_error(source, key, f"must be one of {', '.join(choices)}, not {limits.shown(value)}")


def _program_keys(source: str, where: str, table: dict[str, Any]) -> dict[str, Any]:
    """The keys of an entrant that say how its program starts: command, cwd, env, memory_mb."""
    found: dict[str, Any] = {}
    if "command" in table:
        command = table["command"]
        if (not isinstance(command, list) or not command
                or not all(isinstance(w, str) and w and "\0" not in w for w in command)):
            raise field_error(source, f"{where}.command", "must be a non-empty array of strings, e.g. [\"node\", \"bot.js\"]")
        found["command"] = tuple(command)
    if "cwd" in table:
        cwd = table["cwd"]
        if not isinstance(cwd, str) or not cwd or "\0" in cwd:
            raise field_error(source, f"{where}.cwd", "must be a folder's path")
        found["cwd"] = cwd
    if "env" in table:
        env = table["env"]
        if not isinstance(env, dict) or not all(
                isinstance(k, str) and _ENV_NAME.fullmatch(k) and isinstance(v, str) and "\0" not in v
                for k, v in env.items()):
            raise field_error(source, f"{where}.env", "must be a table of NAME = \"text\"")
        found["env"] = tuple(sorted(env.items()))
    if "memory_mb" in table:
        try:
            found["memory_mb"] = limits.memory_mb(table["memory_mb"])
        except limits.LimitError as exc:
            raise field_error(source, f"{where}.memory_mb", str(exc)) from None
    if ("cwd" in found or "env" in found) and "command" not in found:
        raise field_error(source, where, "cwd and env go with command = [...]")
    return found


def _entrant(source: str, index: int, table: Any) -> tuple[str | None, str, dict[str, Any]]:
    where = f"entrants[{index}]"
    if not isinstance(table, dict):
        raise field_error(source, where, "each entrant is a table with name, bot and options ([[entrants]])")
    for key in table:
        if key not in ENTRANT_KEYS:
            raise field_error(source, f"{where}.{key}",
                        f"unknown key ({did_you_mean(key, ENTRANT_KEYS)}an entrant takes {', '.join(ENTRANT_KEYS)})")
    program = _program_keys(source, where, table)
    if "command" in program:
        if "bot" in table:
            raise field_error(source, where, "give either bot or command, not both")
        bot = exec_ref(program["command"])
    elif "bot" not in table:
        raise field_error(source, f"{where}.bot", "missing: name the bot, e.g. bot = \"greedy\" or \"mcts:iterations=200\"")
    else:
        bot = table["bot"]
        if not isinstance(bot, str) or not bot.strip():
            raise field_error(source, f"{where}.bot", "must be a bot name or spec string")
        bot = bot.strip()
    options = table.get("options", {})
    if not isinstance(options, dict):
        raise field_error(source, f"{where}.options", "must be a table of option = value")
    for key, value in options.items():
        if isinstance(value, (dict, list)) or (isinstance(value, float) and not math.isfinite(value)):
            raise field_error(source, f"{where}.options.{key}", "an option value is a number, a boolean or a string")
        if isinstance(value, str) and ("," in value or "=" in value):
            raise field_error(source, f"{where}.options.{key}", "a string option may not contain ',' or '='")
    if "command" in program:
        program["options"] = tuple(options.items())
    if options:
        if "=" in bot and "command" not in program:
            raise field_error(source, where, "give the options either in bot = \"REF:key=value\" or in options, not both")
        bot = spec_text(bot, options)
    name = table.get("name")
    if name is not None and (not isinstance(name, str) or not ENTRANT_PATTERN.fullmatch(name)):
        raise field_error(
            source, f"{where}.name",
            f"{limits.shown(name)} is not a usable name (letters, digits and . _ + @ # -, at most 40 characters)",
        )
    return name, bot, program


def parse_config(
    text: str, source: str = "<tournament>", default_name: str | None = None, base: str | Path | None = None,
) -> TournamentConfig:
    """Check the TOML ``text`` of a tournament file; ``source`` names it in errors.

    Without a ``name`` key the tournament is called ``default_name``, else after ``source``'s file stem.
    Relative paths in it are read from the folder ``base`` (None: the folder the arena runs in);
    :func:`load_config` gives the file's own folder.  Nothing is looked up on disk here but a deals
    file (``deals = "FILE"``), whose seeds the config holds.

    Bots are not loaded here: :func:`check_bots` does that.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from None
    except ValueError as exc:  # a whole number of more digits than Python reads from text
        raise ConfigError(f"{source}: not valid TOML: {str(exc).split(';')[0]}") from None
    for key in data:
        if key not in TOP_KEYS:
            raise field_error(source, key,
                        f"unknown key ({did_you_mean(key, TOP_KEYS)}a tournament takes {', '.join(TOP_KEYS)})")
    for key in ("players", "deals", "seed", "entrants"):
        if key not in data:
            raise field_error(source, key, "missing")

    name = data.get("name", default_name if default_name is not None else Path(source).stem)
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise field_error(source, "name", f"{limits.shown(name)} is not a usable name (letters, digits, '.', '_', '-'; it names a folder)")

    players = data["players"]
    if not _is_int(players) or not 2 <= players <= 5:
        raise field_error(source, "players", f"Uptown is played by 2 to 5 players, not {limits.shown(players)}")
    deals, deal_seeds, deals_file = _deal_list(source, data["deals"], base)
    seed = _checked(source, "seed", limits.master_seed, data["seed"])
    scoring = _choice(source, "scoring", data.get("scoring", "uptown"), SCORINGS)
    penalty = _choice(source, "penalty", data.get("penalty", "color"), PENALTIES)
    time = _time(source, data)
    seating = _seating(source, data, players)
    tournament_format = _choice(source, "format", data.get("format", "round-robin"), TOURNAMENT_FORMATS)
    max_tables = data.get("max_tables")
    if max_tables is not None and (not _is_int(max_tables) or max_tables < 1):
        raise field_error(source, "max_tables", f"must be a whole number of at least 1, not {limits.shown(max_tables)}")
    isolation = _choice(source, "isolation", data.get("isolation", "process"), ISOLATIONS)
    duplicate, public_deals, deal_key = _deals(source, data)

    tables = data["entrants"]
    if not isinstance(tables, list):
        raise field_error(source, "entrants", "must be an array of tables ([[entrants]])")
    if len(tables) < 2:
        raise field_error(source, "entrants", f"a tournament needs at least 2 entrants, not {len(tables)}")
    entrants = []
    seen: dict[str, int] = {}
    for index, table in enumerate(tables):
        entrant_name, bot, program = _entrant(source, index, table)
        entrant_name = entrant_name or default_entrant_name(bot)
        if entrant_name in seen:
            raise field_error(
                source, f"entrants[{index}].name",
                f"{entrant_name!r} is already the name of entrants[{seen[entrant_name]}]; give each entrant its own name",
            )
        seen[entrant_name] = index
        entrants.append(Entrant(entrant_name, bot, **program, base=None if base is None else os.path.abspath(base)))
    names = [e.name for e in entrants]
    challengers, pool = _gauntlet(source, data, tournament_format, players, names)
    return TournamentConfig(
        name=name, players=players, deals=deals, seed=seed, entrants=tuple(entrants),
        scoring=scoring, penalty=penalty, time=time, seating=seating, format=tournament_format,
        challengers=challengers, pool=pool, max_tables=max_tables, isolation=isolation,
        duplicate=duplicate, public_deals=public_deals, deal_key=deal_key, deal_seeds=deal_seeds, deals_file=deals_file,
    )


def _deal_list(source: str, value: Any, base: str | Path | None) -> tuple[int, tuple[int, ...], str | None]:
    """The ``deals`` key: ``(rounds, seeds, file)``, a number of rounds or a deals file (:func:`.deals.deal_list`)."""
    try:
        given = deal_list(value, base)
    except DealsError as exc:
        raise field_error(source, "deals", str(exc)) from None
    if given is None:
        return _checked(source, "deals", limits.deals, value), (), None
    seeds, file = given
    if len(seeds) > limits.MAX_DEALS:
        raise field_error(source, "deals", f"at most {limits.MAX_DEALS} deals per table, not {len(seeds)}")
    return len(seeds), seeds, file


def _deals(source: str, data: dict[str, Any]) -> tuple[bool, bool, str | None]:
    """The ``duplicate``, ``public_deals`` and ``deal_key`` keys, checked (a key and public deals exclude each other)."""
    flags = []
    for key in ("duplicate", "public_deals"):
        value = data.get(key, False)
        if not isinstance(value, bool):
            raise field_error(source, key, f"must be true or false, not {limits.shown(value)}")
        flags.append(value)
    deal_key = None
    if "deal_key" in data:
        try:
            deal_key = check_deal_key(data["deal_key"])
        except ValueError as exc:
            raise field_error(source, "deal_key", str(exc)) from None
        if flags[1]:
            raise field_error(source, "deal_key", "a deal key keys the deals, public_deals = true makes them public: "
                                            "give only one")
    return flags[0], flags[1], deal_key


def with_deals(config: TournamentConfig, *, public_deals: bool = False, deal_key: str | None = None) -> TournamentConfig:
    """``config`` with public deals or a deal key given on the command line (``--public-deals``,
    ``--deal-key``); :class:`ConfigError` when they contradict each other or the file."""
    if public_deals and (deal_key is not None or config.deal_key is not None):
        raise ConfigError("--public-deals: the deals cannot be both public and keyed with a deal key")
    if deal_key is not None:
        try:
            deal_key = check_deal_key(deal_key)
        except ValueError as exc:
            raise ConfigError(f"--deal-key: {exc}") from None
        if config.public_deals:
            raise ConfigError("--deal-key: the tournament file says public_deals = true; its deals have no key")
        if config.deal_key is not None and config.deal_key != deal_key:
            raise ConfigError("--deal-key: the tournament file names another deal_key")
        return replace(config, deal_key=deal_key)
    return replace(config, public_deals=True) if public_deals else config


def _time(source: str, data: dict[str, Any]) -> TimeControl:
    """The ``time_limit``, ``clock`` and ``overage`` keys as one time control (each may be left out)."""
    limit = _checked(source, "time_limit", limits.time_limit, data.get("time_limit", DEFAULT_TIME_LIMIT))
    base, increment, moves = (None, 0.0, None) if "clock" not in data else \
        _checked(source, "clock", parse_clock, data["clock"])
    overage = 0.0 if "overage" not in data else _checked(source, "overage", parse_overage, data["overage"])
    return TimeControl(base, increment, moves, overage, limit)


def default_seating(players: int) -> str:
    """The seating of a file that names none: ``balanced`` for 3-5 players, ``rotate`` for 2 (the same games)."""
    return "rotate" if players == 2 else "balanced"


def _seating(source: str, data: dict[str, Any], players: int) -> str:
    """The ``seating`` key, or the old ``rotate`` key it replaces (true: rotate, false: fixed), or the default."""
    seating = data.get("seating")
    if seating is not None:
        seating = _choice(source, "seating", seating, DESIGNS)
    if "rotate" in data:
        rotate = data["rotate"]
        if not isinstance(rotate, bool):
            raise field_error(source, "rotate", f"must be true or false, not {limits.shown(rotate)}")
        meant = "rotate" if rotate else "fixed"
        if seating is not None and seating != meant:
            raise field_error(
                source, "rotate",
                f'rotate = {str(rotate).lower()} means seating = "{meant}", but seating = "{seating}"; give only seating',
            )
        seating = meant
    return seating if seating is not None else default_seating(players)


def _entrant_names(source: str, key: str, value: Any, names: list[str]) -> list[str]:
    """A list of entrant names (``challengers``, ``pool``), each an entrant's, none twice."""
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise field_error(source, key, 'must be a non-empty array of entrant names, e.g. ["mybot"]')
    for item in value:
        if item not in names:
            raise field_error(source, key, f"{limits.shown(item)} is not the name of an entrant")
        if value.count(item) > 1:
            raise field_error(source, key, f"names {item!r} twice")
    return value


def _gauntlet(
    source: str, data: dict[str, Any], tournament_format: str, players: int, names: list[str],
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The checked ``challengers`` and ``pool`` of a gauntlet, each in file order; ``((), ())`` for a round-robin."""
    if tournament_format != "gauntlet":
        for key in ("challengers", "pool"):
            if key in data:
                raise field_error(source, key, 'only a gauntlet has challengers and a pool (format = "gauntlet")')
        return (), ()
    for key, example in (("challengers", '["mybot"]'), ("pool", '["random", "greedy"]')):
        if key not in data:
            raise field_error(source, key, f"missing: a gauntlet names its {key}, e.g. {key} = {example}")
    challengers = _entrant_names(source, "challengers", data["challengers"], names)
    pool = _entrant_names(source, "pool", data["pool"], names)
    for item in pool:
        if item in challengers:
            raise field_error(source, "pool", f"{item!r} is a challenger too; every entrant is in exactly one of the two lists")
    for item in names:
        if item not in challengers and item not in pool:
            raise field_error(source, "pool", f"entrant {item!r} is in neither challengers nor pool; add it to one of them")
    if len(pool) < players - 1:
        raise field_error(
            source, "pool",
            f"a gauntlet of {players} players seats {players - 1} entrants of the pool at every table; "
            f"the pool has {len(pool)}",
        )
    return tuple(n for n in names if n in challengers), tuple(n for n in names if n in pool)


def default_entrant_name(spec: str) -> str:
    """An entrant without a name is called after its spec: ``mcts:iterations=200`` -> ``mcts-iterations-200``."""
    return (re.sub(r"[^A-Za-z0-9._+@#-]+", "-", spec).strip("-._+@#") or "bot")[:40]


def read_config_text(path: Path) -> str:
    """The text of the tournament file ``path`` (:func:`~arena.inputfiles.read_input`), or a :class:`ConfigError`."""
    try:
        return read_input(path, "a tournament file", TOURNAMENT_FILE_MB << 20).decode("utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except (InputFileError, UnicodeDecodeError) as exc:
        raise ConfigError(str(exc) if isinstance(exc, InputFileError) else f"{path}: cannot read: {exc}") from None


def load_config(path: str | Path) -> TournamentConfig:
    """Read and check the tournament file at ``path`` (bots are not loaded: see :func:`check_bots`)."""
    path = Path(path)
    return parse_config(read_config_text(path), str(path), default_name=path.stem, base=path.absolute().parent)


def load_run_config(
    path: Path, *, isolation: str | None = None, clock: str | None = None, overage: float | None = None,
    public_deals: bool = False, deal_key: str | None = None,
) -> tuple[TournamentConfig, str]:
    """The tournament file at ``path`` as ``arena run`` plays it, with what the command line gives in place
    of its keys, and the text the results folder keeps: the file itself, or (when the command line or a deals
    file changes what it plays) the config as played written out, so a ``--resume`` plays on with the same
    clocks and deals and ``arena report`` needs no deals file."""
    text = read_config_text(path)
    config = parse_config(text, str(path), default_name=path.stem, base=path.absolute().parent)
    given = [f"{key} {value}" for key, value in (("--clock", clock), ("--overage", overage)) if value is not None]
    if clock is not None or overage is not None:
        try:
            time = time_control(config.time.clock_text if clock is None else clock,
                                (config.time.overage or None) if overage is None else overage, config.time.limit)
        except limits.LimitError as exc:
            raise ConfigError(f"--{'clock' if clock is not None else 'overage'}: {exc}") from None
        config = replace(config, time=time)
    if public_deals and not config.public_deals:
        given.append("--public-deals")
    if given or config.deals_file is not None:
        comments = [f"{path.name} as played"] + ([f"given on the command line: {' '.join(given)}"] if given else [])
        text = to_toml(replace(config, public_deals=config.public_deals or public_deals), comments, keep_key=True)
    return with_deals(with_isolation(config, isolation), public_deals=public_deals, deal_key=deal_key), text


# The writer: a config as the text of a tournament file that reads back as the same config.

def toml_string(text: str) -> str:
    """``text`` as a TOML basic string (JSON's escapes are TOML's; DEL must be escaped too)."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _comment(text: str) -> str:
    """``text`` as the words of a one-line TOML comment, which may hold no control character."""
    return "".join(c if c.isprintable() else "?" for c in " ".join(text.split()))


def _toml_key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else toml_string(key)


def toml_value(value: Any) -> str:
    """A value of a tournament file (a string, bool, whole number, finite float, array or table) as TOML."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"a tournament file holds finite numbers, not {value}")
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + " }" if value else "{}"
    return "[" + ", ".join(toml_value(item) for item in value) + "]"


def seeds_text(seeds: tuple[int, ...], source: str | None) -> str:
    """``seeds`` as the ``deals`` array a results folder keeps in place of ``deals = "FILE"`` (its own copy of
    the deals, so a resume, ``--update`` and ``arena report`` need not find the file again), four a line."""
    rows = [", ".join(str(seed) for seed in seeds[i:i + 4]) for i in range(0, len(seeds), 4)]
    head = "deals = [" if source is None else f"deals = [  # the deals of {_comment(source)}"
    return head + "\n" + "".join(f"    {row},\n" for row in rows) + "]\n"


def _top_lines(config: TournamentConfig, keep_key: bool) -> list[str]:
    """The top-level keys of :func:`to_toml`: those the file must give, then each other one unless at its default."""
    keys: list[tuple[str, Any]] = [
        ("seed", config.seed), ("scoring", config.scoring), ("penalty", config.penalty),
        *config.time.file_keys().items(), ("seating", config.seating),
        ("format", config.format), ("challengers", list(config.challengers) or None),
        ("pool", list(config.pool) or None), ("max_tables", config.max_tables), ("isolation", config.isolation),
        ("duplicate", config.duplicate), ("public_deals", config.public_deals),
        ("deal_key", config.deal_key if keep_key else None),
    ]
    defaults = {"penalty": "color", "format": "round-robin", "isolation": "process", "duplicate": False,
                "public_deals": False}
    deals = seeds_text(config.deal_seeds, config.deals_file).rstrip("\n") if config.deal_seeds else \
        f"deals = {config.deals}"
    return [f"name = {toml_string(config.name)}", f"players = {config.players}", deals] + [
        f"{key} = {toml_value(value)}" for key, value in keys if value is not None and defaults.get(key) != value]


def _entrant_lines(entrant: Entrant) -> list[str]:
    """One ``[[entrants]]`` table: a bot by its spec, a program by its command and the keys that start it."""
    keys: list[tuple[str, Any]] = [("name", entrant.name)]
    if entrant.command is None:
        keys.append(("bot", entrant.spec))
    else:
        keys += [("command", list(entrant.command)), ("cwd", entrant.cwd), ("env", dict(entrant.env) or None),
                 ("options", dict(entrant.options) or None)]
    keys.append(("memory_mb", entrant.memory_mb))
    return ["", "[[entrants]]"] + [f"{key} = {toml_value(value)}" for key, value in keys if value is not None]


def to_toml(config: TournamentConfig, comments: Sequence[str] = (), *, keep_key: bool = False) -> str:
    """``config`` as a tournament file: :func:`parse_config` reads it back as an equal config (with the same
    isolation and entrants' folders, given the same ``base``).  ``comments`` open it, one ``#`` line each.

    The secret deal key is written only with ``keep_key`` (a file that gave its own ``deal_key``): a key
    that came from a results folder or ``--deal-key`` stays out of a file others may read.
    """
    lines = [f"# {_comment(line)}" for line in comments] + _top_lines(config, keep_key)
    for entrant in config.entrants:
        lines += _entrant_lines(entrant)
    return "\n".join(lines) + "\n"


def with_isolation(config: TournamentConfig, isolation: str | None) -> TournamentConfig:
    """``config`` with its isolation overridden (None: as the file says)."""
    return config if isolation is None else replace(config, isolation=isolation)
