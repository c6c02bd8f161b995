"""Strength against thinking time: ``mcts`` against itself at half the time, as matches of the arena.

    python benchmarks/doubling.py --play                 # every row below, then the summary, tables and plot
    python benchmarks/doubling.py --play --rows 1/0.5    # one row
    python benchmarks/doubling.py                        # the tables and the plot again from the summary

A two-player row ``A/B`` is ``arena match "mcts:iterations=0,seconds=A"
"mcts:iterations=0,seconds=B" --games G --duplicate --isolation none --seed 7``
(every deal from both seats); a four-player row seats one ``mcts`` at A
against three at B (the same bot, named apart by options at their defaults)
in every seating of the balanced design.  Each match plays into
``results/doubling/<players>p-A-B`` (``--folder``); once it is done, only
what the summary needs and what plays it again are kept there (``match.json``,
``games.csv``, ``time_use.csv``, ``standings.csv``, ``tournament.toml``), and a
folder already done is not played again.  Every done folder's row is then
written into the small summary docs/reference/doubling.json (``--summary``;
rows of other folders already in it are kept), and the tables on
docs/reference/builtin-bots.md and ``docs/images/doubling.png`` are made from
the summary alone; tests/integration/test_doubling.py holds the page to it.
The times a move are the wall clock of a shared machine: they are what the
bots were given, so a busy machine gives both sides fewer iterations alike.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "results" / "doubling"
SUMMARY = ROOT / "docs" / "reference" / "doubling.json"
PLOT = ROOT / "docs" / "images" / "doubling.png"
#: (players, A's seconds, B's seconds, games) of every row.
ROWS = (
    (2, 0.02, 0.01, 80), (2, 0.04, 0.02, 80), (2, 0.1, 0.05, 80), (2, 0.2, 0.1, 80), (2, 0.4, 0.2, 80),
    (2, 1.0, 0.5, 80), (4, 0.02, 0.01, 96), (4, 0.04, 0.02, 96),
)
SEED = 7
#: The files of a done match that are kept.
KEPT = ("match.json", "games.csv", "time_use.csv", "standings.csv", "tournament.toml")
#: The options that name the four-player B seats apart, each at its default.
SAME_OPTIONS = ("", ",exploration=0.7", ",widening=1.0")


def specs(players: int, a: float, b: float) -> list[str]:
    """The bots of a row: A first, then B (three B seats, named apart, with four players)."""
    first, second = (f"mcts:iterations=0,seconds={s:g}" for s in (a, b))
    return [first, second] if players == 2 else [first] + [second + extra for extra in SAME_OPTIONS]


def command(players: int, a: float, b: float, games: int) -> str:
    """The row's ``arena match`` command, as the page shows it."""
    bots = " ".join(f'"{s}"' for s in specs(players, a, b))
    return f"arena match {bots} --games {games} --duplicate --isolation none -j 2 --seed {SEED}"


def folder_of(root: Path, players: int, a: float, b: float) -> Path:
    """The row's match folder under ``root``."""
    return root / f"{players}p-{a:g}-{b:g}"


def play(root: Path, row: tuple[int, float, float, int], workers: int) -> Path:
    """Play one row into its folder (resuming a match cut short), then keep only ``KEPT``."""
    players, a, b, games = row
    out = folder_of(root, players, a, b)
    if done(out):
        return out
    print(f"{players} players, {a:g} vs {b:g} s: {command(*row)}", flush=True)
    subprocess.run([sys.executable, "-m", "arena", "match", *specs(players, a, b), "--games", str(games),
                    "--duplicate", "--isolation", "none", "-j", str(workers), "--seed", str(SEED),
                    "--out", str(out)], check=True)
    for path in out.iterdir():
        if path.name not in KEPT:
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    return out


def done(out: Path) -> bool:
    """Whether ``out`` holds a finished match."""
    try:
        return json.loads((out / "match.json").read_text())["state"] == "done"
    except (OSError, ValueError, KeyError):
        return False


def read(out: Path) -> dict[str, Any]:
    """One row from a done match's folder: A and B's seconds, the games, A's score and Elo, times and wins."""
    match = json.loads((out / "match.json").read_text())
    names = [b["name"] for b in match["bots"]]
    seconds = [float(b["spec"].split("seconds=")[1].split(",")[0]) for b in match["bots"][:2]]
    with open(out / "time_use.csv", newline="") as f:
        used = {row["entrant"]: float(row["mean_move_seconds"]) for row in csv.DictReader(f)}
    with open(out / "standings.csv", newline="") as f:
        wins = {row["entrant"]: float(row["win_share_uptown"]) for row in csv.DictReader(f)}
    players = match["players"]
    return {
        "command": command(players, seconds[0], seconds[1], match["games"]),
        "players": players, "a": seconds[0], "b": seconds[1], "games": match["games"],
        "score": match["score"], "elo": match["elo"]["elo"], "low": match["elo"]["low"],
        "high": match["elo"]["high"], "time_a": used[names[0]], "time_b": used[names[1]], "won": wins[names[0]],
    }


def summarize(root: Path, summary: Path) -> list[dict[str, Any]]:
    """Every done row under ``root`` written into ``summary`` (its other rows kept); all its rows, in order."""
    rows = {(r["players"], r["a"], r["b"]): r for r in read_summary(summary)}
    if root.is_dir():
        rows.update({(r["players"], r["a"], r["b"]): r for r in (read(out) for out in root.iterdir() if done(out))})
    ordered = sorted(rows.values(), key=lambda r: (r["players"], r["a"]))
    summary.write_text(json.dumps({"rows": ordered}, indent=1) + "\n")
    return ordered


def read_summary(summary: Path) -> list[dict[str, Any]]:
    """The rows of a summary file, none where there is none yet."""
    return json.loads(summary.read_text())["rows"] if summary.is_file() else []


def _elo(row: dict[str, Any]) -> str:
    """The row's Elo and interval; a dash where a match too short or too one-sided has none."""
    if None in (row["elo"], row["low"], row["high"]):
        return "–"
    return f"{row['elo']:+.0f} ({row['low']:+.0f} to {row['high']:+.0f})".replace("-", "−")


def render_tables(rows: list[dict[str, Any]]) -> str:
    """The two tables of the built-in bots page."""
    lines = ["| A vs B (seconds a move) | games | A's score | Elo (95%) | mean time a move, A / B |",
             "| --- | ---: | ---: | ---: | ---: |"]
    lines += [f"| {r['a']:g} vs {r['b']:g} | {r['games']} | {100 * r['score']:.1f}% | {_elo(r)} | "
              f"{1000 * r['time_a']:.1f} / {1000 * r['time_b']:.1f} ms |" for r in rows if r["players"] == 2]
    lines += ["", "| A vs three at B (seconds a move) | games | A's score | Elo (95%) | A's wins (25% for an equal) | "
              "mean time a move, A / B |", "| --- | ---: | ---: | ---: | ---: | ---: |"]
    lines += [f"| {r['a']:g} vs {r['b']:g} | {r['games']} | {r['score']:.3f} | {_elo(r)} | {100 * r['won']:.1f}% | "
              f"{1000 * r['time_a']:.1f} / {1000 * r['time_b']:.1f} ms |" for r in rows if r["players"] == 4]
    return "\n".join(lines) + "\n"


def score_of(elo: float) -> float:
    """The expected score of an Elo difference."""
    return 1 / (1 + 10 ** (-elo / 400))


def render_plot(rows: list[dict[str, Any]], path: Path) -> None:
    """A's score against its seconds a move, with 95% intervals, the 50% and 60% lines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=100)
    for players, label in ((2, "two players, duplicate"), (4, "four players, one A against three at B")):
        mine = [r for r in rows if r["players"] == players]
        if not mine:
            continue
        # The four-player points sit a little to the right, so that the intervals do not hide each other.
        xs = [r["a"] * (1.06 if players == 4 else 1) for r in mine]
        ys = [100 * r["score"] for r in mine]
        err = [[100 * (r["score"] - score_of(r["low"])) if r["low"] is not None else 0 for r in mine],
               [100 * (score_of(r["high"]) - r["score"]) if r["high"] is not None else 0 for r in mine]]
        ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=label, linestyle="none" if players == 4 else "-")
    ax.axhline(50, color="grey", linewidth=1)
    ax.axhline(60, color="tab:red", linestyle="--", linewidth=1)
    ax.text(min(r["a"] for r in rows), 60.5, " 60%: the target of a doubling", fontsize=8, color="tab:red")
    ax.set_xscale("log")
    ticks = sorted({r["a"] for r in rows})
    ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
    ax.minorticks_off()
    ax.set_xlabel("A's seconds a move (B has half)")
    ax.set_ylabel("A's score, % (95% interval)")
    ax.set_title("mcts against itself at half the time")
    ax.legend(loc="lower left", fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def parse_rows(text: str) -> list[tuple[int, float, float, int]]:
    """``A/B,...`` (or ``all``) as rows of ``ROWS``; a SystemExit naming the first that is not one."""
    if text == "all":
        return list(ROWS)
    chosen = []
    for item in text.split(","):
        try:
            a, b = (float(x) for x in item.split("/"))
        except ValueError:
            raise SystemExit(f"doubling.py: --rows takes A/B seconds, comma-separated, not {item!r}") from None
        found = [r for r in ROWS if math.isclose(r[1], a) and math.isclose(r[2], b)]
        if not found:
            raise SystemExit(f"doubling.py: no row {item} (rows: {', '.join(f'{r[1]:g}/{r[2]:g}' for r in ROWS)})")
        chosen += found
    return chosen


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--play", action="store_true", help="play the rows not yet done, then write the plot")
    parser.add_argument("--rows", default="all", help="with --play: A/B seconds, comma-separated (default all)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes of each match (default 2)")
    parser.add_argument("--folder", type=Path, default=FOLDER, help=f"the matches' folders (default {FOLDER})")
    parser.add_argument("--summary", type=Path, default=SUMMARY, help=f"the summary to write (default {SUMMARY})")
    parser.add_argument("--plot", type=Path, default=PLOT, help=f"the plot to write (default {PLOT})")
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    if args.play:
        for row in parse_rows(args.rows):
            try:
                play(args.folder, row, args.workers)
            except subprocess.CalledProcessError as exc:
                # arena match keeps what it stored: the same command resumes the row.
                raise SystemExit(f"doubling.py: arena match stopped (exit {exc.returncode}); run the same command "
                                 "again to resume") from None
    rows = summarize(args.folder, args.summary) if args.play else read_summary(args.summary)
    if not rows:
        raise SystemExit(f"doubling.py: no row in {args.summary}")
    print(render_tables(rows), end="")
    render_plot(rows, args.plot)
    print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
