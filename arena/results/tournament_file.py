"""The tournament a results folder holds: its ``tournament.toml``, read and written."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from arena.plan.config import ConfigError, TournamentConfig, parse_config, read_config_text, with_deals
from arena.results.dealkey import BEFORE_DEAL_KEYS, before_deal_keys, check_folder_key, read_key
from arena.results.files import DEAL_KEY_FILE, TOURNAMENT_FILE, RunError, write_atomically


def write_tournament(folder: Path, text: str) -> None:
    """Make ``folder``'s ``tournament.toml`` hold ``text`` (atomically)."""
    write_atomically(folder / TOURNAMENT_FILE, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def read_tournament(folder: Path, deal_key: str | None = None,
                    notes: list[str] | None = None) -> tuple[TournamentConfig, str]:
    """The tournament a results folder holds, from its ``tournament.toml``, with the folder's deal key when it
    keeps one (or ``deal_key``, given: it must be the folder's); without either its seeds cannot be listed
    (:class:`~arena.plan.schedule.DealKeyMissing`).  A folder written before deal keys is read as it was
    played (:func:`~.dealkey.before_deal_keys`), and ``notes`` (when given) gains a line that says so."""
    path = folder / TOURNAMENT_FILE
    if not folder.is_dir():
        raise RunError(f"{folder}: no such results folder")
    if not path.exists():
        raise RunError(f"{folder}: not a results folder (no {TOURNAMENT_FILE})")
    try:
        text = read_config_text(path)
    except ConfigError as exc:
        raise RunError(str(exc)) from None
    try:
        config = parse_config(text, str(path), default_name=folder.name)
    except ConfigError as exc:
        raise RunError(str(exc)) from None
    try:
        config = with_deals(config, deal_key=deal_key)
    except ConfigError as exc:
        raise RunError(str(exc)) from None
    if not config.public_deals and (folder / DEAL_KEY_FILE).exists():
        check_folder_key(config, folder)
        config = replace(config, deal_key=read_key(folder))
    elif (older := before_deal_keys(config, folder)) is not None:
        config = older
        if notes is not None:
            notes.append(BEFORE_DEAL_KEYS.format(out=folder))
    return config, text
