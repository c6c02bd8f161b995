"""Reading a record's text or file as JSON, strictly: any fault of the text is a one-line :class:`~arena.records.RecordError`."""

from __future__ import annotations

import gzip
import json
import os
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.errors import os_error_line
from arena.inputfiles import InputFileError, open_input, read_input, size_text
from arena.records.spec import RecordError

#: The largest record read whole (a game's record takes tens of KiB; unpacked, for a gzipped one).
RECORD_MB = 64


def _reject_constant(name: str) -> Any:
    raise RecordError(f"not JSON: {name} is not a JSON value")


def loads(text: str | bytes) -> dict[str, Any]:
    """The record object in ``text``; RecordError if it is not a JSON object (content is checked by :func:`replay`)."""
    # Some editors start UTF-8 files with a byte-order mark; it is not part of the JSON.
    if isinstance(text, bytes) and text.startswith(b"\xef\xbb\xbf"):
        text = text[3:]
    elif isinstance(text, str) and text.startswith("\ufeff"):
        text = text[1:]
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except RecordError:
        raise
    except json.JSONDecodeError as exc:
        raise RecordError(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except (ValueError, TypeError, RecursionError) as exc:
        # Undecodable bytes, absurdly long numbers, absurdly deep nesting.
        raise RecordError(f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise RecordError(f"not a JSON object: the text holds {json_kind(value)}")
    return value


def load(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read the record in the file ``path`` (gzip-compressed if it ends in ``.gz``).

    A file that cannot be read, or whose gzip data is damaged, is a RecordError
    (``cannot read PATH: ...``), like any other bad record; so is one that is not a regular file of at most
    :data:`RECORD_MB` (:mod:`arena.inputfiles`).
    """
    path = Path(path)
    cap = RECORD_MB << 20
    try:
        if path.suffix == ".gz":
            with open(open_input(path, "a record", cap), "rb") as file, gzip.GzipFile(fileobj=file) as raw:
                data = raw.read(cap + 1)
            if len(data) > cap:
                raise RecordError(f"{path}: holds more than the {size_text(cap)} a record may be")
        else:
            data = read_input(path, "a record", cap)
    except InputFileError as exc:
        raise RecordError(str(exc)) from None
    except (OSError, EOFError, zlib.error) as exc:
        raise RecordError(f"cannot read {path}: {read_error(exc)}") from None
    return loads(data)


def read_error(exc: BaseException) -> str:
    """Why reading a (possibly gzipped) file failed, for a one-line message."""
    if isinstance(exc, (zlib.error, EOFError)) or isinstance(exc, gzip.BadGzipFile):
        return f"damaged gzip data ({exc or 'it ends too soon'})"
    return os_error_line(exc)


def json_kind(value: Any) -> str:
    """What sort of JSON value ``value`` is, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__
