#!/usr/bin/env python3
"""A random bot for the Uptown arena, speaking the JSON-lines protocol uptown-bot/1.

Run it with:

    arena play "exec:python3 examples/protocol/random_bot.py" random

It uses only the Python standard library and does not import the arena.
It plays a legal move chosen with SplitMix64, seeded from the first 16 hex
digits of the game's `seed`, so the same seed always gives the same choices.
With the option captures=false it prefers moves onto empty cells.
"""
import json
import sys

MASK = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def choose(legal, view, options, rng):
    moves = legal
    if not options.get("captures", True):
        occupied = {cell for cells in view["board"].values() for cell in cells}
        free = [m for m in legal if "@" in m and m.split("@")[1] not in occupied]
        moves = free or legal
    return moves[rng.next() % len(moves)]


def main():
    rng, options = SplitMix64(0), {"captures": True}
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            send({"type": "hello", "protocol": "uptown-bot/1", "name": "random-py",
                  "description": "Plays a legal move chosen at random (SplitMix64).",
                  "options": {"captures": True}})
        elif kind == "game":
            seat, players = msg["seat"], msg["players"]
            colors = next(p["colors"] for p in players if p["seat"] == seat)
            options = msg.get("options", {"captures": True})
            rng = SplitMix64(int(msg["seed"][:16], 16))
            print(f"random-py: game as seat {seat} ({', '.join(colors)})", file=sys.stderr, flush=True)
        elif kind == "turn":
            send({"type": "move", "move": choose(msg["legal"], msg["view"], options, rng)})
        elif kind == "over":
            print("random-py: game over", file=sys.stderr, flush=True)
        elif kind == "quit":
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
