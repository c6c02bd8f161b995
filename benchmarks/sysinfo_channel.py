"""How many bits a turn two bots carry through sysinfo(2): a sender holding 2·v sleeping threads (or 8·v MiB), a
receiver reading ``procs`` (or ``freeram``).

    python benchmarks/sysinfo_channel.py --turns 200
    PYTHONPATH=/path/to/other/checkout python benchmarks/sysinfo_channel.py   # another checkout's walls

Two Python programs in two jails, taking turns as a referee runs two bots at a table (the sender runs while the
receiver is frozen, then the other way round).  Each turn the sender picks ``v`` at random among ``--levels``; the
receiver's reading, taken as the difference from its first, is decoded to the nearest level.  Printed: how often
it decodes right, and the bits a turn that get through (those of a channel of as many symbols decoded right as
often, its errors spread evenly).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from pathlib import Path

from channels import TableBot, bits_through

import arena
from arena.isolation import sandbox
from arena.isolation.sandbox import Limits, StartOptions

PROGRAM = r"""
import ctypes, struct, sys, threading
libc = ctypes.CDLL(None, use_errno=True)
held, stops, memory = [], [], []
def figures():
    buffer = ctypes.create_string_buffer(112)
    libc.sysinfo(buffer)
    fields = struct.unpack("@l3L6LHHLLI4x", buffer.raw)
    return fields[10], fields[5] * fields[14]  # procs, freeram in bytes
for line in sys.stdin:
    word, _, count = line.strip().partition(" ")
    if word == "threads":  # hold exactly this many sleeping threads
        while len(held) > int(count):
            held.pop(); stops.pop().set()
        while len(held) < int(count):
            stops.append(threading.Event())
            held.append(threading.Thread(target=stops[-1].wait, daemon=True)); held[-1].start()
        print("ok", flush=True)
    elif word == "memory":  # hold exactly this many MiB
        memory[:] = [b"m" * (1 << 20) for _ in range(int(count))]
        print("ok", flush=True)
    else:
        print(*figures(), flush=True)
"""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200, help="turns a way (default 200)")
    parser.add_argument("--levels", type=int, default=32, help="levels of v the sender picks from (default 32)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if sandbox.walls() != "jail":
        sys.exit("the jail is needed (root, namespaces): the two bots at a table are two jails")
    python = sys.executable
    chance = random.Random(args.seed)
    options = StartOptions(limits=Limits(memory_mb=1024), stderr=sys.stderr.fileno())
    sender, receiver = TableBot([python, "-c", PROGRAM], options), TableBot([python, "-c", PROGRAM], options)
    try:
        print(f"arena: {Path(arena.__file__).parent}")
        print(f"walls: {sender.box.walls}")
        print(f"{args.turns} turns a way, v among {args.levels} levels\n")
        for way, command, step, field in (("threads -> procs", "threads", 2, 0),
                                           ("memory -> freeram", "memory", 8, 1)):
            base = int(receiver.turn("read").split()[field])
            pairs = []
            for _ in range(args.turns):
                v = chance.randrange(args.levels)
                sender.turn(f"{command} {v * step}")
                reading = int(receiver.turn("read").split()[field])
                change = reading - base if field == 0 else (base - reading) >> 20
                pairs.append((v, min(max(round(change / step), -1), args.levels)))
            sender.turn(f"{command} 0")
            right = sum(a == b for a, b in pairs) / len(pairs)
            print(f"{way:18} decoded right {right:6.1%}, {bits_through(right, args.levels):5.2f} bits a turn "
                  f"(of {math.log2(args.levels):.2f})", flush=True)
    finally:
        sender.close()
        receiver.close()


if __name__ == "__main__":
    main()
