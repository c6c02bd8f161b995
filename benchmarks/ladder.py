"""The strength ladder: every built-in bot on one Elo scale, the search bots at several times a move.

    python benchmarks/strength.py --ladder --deals 8 --workers 2
    python benchmarks/strength.py --ladder-page docs/reference/strength-ladder.json

``--ladder`` writes a two-player round-robin tournament file (every entrant
against every other, each deal played from both seats with the same tiles:
``duplicate = true``, ``public_deals = true``), plays it with ``arena run
--isolation none`` (a real run of the arena: its referee, its results folder,
its ratings), and reads the run's ``standings.csv``: each entrant's Elo (the
arena's Plackett-Luce fit, entrants' mean 0) with its 95% interval, win
share and mean seconds a move.  The bots that do not search (``random``,
``greedy``, ``lookahead``) enter once, since time does not change their
moves; ``mcts`` enters once per time control (``--controls``, seconds a
move); OpenSpiel's ISMCTS (when OpenSpiel is installed) once, at its default
simulations, having no time budget.  The run's small summary (the tournament file, the standings rows,
the command, the wall time) is written to ``--summary`` and the page and the
plot are made from it alone (``--ladder-page`` makes them again), so
tests/integration/test_strength_ladder.py checks the committed page against
the committed summary.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import math
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SUMMARY = ROOT / "docs" / "reference" / "strength-ladder.json"
PAGE = ROOT / "docs" / "reference" / "strength-ladder.md"
PLOT = ROOT / "docs" / "images" / "strength-ladder.png"
#: Seconds a move of the search bots' time controls.
CONTROLS = (0.01, 0.03, 0.1)
#: The bots whose moves do not depend on their time.
FIXED = ("random", "greedy", "lookahead")
#: The OpenSpiel entrant's name on the ladder.
OPENSPIEL = "openspiel-ismcts"


def openspiel_why_not() -> str:
    """Why the OpenSpiel entrant cannot play here ("" when it can)."""
    if importlib.util.find_spec("pyspiel") is None:
        return "OpenSpiel is not installed on this machine (`pip install -e '.[openspiel]'` adds it)"
    return ""


def entrants(controls: tuple[float, ...], with_openspiel: bool) -> list[dict[str, Any]]:
    """The ladder's entrants: name, bot, options, and the seconds a move of a search bot (None otherwise)."""
    out: list[dict[str, Any]] = [{"name": name, "bot": name, "options": {}, "seconds": None} for name in FIXED]
    for seconds in controls:
        out.append({"name": f"mcts-{seconds:g}s", "bot": "mcts", "options": {"iterations": 0, "seconds": seconds},
                    "seconds": seconds})
    if with_openspiel:
        # OpenSpiel's ISMCTS has no time budget, only simulations: it enters once, at its default budget,
        # and its time a move is the one measured in the run.
        out.append({"name": "openspiel-ismcts", "bot": "openspiel-ismcts", "options": {}, "seconds": None})
    return out


def toml_value(value: Any) -> str:
    """A TOML literal of a string, number or flat table."""
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    return repr(value)


def tournament_file(players: list[dict[str, Any]], deals: int, seed: int) -> str:
    """The ladder's tournament file."""
    lines = ['name = "strength-ladder"', "players = 2", f"deals = {deals}", f"seed = {seed}",
             'scoring = "uptown"', "time_limit = 10.0", 'seating = "rotate"', "duplicate = true",
             "public_deals = true", 'isolation = "none"']
    for e in players:
        lines += ["", "[[entrants]]", f"name = {toml_value(e['name'])}", f"bot = {toml_value(e['bot'])}"]
        if e["options"]:
            lines.append(f"options = {toml_value(e['options'])}")
    return "\n".join(lines) + "\n"


def run(deals: int, seed: int, workers: int, controls: tuple[float, ...], out: Path, summary: Path,
        command: str) -> dict[str, Any]:
    """Play the ladder with ``arena run`` into ``out``; the summary, also written to ``summary``."""
    why = openspiel_why_not()
    players = entrants(controls, not why)
    out.mkdir(parents=True, exist_ok=True)
    toml = tournament_file(players, deals, seed)
    (out / "strength-ladder.toml").write_text(toml)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "arena", "run", str(out / "strength-ladder.toml"), "--out",
                    str(out / "results"), "--isolation", "none", "-j", str(workers), "--quiet"],
                   check=True)
    wall = time.perf_counter() - start
    data = summarize(out, players, deals, seed, workers, controls, wall, command, toml)
    summary.write_text(json.dumps(data, indent=1) + "\n")
    return data


def summarize(out: Path, players: list[dict[str, Any]], deals: int, seed: int, workers: int,
              controls: tuple[float, ...], wall: float, command: str, toml: str) -> dict[str, Any]:
    """The summary of the ladder's results folder ``out/results``: its standings and time use, and how it ran."""
    with open(out / "results" / "standings.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    with open(out / "results" / "time_use.csv", newline="") as f:
        seconds = {row["entrant"]: row["mean_move_seconds"] for row in csv.DictReader(f)}
    for row in rows:
        row["mean_move_seconds"] = seconds.get(row["entrant"], "")
    keep = ("entrant", "games", "rating", "rating_low", "rating_high", "win_share_uptown", "mean_move_seconds")
    return {
        "command": command,
        "tournament": toml,
        "deals": deals,
        "seed": seed,
        "workers": workers,
        "controls": list(controls),
        "wall_seconds": round(wall, 1),
        "openspiel": openspiel_why_not(),
        "entrants": players,
        "standings": [{k: row.get(k, "") for k in keep} for row in rows],
    }


def _num(text: str) -> float:
    return float(text) if text not in ("", None) else math.nan


def rows_by_name(data: dict[str, Any]) -> dict[str, dict[str, float]]:
    """The standings of the summary by entrant, as numbers."""
    return {r["entrant"]: {k: _num(v) for k, v in r.items() if k != "entrant"} for r in data["standings"]}


def render_page(data: dict[str, Any]) -> str:
    """The ladder page, from the summary alone."""
    rows = rows_by_name(data)
    games = sum(int(r["games"]) for r in rows.values()) // 2
    lines = [
        "# The strength ladder",
        "",
        "<!-- Generated by benchmarks/ladder.py from strength-ladder.json; do not edit by hand. -->",
        "",
        "Every built-in bot on one Elo scale, from one real run of the arena: a two-player round robin "
        "(every entrant against every other, each deal played from both seats with the same tiles), "
        "rated by the arena's own Plackett-Luce fit (the standings' `rating`: entrants' mean 0, "
        "a 100-point gap = finishing ahead 64% of the time) with its 95% interval. "
        "`random`, `greedy` and `lookahead` do not search, so they enter once; `mcts` enters at "
        f"{', '.join(f'{s:g} s' for s in data['controls'])} a move (`iterations=0,seconds=S`)"
        + ("; OpenSpiel's ISMCTS once, at its default simulations (it has no time budget)."
           if not data["openspiel"] else "."),
        "",
        f"Measured with `{data['command']}`: {games} games ({data['deals']} deals a pairing, both seats), "
        f"{data['workers']} worker(s), {data['wall_seconds']:.0f} s on the shared 2-core machine. "
        "The tournament file it played is in `strength-ladder.json` (`arena run` on it plays the same games "
        "but for the search bots' timing).",
        "",
        "| entrant | seconds a move (mean) | games | Elo | 95% interval | win share |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    order = sorted(rows, key=lambda name: -rows[name]["rating"])
    for name in order:
        r = rows[name]
        lines.append(f"| `{name}` | {r['mean_move_seconds']:.4f} | {int(r['games'])} | {r['rating']:+.0f} | "
                     f"{r['rating_low']:+.0f} to {r['rating_high']:+.0f} | {100 * r['win_share_uptown']:.1f}% |")
    lines += ["", "![Elo against seconds a move](../images/strength-ladder.png)", ""]
    search = [e for e in data["entrants"] if e["seconds"] is not None and e["bot"] == "mcts"]
    steps = []
    for a, b in zip(search, search[1:]):
        gap = rows[b["name"]]["rating"] - rows[a["name"]]["rating"]
        share = 1 / (1 + 10 ** (-gap / 400))
        steps.append(f"{a['seconds']:g} s to {b['seconds']:g} s: {gap:+.0f} Elo "
                     f"(expected score {100 * share:.0f}% against the shorter time)")
    if steps:
        lines += ["`mcts` from one time control to the next, on this scale: " + "; ".join(steps) + ".", ""]
    if data["openspiel"]:
        lines += [f"OpenSpiel's ISMCTS (`openspiel-ismcts`) is not on the ladder: {data['openspiel']}.", ""]
    lines += ["Make the page and the plot again from the summary with "
              "`python benchmarks/strength.py --ladder-page docs/reference/strength-ladder.json`.", ""]
    return "\n".join(lines)


def render_plot(data: dict[str, Any], path: Path) -> None:
    """Elo against seconds a move: the search bots as lines with intervals, the others as bands."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = rows_by_name(data)
    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=100)
    for bot, label in (("mcts", "mcts"), ("openspiel-ismcts", "OpenSpiel ISMCTS (its default simulations)")):
        points = [(e["seconds"] or rows[e["name"]]["mean_move_seconds"], rows[e["name"]])
                  for e in data["entrants"] if e["bot"] == bot]
        if not points:
            continue
        xs = [s for s, _ in points]
        ys = [r["rating"] for _, r in points]
        err = [[r["rating"] - r["rating_low"] for _, r in points], [r["rating_high"] - r["rating"] for _, r in points]]
        ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=label)
    for name, color in zip(FIXED, ("grey", "tab:green", "tab:purple")):
        r = rows[name]
        ax.axhline(r["rating"], color=color, linestyle="--", linewidth=1)
        ax.axhspan(r["rating_low"], r["rating_high"], color=color, alpha=0.12)
        ax.text(min(data["controls"]), r["rating"], f" {name}", va="bottom", fontsize=8, color=color)
    ax.set_xscale("log")
    ax.set_xlabel("seconds a move (search bots)")
    ax.set_ylabel("Elo (entrants' mean 0), 95% interval")
    ax.set_title("The built-in bots, two players")
    ax.legend(loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def write_page(summary: Path, page: Path = PAGE, plot: Path = PLOT) -> None:
    """The page and the plot from a summary file."""
    data = json.loads(summary.read_text())
    page.write_text(render_page(data))
    render_plot(data, plot)


def command_line(argv: list[str]) -> str:
    """The command as typed, for the page."""
    return "python benchmarks/strength.py " + " ".join(shlex.quote(a) for a in argv)
