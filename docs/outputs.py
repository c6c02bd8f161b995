"""What the README and the site show as the arena's output, made by running the arena.

A fenced block that follows the line ``<!-- output: NAME -->`` in README.md or in a page under docs/
is what the command ``OUTPUTS[NAME]`` prints, byte for byte: the seeded quickstart's standings, a
seeded match's verdict.  Both deal publicly (the quickstart's ``public_deals = true``, the match's
``--public-deals``): with a results folder's secret deal key every run would deal other games.  ``tests/project/test_outputs.py`` runs each command and compares;
after a change to what the arena prints, write the blocks again from real runs with

    python docs/outputs.py            # every block in README.md and docs/
    python docs/outputs.py --check    # only compare (exit status 1 when a block differs)

The figures the prose quotes from runs (times, game counts, ratings) are docs/figures.py's.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: ``<!-- output: NAME -->``, then the fenced block it names (any info string, ``text`` by custom).
BLOCK = re.compile(r"^<!-- output: ([a-z0-9-]+) -->\n```([a-z]*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Output:
    """A command run from the checkout at 80 columns; ``{out}`` is a fresh results folder."""

    args: tuple[str, ...]
    what: str

    def run(self) -> str:
        with tempfile.TemporaryDirectory(prefix="arena-docs-") as tmp:
            args = [arg.replace("{out}", str(Path(tmp) / "out")) for arg in self.args]
            env = {**os.environ, "COLUMNS": "80", "NO_COLOR": "1"}
            done = subprocess.run([sys.executable, "-m", "arena", *args], cwd=ROOT, env=env,
                                  capture_output=True, text=True, timeout=1800)
            if done.returncode != 0:
                raise RuntimeError(f"arena {' '.join(self.args)} failed ({done.returncode}): {done.stderr[-2000:]}")
            return done.stdout


OUTPUTS = {
    "quickstart-standings": Output(
        ("run", "tournaments/quickstart.toml", "--out", "{out}", "--quiet"),
        "the standings the README's first command prints at the end, on an 80-column terminal",
    ),
    "sprt-match": Output(
        ("match", "lookahead", "greedy", "--sprt", "elo0=0,elo1=50", "--seed", "2024", "--public-deals", "--out", "{out}",
         "--quiet"),
        "a seeded SPRT match's standings and verdict (public deals: the command alone gives every deal)",
    ),
}


def pages() -> list[Path]:
    """README.md and every Markdown page of the site."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def blocks(text: str) -> list[tuple[str, str]]:
    """Each ``(NAME, content)`` of ``text``'s output blocks, in order."""
    return [(match.group(1), match.group(3)) for match in BLOCK.finditer(text)]


def rewrite(text: str, made: dict[str, str]) -> str:
    """``text`` with every output block holding what ``made`` holds for its name."""
    return BLOCK.sub(lambda m: f"<!-- output: {m.group(1)} -->\n```{m.group(2)}\n{made[m.group(1)]}```", text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare only; exit status 1 when a block differs")
    check = parser.parse_args(argv).check
    texts = {path: path.read_text(encoding="utf-8") for path in pages()}
    names = sorted({name for text in texts.values() for name, _ in blocks(text)})
    unknown = [name for name in names if name not in OUTPUTS]
    if unknown:
        print(f"unknown outputs: {', '.join(unknown)} (known: {', '.join(OUTPUTS)})", file=sys.stderr)
        return 1
    made = {name: OUTPUTS[name].run() for name in names}
    differ = 0
    for path, text in texts.items():
        new = rewrite(text, made)
        if new != text:
            differ += 1
            print(f"{path.relative_to(ROOT)}: {'differs' if check else 'written'}")
            if not check:
                path.write_text(new, encoding="utf-8")
    return 1 if check and differ else 0


if __name__ == "__main__":
    sys.exit(main())
