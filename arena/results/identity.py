"""Who an entrant is: what makes its bot the same bot from a run to its ``--resume``.

An entrant's *identity* is read without running any of its code:

* a bot named by its entry point (``NAME`` or ``DIST:NAME``): the class it
  resolves to, the distribution and version it comes from, and the SHA-256 of
  the class's module file;
* ``module:Class``: the class and the SHA-256 of the module's file (when it is one);
* ``path/to/file.py:Name``: the class and the SHA-256 of the file;
* a program (``command = [...]`` or ``exec:COMMAND``): the command and the
  SHA-256 of every word of it that names a file (``bot.js`` in ``node bot.js``).

A file larger than 16 MiB (a library, a model) is not read whole at each
start: its SHA-256 is that of its size, mtime, inode and first and last MiB.

Every record's ``bots`` entry carries it (``"identity"``).  A run stores each
entrant's identity and every option value it plays with in the results
folder (``entrants.json``); ``--resume`` compares them with the bots of now
and refuses, in one line naming the entrant and what changed, unless told
to go on (``--allow-changed-bots``).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import shlex
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.api.options import format_option
from arena.inputfiles import InputFileError, open_input
from arena.plan.config import Entrant, TournamentConfig, field_error
from arena.play.entrants import program, referee_args
from arena.plugins import EXEC_PREFIX, BotError, entry_point_of
from arena.results.files import IDENTITY_FILE

FORMAT = "arena-entrants/1"


#: Files up to this size are hashed whole; a larger one (a library, a model) by its size, mtime and inode and
#: its first and last :data:`HASH_ENDS` bytes, so that a bot's start never reads it all.
HASH_WHOLE = 16 << 20
HASH_ENDS = 1 << 20


def _sha256(path: str | os.PathLike[str] | None) -> str | None:
    """The SHA-256 of the file ``path`` (None when there is none): of its bytes, for a file of at most
    :data:`HASH_WHOLE` bytes; of its size, mtime (ns), inode and first and last :data:`HASH_ENDS` bytes, for
    a larger one (a change in its middle that keeps its size and times goes unseen).  A path that names
    something other than a folder or a regular file (a FIFO, a device) is an
    :class:`~arena.inputfiles.InputFileError`: it is opened without blocking and never read."""
    if path is None:
        return None
    try:
        fd = open_input(path, "a bot's file", None)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except InputFileError:
        if os.path.isdir(path):
            return None  # a folder the command names: shown to the bot, not hashed
        raise
    digest = hashlib.sha256()
    with open(fd, "rb") as f:
        found = os.fstat(f.fileno())
        if found.st_size <= HASH_WHOLE:
            digest = hashlib.file_digest(f, "sha256")
        else:
            digest.update(f"large:{found.st_size}:{found.st_mtime_ns}:{found.st_ino}:".encode())
            digest.update(f.read(HASH_ENDS))
            f.seek(found.st_size - HASH_ENDS)
            digest.update(f.read(HASH_ENDS))
    return digest.hexdigest()


def module_file(name: str) -> str | None:
    """The file of the module ``name``, found as ``import`` would find it but without running any of it
    (a package's ``__init__`` included); None when it is not a file (or not found)."""
    module = sys.modules.get(name)
    if module is not None:
        return getattr(module, "__file__", None)
    parts = name.split(".")
    try:
        spec = importlib.util.find_spec(parts[0])  # a top-level name: nothing is run to find it
        for index in range(1, len(parts)):
            if spec is None or not spec.submodule_search_locations:
                return None
            spec = importlib.machinery.PathFinder.find_spec(".".join(parts[:index + 1]),
                                                            list(spec.submodule_search_locations))
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.has_location or not spec.origin:
        return None
    return spec.origin


def _program_identity(words: list[str] | tuple[str, ...], cwd: str | None) -> dict[str, Any]:
    base = cwd or os.getcwd()
    files: dict[str, str] = {}
    for index, word in enumerate(words):
        if index == 0 and "/" not in word:
            continue  # found through PATH: an interpreter, not the bot
        try:
            digest = _sha256(os.path.join(base, word))
        except InputFileError as exc:
            raise BotError(f"{EXEC_PREFIX}{shlex.join(words)}", str(exc)) from None
        if digest is not None:
            files[word] = digest
    return {"command": list(words), "sha256": files}


def bot_identity(entrant: Entrant) -> dict[str, Any]:
    """The identity of ``entrant``'s bot (see the module docstring); :class:`~arena.plugins.specs.BotError` for
    a name that is not registered or registered twice."""
    if entrant.command is not None:
        return _program_identity(entrant.command, entrant.folder())
    # A relative file is read from the tournament file's folder, as the referee loads it.
    ref, loaded = entrant.bot_file_ref()
    if ref.startswith(EXEC_PREFIX):
        try:
            return _program_identity(shlex.split(ref[len(EXEC_PREFIX):]), entrant.folder())
        except ValueError as exc:
            raise BotError(ref, f"the command cannot be read: {exc}") from None
    ep = entry_point_of(ref)
    if ep is not None:
        identity: dict[str, Any] = {"class": f"{ep.module}:{ep.attr}"}
        dist = getattr(ep, "dist", None)
        if dist is not None:
            identity["distribution"] = dist.name
            identity["version"] = dist.version
        identity["sha256"] = _sha256(module_file(ep.module))
        return identity
    where = loaded.rpartition(":")[0]
    return {"class": ref, "sha256": _sha256(where if where.endswith(".py") else module_file(where))}


# -- the identities a run stores ------------------------------------------------------------

#: What :func:`check_bots` learnt of each entrant's bot, by entrant name: its identity then and every option
#: value it plays with, so that storing the entrants (:func:`current`) need not start the bots again.
Known = dict[str, tuple[dict[str, Any], dict[str, Any]]]


@dataclass(frozen=True)
class CheckedBots:
    """What :func:`check_bots` found: the walls each bot program got, and the bots' options (:data:`Known`)."""

    walls: dict[str, str]
    known: Known


def _options(config: TournamentConfig, identities: dict[str, dict[str, Any]],
             known: Known | None) -> dict[str, dict[str, Any]]:
    """Every option value each entrant plays with: as its bot was checked (``known``), else prepared now."""
    options: dict[str, dict[str, Any]] = {}
    missing = []
    for entrant in config.entrants:
        found = (known or {}).get(entrant.name)
        if found is not None and found[0] == identities[entrant.name]:
            options[entrant.name] = found[1]
        else:
            missing.append(entrant)
    if missing:
        from arena.play.referee import Referee

        referee = Referee(config.time, isolation=config.isolation)
        try:
            prepared = referee.prepare_all([(e.bot(), e.name, program(e)) for e in missing])
        finally:
            referee.close()
        for entrant, bot in zip(missing, prepared, strict=True):
            options[entrant.name] = dict(bot.options)
    return options


def current(config: TournamentConfig, known: Known | None = None) -> dict[str, dict[str, Any]]:
    """Each entrant's identity and every option value it plays with, by entrant name (``known``: as checked)."""
    identities = {e.name: bot_identity(e) for e in config.entrants}
    options = _options(config, identities, known)
    return {
        e.name: {"spec": e.spec, "identity": identities[e.name], "options": options[e.name]}
        for e in config.entrants
    }


def _short(value: Any) -> str:
    if isinstance(value, str) and len(value) == 64:
        return value[:12]  # a SHA-256
    if isinstance(value, (bool, int, float, str)):
        return format_option(value)
    return json.dumps(value, sort_keys=True)


def differences(before: dict[str, Any], now: dict[str, Any]) -> str:
    """What changed between two identities of one entrant, in words ('' when nothing did)."""
    changes = []
    was, is_ = before.get("identity") or {}, now.get("identity") or {}
    for key in ("class", "distribution", "version", "command"):
        if was.get(key) != is_.get(key):
            changes.append(f"its {key} {_short(was.get(key))} -> {_short(is_.get(key))}")
    if was.get("sha256") != is_.get("sha256"):
        if isinstance(was.get("sha256"), dict) and isinstance(is_.get("sha256"), dict):
            files = sorted(k for k in {*was["sha256"], *is_["sha256"]} if was["sha256"].get(k) != is_["sha256"].get(k))
            changes.append(f"its code changed (SHA-256 of {', '.join(files)})")
        else:
            changes.append(f"its code changed (SHA-256 {_short(was.get('sha256'))} -> {_short(is_.get('sha256'))})")
    old, new = before.get("options") or {}, now.get("options") or {}
    for key in sorted({*old, *new}):
        if old.get(key) != new.get(key) or type(old.get(key)) is not type(new.get(key)):
            shown = [format_option(o[key]) if key in o else "(none)" for o in (old, new)]
            changes.append(f"option {key} {shown[0]} -> {shown[1]}")
    return ", ".join(changes)


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("entrants"), dict):
        return None
    return data["entrants"]


def _write(path: Path, entrants: dict[str, Any]) -> None:
    from arena.results.files import write_atomically

    text = json.dumps({"format": FORMAT, "entrants": entrants}, indent=2, sort_keys=True) + "\n"
    write_atomically(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def stored_entrants(out: Path) -> dict[str, Any] | None:
    """The entrants' identities ``out`` stores (:func:`current` of the run that wrote them); None when none are."""
    return _read(out / IDENTITY_FILE)


def store_entrants(out: Path, entrants: dict[str, Any]) -> None:
    """Store ``entrants`` (:func:`current`) as the identities of the bots that play ``out``'s games."""
    _write(out / IDENTITY_FILE, entrants)


def settle(out: Path, config: TournamentConfig, *, has_games: bool, allow_changed: bool,
           known: Known | None = None) -> list[str]:
    """Compare the entrants of now with the ones that played the games stored in ``out`` and store
    theirs.  Raises :class:`~arena.results.files.RunError` (one line) when one changed and ``allow_changed`` is
    false; else returns a line for each that changed (for the log)."""
    from arena.results.files import RunError

    try:
        now = current(config, known)
    except BotError as exc:
        raise RunError(str(exc)) from None
    path = out / IDENTITY_FILE
    stored = _read(path) if has_games else None
    changed = []
    if stored is not None:
        for entrant in config.entrants:
            what = differences(stored[entrant.name], now[entrant.name]) if entrant.name in stored else ""
            if what:
                changed.append(f"entrant {entrant.name!r} is not the bot that played the stored games: {what}")
    if changed and not allow_changed:
        more = f" (and {len(changed) - 1} more entrant(s))" if len(changed) > 1 else ""
        raise RunError(f"{out}: {changed[0]}{more}; --update plays its games again with the bot as it is now, "
                       f"--allow-changed-bots keeps them, --overwrite starts again")
    if stored != now:  # nothing is written when nothing changed (a resume on a full disk gets that far)
        _write(path, now)
    return [f"--allow-changed-bots: {line}" for line in changed]


def check_bots(config: TournamentConfig, source: str) -> CheckedBots:
    """Check every entrant's bot with its options once, so a bad one stops the run before any game
    starts: loaded in this process with isolation ``none``, else started in the sandbox for its
    handshake (no bot code runs here).  Returns the walls each bot program got, by entrant name, and
    each bot's options, for the run to store without starting the bots again.
    """
    from arena.play.referee import Referee

    for index, entrant in enumerate(config.entrants):
        if entrant.command is not None and not os.path.isdir(entrant.folder()):
            where = f" (in {entrant.base})" if entrant.base is not None and not os.path.isabs(entrant.cwd or ".") else ""
            raise field_error(source, f"entrants[{index}].cwd", f"{entrant.cwd or '.'} is not a folder{where}")
    # The programs' standard error, for a bot that fails its handshake: its last words and log are in the error.
    logs = Path(tempfile.mkdtemp(prefix="arena-check-logs-"))
    referee = Referee(config.time, isolation=config.isolation, logs=logs)
    walls: dict[str, str] = {}
    index = 0
    failed = True
    try:
        try:
            args = []
            for index, entrant in enumerate(config.entrants):
                args.append(referee_args(entrant, config.isolation))
            prepared = referee.prepare_all(args)
        except BotError as exc:
            index = getattr(exc, "index", index)
            entrant = config.entrants[index]
            key = f"entrants[{index}].{'command' if entrant.command else 'bot'}"
            raise field_error(source, key, str(exc)) from None
        for entrant, bot in zip(config.entrants, prepared, strict=True):
            if bot.program is not None:
                walls[entrant.name] = referee.walls[bot.program]
        known = {entrant.name: (bot_identity(entrant), dict(bot.options))
                 for entrant, bot in zip(config.entrants, prepared, strict=True)}
        failed = False
    finally:
        referee.close()
        if not failed or not any(log.is_file() and log.stat().st_size for log in logs.iterdir()):
            shutil.rmtree(logs, ignore_errors=True)  # kept only when an error names a log that says something
    return CheckedBots(walls, known)
