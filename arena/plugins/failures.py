"""A bot's failure, or what it returned, in one line for a fault message, running none of its code."""

from __future__ import annotations

import os
from typing import Any


def describe_failure(exc: BaseException) -> str:
    """One line for a fault: the exception and where in the bot it was raised."""
    text = " ".join(str(exc).split())
    if len(text) > 200:
        text = text[:197] + "..."
    where = ""
    tb = exc.__traceback__
    if tb is not None:
        while tb.tb_next is not None:
            tb = tb.tb_next
        code = tb.tb_frame.f_code
        where = f" (at {os.path.basename(code.co_filename)}:{tb.tb_lineno} in {code.co_name})"
    return f"{type(exc).__name__}: {text}{where}" if text else f"{type(exc).__name__}{where}"


def show_value(value: Any) -> str:
    """A value a bot returned, for a fault message, without running any of the bot's code."""
    if value is None or type(value) in (bool, int, float, str):
        text = repr(value)
        return text if len(text) <= 40 else text[:37] + "..."
    return f"a {type(value).__name__}"
