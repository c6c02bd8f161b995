"""The examples in the docstrings of the value types a bot works with (``Cells``, ``Move``, ``MoveSet``,
``SeatView``) give what they show, as python-chess's examples on ``SquareSet`` do."""

from __future__ import annotations

import doctest
import importlib

import pytest

#: The modules whose docstrings hold examples, and at least how many each runs.
MODULES = {"arena.rules.cells": 7, "arena.rules.moves": 12, "arena.rules.view": 10}


@pytest.mark.parametrize("name", list(MODULES))
def test_the_examples_in_the_docstrings_hold(name: str) -> None:
    module = importlib.import_module(name)
    failed, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=False, verbose=False)
    assert failed == 0, f"{name}: {failed} of {tried} examples failed (python -m doctest -v shows them)"
    assert tried >= MODULES[name], f"{name}: {tried} examples run, fewer than its docstrings hold"
