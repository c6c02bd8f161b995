"""Self-contained HTML pages: a game's replay and a tournament's report.

Everything a page needs is inside it (CSS, a little JavaScript, inline SVG icons,
plots as base64 PNG): it opens offline and fetches nothing.  The rules stay in
Python: :func:`game_data` replays the record with :func:`arena.records.replay`
and stores every position (board, racks, piles, captures) as JSON, each after
the deal as what changed since the one before, and the page's script only
shows the position the controls choose.

Every text from a record (names, fault messages) reaches the page either
escaped by :func:`html.escape` or as JSON whose ``<``, ``>`` and ``&`` are
written as ``\\u003c`` ..., and the script puts it in the page with
``textContent`` only, so a name such as ``<script>`` is shown, never run.

The CSS, the script and the SVG icons are files of this package
(``assets/replay.css``, ``assets/replay.js``, ``assets/icons.svg``), read with
:mod:`importlib.resources` and written into each page as they are.
"""

from __future__ import annotations

import base64
import html
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any, NamedTuple

from arena import records
from arena.display import text as render
from arena.display.terminal import printable
from arena.rules import CELL_NAMES, COLORS, REGIONS, TILE_NAMES, GameState
from arena.rules.geometry import region_of

#: The glyph drawn for each symbol tile and region (Unicode); the ones no common font has are SVG icons.
SYMBOL_GLYPHS = {
    "man": "\u2642", "ring": "\u26ad", "woman": "\u2640", "sign": "\u2691",
    "skyline": "svg:skyline", "sax": "\u266b", "car": "svg:car", "cards": "\u2660", "champagne": "svg:champagne",
}
#: The CSS color of each tile color.
TILE_COLORS = {"red": "#c62828", "blue": "#1565c0", "green": "#2e7d32", "yellow": "#d4a600", "purple": "#6a1b9a"}


@cache
def asset(name: str) -> str:
    """The text of the package file ``assets/NAME``: ``replay.css`` (the replay page's and the report's CSS),
    ``replay.js`` (the replay page's script) or ``icons.svg`` (the SVG symbols of :data:`SYMBOL_GLYPHS`)."""
    return (files("arena.display") / "assets" / name).read_text(encoding="utf-8")


def json_script(value: Any) -> str:
    """``value`` as JSON that cannot end a ``<script>`` element or open a comment."""
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _racks(state: GameState, seat_colors: Sequence[Sequence[int]]) -> list[dict[str, Any]]:
    """Each color's rack as the page shows it, in seat order."""
    return [{"seat": seat, "color": COLORS[c], "tiles": [TILE_NAMES[t] for t in state.racks[c]],
             "pile": len(state.pile(c)), "finished": state.is_finished(c)}
            for seat, colors in enumerate(seat_colors) for c in colors]


def _captures(state: GameState) -> list[dict[str, int]]:
    return [{COLORS[c]: n for c, n in enumerate(row) if n} for row in state.captures]


def _changes(now: Sequence[Any], before: Sequence[Any]) -> list[list[Any]]:
    """``[index, value]`` for each item of ``now`` that differs from ``before``'s."""
    return [[i, value] for i, value in enumerate(now) if value != before[i]]


def players(game: records.Replay) -> list[dict[str, str]]:
    """Each seat's ``name`` as the page shows it and its bot's ``spec`` ('' when the record gives none).

    A seat the record names by its spec (``arena play`` does) is shown by the name its bot program
    declared in its handshake (the ``name`` of its ``bots`` entry, written for ``exec:`` programs):
    ``random_bot`` rather than ``exec:python3 /home/me/bots/random_bot.py``, which stays in the spec."""
    bots = game.record.get("bots")
    entries = bots if isinstance(bots, list) and len(bots) == len(game.names) else [None] * len(game.names)
    shown = []
    for name, entry in zip(game.names, entries):
        entry = entry if isinstance(entry, Mapping) else {}
        spec = entry.get("spec") if isinstance(entry.get("spec"), str) else ""
        declared = entry.get("name")
        if isinstance(declared, str) and declared.strip() and name == spec:
            name = declared
        shown.append({"name": printable(name), "spec": printable(spec)})
    return shown


#: The columns of the moves table: (key of a step's ``row``, heading).  A step's ``row`` holds one text per key;
#: the page's script draws whatever columns this lists, so a column is added here and in :func:`_move_row` alone.
MOVE_COLUMNS = (("n", "#"), ("who", "seat"), ("play", "move"))


def _move_row(index: int, seat: int, move: Any, captured: int, names: Sequence[str]) -> dict[str, str]:
    if move.is_pass:
        play = "passes"
    else:
        play = f"{COLORS[move.color]} {TILE_NAMES[move.tile]} on {CELL_NAMES[move.cell]}"
        if captured >= 0:
            play += f" \u00d7{COLORS[captured]}"
    return {"n": str(index), "who": f"{seat} {names[seat]}", "play": play}


def game_data(game: records.Replay) -> dict[str, Any]:
    """The whole game for the page: names, regions, and one position per step (step 0 is the deal).

    Step ``k`` (k > 0) is the position after the move the record numbers ``k - 1``, as its label says.
    The deal's step holds its ``board`` and ``racks`` whole; each later step only what changed since the
    step before, as ``[index, value]`` pairs: ``put`` for the cells, ``rack`` for the racks
    (the page's script makes them whole when it loads; a page of whole positions was three times the size)."""
    seat_colors = game.settings.seat_colors
    shown = players(game)
    names = [p["name"] for p in shown]
    # Each cell: its tile's color and name, then the color a move there last captured (M3), if any; None while empty.
    board: list[list[str] | None] = [None] * len(CELL_NAMES)
    captured_at: dict[int, str] = {}
    deal = GameState(game.settings, game.deals)
    racks = _racks(deal, seat_colors)
    steps = [{"board": board[:], "racks": racks, "captures": _captures(deal), "label": "the deal", "cell": None}]
    times = game.times  # a game with a clock: each move's time and the clock after it follow its label
    for index, seat, move, captured, state in game.states():
        put = []
        if not move.is_pass:
            if captured >= 0:
                captured_at[move.cell] = COLORS[captured]
            mark = captured_at.get(move.cell)
            board[move.cell] = [COLORS[move.color], TILE_NAMES[move.tile], *([] if mark is None else [mark])]
            put.append([move.cell, board[move.cell]])
        now = _racks(state, seat_colors)
        step: dict[str, Any] = {"put": put, "rack": _changes(now, racks), "captures": _captures(state)}
        racks = now
        step["label"] = render.describe_move(index, seat, move, captured, names) + (
            "" if times is None else render.move_time_text(times[index]))
        step["cell"] = None if move.is_pass else CELL_NAMES[move.cell]
        step["seat"] = seat
        step["row"] = _move_row(index, seat, move, captured, names)
        if times is not None:
            step["row"]["time"] = render.move_time_text(times[index]).strip(" ()")
        steps.append(step)
    return {
        "names": names,
        "specs": [p["spec"] for p in shown],
        "seatColors": [[COLORS[c] for c in colors] for colors in seat_colors],
        "regions": [REGIONS[region_of(cell)] for cell in range(len(CELL_NAMES))],
        "cells": list(CELL_NAMES),
        "glyphs": SYMBOL_GLYPHS,
        "colors": TILE_COLORS,
        "columns": [list(c) for c in MOVE_COLUMNS] + ([["time", "time"]] if times is not None else []),
        "steps": steps,
    }


def _table(headings: Sequence[str], rows: Iterable[Sequence[Any]], cls: str = "", attrs: str = "") -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in headings)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in row) + "</tr>" for row in rows)
    attr = (f' class="{cls}"' if cls else "") + attrs
    return f"<table{attr}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def result_table(game: records.Replay) -> str:
    """The final result as an HTML table: groups, captures, Blockers! penalty and score, both ranks, faults."""
    faults = game.faults
    won = set(game.winners)
    names = [p["name"] for p in players(game)]
    rows = []
    for row in game.result:
        r = row.to_dict()
        seat = int(r["seat"])
        rows.append([
            seat, names[seat], "+".join(COLORS[c] for c in game.settings.seat_colors[seat]),
            r["groups"], ", ".join(f"{n} {c}" for c, n in r["captures"].items() if n) or "-",
            r["blockers_penalty"], r["blockers_score"], r["uptown_rank"], r["blockers_rank"],
            sum(1 for f in faults if f.get("seat") == seat), "yes" if seat in won else "",
        ])
    headings = ["seat", "name", "colors", "groups", "captures", "penalty", "blockers score",
                "uptown rank", "blockers rank", "faults", "won"]
    out = f"<div class=\"scroll\">{_table(headings, rows, 'result')}</div>"
    if faults:
        items = "".join(
            f"<li>seat {html.escape(printable(f.get('seat')))}, move {html.escape(printable(f.get('move')))}: "
            f"{html.escape(printable(f.get('kind')))}: {html.escape(printable(f.get('message', '')))}</li>"
            for f in faults
        )
        out += f"<h3>Faults</h3><ul class=\"faults\">{items}</ul>"
    times = game.times
    if times is not None:
        heading, *lines = render.render_clocks(game.record["clock"], times, game.seats, game.names).splitlines()
        items = "".join(f"<li>{html.escape(line.strip())}</li>" for line in lines)
        out += f"<h3>{html.escape(heading.rstrip(':').capitalize())}</h3><ul class=\"clocks\">{items}</ul>"
    title = "Uptown" if game.settings.scoring == "uptown" else "Blockers!"
    out += f"<p>Scoring: {title}</p>"
    return out


def winner_line(game: records.Replay) -> str:
    """Who won, in words: ``greedy (seat 1) wins under Uptown scoring`` (a tie names every winner)."""
    names = [p["name"] for p in players(game)]
    won = [f"{names[s]} (seat {s})" for s in game.winners]
    scoring = "Uptown" if game.settings.scoring == "uptown" else "Blockers!"
    verb = "wins" if len(won) == 1 else "share the win"
    return f"{' and '.join(won)} {verb} under {scoring} scoring"


#: The legend's marks: (class of its sample, what it means).  The samples are drawn as the board draws them.
_MARKS = (
    ("last", "the move just played (outlined)"),
    ("capmark", "a capture: this tile replaced a tile of the color of the mark (M3)"),
    ("region", "an empty cell: the faint symbol is its region; a symbol tile goes in its region"),
)


def _legend() -> str:
    """The key to the board: the symbols, the marks, and where letters, numbers and $ go."""
    items = []
    for name, glyph in SYMBOL_GLYPHS.items():
        if glyph.startswith("svg:"):
            shown = (f"<svg class=\"glyph\" viewBox=\"0 0 24 24\"><use href=\"#sym-{glyph[4:]}\"></use></svg>")
        else:
            shown = html.escape(glyph)
        items.append(f"<li data-legend=\"{name}\"><span class=\"tile sample\">{shown}</span>{name}</li>")
    items.append("<li data-legend=\"$\"><span class=\"tile sample\">$</span>wild: goes anywhere</li>")
    items.append("<li data-legend=\"letter\"><span class=\"tile sample\">C</span>a letter goes in its row</li>")
    items.append("<li data-legend=\"number\"><span class=\"tile sample\">7</span>a number goes in its column</li>")
    marks = {
        "last": "<span class=\"cell sample last\"><span class=\"tile\">A</span></span>",
        "capmark": "<span class=\"cell sample\"><span class=\"tile\">A</span>"
                   "<span class=\"capmark\" style=\"--cap:#c62828\">\u2715</span></span>",
        "region": f"<span class=\"cell sample\"><span class=\"region\">{SYMBOL_GLYPHS['sax']}</span></span>",
    }
    for cls, meaning in _MARKS:
        items.append(f"<li data-legend=\"{cls}\">{marks[cls]}{html.escape(meaning)}</li>")
    return f"<details id=\"legend\" open><summary>Legend</summary><ul>{''.join(items)}</ul></details>"


#: The page's Content-Security-Policy: it fetches nothing (a page served by ``arena serve`` may add sources).
PAGE_POLICY = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"


def _attribute(text: str) -> str:
    """``text`` for a double-quoted attribute: its quotes escaped, its single quotes (a policy's) kept."""
    return html.escape(text, quote=False).replace('"', "&quot;")


def replay_page(game: records.Replay, title: str, *, finished: bool = True, policy: str = PAGE_POLICY,
                tail: str = "") -> str:
    """One self-contained HTML page that replays ``game``; ``title`` is any text (it is escaped).

    It opens on the final position, or on the move its URL's fragment names (``#40``: after move 40,
    ``#deal``: the deal); stepping keeps the fragment on the move shown.  A game not ``finished`` (one
    being played, which ``arena serve`` shows) has no result yet; ``tail`` is more HTML at the page's
    end (the script that follows such a game: ``window.arenaReplay.follow(steps)`` adds its moves) and
    ``policy`` its Content-Security-Policy."""
    chips = "".join(
        f"<span class=\"player\" data-seat=\"{s}\" title=\"{html.escape(p['spec'] or p['name'])}\">"
        + "".join(f"<i class=\"swatch\" style=\"background:{TILE_COLORS[COLORS[c]]}\"></i>"
                  for c in game.settings.seat_colors[s])
        + f"{html.escape(p['name'])} <small>seat {s}</small></span>"
        for s, p in enumerate(players(game))
    )
    specs = "".join(f"<li>seat {s}: {html.escape(p['name'])}: <code>{html.escape(p['spec'] or '-')}</code></li>"
                    for s, p in enumerate(players(game)))
    seed = f"seed {game.seed}, " if game.seed is not None else ""
    info = f"{seed}{game.settings.players} players, {game.settings.scoring} scoring, {len(game.moves)} moves"
    outcome = winner_line(game) if finished else "being played"
    result = result_table(game) if finished else ""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{_attribute(policy)}\">"
        f"<title>{html.escape(printable(title))}</title><style>\n{asset('replay.css')}</style></head><body>"
        f"{asset('icons.svg').rstrip()}<header><h1>{html.escape(printable(title))}</h1>"
        f"<p class=\"players\">{chips}</p>"
        f"<p class=\"info\"><strong id=\"winner\">{html.escape(outcome)}</strong> \u00b7 "
        f"<span id=\"info\">{html.escape(info)}</span></p></header>"
        "<div id=\"layout\"><section id=\"play-area\">"
        "<div id=\"controls\"><button id=\"first\" title=\"the deal (Home)\">|\u25c0</button>"
        "<button id=\"back\" title=\"back (\u2190)\">\u25c0</button>"
        "<button id=\"play\" title=\"play / pause (space)\">\u25b6 play</button>"
        "<button id=\"forward\" title=\"forward (\u2192)\">\u25b6</button>"
        "<button id=\"last\" title=\"the final position (End)\">\u25b6| final</button>"
        "<input id=\"slider\" type=\"range\" min=\"0\" value=\"0\" aria-label=\"move\"></div>"
        "<p id=\"label\"></p><div id=\"board\" aria-label=\"board\"></div>"
        f"{_legend()}</section>"
        "<section id=\"side\">"
        f"<div id=\"result\" hidden{'' if finished else ' data-live'}><h2>Result</h2>{result}</div>"
        "<h2>Racks</h2><div id=\"racks\"></div>"
        "<h2>Moves</h2><div id=\"moves-box\"><table id=\"moves\"><thead></thead><tbody></tbody></table></div>"
        f"<details id=\"bots\"><summary>Bots</summary><ul>{specs}</ul></details>"
        "</section></div>"
        f"<script type=\"application/json\" id=\"game\">{json_script(game_data(game))}</script>"
        f"<script>\n{asset('replay.js')}</script>{tail}</body></html>\n"
    )


def frame_table(frame: Any, index: bool = False) -> str:
    """A pandas table as escaped HTML, its number cells marked ``num`` (right-aligned, never wrapped)."""
    headings = ([str(frame.index.name or "")] if index else []) + [str(c) for c in frame.columns]
    head = "".join(f"<th>{html.escape(printable(h))}</th>" for h in headings)
    body = []
    for key, row in frame.iterrows():
        values = ([key] if index else []) + ["" if _missing(v) else v for v in row.tolist()]
        cells = "".join(f"<td{_NUM if _NUMBER.fullmatch(str(v)) else ''}>{html.escape(printable(v))}</td>"
                        for v in values)
        body.append(f"<tr>{cells}</tr>")
    return f"<div class=\"scroll\"><table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"


_NUM = ' class="num"'
#: A cell that is a figure: a number, a share, a rating, an interval of them ("38.5%-47.1%", "[-12, +40]").
_NUMBER = re.compile(r"[\[(]?[-+]?[\d.]+%?(?:(?:-|, )[-+]?[\d.]+%?)?[\])]?(?: \(\d+\))?|-")


def _missing(value: Any) -> bool:
    try:
        return bool(value != value)  # NaN
    except (TypeError, ValueError):
        return False


@dataclass
class GameList:
    """The games a report lists: ``columns``, one row per game (the first games of the folder), how many
    games the folder holds, the replay page of each game that has one, and how many games have none."""

    columns: list[str]
    rows: list[list[str | int]]
    total: int
    links: dict[str, str] = field(default_factory=dict)
    replays_left: int = 0


class Section(NamedTuple):
    """A table of the report: its heading, its frame of cell texts (with its index or not), a note on what it
    found and a line on what its columns mean, both shown under it; ``key`` names its anchor."""

    title: str
    frame: Any
    with_index: bool
    note: str
    columns: str = ""
    key: str = ""


#: What the games list's columns mean, under it.
GAMES_COLUMNS_NOTE = ("game: its id (a link to its replay where it has one). table, deal: where the schedule "
                      "put it. seat N: who sat there (seat 0 moves first). groups N (Uptown) or blockers score N "
                      "(Blockers!): that seat's score. winner: who won. faults, moves: the game's faults and moves.")


def _anchor(text: str) -> str:
    """An id for a heading: its words in lower case, joined by hyphens."""
    return "-".join(re.findall(r"[a-z0-9]+", text.lower())) or "section"


def _section(key: str, heading: str, body: str) -> str:
    return f"<section id=\"{key}\"><h2>{html.escape(printable(heading))}</h2>{body}</section>"


#: What each of the arena's plots shows (arena.report.plots draws them), the caption of its figure on a page.
PLOT_CAPTIONS = {
    "win_share.png": "Win share per entrant under each scoring, with its 95% interval",
    "rating.png": "Rating per entrant, with its 95% interval",
    "head_to_head.png": "Head to head: the share of shared games the row entrant finished ahead of the column's",
    "seats.png": "Win share and mean rank by seat",
    "order.png": "The share of games the row entrant finished ahead of the entrant moving just before it",
    "llr.png": "The match's log-likelihood ratio over the games counted, between the SPRT's bounds",
}


def plot_caption(name: str) -> str:
    """The caption of the plot file ``name``: what it shows (the file's name for a picture of another name)."""
    return PLOT_CAPTIONS.get(name, name)


def _plots(plots: Sequence[Path]) -> str:
    figures = []
    for picture in plots:
        png = base64.b64encode(picture.read_bytes()).decode("ascii")
        caption = html.escape(plot_caption(picture.name))
        figures.append(f"<figure><img alt=\"{caption}\" src=\"data:image/png;base64,{png}\">"
                       f"<figcaption>{caption} <small>({html.escape(picture.name)})</small></figcaption></figure>")
    return "".join(figures)


def _games(games: GameList, folder: str) -> str:
    listed = len(games.rows)
    shown = f"{games.total} games" if listed == games.total else f"the first {listed} of {games.total} games"
    body = (f"<p class=\"note\">{shown}, in the order they finished; a click on a heading sorts by it.</p>"
            "<div id=\"games-controls\"><input id=\"games-filter\" type=\"search\" "
            "placeholder=\"filter: a player, an id\u2026\" aria-label=\"filter the games\"> "
            "<button id=\"games-prev\">\u25c0 previous</button> <span id=\"games-page\"></span> "
            "<button id=\"games-next\">next \u25b6</button></div>"
            "<div class=\"scroll\"><table id=\"games\"><thead></thead><tbody></tbody></table></div>"
            f"<p class=\"columns\">{html.escape(GAMES_COLUMNS_NOTE)}</p>")
    if games.replays_left or listed < games.total:
        body += (f"<p class=\"note\">{games.replays_left} games have no replay page here: "
                 f"<code>arena view {html.escape(printable(folder))} --game ID</code> writes the replay of any game.</p>")
    return body


def _items(lines: Sequence[str]) -> str:
    return "<ul>" + "".join(f"<li>{html.escape(printable(line.strip()))}</li>" for line in lines) + "</ul>"


def report_page(
    title: str,
    summary: Sequence[str],
    tables: Sequence[Section],
    plots: Sequence[Path],
    games: GameList,
    folder: str,
    match: Sequence[str] = (),
) -> str:
    """A tournament's report, read from the top: its ``summary`` (lines of text), a list of contents, the
    first of ``tables`` (the standings), the ``plots`` (PNG files, embedded), a ``match``'s lines, the other
    tables, then the ``games`` in a table the page's script sorts, filters and shows in pages.  Every text
    is escaped: a name a bot chose is shown, never run."""
    sections: list[tuple[str, str, str]] = []  # (anchor, heading, body)
    for number, shown in enumerate(tables):
        body = frame_table(shown.frame, shown.with_index)
        if shown.note:
            body += f"<p class=\"note\">{html.escape(printable(shown.note))}</p>"
        if shown.columns:
            body += f"<p class=\"columns\">{html.escape(printable(shown.columns))}</p>"
        sections.append((shown.key or _anchor(shown.title), shown.title, body))
        if number == 0 and plots:
            sections.append(("plots", "Plots", _plots(plots)))
        if number == 0 and match:
            sections.append(("match", "Match", _items(match)))
    sections.append(("games-list", "Games", _games(games, folder)))  # "games" is the table's id
    contents = "".join(f"<li><a href=\"#{key}\">{html.escape(printable(heading))}</a></li>"
                       for key, heading, _ in sections)
    data = {"columns": games.columns, "rows": [[printable(v) if isinstance(v, str) else v for v in row]
                                               for row in games.rows],
            "links": games.links}
    return "".join([
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">",
        f"<title>{html.escape(printable(title))}</title><style>\n{asset('replay.css')}</style></head>"
        f"<body class=\"report\"><h1>{html.escape(printable(title))}: tournament report</h1>",
        _section("summary", "Summary", _items(summary)),
        f"<nav id=\"contents\" aria-label=\"contents\"><h2>Contents</h2><ol>{contents}</ol></nav>",
        *(_section(key, heading, body) for key, heading, body in sections),
        f"<script type=\"application/json\" id=\"games-data\">{json_script(data)}</script>"
        f"<script>\n{asset('report.js')}</script></body></html>\n",
    ])
