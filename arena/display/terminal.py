"""What the commands print on a terminal: safe text, the color decision, the width, and fitted tables.

* :func:`printable` is the one way text from a record, a results table, a bot
  or a plug-in reaches the terminal: control characters (ESC, CR, LF ...),
  lone surrogates and every other non-printable character become visible
  escapes such as ``\\x1b`` or ``\\ud800``, so a name cannot move the cursor,
  recolor the screen or break a line, and printing it never fails to encode.
* :func:`use_color` is the one decision whether to write ANSI colors:
  ``--color`` / ``--no-color`` when given, else none when ``NO_COLOR`` is set
  to anything but the empty string (https://no-color.org) or ``TERM`` is
  ``dumb``, else color when the output is a terminal.
* :func:`output_width` is the width the text tables are fitted to:
  ``COLUMNS`` when it is a positive integer, else the terminal's width, else
  (the output is a pipe or a file) none: the tables are printed whole, since
  nothing will wrap them and a saved report should keep every figure.
* :func:`fit_table` lays out a table in that width: headings shortened
  first, then columns dropped in the order the caller gives, then the text
  of a shrinkable column cut (ending in ``~``).
"""

from __future__ import annotations

import os
import sys
import textwrap
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO, TypeVar

import click

#: The width assumed for a terminal that does not say its own.
DEFAULT_WIDTH = 80
#: What a cut cell ends in (ASCII, so any terminal shows it).
CUT_MARK = "~"

_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(char: str) -> str:
    if char in _NAMED_ESCAPES:
        return _NAMED_ESCAPES[char]
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def printable(text: object) -> str:
    """``text`` (made a string) safe to print: every non-printable character as an escape like ``\\x1b``.

    Printable means :meth:`str.isprintable` or a plain space: letters, digits,
    punctuation and symbols of any script stay as they are; control and
    format characters (bidirectional overrides too), lone surrogates, line
    and paragraph separators and unassigned code points are escaped.
    """
    text = str(text)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == " " else _escape(c) for c in text)


def duration(seconds: float | None) -> str:
    """A time a bot took, as a person reads it: ``0.04 ms``, ``12.3 ms``, ``2.50 s``; ``-`` for none (None, NaN)."""
    if seconds is None or seconds != seconds:
        return "-"
    if seconds >= 1:
        return f"{seconds:.2f} s"
    return f"{seconds * 1000:.2f} ms" if seconds < 0.001 else f"{seconds * 1000:.1f} ms"


def text_width(text: str) -> int:
    """The columns ``text`` takes on a terminal: wide East Asian characters take two, combining marks none."""
    if text.isascii():
        return len(text)
    width = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def cut(text: str, width: int) -> str:
    """``text`` cut to at most ``width`` columns, ending in :data:`CUT_MARK` when anything was cut."""
    if text_width(text) <= width:
        return text
    out = ""
    for char in text:
        if text_width(out + char) > width - len(CUT_MARK):
            break
        out += char
    return out + CUT_MARK


def pad(text: str, width: int, left: bool = True) -> str:
    """``text`` padded with spaces to ``width`` columns: aligned left, or right when ``left`` is false."""
    fill = " " * max(0, width - text_width(text))
    return text + fill if left else fill + text


def wrap(text: str, width: int | None) -> list[str]:
    """``text`` as lines of at most ``width`` columns, broken between words (None: one line)."""
    if width is None or text_width(text) <= width:
        return [text]
    return textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False) or [text]


# -- the color decision ------------------------------------------------------


def use_color(choice: bool | None = None, stream: TextIO | None = None) -> bool:
    """Whether to write ANSI colors to ``stream`` (default stdout); see the module docstring."""
    if choice is not None:
        return choice
    if os.environ.get("NO_COLOR", ""):
        return False
    if os.environ.get("TERM") == "dumb":
        return False
    stream = sys.stdout if stream is None else stream
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


F = TypeVar("F", bound=Callable[..., Any])


def color_option(function: F) -> F:
    """The ``--color/--no-color`` option of the commands that print in color (a ``color`` argument: True/False/None)."""
    option = click.option(
        "--color/--no-color", "color", default=None,
        help="Print in ANSI colors, or not (default: colors on a terminal, none if NO_COLOR is set).",
    )
    return option(function)


# -- the width ---------------------------------------------------------------


def output_width(stream: TextIO | None = None) -> int | None:
    """The columns to fit tables into (default stream: stdout); None to print them whole (not a terminal)."""
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isascii() and columns.isdigit() and int(columns) > 0:
        return int(columns)
    stream = sys.stdout if stream is None else stream
    try:
        if not stream.isatty():
            return None
        return os.get_terminal_size(stream.fileno()).columns or DEFAULT_WIDTH
    except (AttributeError, ValueError, OSError):
        return None


# -- tables ------------------------------------------------------------------


@dataclass
class Column:
    """One column of a text table.

    ``short`` is the heading used once the table has to be fitted; ``drop`` is
    the column's place in the order columns are left out to fit (lowest
    first; None: never left out); a ``shrink`` column has its cells cut when
    leaving columns out is not enough.
    """

    heading: str
    cells: list[str]
    left: bool = False
    short: str | None = None
    drop: int | None = None
    shrink: bool = False


@dataclass
class Fitted:
    """A laid-out table: its lines, whether it has its short headings, and the headings of the columns left out."""

    lines: list[str]
    dropped: list[str]
    short: bool = False

    @property
    def width(self) -> int:
        return max((text_width(line) for line in self.lines), default=0)


GAP = "  "


def _layout(columns: Sequence[Column], short: bool, limit: int | None = None, rule: bool = False) -> list[str]:
    headings = [printable((c.short or c.heading) if short else c.heading) for c in columns]
    cells = [[printable(v) for v in c.cells] for c in columns]
    if limit is not None:
        cells = [[cut(v, limit) for v in col] if c.shrink else col for c, col in zip(columns, cells)]
    widths = [max([text_width(h), *(text_width(v) for v in col)]) for h, col in zip(headings, cells)]
    rows = max((len(c.cells) for c in columns), default=0)
    lines = [GAP.join(pad(h, w, c.left) for h, w, c in zip(headings, widths, columns)).rstrip()]
    if rule:
        lines.append(GAP.join("-" * w for w in widths))
    for r in range(rows):
        lines.append(
            GAP.join(pad(col[r] if r < len(col) else "", w, c.left) for col, w, c in zip(cells, widths, columns)).rstrip()
        )
    return lines


def fit_table(columns: Sequence[Column], width: int | None, rule: bool = False) -> Fitted:
    """The table in at most ``width`` columns (None: whole, with its full headings); see :class:`Column`.

    With ``rule`` a line of dashes goes under the headings.
    """
    full = _layout(columns, short=False, rule=rule)
    if width is None or max(map(text_width, full), default=0) <= width:
        return Fitted(full, [])
    kept = list(columns)
    dropped: list[str] = []
    order = sorted((c for c in columns if c.drop is not None), key=lambda c: c.drop if c.drop is not None else 0)
    lines = _layout(kept, short=True, rule=rule)
    while max(map(text_width, lines)) > width and order:
        gone = order.pop(0)
        kept = [c for c in kept if c is not gone]
        dropped.append(gone.heading)
        lines = _layout(kept, short=True, rule=rule)
    shrinkable = [printable(v) for c in kept if c.shrink for v in c.cells]
    if max(map(text_width, lines)) > width and shrinkable:
        excess = max(map(text_width, lines)) - width
        limit = max(len(CUT_MARK) + 3, max(map(text_width, shrinkable)) - excess)
        lines = _layout(kept, short=True, limit=limit, rule=rule)
    return Fitted(lines, dropped, short=True)
