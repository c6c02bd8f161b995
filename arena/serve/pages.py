"""The HTML of ``arena serve``'s pages: the list of folders, a folder's page, a game's, and the short ones.

A folder's page is a frame around its section (:mod:`.views`), which its script replaces as the
folder changes, and a games list its script asks the server for.  A game's page is the replay page of
:mod:`arena.display.html`, the same board and script as ``arena view`` writes.  Every text from a
folder or a bot is escaped (:func:`~arena.serve.views.esc`).
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from urllib.parse import quote

from arena import records
from arena.display.html import asset, json_script, replay_page
from arena.serve.folders import Served
from arena.serve.views import esc

#: The policy of every page served: scripts and styles of the page itself; pictures, the games list
#: and the events from this server alone.
POLICY = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src 'self' data:; "
          "connect-src 'self'; base-uri 'none'; form-action 'none'")


@cache
def serve_asset(name: str) -> str:
    """The text of this package's ``assets/NAME`` (``serve.js``, ``live.js``, ``serve.css``)."""
    return (files("arena.serve") / "assets" / name).read_text(encoding="utf-8")


def _head(title: str) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{esc(title)}</title><style>\n{asset('replay.css')}{serve_asset('serve.css')}</style></head>")


def folder_href(key: str) -> str:
    """The path of a folder's page from the site's root."""
    return f"/run/{quote(key, safe=':')}/"


def index_page(listing: list[Served]) -> str:
    """The folders shown, each linked to its page."""
    items = "".join(f"<li><a href=\"{esc(folder_href(s.key))}\">{esc(s.name)}</a> <small>{esc(s.path)}</small></li>"
                    for s in listing)
    body = f"<ul class=\"folders\">{items}</ul>" if items else "<p>No results folder here yet.</p>"
    return (f"{_head('arena serve')}<body class=\"report\"><h1>Results folders</h1>{body}"
            "<p class=\"note\">A folder being written shows its games as they are stored.</p></body></html>\n")


def folder_page(served: Served, title: str, section: str) -> str:
    """A folder's page: its ``section`` (kept up to date by its script) and its games list."""
    return (
        f"{_head(title)}<body class=\"report\"><nav class=\"crumbs\"><a href=\"/\">folders</a> / {esc(served.name)}</nav>"
        f"<h1>{esc(title)}</h1><div id=\"live\">{section}</div>"
        "<h2>Games</h2><p class=\"note\">In the order they finished; a click on a heading sorts by it, on a game "
        "its replay.</p><div id=\"games-controls\"><input id=\"games-filter\" type=\"search\" "
        "placeholder=\"filter: a player, an id…\" aria-label=\"filter the games\"> <button id=\"games-prev\">"
        "\u25c0 previous</button> <span id=\"games-page\"></span> <button id=\"games-next\">next \u25b6</button></div>"
        "<div class=\"scroll\"><table id=\"games\"><thead></thead><tbody></tbody></table></div>"
        f"<script>\n{serve_asset('serve.js')}</script></body></html>\n"
    )


def game_page(game: records.Replay, title: str) -> str:
    """A stored game's replay page."""
    return replay_page(game, title, policy=POLICY)


def live_page(game: records.Replay, game_id: str, title: str) -> str:
    """The game ``game_id`` being played: the replay page of its moves so far, following the moves to come."""
    tail = (f"<script type=\"application/json\" id=\"live-game\">{json_script(game_id)}</script>"
            f"<script>\n{serve_asset('live.js')}</script>")
    return replay_page(game, title, finished=False, policy=POLICY, tail=tail)


def message_page(title: str, text: str, again: int | None = None) -> str:
    """A page of one message; ``again``: seconds after which it asks again (a record not stored yet)."""
    refresh = f"<meta http-equiv=\"refresh\" content=\"{int(again)}\">" if again else ""
    return (f"{_head(title).replace('</head>', refresh + '</head>')}<body class=\"report\">"
            f"<nav class=\"crumbs\"><a href=\"/\">folders</a></nav><h1>{esc(title)}</h1><p>{esc(text)}</p></body></html>\n")
