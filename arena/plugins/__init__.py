"""Bots as plug-ins: bot specs (:mod:`~arena.plugins.specs`), finding and loading bot classes
(:mod:`~arena.plugins.loading`), every installed bot (:mod:`~arena.plugins.discovery`) and a bot's
failure in one line (:mod:`~arena.faults`).

This package sits above :mod:`arena.api` and below the isolation of bots: it is the arena's
machinery, not the bot author's (whose names are :mod:`arena.bots`'s).
"""

from arena.plugins.discovery import BotInfo, PluginFailure, description, discover
from arena.plugins.loading import (
    GROUP,
    bot_options,
    check_given,
    clash,
    dist_name,
    entry_point_of,
    load_bot,
    make_bot_spec,
    parse_bot_spec,
    resolve_ref,
)
from arena.plugins.specs import EXEC_PREFIX, BotError, BotSpec, convert_given, split_bot_spec

__all__ = [
    "EXEC_PREFIX", "GROUP", "BotError", "BotInfo", "BotSpec", "PluginFailure", "bot_options", "check_given", "clash",
    "convert_given", "description", "discover", "dist_name", "entry_point_of", "load_bot",
    "make_bot_spec", "parse_bot_spec", "resolve_ref", "split_bot_spec",
]
