"""The read-only checks of a results folder: may a run write into it, and what does it hold already.

The folder is never emptied silently: a folder that holds another tournament, or this one's games
without ``resume`` or ``overwrite``, is refused in one line before any bot starts.
"""

from __future__ import annotations

from pathlib import Path

from arena.plan.config import ConfigError, TournamentConfig, parse_config
from arena.plan.marks import differences
from arena.results.dealkey import check_folder_key
from arena.results.files import GAMES_FILE, RECORDS_FILE, RECORDS_GZ_FILE, TOURNAMENT_FILE, RunError, records_file
from arena.results.lines import Lines, count_lines


def stored_rows(out: Path) -> int:
    """How many data rows ``games.csv`` holds, a half-written last one included (for messages)."""
    return max(0, count_lines(out / GAMES_FILE, partial=True) - 1)


def records_hold_data(out: Path) -> bool:
    """Whether the records file holds anything (an empty one is what a start before the first game leaves)."""
    path, compressed = records_file(out)
    if not path.exists():
        return False
    if not compressed:
        return path.stat().st_size > 0
    return any(Lines(path, True).chunks())


def _differences(a: TournamentConfig, b: TournamentConfig) -> str:
    keys = differences(a, b)
    if "deals" in keys and "deal_seeds" in keys:
        keys.remove("deal_seeds")
    return ", ".join("deals (their seeds)" if k == "deal_seeds" else k for k in keys) or "content"


def _choices(previous: TournamentConfig | None, config: TournamentConfig) -> str:
    """What to do about a folder of another tournament: --update when it can bring the folder up to ``config``
    (entrants, their options, more deals or another deals file: what a league changes), always --out or
    --overwrite."""
    from arena.results.league import meaning_change

    update = previous is not None and meaning_change(previous, config, "") is None
    return ("add --update to bring the folder up to the file (it keeps every stored game still valid), or "
            if update else "") + "choose another folder with --out, or start again with --overwrite"


def check_folder(config: TournamentConfig, out: Path, *, resume: bool, overwrite: bool) -> None:
    """Refuse (:class:`RunError`) a results folder ``out`` that :meth:`~.folder.ResultsFolder.open` would refuse, reading
    it only: a run calls it before any bot starts, so that a folder holding results costs no bot a start."""
    if resume and overwrite:
        raise RunError("--resume and --overwrite exclude each other: continue the run, or start it again")
    if out.exists() and not out.is_dir():
        raise RunError(f"{out}: exists and is not a folder")
    if overwrite:
        return
    existing = out / TOURNAMENT_FILE
    if existing.exists():
        try:
            previous = parse_config(existing.read_text(encoding="utf-8"), str(existing), default_name=config.name)
        except (ConfigError, OSError, UnicodeDecodeError):
            previous = None
        if previous != config:
            what = f"differs in {_differences(previous, config)}" if previous is not None else "cannot be read"
            raise RunError(f"{out} already holds a different tournament ({existing} {what}); {_choices(previous, config)}")
        stored = stored_rows(out)
        if not resume and (stored or records_hold_data(out)):
            raise RunError(
                f"{out} already holds {stored // config.players} games of this tournament; "
                f"add --resume to play only the missing ones, or --overwrite to start again"
            )
        check_folder_key(config, out)
    elif any((out / name).exists() for name in (GAMES_FILE, RECORDS_FILE, RECORDS_GZ_FILE)):
        raise RunError(f"{out} holds results without a {TOURNAMENT_FILE}; choose another folder with --out")
