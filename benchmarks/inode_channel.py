"""How many bits a turn two bots at a table carry through the inode numbers of pipes: a sender that makes and
closes v pipes on its turn, a receiver that makes one and reads its inode number.

    python benchmarks/inode_channel.py --turns 200

Pipes and sockets take their inode numbers from one counter of the whole machine (the kernel's
``get_next_ino``, in batches of 1,024 per CPU), and every runtime needs pipes.  Two Python programs in two jails
on one CPU take turns as a referee runs two bots at a table (each frozen off its turn).  Each turn the sender picks
``v`` among ``--levels`` and makes ``v * --step`` pipes; the receiver decodes the difference between its pipe's
number and its last one.  Printed: how often it decodes right and the bits a turn that get through.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
from pathlib import Path

from channels import TableBot, bits_through

import arena
from arena.isolation import sandbox
from arena.isolation.sandbox import StartOptions

PROGRAM = r"""
import os, sys
last = None
for line in sys.stdin:
    word, _, count = line.strip().partition(" ")
    if word == "send":
        for _ in range(int(count)):
            r, w = os.pipe()
            os.close(r)
            os.close(w)
        print("ok", flush=True)
    else:
        r, w = os.pipe()
        number = os.fstat(r).st_ino
        os.close(r)
        os.close(w)
        print(number - (last if last is not None else number), flush=True)
        last = number
"""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200, help="turns (default 200)")
    parser.add_argument("--levels", type=int, default=1024, help="levels of v the sender picks from (default 1024)")
    parser.add_argument("--step", type=int, default=4, help="pipes a level (default 4)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if sandbox.walls() != "jail":
        sys.exit("the jail is needed (root, namespaces): the two bots at a table are two jails")
    chance = random.Random(args.seed)
    cpu = min(os.sched_getaffinity(0))
    command = [sys.executable, "-c", PROGRAM]
    options = StartOptions(cpu=cpu, stderr=sys.stderr.fileno())
    sender, receiver = TableBot(command, options), TableBot(command, options)
    try:
        print(f"arena: {Path(arena.__file__).parent}")
        print(f"walls: {sender.box.walls}")
        print(f"{args.turns} turns, v among {args.levels} levels, {args.step} pipes a level\n")
        receiver.turn("read")
        right = 0
        for _ in range(args.turns):
            v = chance.randrange(args.levels)
            sender.turn(f"send {v * args.step}")
            change = int(receiver.turn("read")) - 1  # the receiver's own pipe of its last turn
            right += round(change / args.step) == v
        rate = right / args.turns
        print(f"pipes' inode numbers: decoded right {rate:6.1%}, {bits_through(rate, args.levels):5.2f} bits a turn "
              f"(of {math.log2(args.levels):.2f})")
    finally:
        sender.close()
        receiver.close()


if __name__ == "__main__":
    main()
