"""What the channel benchmarks share (``sysinfo_channel.py``, ``pagecache_channel.py``, ``inode_channel.py``): a
bot of a table, a program in a jail of its own frozen off its turn, and the bits a turn a channel carries."""

from __future__ import annotations

import math
import sys

from arena.isolation.sandbox import StartOptions, start


class TableBot:
    """``command`` in a jail of its own (``options``), frozen but on its turn, as a referee runs a bot at a table."""

    def __init__(self, command: list[str], options: StartOptions | None = None) -> None:
        self.box = start(command, options or StartOptions(stderr=sys.stderr.fileno()))
        self.box.freeze()

    def turn(self, line: str) -> str:
        """Thaw it, give it ``line``, take its one line of answer, freeze it."""
        assert self.box.process.stdin is not None and self.box.process.stdout is not None
        self.box.thaw()
        try:
            self.box.process.stdin.write(line.encode() + b"\n")
            self.box.process.stdin.flush()
            return self.box.process.stdout.readline().decode().strip()
        finally:
            self.box.freeze()

    def close(self) -> None:
        self.box.kill()


def bits_through(right: float, levels: int) -> float:
    """The bits a turn of a channel of ``levels`` symbols decoded right at the rate ``right``, its errors spread
    evenly over the other symbols: log2(levels) - H(error) - error * log2(levels - 1), at least 0."""
    error = 1 - right
    spread = 0.0 if error in (0.0, 1.0) else -error * math.log2(error) - right * math.log2(right)
    return max(math.log2(levels) - spread - error * math.log2(levels - 1), 0.0)
