"""A results folder that holds a match: its ``match.json`` written (the format: :mod:`arena.results.match_file`),
a match's folder checked and seeded for ``--resume``."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

from arena.plan.config import ConfigError, parse_config, read_config_text
from arena.results.files import MATCH_FILE, TOURNAMENT_FILE, RunError, write_atomically
from arena.results.match_file import FORMAT, read_match
from arena.tournament.match.plan import MatchPlan
from arena.tournament.match.tally import MatchTally

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
