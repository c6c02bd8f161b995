"""The figures the README and the site quote from runs of the arena (times, game counts, ratings), made by
running the arena.

A figure in a page is written ``<!-- figure: NAME -->VALUE<!-- /figure -->`` (a comment a reader never sees):
NAME is one of the figures a run of :data:`RUNS` gives, and VALUE what that run gave when it was last made,
as ``docs/figures.json`` keeps it (the committed run: each run's command, when and on what machine it ran,
and every figure it gave).  ``tests/project/test_figures.py`` holds every page's figures to that file.  The
runs are not repeated by a test (a time depends on the machine and its load); after a change that moves a
figure, make them again:

    python docs/figures.py --update          # every run again, then every page's figures
    python docs/figures.py --update mcts-sprt quickstart   # those runs only
    python docs/figures.py                   # only write the pages' figures from docs/figures.json
    python docs/figures.py --check           # exit status 1 when a page's figure is not the file's

A run whose extra is not installed (the ISMCTS example needs open-spiel) is refused with the reason, and
keeps its last figures.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIGURES_FILE = ROOT / "docs" / "figures.json"
#: ``<!-- figure: NAME -->VALUE<!-- /figure -->``.
FIGURE = re.compile(r"<!-- figure: ([a-z0-9.-]+) -->(.*?)<!-- /figure -->", re.DOTALL)


@dataclass(frozen=True)
class Done:
    """What a run left: its output, its results folder, its wall-clock seconds."""

    stdout: str
    stderr: str
    out: Path
    wall: float


def duration(seconds: float) -> str:
    """A time as a page says it: ``4.2 s``, ``29 s``, ``3 min 5 s``, ``17 min``."""
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min" if minutes >= 10 else f"{minutes} min {rest} s"


def signed(value: float, digits: int = 0) -> str:
    return f"{value:+.{digits}f}"


def _match(done: Done) -> dict:
    return json.loads((done.out / "match.json").read_text(encoding="utf-8"))


def _standings(done: Done) -> dict[str, dict[str, str]]:
    with open(done.out / "standings.csv", newline="", encoding="utf-8") as f:
        return {row["entrant"]: row for row in csv.DictReader(f)}


def _played(done: Done) -> str:
    found = re.search(r"^played \d+ games in ([\d.]+) s", done.stderr, re.MULTILINE)
    if found is None:
        raise RuntimeError(f"the run did not say how long it played:\n{done.stderr[-2000:]}")
    return f"{float(found.group(1)):.1f} s"


def _quickstart(done: Done) -> dict[str, str]:
    return {"wall": duration(done.wall), "played": _played(done)}


def _wall(done: Done) -> dict[str, str]:
    return {"wall": duration(done.wall)}


def _sprt(done: Done) -> dict[str, str]:
    match = _match(done)
    elo, pairs = match["elo"], match["pentanomial"]
    return {"games": str(match["games"]), "pairs": str(match["games"] // 2), "verdict": match["verdict"],
            "ll": str(pairs["LL"]), "dd-wl": str(pairs["DD+WL"]), "ww": str(pairs["WW"]),
            "elo": signed(elo["elo"]), "elo-low": signed(elo["low"]), "elo-high": signed(elo["high"]),
            "wall": duration(done.wall)}


def _table(done: Done, names: tuple[str, ...]) -> dict[str, str]:
    """Each entrant's row of the standings: place, games, rating and interval, win share and interval, means."""
    found: dict[str, str] = {}
    for name, row in _standings(done).items():
        if name not in names:
            continue
        key = re.sub(r"[^a-z0-9]+", "-", name.lower())
        found |= {f"{key}.place": row["place"], f"{key}.games": row["games"],
                  f"{key}.rating": signed(float(row["rating"])),
                  f"{key}.rating-ci": f"[{signed(float(row['rating_low']))}, {signed(float(row['rating_high']))}]",
                  f"{key}.win-share": f"{100 * float(row['win_share_uptown']):.1f}%",
                  f"{key}.win-ci": f"{100 * float(row['ci_low_uptown']):.1f}%-{100 * float(row['ci_high_uptown']):.1f}%",
                  f"{key}.groups": f"{float(row['mean_groups']):.2f}",
                  f"{key}.captures": f"{float(row['mean_captures']):.2f}"}
    return found


def _ismcts(done: Done) -> dict[str, str]:
    return {**_table(done, ("mcts", "openspiel-ismcts")), "wall": duration(done.wall)}


def _collusion(done: Done) -> dict[str, str]:
    detail = subprocess.run([sys.executable, "-m", "arena", "report", str(done.out), "--collusion", "crow-1,crow-2"],
                            capture_output=True, text=True, timeout=600, env=_env(), cwd=ROOT)
    took = re.findall(r"took (\d+) of \S+ tiles where ([\d.]+) were expected", detail.stdout)
    if len(took) != 2:
        raise RuntimeError(f"no captures of the pair, both ways, in:\n{detail.stdout}{detail.stderr}")
    flagged = re.findall(r"^(\S+ -> \S+): FLAGGED", detail.stdout, re.MULTILINE)
    return {"wall": duration(done.wall), "taken": str(sum(int(n) for n, _ in took)),
            "expected": f"{sum(float(e) for _, e in took):.0f}", "flagged": str(len(flagged))}


def _pairings(done: Done, bot: str) -> dict[str, str]:
    """``bot`` against each other entrant, over the games of the two (two players): ahead, tied, behind, and the
    share ahead with its Wilson interval over games."""
    from arena.stats.intervals import wilson

    ranks: dict[str, dict[str, int]] = {}
    with open(done.out / "games.csv", newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            ranks.setdefault(row["game_id"], {})[row["entrant"]] = int(row["uptown_rank"])
    found: dict[str, str] = {}
    for rival in sorted({name for game in ranks.values() for name in game} - {bot}):
        games = [game for game in ranks.values() if set(game) == {bot, rival}]
        ahead = sum(game[bot] < game[rival] for game in games)
        tied = sum(game[bot] == game[rival] for game in games)
        low, high = wilson(ahead, len(games))
        found |= {f"{rival}.games": str(len(games)), f"{rival}.ahead": str(ahead), f"{rival}.tied": str(tied),
                  f"{rival}.behind": str(len(games) - ahead - tied),
                  f"{rival}.share": f"{100 * ahead / len(games):.1f}% [{100 * low:.1f}%, {100 * high:.1f}%]"}
    return found


def _learned(done: Done) -> dict[str, str]:
    pairs = {f"vs-{key}": value for key, value in _pairings(done, "learned").items()}
    return {**_table(done, ("learned", "random", "greedy")), **pairs, "wall": duration(done.wall)}


@dataclass(frozen=True)
class Run:
    """A command of the arena (``{out}``: a fresh results folder), run from the checkout, and the figures it
    gives.  ``needs``: a module it cannot run without, and the extra that installs it."""

    args: tuple[str, ...]
    what: str
    figures: Callable[[Done], dict[str, str]]
    needs: tuple[str, str] | None = None

    def command(self) -> str:
        return "arena " + " ".join(arg.replace("{out}", "OUT") for arg in self.args)

    def run(self) -> dict[str, str]:
        if self.needs is not None:
            module, extra = self.needs
            check = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, timeout=120)
            if check.returncode != 0:
                raise RuntimeError(f"{module} is not installed (pip install '.[{extra}]')")
        with tempfile.TemporaryDirectory(prefix="arena-figures-") as tmp:
            out = Path(tmp) / "out"
            args = [arg.replace("{out}", str(out)) for arg in self.args]
            start = time.perf_counter()
            done = subprocess.run([sys.executable, "-m", "arena", *args], cwd=ROOT, env=_env(), capture_output=True,
                                  text=True, timeout=4 * 3600)
            wall = time.perf_counter() - start
            if done.returncode != 0:
                raise RuntimeError(f"{self.command()} failed ({done.returncode}): {done.stderr[-2000:]}")
            return self.figures(Done(done.stdout, done.stderr, out, wall))


def _env() -> dict[str, str]:
    return {**os.environ, "COLUMNS": "80", "NO_COLOR": "1"}


RUNS = {
    "quickstart": Run(("run", "tournaments/quickstart.toml", "--out", "{out}"),
                      "the README's tournament, every bot a program in the sandbox", _quickstart),
    "baselines": Run(("run", "tournaments/baselines.toml", "--out", "{out}"),
                     "every built-in bot with its defaults, 300 games in the sandbox", _wall),
    "sprt-duplicate": Run(("match", "lookahead", "greedy", "--sprt", "elo0=0,elo1=50", "--seed", "2024",
                           "--public-deals", "--duplicate", "--out", "{out}", "--quiet"),
                          "the first SPRT tutorial's seeded match, dealt as a duplicate one", _sprt),
    "mcts-sprt": Run(("match", "mcts", "greedy", "--sprt", "elo0=0,elo1=20", "--seed", "1", "-j", "1", "--duplicate",
                      "--public-deals", "--out", "{out}", "--quiet"),
                     "the search bot's SPRT against greedy, one worker", _sprt),
    "ismcts": Run(("run", "examples/openspiel/ismcts-vs-mcts.toml", "--out", "{out}", "--quiet"),
                  "OpenSpiel's ISMCTS against the arena's mcts", _ismcts, needs=("pyspiel", "openspiel")),
    "collusion": Run(("run", "examples/collusion/tournament.toml", "--out", "{out}", "--quiet"),
                     "the collusion example: a team of two among honest bots", _collusion),
    "learned": Run(("run", "examples/learned_policy/learned-vs-builtins.toml", "--out", "{out}", "--quiet"),
                   "the shipped learned policy against random and greedy", _learned),
}


def pages() -> list[Path]:
    """README.md and every Markdown page of the site."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def shown(text: str) -> list[tuple[str, str]]:
    """Each ``(NAME, VALUE)`` of ``text``'s figures, in order."""
    return [(m.group(1), m.group(2)) for m in FIGURE.finditer(text)]


def rewrite(text: str, values: dict[str, str]) -> str:
    """``text`` with every figure holding the value ``values`` has for its name (a KeyError names a figure no
    run gives)."""
    return FIGURE.sub(lambda m: f"<!-- figure: {m.group(1)} -->{values[m.group(1)]}<!-- /figure -->", text)


def read_figures(path: Path = FIGURES_FILE) -> dict:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def values(runs: dict) -> dict[str, str]:
    """Every figure by its page name, ``RUN.FIGURE``, and each run's ``RUN.machine`` (where it ran)."""
    return {**{f"{name}.machine": run["machine"] for name, run in runs.items()},
            **{f"{name}.{key}": value for name, run in runs.items() for key, value in run["figures"].items()}}


def _machine() -> str:
    model = ""
    try:
        model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo", encoding="utf-8")
                      if line.startswith("model name")), "")
    except OSError:
        pass
    model = re.sub(r"\((R|TM)\)|\bProcessor\b|\bCPU\b.*", "", model or platform.processor() or platform.machine())
    return f"{os.cpu_count()} cores of an {' '.join(model.split())}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", nargs="*", metavar="RUN", choices=sorted(RUNS), default=None,
                        help="run these again (none named: every run) and keep what they give")
    parser.add_argument("--check", action="store_true", help="compare only; exit status 1 when a page differs")
    args = parser.parse_args(argv)
    runs = read_figures()
    failed = 0
    for name in (args.update or sorted(RUNS)) if args.update is not None else []:
        print(f"{name}: {RUNS[name].command()} ...", file=sys.stderr, flush=True)
        try:
            figures = RUNS[name].run()
        except RuntimeError as exc:
            print(f"{name}: not made again: {exc}", file=sys.stderr)
            failed += 1
            continue
        runs[name] = {"command": RUNS[name].command(), "what": RUNS[name].what, "machine": _machine(),
                      "when": datetime.date.today().isoformat(), "figures": figures}
        FIGURES_FILE.write_text(json.dumps(runs, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    made = values(runs)
    differ = 0
    for path in pages():
        text = path.read_text(encoding="utf-8")
        unknown = sorted({name for name, _ in shown(text)} - set(made))
        if unknown:
            print(f"{path.relative_to(ROOT)}: figures no run gives: {', '.join(unknown)}", file=sys.stderr)
            return 1
        new = rewrite(text, made)
        if new != text:
            differ += 1
            print(f"{path.relative_to(ROOT)}: {'differs' if args.check else 'written'}")
            if not args.check:
                path.write_text(new, encoding="utf-8")
    return 1 if failed or (args.check and differ) else 0


if __name__ == "__main__":
    sys.exit(main())
