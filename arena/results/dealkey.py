"""A results folder's secret deal key: 32 random bytes that every game seed of the folder is keyed with.

A bot is given its own tiles, its ``seed`` and everything in the tournament
file; with seeds made of public things alone it could search the master seed
and the game seed and so learn every rack and draw (the tournament file's
seeds are small numbers people choose).  So the arena makes a key when it
makes a results folder (:func:`secrets.token_hex`), keeps it in the folder
(``deal.key``, its owner's alone, like the folder: bots never see it) and
keys every seed with it (:func:`arena.plan.schedule.game_seed`)
and every bot's seed (:func:`arena.wire.protocol.bot_seed`).

A resume, ``--update`` and ``arena report`` read the same key; ``--overwrite``
makes a new one.  A folder that holds a tournament but no readable key is
refused in one line: a new key would make the games it stores unverifiable.
A tournament with ``public_deals = true`` has no key.  Whoever holds the key
(``deal_key`` in the file, ``--deal-key HEX``) deals every game again.

A folder written before deal keys keeps none, and never had one: its games were played in the duplicate
format with public deals.  :func:`before_deal_keys` knows such a folder by its stored games (their seeds
are the public ones) and reads it as what it is.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import replace
from pathlib import Path

from arena.errors import os_error_line
from arena.plan.config import TournamentConfig, check_deal_key
from arena.results.files import DEAL_KEY_FILE, GAMES_FILE, RunError, write_atomically


def new_key() -> str:
    """A fresh deal key: 32 random bytes as 64 hexadecimal digits."""
    return secrets.token_hex(32)


def read_key(out: Path) -> str:
    """The deal key ``out`` keeps; :class:`RunError` (one line) when it is missing or malformed."""
    path = out / DEAL_KEY_FILE
    try:
        text = path.read_text(encoding="ascii")
    except FileNotFoundError:
        raise RunError(f"{path}: missing: the games of {out} are dealt with the key this file held; put the key "
                       f"back (or give it with --deal-key), or start again with --overwrite") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RunError(f"{path}: cannot read: {os_error_line(exc)}") from None
    try:
        return check_deal_key(text)
    except ValueError as exc:
        raise RunError(f"{path}: not a deal key ({exc}); put the key back, or start again with --overwrite") from None


def write_key(out: Path, key: str) -> None:
    """Keep ``key`` in ``out`` as a file only its owner may read or write (written whole, then renamed in)."""
    def write(tmp: Path) -> None:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        try:
            os.fchmod(fd, 0o600)  # an older temporary file keeps its mode through O_CREAT
            os.write(fd, f"{key}\n".encode("ascii"))
            os.fsync(fd)
        finally:
            os.close(fd)

    write_atomically(out / DEAL_KEY_FILE, write)


#: The line a command says for a folder of :func:`before_deal_keys`.
BEFORE_DEAL_KEYS = ("{out}: written before deal keys: its games were played with public deals, one deal a round "
                    "(duplicate), and it is read and resumed as such")


def before_deal_keys(config: TournamentConfig, out: Path) -> TournamentConfig | None:
    """``config`` as the folder ``out`` played it when ``out`` was written before deal keys (with public deals
    in the duplicate format); None for any other folder.

    Such a folder keeps no ``deal.key`` and its tournament names no deal key; the seed of the first game it
    stores is the public one.  A folder that stores no game yet cannot tell, and is none."""
    if config.public_deals or config.deal_key is not None or (out / DEAL_KEY_FILE).exists():
        return None
    played = replace(config, duplicate=True, public_deals=True)
    return played if _stores_games(out) and key_fits(played, out) else None


def _stores_games(out: Path) -> bool:
    from arena.results.games_table import GamesTableError, first_row

    try:
        return first_row(out / GAMES_FILE) is not None
    except (OSError, GamesTableError):
        return False


def folder_key(config: TournamentConfig, out: Path, given: str | None = None) -> TournamentConfig:
    """``config`` with the deal key of the folder ``out``, which holds its tournament already.

    ``given`` (or the file's ``deal_key``) must be that key.  Public deals need none.  When the key file
    is missing and a key is given it is taken: it is written into the folder once it gives the seed of a
    stored game (:func:`key_fits`), else refused.
    """
    if config.public_deals:
        return config
    given = given or config.deal_key
    if given is not None and not (out / DEAL_KEY_FILE).exists():
        keyed = replace(config, deal_key=given)
        if not key_fits(keyed, out):
            raise RunError(f"{out}: the deal key given does not deal the games stored there")
        write_key(out, given)
        return keyed
    key = read_key(out)
    if given is not None and given != key:
        raise RunError(f"{out / DEAL_KEY_FILE}: holds another deal key than the one given")
    return replace(config, deal_key=key)


def check_folder_key(config: TournamentConfig, out: Path) -> None:
    """Refuse (:class:`RunError`) what :func:`folder_key` would refuse for a folder that keeps no valid key or
    another, reading only (a given key for a folder without one is judged when the folder is locked)."""
    if config.public_deals or (config.deal_key is not None and not (out / DEAL_KEY_FILE).exists()):
        return
    if before_deal_keys(config, out) is not None:
        return
    key = read_key(out)
    if config.deal_key is not None and config.deal_key != key:
        raise RunError(f"{out / DEAL_KEY_FILE}: holds another deal key than the one given")


def new_folder_key(config: TournamentConfig, out: Path) -> TournamentConfig:
    """``config`` with the key of a folder made now: the file's ``deal_key`` (or ``--deal-key``), else a new one,
    kept in ``out``.  Public deals need none."""
    if config.public_deals:
        return config
    key = config.deal_key or new_key()
    write_key(out, key)
    return replace(config, deal_key=key)


def key_fits(config: TournamentConfig, out: Path) -> bool:
    """Whether ``config``'s key gives the seed of the first game ``games.csv`` in ``out`` stores (True for none)."""
    from arena.plan.schedule import Schedule
    from arena.results.games_table import GamesTableError, first_row
    from arena.results.league import folder_numbering

    try:
        row = first_row(out / GAMES_FILE)
    except (OSError, GamesTableError):
        return True
    if row is None:
        return True
    game = Schedule(config, folder_numbering(out)).game(row.game_id)
    return game is not None and game.seed == row.seed
