"""A tournament as plain data: :class:`TournamentConfig` and its :class:`Entrant` s, frozen and compared field
by field.  :mod:`.config` reads them from a tournament file and writes them back (``parse_config`` and
``to_toml``); :mod:`.marks` reads which fields define the games."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from arena.plugins.specs import exec_ref
from arena.timecontrol import DEFAULT_CONTROL, TimeControl

#: The mark of a field that says what a stored game is, which a league's update keeps (:mod:`.marks`).
MEANING = {"meaning": True}


@dataclass(frozen=True)
class Entrant:
    """One entrant: a display name and the bot spec (``REF`` or ``REF:key=value,...``) it plays with.

    An entrant that names a ``command`` is a bot program: its spec is ``exec:COMMAND`` (plus options),
    started in ``cwd`` with ``env`` added to its environment.

    Relative paths are read from ``base``, the folder of the tournament file (None: the folder the
    arena runs in): the file of a ``file.py:Name`` bot, ``cwd``, and the folder a program starts in
    when no ``cwd`` is given (so its relative program path and arguments are found from there).
    ``spec`` stays as the file writes it: records and tables show it, the same from any folder.
    """

    name: str
    spec: str
    command: tuple[str, ...] | None = None
    cwd: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    #: Its process's memory limit (MiB); None: the default.
    memory_mb: int | None = None
    #: The options of an entrant with a command, as the file gives them (checked against its handshake).
    options: tuple[tuple[str, Any], ...] = ()
    #: The folder relative paths are read from; not part of what the entrant plays.
    base: str | None = field(default=None, compare=False)

    def bot(self) -> Any:
        """What the referee prepares: the spec text, or for a command a BotSpec (its words may hold ``:``, ``=``)."""
        if self.command is None:
            return self.spec
        from arena.plugins.specs import BotSpec

        return BotSpec(exec_ref(self.command), dict(self.options))

    def folder(self) -> str:
        """The absolute folder a program of this entrant starts in: ``cwd`` read from ``base``, else ``base``."""
        return os.path.abspath(os.path.join(self.base or ".", self.cwd or "."))

    def bot_file_ref(self) -> tuple[str, str]:
        """``(ref as written, ref as loaded)``: the same but for a relative ``file.py:Name``, read from ``base``."""
        from arena.plugins.specs import EXEC_PREFIX, split_bot_spec

        ref = split_bot_spec(self.spec)[0] if self.command is None else self.spec
        where, colon, attr = ref.rpartition(":")
        if (self.base is None or ref.startswith(EXEC_PREFIX) or not colon or not where.endswith(".py")
                or os.path.isabs(where)):
            return ref, ref
        return ref, f"{os.path.join(self.base, where)}:{attr}"


@dataclass(frozen=True)
class TournamentConfig:
    """A checked tournament file.  Two configs are equal when they would play the same games (:mod:`.marks`)."""

    name: str = field(metadata=MEANING)
    players: int = field(metadata=MEANING)
    deals: int
    seed: int = field(metadata=MEANING)
    entrants: tuple[Entrant, ...]
    scoring: str = field(default="uptown", metadata=MEANING)
    penalty: str = field(default="color", metadata=MEANING)
    #: Every bot seat's per-move limit, game clock and overage bank: the file's ``time_limit``, ``clock``
    #: and ``overage`` as one value (:mod:`arena.timecontrol`).
    time: TimeControl = field(default=DEFAULT_CONTROL, metadata=MEANING)
    #: The seating design every deal is played in (:mod:`.seating`).
    seating: str = field(default="balanced", metadata=MEANING)
    #: ``round-robin`` (every k-subset of the entrants) or ``gauntlet`` (one challenger per table).
    format: str = "round-robin"
    #: A gauntlet's challengers and pool, entrant names in file order (empty for a round-robin).
    challengers: tuple[str, ...] = ()
    pool: tuple[str, ...] = ()
    #: At most this many tables, chosen by :func:`~.schedule.choose_tables` (None: every table).
    max_tables: int | None = None
    #: Not part of what makes two runs the same: isolation never changes a game.
    isolation: str = field(default="process", compare=False)
    #: True: the duplicate format, a round's games all played with one deal; False: every game a deal of its own.
    duplicate: bool = field(default=False, metadata=MEANING)
    #: The seeds of a deals file (:mod:`.deals`), one a round; empty: the deals derive from the master seed.
    deal_seeds: tuple[int, ...] = ()
    #: The deals file as the tournament file names it (None: none, or its seeds written out).
    deals_file: str | None = field(default=None, compare=False)
    #: True: seeds derive from the file alone (no deal key), so anyone holding it can deal every game.
    public_deals: bool = field(default=False, metadata=MEANING)
    #: The secret deal key (64 lowercase hex digits) the seeds are keyed with, when known: given by the
    #: file's ``deal_key``, ``--deal-key``, or the results folder's key file.  Not part of what makes two
    #: configs equal: the folder checks it against its own key.
    deal_key: str | None = field(default=None, compare=False, repr=False)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(e.name for e in self.entrants)

