"""A match's file in its results folder, ``match.json``: its format, and its one reader (:func:`read_match`).

``match.json``
--------------
Written when the match starts (``state`` ``"running"``) and when it ends
(``"done"``): the bots, players, seating, games a deal, seed, scoring,
``parameters`` (``games``, ``sprt``, ``max_games``: what ``--resume`` must
repeat), ``test`` (``"pentanomial"``, ``"field"`` or None for a fixed count),
``deals`` and ``games`` counted, ``llr``, ``lower``, ``upper`` (the bounds of
the last deal counted: Wald's for two players, the field test's corrected
bounds for 3-5, Wald's in files written before the correction), ``verdict``
(``"H0"``, ``"H1"``, ``"inconclusive"``, None for a fixed count or a match
still running), ``pentanomial`` (``LL``, ``LD``, ``DD+WL``, ``WD``, ``WW``;
two players), ``score`` (A's mean score), ``elo`` (the estimate with its 95%
interval, logistic and normalized, and the likelihood of superiority: the
plain interval of the counts as they stand), ``elo_sequential`` (after a
two-player SPRT: the stopping-aware estimate and 95% interval of
:func:`arena.stats.sprt.pentanomial_sequential`, ``elo``, ``low``, ``high``
in the test's ``model``; null otherwise, and absent from older files), and
``history``: ``{"games": [...], "llr": [...]}``, the LLR after every deal
counted, for the LLR plot.  Numbers that are not finite are written as null.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from arena.errors import os_error_line
from arena.inputfiles import InputFileError, read_input
from arena.results.files import MATCH_FILE, RunError

FORMAT = "arena-match/1"
#: The largest ``match.json`` read: its tally by deal pair takes a few KiB.
MATCH_FILE_MB = 16


def read_match(folder: Path) -> dict[str, Any] | None:
    """The ``match.json`` of a results folder, None when it has none; :class:`RunError` (one line) when
    it is there but is not a match's (damaged, or another format)."""
    path = folder / MATCH_FILE
    try:
        data = json.loads(read_input(path, "a match's file", MATCH_FILE_MB << 20))
    except FileNotFoundError:
        return None
    except InputFileError as exc:
        raise RunError(str(exc)) from None
    except (OSError, ValueError) as exc:
        raise RunError(f"{path}: cannot read: {os_error_line(exc)}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise RunError(f"{path}: not a match's results ({FORMAT})")
    return data
