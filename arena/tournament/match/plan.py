"""A match as given: its bots (A first), its end, its settings, and the tournament file it plays.

The end: ``--games N`` plays ``N`` games rounded up to whole deals.  ``--sprt``
plays until the sequential test of :mod:`arena.stats.sprt` decides (H0 or H1)
or ``max_games`` (rounded up to whole deals) are counted: then the verdict is
``inconclusive``.
"""

from __future__ import annotations

import re
import secrets
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arena import ranges as limits
from arena.errors import ArenaError
from arena.plan.config import ConfigError, default_entrant_name, default_seating, parse_config, to_toml, with_deals
from arena.plan.seating import seatings
from arena.plan.tournament import Entrant, TournamentConfig
from arena.results.files import MATCH_FILE
from arena.stats.hypotheses import SprtParameters
from arena.timecontrol import DEFAULT_CONTROL, TimeControl, parse_clock, parse_overage

#: ``--max-games`` when not given.
DEFAULT_MAX_GAMES = 20_000
#: The most deals an SPRT may run to: a folder cut to fewer keeps its game ids (4-digit deals).
MAX_SPRT_DEALS = 10_000
SPRT_KEYS = ("elo0", "elo1", "alpha", "beta", "model")
#: The keys of ``--sprt`` that must be given.
SPRT_REQUIRED = ("elo0", "elo1")


class MatchError(ArenaError, ValueError):
    """A match that cannot be set up; the message is one line naming the option and the problem."""


def parse_sprt(text: str, players: int) -> SprtParameters:
    """``elo0=0,elo1=20[,alpha=0.05,beta=0.05,model=normalized]`` as checked SPRT parameters.

    The model defaults to ``normalized`` (fastchess's) with two players and ``logistic`` with 3-5,
    the only model of the field test.  Raises :class:`MatchError` naming ``--sprt``.
    """
    given: dict[str, str] = {}
    for part in text.split(","):
        key, eq, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not key or not value:
            raise MatchError(f"--sprt: {part.strip()!r} is not key=value (e.g. --sprt elo0=0,elo1=20)")
        if key not in SPRT_KEYS:
            raise MatchError(f"--sprt: unknown key {key!r} (it takes {', '.join(SPRT_KEYS)})")
        if key in given:
            raise MatchError(f"--sprt: {key} is given twice")
        given[key] = value
    for key in SPRT_REQUIRED:
        if key not in given:
            raise MatchError(f"--sprt: {key} is missing (e.g. --sprt elo0=0,elo1=20)")
    numbers: dict[str, float] = {}
    for key in ("elo0", "elo1", "alpha", "beta"):
        if key in given:
            try:
                numbers[key] = float(given[key])
            except ValueError:
                raise MatchError(f"--sprt: {key} must be a number, not {given[key]!r}") from None
    model = given.get("model", "normalized" if players == 2 else "logistic")
    if players > 2 and model != "logistic":
        raise MatchError(f"--sprt: model {model} is for two players; the test of A against the field "
                         f"({players} bots) takes model=logistic")
    try:
        return SprtParameters(model=model, **numbers)
    except ValueError as exc:
        raise MatchError(f"--sprt: {str(exc).removeprefix('SPRT ')}") from None


def _short_spec(spec: str) -> str:
    """A spec without the folders and file of a ``path/file.py:Name`` or ``module:Name`` ref (``Name:p=0.5``)."""
    from arena.plugins.specs import EXEC_PREFIX, BotError, split_bot_spec

    if spec.startswith(EXEC_PREFIX):
        return spec
    try:
        ref, options = split_bot_spec(spec)
    except BotError:
        return spec
    short = ref.rsplit(":", 1)[-1] if ":" in ref and (".py:" in ref or "." in ref.split(":")[0]) else ref
    return short + spec[len(ref):]


def entrant_names(specs: Sequence[str]) -> tuple[str, ...]:
    """Each bot's entrant name: its spec made a name as a tournament file names it (a file's or module's
    bot by its class name), ``-2``, ``-3`` ... for repeats."""
    names: list[str] = []
    for spec in specs:
        base = default_entrant_name(_short_spec(spec))
        name, n = base, 1
        while name in names:
            n += 1
            name = f"{base[:40 - len(str(n)) - 1]}-{n}"
        names.append(name)
    return tuple(names)


def match_name(names: Sequence[str]) -> str:
    """The match's name and default folder: ``match-A-vs-B``, ``match-A-vs-B-C`` for a table of more."""
    text = f"match-{names[0]}-vs-" + "-".join(names[1:])
    text = re.sub(r"[^A-Za-z0-9._-]+", "-", text)[:64]
    return text.rstrip("-._") or "match"


@dataclass(frozen=True)
class MatchPlan:
    """A checked match: its bots (A first), its end (``games`` or ``sprt``), seed and game settings."""

    specs: tuple[str, ...]
    seed: int
    games: int | None = None
    sprt: SprtParameters | None = None
    max_games: int = DEFAULT_MAX_GAMES
    scoring: str = "uptown"
    #: Every bot seat's per-move limit, game clock and overage bank (:func:`match_time` checks the options).
    time: TimeControl = DEFAULT_CONTROL
    isolation: str = "process"
    names: tuple[str, ...] = field(default=())
    #: The duplicate format (a deal played in every seating of a round) rather than a deal for every game.
    duplicate: bool = False
    #: Seeds from the master seed alone (``--public-deals``), rather than keyed with the folder's deal key.
    public_deals: bool = False
    #: The deal key to play with (``--deal-key``; None: the folder's, or a new one).
    deal_key: str | None = field(default=None, repr=False)
    #: The seeds of a deals file (``--deals``), round by round (empty: deals from the master seed), and its name.
    deal_seeds: tuple[int, ...] = ()
    deals_file: str | None = None

    def __post_init__(self) -> None:
        if not 2 <= len(self.specs) <= 5:
            raise MatchError(f"BOTS: a match takes 2 to 5 bots, not {len(self.specs)}")
        if (self.games is None) == (self.sprt is None):
            raise MatchError("give either --games N or --sprt elo0=...,elo1=..., not both" if self.games is not None
                             else "give --games N or --sprt elo0=...,elo1=... (how long the match plays)")
        if self.games is not None and not 1 <= self.games:
            raise MatchError(f"--games must be at least 1, not {self.games}")
        if self.games is not None and self.deals > limits.MAX_DEALS:
            raise MatchError(f"--games: at most {limits.MAX_DEALS * self.games_per_deal} games "
                             f"({limits.MAX_DEALS} deals of {self.games_per_deal})")
        if self.sprt is not None:
            if self.max_games < 1:
                raise MatchError(f"--max-games must be at least 1, not {self.max_games}")
            if self.deals > MAX_SPRT_DEALS:
                raise MatchError(f"--max-games: at most {MAX_SPRT_DEALS * self.games_per_deal} games "
                                 f"({MAX_SPRT_DEALS} deals of {self.games_per_deal})")
        if self.public_deals and self.deal_key is not None:
            raise MatchError("--public-deals: the deals cannot be both public and keyed with --deal-key")
        if self.deals_file is not None and len(self.deal_seeds) < self.deals:
            end = f"--games {self.games}" if self.games is not None else f"--max-games {self.max_games}"
            raise MatchError(f"--deals: {self.deals_file} holds {len(self.deal_seeds)} deals, fewer than the "
                             f"{self.deals} the match may play ({end}, {self.games_per_deal} games a deal); give "
                             f"{'--games' if self.games is not None else '--max-games'} at most "
                             f"{len(self.deal_seeds) * self.games_per_deal}, or a longer file")
        if not self.names:
            object.__setattr__(self, "names", entrant_names(self.specs))

    @property
    def players(self) -> int:
        return len(self.specs)

    @property
    def seating(self) -> str:
        """The seating design of a deal: both seats with two players, ``balanced`` with more."""
        return default_seating(self.players)

    @property
    def games_per_deal(self) -> int:
        return len(seatings(tuple(range(self.players)), self.seating))

    @property
    def deals(self) -> int:
        """The cap: the deals of ``games``, or of ``max_games`` for an SPRT, rounded up."""
        target = self.games if self.games is not None else self.max_games
        return -(-target // self.games_per_deal)

    @property
    def name(self) -> str:
        return match_name(self.names)

    @property
    def test(self) -> str | None:
        """``pentanomial`` (two players), ``field`` (3-5) or None (a fixed count)."""
        if self.sprt is None:
            return None
        return "pentanomial" if self.players == 2 else "field"

    def parameters(self) -> dict[str, Any]:
        """What ends the match, as ``match.json`` keeps it (a resume must give the same)."""
        return {
            "games": self.games,
            "sprt": None if self.sprt is None else {key: getattr(self.sprt, key) for key in SPRT_KEYS},
            "max_games": self.max_games if self.sprt is not None else None,
        }

    def describe(self) -> str:
        """The match as a command line would give it (for the folder's file and messages)."""
        if self.sprt is not None:
            p = self.sprt
            end = (f"--sprt elo0={p.elo0:g},elo1={p.elo1:g},alpha={p.alpha:g},beta={p.beta:g},model={p.model} "
                   f"--max-games {self.max_games}")
        else:
            end = f"--games {self.games}"
        if self.deals_file is not None:
            end += f" --deals {shlex.quote(' '.join(self.deals_file.split()))}"
        return f"{' '.join(shlex.quote(s) for s in self.specs)} {end}"

    def config_text(self, deals: int | None = None) -> str:
        """The match's ``tournament.toml``, with ``deals`` deals (default: the cap)."""
        deals = self.deals if deals is None else deals
        config = TournamentConfig(
            name=self.name, players=self.players, deals=deals, seed=self.seed,
            entrants=tuple(Entrant(name, spec) for name, spec in zip(self.names, self.specs)),
            scoring=self.scoring, time=self.time,
            seating=self.seating, isolation=self.isolation, duplicate=self.duplicate, public_deals=self.public_deals,
            deal_seeds=self.deal_seeds[:deals], deals_file=(self.deals_file or "--deals") if self.deal_seeds else None,
        )
        return to_toml(config, [f"arena match {self.describe()}",
                                f"{self.names[0]} (the first entrant) is A, the challenger; the test and its verdict "
                                f"are in {MATCH_FILE}."])

    def config(self, deals: int | None = None) -> TournamentConfig:
        """The tournament the match plays (``deals``: default the cap)."""
        try:
            config = parse_config(self.config_text(deals), "arena match", default_name=self.name)
            return with_deals(config, deal_key=self.deal_key)
        except ConfigError as exc:
            raise MatchError(str(exc).removeprefix("arena match: ")) from None


def match_time(time_limit: float, clock: str | None, overage: float | None) -> TimeControl:
    """The time control of ``--time-limit``, ``--clock`` and ``--overage`` (None: not given); a
    :class:`MatchError` names the option it refuses."""
    try:
        limit = limits.time_limit(time_limit)
    except limits.LimitError as exc:
        raise MatchError(f"--time-limit: {exc}") from None
    try:
        base, increment, moves = (None, 0.0, None) if clock is None else parse_clock(clock)
    except limits.LimitError as exc:
        raise MatchError(f"--clock: {exc}") from None
    try:
        bank = 0.0 if overage is None else parse_overage(overage)
    except limits.LimitError as exc:
        raise MatchError(f"--overage: {exc}") from None
    return TimeControl(base, increment, moves, bank, limit)


def check_bot_count(bots: Sequence[str]) -> None:
    """Refuse (:class:`MatchError`) a match of other than 2 to 5 bots, naming the command's arguments."""
    if not 2 <= len(bots) <= 5:
        raise MatchError(f"A B [C ...]: a match takes 2 to 5 bots, not {len(bots)}")


def random_seed() -> int:
    """A fresh 63-bit master seed (it fits every JSON reader)."""
    return secrets.randbits(63)
