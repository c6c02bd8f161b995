"""A match's file in its results folder, ``match.json``, and a results folder that holds a match.

``match.json``
--------------
Written when the match starts (``state`` ``"running"``) and when it ends
(``"done"``): the bots, players, seating, games a deal, seed, scoring,
``parameters`` (``games``, ``sprt``, ``max_games``: what ``--resume`` must
repeat), ``test`` (``"pentanomial"``, ``"field"`` or None for a fixed count),
``deals`` and ``games`` counted, ``llr``, ``lower``, ``upper`` (the bounds of
the last deal counted: Wald's for two players, the field test's corrected
bounds for 3-5, Wald's in files written before the correction), ``verdict``
(``"H0"``, ``"H1"``, ``"inconclusive"``, None for a fixed count or a match
still running), ``pentanomial`` (``LL``, ``LD``, ``DD+WL``, ``WD``, ``WW``;
two players), ``score`` (A's mean score), ``elo`` (the estimate with its 95%
interval, logistic and normalized, and the likelihood of superiority: the
plain interval of the counts as they stand), ``elo_sequential`` (after a
two-player SPRT: the stopping-aware estimate and 95% interval of
:func:`arena.stats.sprt.pentanomial_sequential`, ``elo``, ``low``, ``high``
in the test's ``model``; null otherwise, and absent from older files), and
``history``: ``{"games": [...], "llr": [...]}``, the LLR after every deal
counted, for the LLR plot.  Numbers that are not finite are written as null.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

from arena.errors import os_error_line
from arena.inputfiles import InputFileError, read_input
from arena.plan.config import ConfigError, parse_config, read_config_text
from arena.results.files import MATCH_FILE, TOURNAMENT_FILE, RunError, write_atomically
from arena.tournament.match.plan import MatchPlan
from arena.tournament.match.tally import MatchTally

FORMAT = "arena-match/1"
#: The largest ``match.json`` read: its tally by deal pair takes a few KiB.
MATCH_FILE_MB = 16
PAIR_LABELS = ("LL", "LD", "DD+WL", "WD", "WW")


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def match_dict(plan: MatchPlan, tally: MatchTally, state: str) -> dict[str, Any]:
    """What ``match.json`` holds (see the module docstring) for ``plan`` counted as far as ``tally``."""
    elo = tally.elo()
    sequential = tally.sequential_elo()
    lower = upper = None
    if tally.status is not None:  # the bounds the verdict used (the field test's move with its variance)
        lower, upper = tally.status.lower, tally.status.upper
    elif plan.sprt is not None:
        lower, upper = plan.sprt.lower, plan.sprt.upper
    return {
        "format": FORMAT,
        "name": plan.name,
        "state": state,
        "bots": [{"name": n, "spec": s} for n, s in zip(plan.names, plan.specs)],
        "players": plan.players,
        "seating": plan.seating,
        "games_per_deal": plan.games_per_deal,
        "seed": plan.seed,
        "scoring": plan.scoring,
        "parameters": plan.parameters(),
        "test": plan.test,
        "deals": tally.deals,
        "games": tally.games,
        "llr": None if tally.status is None else _finite(tally.status.llr),
        "lower": lower,
        "upper": upper,
        "verdict": tally.verdict,
        "pentanomial": dict(zip(PAIR_LABELS, tally.counts)) if plan.players == 2 else None,
        "score": _finite(tally.score()),
        "elo": {key: _finite(value) for key, value in elo._asdict().items()},
        "elo_sequential": None if sequential is None else {
            "elo": _finite(sequential.elo), "low": _finite(sequential.low), "high": _finite(sequential.high),
            "model": sequential.model},
        "history": {"games": [g for g, _ in tally.history], "llr": [_finite(x) for x in
                                                                       (llr for _, llr in tally.history)]},
    }


def write_match(out: Path, match: dict[str, Any]) -> None:
    """Write ``match.json`` into the results folder ``out`` (atomically)."""
    text = json.dumps(match, indent=1) + "\n"
    write_atomically(out / MATCH_FILE, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def read_match(folder: Path) -> dict[str, Any] | None:
    """The ``match.json`` of a results folder, None when it has none; :class:`RunError` (one line) when
    it is there but is not a match's (damaged, or another format)."""
    path = folder / MATCH_FILE
    try:
        data = json.loads(read_input(path, "a match's file", MATCH_FILE_MB << 20))
    except FileNotFoundError:
        return None
    except InputFileError as exc:
        raise RunError(str(exc)) from None
    except (OSError, ValueError) as exc:
        raise RunError(f"{path}: cannot read: {os_error_line(exc)}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise RunError(f"{path}: not a match's results ({FORMAT})")
    return data


def stored_seed(out: Path) -> int | None:
    """The master seed of the match stored in ``out`` (for ``--resume`` without ``--seed``), None if there is none."""
    try:
        text = read_config_text(out / TOURNAMENT_FILE)
        return parse_config(text, str(out / TOURNAMENT_FILE), default_name=out.name).seed
    except ConfigError:
        return None


def seeded(plan: MatchPlan, seed: int | None, out: Path, overwrite: bool) -> tuple[MatchPlan, str]:
    """``plan`` with its master seed: ``seed``, else (unless ``overwrite``) the seed of the match stored in
    ``out``, else a random one; and the words that say where it came from."""
    from arena.tournament.match.plan import random_seed

    if seed is not None:
        return replace(plan, seed=seed), ""
    stored = None if overwrite else stored_seed(out)
    if stored is not None:
        return replace(plan, seed=stored), f" (the stored match's, from {out})"
    seed = random_seed()
    return replace(plan, seed=seed), f" (random; repeat the match with --seed {seed})"


def cap_to_restore(plan: MatchPlan, out: Path, resume: bool, overwrite: bool) -> str | None:
    """Before the run, reading only: the text of ``tournament.toml`` with the match's cap when ``out`` holds
    this match cut to the deals it counted (the run writes it back first), else None.

    Refuses (:class:`RunError`), unless ``overwrite``, a folder whose ``match.json`` gives other
    parameters, and this match cut to its deals without ``resume``; the rest is the results folder's
    to judge (:meth:`~arena.results.folder.ResultsFolder.open`).
    """
    path = out / TOURNAMENT_FILE
    if overwrite or not path.exists():
        return None
    stored = read_match(out)
    if stored is not None and stored.get("parameters") != plan.parameters():
        # a sequential test's error rates hold for parameters fixed before its first game
        raise RunError(f"{out} holds a match with other parameters ({MATCH_FILE}: {stored.get('parameters')}); "
                       f"choose another folder with --out, or start again with --overwrite")
    try:
        previous = parse_config(read_config_text(path), str(path), default_name=plan.name)
    except ConfigError:
        return None  # the results folder refuses it in one line
    config = plan.config()
    # Cut to its deals, a match of a deals file keeps the first of its seeds.
    cut = config.deal_seeds[:previous.deals] if config.deal_seeds else ()
    if (previous == config or previous.deal_seeds != cut
            or replace(previous, deals=config.deals, deal_seeds=config.deal_seeds) != config):
        return None  # the same cap, or another tournament: the results folder decides
    if not resume:
        raise RunError(f"{out} already holds this match's games; add --resume to go on with them, "
                       f"or --overwrite to start again")
    return plan.config_text()
