"""The bots' logs: where each bot's standard error is appended, ``FOLDER/NAME.log``.

A referee given a folder of logs keeps one :class:`BotLogs`: its bot processes
write their standard error to their bot's log (:mod:`arena.play.pool`), its
in-process bots have ``sys.stderr`` pointed at theirs while they run, and a
fault's log line names the file.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
from typing import TextIO

from arena.plugins.specs import EXEC_PREFIX, BotError, split_bot_spec


def log_name(name: str, folder: bool = True) -> str:
    """What a bot's log is called (without ``.log``), after the bot as its user knows it, never after
    the folders it lies in: an entrant's name or a bot's name as it is;
    ``exec_FOLDER_FILE`` for an ``exec:`` program (its program file, the first argument that names a
    file, else its command; ``folder=False``: ``FILE`` alone); ``FILE_Class`` for a ``file.py:Class``
    bot.  Safe on every file system, at most 120 characters."""
    short = name
    if name.startswith(EXEC_PREFIX):
        try:
            words = shlex.split(name[len(EXEC_PREFIX):])
        except ValueError:
            words = []
        if words:
            found = os.path.normpath(next((w for w in words[1:] if not w.startswith("-") and os.path.isfile(w)),
                                          words[0]))
            where = os.path.basename(os.path.dirname(found))
            short = "exec_" + (f"{where}_" if where else "") + os.path.basename(found) if folder else \
                os.path.basename(found)
    else:
        where, colon, attr = name.rpartition(":")
        if colon and where.endswith(".py"):
            short = f"{os.path.basename(where)}_{attr}"
    clean = re.sub(r"[^A-Za-z0-9._+@#-]+", "_", short).lstrip(".") or "bot"
    if len(clean) > 120:  # a long name: cut, and told apart by a hash of the whole
        clean = f"{clean[:100]}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"
    return clean


def seat_log_name(seat: int, text: str) -> str:
    """The name of a seat's log in a single game (``arena play``): the seat and the bot's short name
    (``seat0-mcts``, ``seat1-rustbot``), without its options or folders."""
    try:
        ref = split_bot_spec(text)[0]
    except BotError:
        ref = text  # refused when the bot is prepared, with its reason
    return f"seat{seat}-{log_name(ref, folder=False)}"


#: How the arena's own lines in a log begin (a game's header, a note that output was dropped).
NOTE_PREFIX = "--- arena:"


def bots_wrote(folder: str | os.PathLike[str]) -> bool:
    """Whether a bot wrote anything of its own into a log of ``folder`` (the arena's notes do not count)."""
    for entry in os.scandir(folder):
        if entry.is_file(follow_symlinks=False):
            with open(entry.path, encoding="utf-8", errors="replace") as log:
                if any(not line.startswith(NOTE_PREFIX) for line in log):
                    return True
    return False


class BotLogs:
    """The logs of one referee's bots, in ``folder`` (None: no logs, and every path is None)."""

    def __init__(self, folder: str | None) -> None:
        self.folder = folder
        # The name of each bot's log, by the bot's name or ref.
        self._names: dict[str, str] = {}
        self._streams: dict[str, TextIO] = {}

    def path(self, name: str) -> str | None:
        """The log of the bot ``name`` (an entrant's name, else its ref): a short name of its own
        (:func:`log_name`), told apart by a hash of ``name`` only from another bot's of the same."""
        if self.folder is None:
            return None
        clean = self._names.get(name)
        if clean is None:
            clean = log_name(name)
            if clean in self._names.values():
                clean = f"{clean}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"
            self._names[name] = clean
        return os.path.join(self.folder, clean + ".log")

    def stream(self, name: str) -> TextIO | None:
        """The log of the bot ``name`` open for appending (opened once: an in-process bot's standard
        error), or None without logs."""
        path = self.path(name)
        if path is None:
            return None
        stream = self._streams.get(path)
        if stream is None:
            stream = self._streams[path] = open(path, "a", encoding="utf-8", buffering=1)  # noqa: SIM115
        return stream

    def close(self) -> None:
        """Close the logs :meth:`stream` opened."""
        for stream in self._streams.values():
            stream.close()
        self._streams.clear()
