"""Lines kept in place on a terminal and drawn again as they change: the standings above a progress bar.

:class:`LiveBlock` writes its lines, and on the next :meth:`~LiveBlock.draw` moves the cursor back up
over them (ANSI ``CSI n A``), clears to the end of the screen (``CSI J``) and writes the new ones; a
``tqdm`` bar below them is cleared first and drawn again after.  Lines are cut to the terminal's width
(a wrapped line would throw the count off) and to its height.  It is only ever made for a stream that
is a terminal: on a pipe or in a log nothing of it is written, and callers print plain text there.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, TextIO

from arena.display.terminal import DEFAULT_WIDTH, cut, printable

UP = "\x1b[{}A"
CLEAR_BELOW = "\x1b[J"


class LiveBlock:
    """Lines redrawn in place on the terminal ``stream``, above ``bar`` (a tqdm bar on the same stream) if given."""

    def __init__(self, stream: TextIO, bar: Any = None) -> None:
        self.stream = stream
        self.bar = bar
        self.shown = 0

    def size(self) -> tuple[int, int]:
        """The terminal's columns and lines."""
        try:
            size = os.get_terminal_size(self.stream.fileno())
            return size.columns or DEFAULT_WIDTH, size.lines or 24
        except (AttributeError, ValueError, OSError):
            return DEFAULT_WIDTH, 24

    def draw(self, lines: Sequence[str]) -> None:
        """Show ``lines`` in place of those shown before."""
        columns, rows = self.size()
        room = max(1, rows - (2 if self.bar is not None else 1))
        shown = [cut(printable(line), columns - 1) for line in lines[:room]]
        if self.bar is not None:
            self.bar.clear()
        text = (UP.format(self.shown) if self.shown else "") + "\r" + CLEAR_BELOW + "".join(f"{line}\n" for line in shown)
        self.stream.write(text)
        self.stream.flush()
        self.shown = len(shown)
        if self.bar is not None:
            self.bar.refresh()

    def erase(self) -> None:
        """Take the lines away (the caller prints what stays)."""
        if not self.shown:
            return
        if self.bar is not None:
            self.bar.clear()
        self.stream.write(UP.format(self.shown) + "\r" + CLEAR_BELOW)
        self.stream.flush()
        self.shown = 0
