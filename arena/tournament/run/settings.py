"""What every worker of a run starts with: :class:`WorkerSettings`, made from the tournament by
:func:`worker_settings` and completed by the local pool or the Dask cluster that starts the workers."""

from __future__ import annotations

from dataclasses import dataclass

from arena.plan.tournament import Entrant, TournamentConfig
from arena.timecontrol import TimeControl


@dataclass(frozen=True)
class WorkerSettings:
    """What every worker needs to play any game of a run: plain values only, so it pickles under spawn
    and a Dask worker keys its prepared bots by its digest."""

    tournament: str
    names: tuple[str, ...]
    specs: tuple[str, ...]
    entrants: tuple[Entrant, ...]
    scoring: str
    penalty: str
    time: TimeControl
    isolation: str
    #: The secret the bots' seeds are keyed with (None: public deals); the games' seeds come made.
    deal_key: str | None
    #: The folder for the bots' standard error (None: none kept).
    logs: str | None = None
    #: Paths bot programs must not see.
    hide: tuple[str, ...] = ()
    #: The records of a chunk come back as one gzip member (made here, beside play, not in the parent).
    compress: bool = False
    #: The results folder whose ``live/`` a local worker writes the game it plays into (None: none).
    live: str | None = None
    #: Each worker keeps to a CPU of its own (bots in processes of their own, a CPU for every worker).
    pin: bool = False
    #: The text of relative ``file.py:Name`` bot files shipped to Dask workers: ``(entrant index, (path, text))``.
    files: tuple[tuple[int, tuple[str, str]], ...] = ()


def worker_settings(config: TournamentConfig, logs: str | None = None, hide: tuple[str, ...] = ()) -> WorkerSettings:
    """The settings of the workers of ``config``'s games: ``logs`` is the folder for the bots' standard error,
    ``hide`` the paths bot programs must not see."""
    return WorkerSettings(
        tournament=config.name, names=config.names, specs=tuple(e.spec for e in config.entrants),
        entrants=config.entrants, scoring=config.scoring, penalty=config.penalty, time=config.time,
        isolation=config.isolation, deal_key=None if config.public_deals else config.deal_key,
        logs=logs, hide=tuple(hide),
    )
