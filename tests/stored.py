"""Reading a results folder's records in tests: ``records.jsonl.gz`` (the default) or ``records.jsonl``."""

from __future__ import annotations

import gzip
from pathlib import Path


def records_path(folder: Path) -> Path:
    """The folder's records file, whichever kind it holds."""
    packed = folder / "records.jsonl.gz"
    return packed if packed.exists() else folder / "records.jsonl"


def record_lines(folder: Path) -> list[str]:
    """The record lines of a results folder, without their newlines."""
    path = records_path(folder)
    if path.name.endswith(".gz"):
        with gzip.open(path, "rt", encoding="utf-8") as f:
            return f.read().splitlines()
    return path.read_text(encoding="utf-8").splitlines()
