"""Games taken out of a results folder: dropped (a match cut to the deals it counted) or retired (a league's update)."""

from __future__ import annotations

import json
from collections.abc import Collection
from pathlib import Path

from arena.errors import os_error_line
from arena.results.files import GAMES_FILE, RETIRED_FILE, RunError, records_file
from arena.results.lines import Lines, rewrite_records, rewrite_text, text_lines
from arena.results.rows import header_text


def drop_games(out: Path, game_ids: Collection[str]) -> None:
    """Remove the games ``game_ids`` from ``games.csv`` and the records file, both rewritten atomically.

    For a match cut to the deals its test counted (:mod:`arena.tournament.match.feed`): the games of later deals that
    finished early leave the folder, so it holds what the test counted.
    """
    drop = set(game_ids)
    if not drop:
        return
    games_path = out / GAMES_FILE
    rewrite_text(games_path, header_text(),
                  (line for line in text_lines(games_path, skip_header=True) if line.split(",", 1)[0] not in drop))
    records_path, compressed = records_file(out)

    def kept(line: bytes) -> bool:
        try:
            record = json.loads(line)
        except ValueError:
            return True  # not a record: the resume check's to judge
        return not (isinstance(record, dict) and record.get("game_id") in drop)

    rewrite_records(records_path, compressed, (line for line in Lines(records_path, compressed) if kept(line)))


def retire_games(out: Path, game_ids: Collection[str]) -> None:
    """Move the games ``game_ids`` out of the results: their record lines are appended to ``retired.jsonl``
    (kept, never lost), then :func:`drop_games` removes them from ``games.csv`` and the records file."""
    drop = set(game_ids)
    if not drop:
        return
    records_path, compressed = records_file(out)
    if records_path.exists():
        try:
            with open(out / RETIRED_FILE, "ab") as retired:
                for line in Lines(records_path, compressed):
                    try:
                        record = json.loads(line)
                    except ValueError:
                        continue
                    if isinstance(record, dict) and record.get("game_id") in drop:
                        retired.write(line)
        except OSError as exc:
            raise RunError(f"{out / RETIRED_FILE}: cannot write: {os_error_line(exc)} (nothing was dropped)") from None
    drop_games(out, drop)
