"""The names of a tournament's tables, in one place: what ``arena report --table`` offers and json keys.

Kept apart from :mod:`.results` so that the command line can list them without importing pandas.
"""

from __future__ import annotations

#: Every table of a tournament, in the order they print: the name ``arena report --table`` gives it, and
#: the :class:`~.results.Tables` attribute that holds it (also its key in ``--format json`` and its file,
#: ``ATTRIBUTE.csv``).  A table that a :class:`~.results.Tables` does not hold is read as missing.
TABLES: dict[str, str] = {
    "standings": "standings",
    "head-to-head": "head_to_head",
    "seats": "seats",
    "order": "order",
}
