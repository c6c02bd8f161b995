"""What two bots at one table can tell each other through how long they think, the channel no wall closes.

The sender, on each turn, takes ``--bits`` bits of a secret and thinks ``value × --step`` seconds before
answering; the receiver, on each of its turns, measures the wall-clock time since its previous answer
(the sender's thinking and the other seats') and reads the value back, knowing the others' usual time.
Every bot runs in the sandbox, frozen off turn, as in a tournament.  Prints, per step, the bits a turn
the receiver reads right and its error rate: the channel's bandwidth is what the table's time limit and
the clock's jitter allow (log2 of limit / step), whatever the walls.

    python benchmarks/think_time_channel.py [--games 3] [--bits 4] [--steps 0.002,0.005,0.02,0.05]
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import tempfile
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.play.referee import play_game  # noqa: E402

PROGRAM = textwrap.dedent('''
    import json, os, sys, time
    role, step, bits = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    secret = [int(c, 16) for c in "b7e151628aed2a6abf7158809cf4f3c762e7160f38b4da56a784d9045190cfef" * 8]
    last, turn = None, 0
    def out(line):
        sys.stdout.write(json.dumps(line) + "\\n"); sys.stdout.flush()
    for raw in sys.stdin:
        message = json.loads(raw)
        if message["type"] == "hello":
            out({"type": "hello", "protocol": "uptown-bot/1", "name": role})
        elif message["type"] == "turn":
            now = time.monotonic()
            value = secret[turn] % (1 << bits)
            if role == "send":
                time.sleep(value * step)
                sys.stderr.write(f"SENT {turn} {value}\\n")
            elif last is not None:
                sys.stderr.write(f"GAP {turn} {now - last:.6f}\\n")
            turn += 1
            out({"type": "move", "move": message["legal"][0]})
            last = time.monotonic()
        elif message["type"] == "quit":
            break
''')


def capacity(bits: int, error: float) -> float:
    """Bits a turn through an M-ary symmetric channel (M = 2**bits) with symbol error rate ``error``:
    log2 M - h(error) - error * log2(M - 1), at least 0."""
    if error <= 0:
        return float(bits)
    h = -error * math.log2(error) - (1 - error) * math.log2(1 - error) if error < 1 else 0.0
    return max(0.0, bits - h - error * math.log2((1 << bits) - 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--bits", type=int, default=4)
    parser.add_argument("--steps", default="0.002,0.005,0.02,0.05")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="think-time-"))
    script = folder / "talk.py"
    script.write_text(PROGRAM)
    os.chmod(folder, 0o755)
    os.chmod(script, 0o644)
    print(f"{'step (ms)':>10} {'turns':>6} {'bits a turn':>12} {'error rate':>11}")
    for step in (float(s) for s in args.steps.split(",")):
        sent: list[int] = []
        gaps: list[float] = []
        for game in range(args.games):
            logs = folder / f"logs-{step}-{game}"
            logs.mkdir()
            play_game([f"exec:{sys.executable} {script} send {step} {args.bits}",
                       f"exec:{sys.executable} {script} recv {step} {args.bits}", "random"],
                      1000 + game, time=5.0, logs=logs)
            text = "".join(p.read_text() for p in logs.glob("*.log"))
            sends = dict((int(t), int(v)) for t, v in re.findall(r"SENT (\d+) (\d+)", text))
            got = dict((int(t), float(g)) for t, g in re.findall(r"GAP (\d+) ([\d.]+)", text))
            # The receiver's turn t follows the sender's turn t (the sender sits first).
            sent += [sends[t] for t in sorted(got) if t in sends]
            gaps += [got[t] for t in sorted(got) if t in sends]
        floor = min(gaps)  # the others' time and the referee's, with the sender's value 0
        read = [max(0, round((g - floor) / step)) for g in gaps]
        wrong = sum(r != s for r, s in zip(read, sent))
        error = wrong / len(sent)
        print(f"{step * 1000:10.1f} {len(sent):6d} {capacity(args.bits, error):12.2f} {error:11.3f}")


if __name__ == "__main__":
    main()
