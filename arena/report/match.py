"""A match's evidence and verdict as text lines, from its ``match.json`` (see :mod:`arena.tournament.match.folder`)."""

from __future__ import annotations

import math
from typing import Any


def elo_text(value: float | None) -> str:
    """An Elo difference with one decimal and its sign; ``n/a`` when there is none, ``+inf``/``-inf`` at the edges."""
    if value is None or math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.1f}"


def headline(match: dict[str, Any]) -> str:
    """The match in a line: who played whom, the games, and the verdict when there is one."""
    bots = [b["name"] for b in match["bots"]]
    rivals = bots[1] if match["players"] == 2 else "the field (" + ", ".join(bots[1:]) + ")"
    unit = ("game pair" if match["players"] == 2 else "round") + ("" if match["deals"] == 1 else "s")
    verdict = match.get("verdict")
    state = "" if match.get("state") == "done" else f" [{match.get('state')}]"
    head = f"{bots[0]} vs {rivals}: {match['games']} games ({match['deals']} {unit})"
    return head + (f", verdict {verdict}" if verdict else "") + state


def verdict_line(match: dict[str, Any]) -> str:
    """What an SPRT's verdict means, in words ('' for a match without a test or a verdict)."""
    p = match["parameters"]["sprt"]
    if p is None:
        return ""
    first = match["bots"][0]["name"]
    meaning = {"H1": f"H1 accepted: {first} is at least {p['elo1']:g} Elo better",
               "H0": f"H0 accepted: {first} is at most {p['elo0']:g} Elo better",
               "inconclusive": f"inconclusive: no verdict within {match['parameters']['max_games']} games"}
    return meaning.get(match.get("verdict") or "", "")


def summary_lines(match: dict[str, Any]) -> list[str]:
    """The match's evidence and verdict as text lines, from its ``match.json`` dict."""
    lines = [headline(match)]
    sprt_params = match["parameters"]["sprt"]
    if sprt_params is not None:
        p = sprt_params
        llr = "n/a" if match["llr"] is None else f"{match['llr']:.3f}"
        lines.append(f"  SPRT ({match['test']}, {p['model']}) elo0={p['elo0']:g} elo1={p['elo1']:g} "
                     f"alpha={p['alpha']:g} beta={p['beta']:g}: LLR {llr}, bounds {match['lower']:.3f} and "
                     f"{match['upper']:.3f}")
        if verdict_line(match):
            lines.append(f"  {verdict_line(match)}")
    if match["pentanomial"] is not None:
        lines.append("  pentanomial " + ", ".join(f"{k} {v}" for k, v in match["pentanomial"].items()))
    if match["score"] is not None:
        what = "points per game" if match["players"] == 2 else "share of rivals finished ahead of, ties half"
        lines.append(f"  score {match['score']:.3f} ({what})")
    e = match["elo"]
    if match["deals"]:
        # null in match.json: not finite; a score of 1 (or 0) throughout is +inf (or -inf) Elo
        edge = {1.0: math.inf, 0.0: -math.inf}.get(e["score"]) if e["score"] is not None else None
        elo, low, high = (edge if e[key] is None else e[key] for key in ("elo", "low", "high"))
        text = f"  Elo {elo_text(elo)} (95%: {elo_text(low)} to {elo_text(high)})"
        if e["nelo"] is not None:
            text += f", normalized {elo_text(e['nelo'])} ({elo_text(e['nelo_low'])} to {elo_text(e['nelo_high'])})"
        if e["los"] is not None:
            text += f", LOS {100 * e['los']:.1f}%"
        lines.append(text + (" [fixed-sample]" if match.get("elo_sequential") else ""))
    seq = match.get("elo_sequential")  # absent from older match.json files
    if seq and seq.get("elo") is not None:
        lines.append(f"  Elo after the stop ({seq['model']}, stopping-aware): {elo_text(seq['elo'])} "
                     f"(95%: {elo_text(seq['low'])} to {elo_text(seq['high'])})")
    return lines
