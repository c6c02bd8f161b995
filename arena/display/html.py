"""Self-contained HTML pages: a game's replay and a tournament's report.

Everything a page needs is inside it (CSS, a little JavaScript, inline SVG icons,
plots as base64 PNG): it opens offline and fetches nothing.  The rules stay in
Python: :func:`game_data` replays the record with :func:`arena.records.replay`
and stores every position (board, racks, piles, captures) as JSON, and the
page's script only shows the position the controls choose.

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
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

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


def _json_script(value: Any) -> str:
    """``value`` as JSON that cannot end a ``<script>`` element or open a comment."""
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _position(state: GameState, seat_colors: Sequence[Sequence[int]]) -> dict[str, Any]:
    board: list[list[str] | None] = [None] * len(CELL_NAMES)
    captured_at: dict[int, str] = {}
    for move, captured in state.history:
        if move.is_pass:
            continue
        board[move.cell] = [COLORS[move.color], TILE_NAMES[move.tile]]
        if captured >= 0:
            captured_at[move.cell] = COLORS[captured]
    cells = [cell + [captured_at[i]] if cell is not None and i in captured_at else cell for i, cell in enumerate(board)]
    racks = []
    for seat, colors in enumerate(seat_colors):
        for c in colors:
            racks.append({
                "seat": seat, "color": COLORS[c], "tiles": [TILE_NAMES[t] for t in state.racks[c]],
                "pile": len(state.pile(c)), "finished": state.is_finished(c),
            })
    captures = [{COLORS[c]: n for c, n in enumerate(row) if n} for row in state.captures]
    return {"board": cells, "racks": racks, "captures": captures}


def game_data(game: records.Replay) -> dict[str, Any]:
    """The whole game for the page: names, regions, and one position per step (step 0 is the deal)."""
    seat_colors = game.settings.seat_colors
    names = [printable(n) for n in game.names]
    steps = [dict(_position(GameState(game.settings, game.deals), seat_colors), label="the deal", cell=None)]
    times = game.times  # a game with a clock: each move's time and the clock after it follow its label
    for index, seat, move, captured, state in game.states():
        step = _position(state, seat_colors)
        step["label"] = render.describe_move(index, seat, move, captured, names) + (
            "" if times is None else render.move_time_text(times[index]))
        step["cell"] = None if move.is_pass else CELL_NAMES[move.cell]
        step["seat"] = seat
        steps.append(step)
    return {
        "names": names,
        "seatColors": [[COLORS[c] for c in colors] for colors in seat_colors],
        "regions": [REGIONS[region_of(cell)] for cell in range(len(CELL_NAMES))],
        "cells": list(CELL_NAMES),
        "glyphs": SYMBOL_GLYPHS,
        "colors": TILE_COLORS,
        "steps": steps,
    }


def _table(headings: Sequence[str], rows: Iterable[Sequence[Any]], cls: str = "") -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in headings)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in row) + "</tr>" for row in rows)
    attr = f' class="{cls}"' if cls else ""
    return f"<table{attr}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def result_table(game: records.Replay) -> str:
    """The final result as an HTML table: groups, captures, Blockers! penalty and score, both ranks, faults."""
    faults = game.faults
    won = set(game.winners)
    rows = []
    for row in game.result:
        r = row.to_dict()
        seat = int(r["seat"])
        rows.append([
            seat, printable(game.names[seat]), "+".join(COLORS[c] for c in game.settings.seat_colors[seat]),
            r["groups"], ", ".join(f"{n} {c}" for c, n in r["captures"].items() if n) or "-",
            r["blockers_penalty"], r["blockers_score"], r["uptown_rank"], r["blockers_rank"],
            sum(1 for f in faults if f.get("seat") == seat), "yes" if seat in won else "",
        ])
    headings = ["seat", "name", "colors", "groups", "captures", "penalty", "blockers score",
                "uptown rank", "blockers rank", "faults", "won"]
    out = _table(headings, rows, "result")
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


def replay_page(game: records.Replay, title: str) -> str:
    """One self-contained HTML page that replays ``game``; ``title`` is any text (it is escaped)."""
    who = ", ".join(f"{printable(n)} (seat {s})" for s, n in enumerate(game.names))
    seed = f"seed {game.seed}, " if game.seed is not None else ""
    info = f"{seed}{game.settings.players} players, {game.settings.scoring} scoring, {len(game.moves)} moves"
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
        f"<title>{html.escape(printable(title))}</title><style>\n{asset('replay.css')}</style></head><body>"
        f"{asset('icons.svg').rstrip()}<h1>{html.escape(printable(title))}</h1>"
        f"<p class=\"info\">{html.escape(who)}<br>"
        f"{html.escape(info)}</p>"
        "<div id=\"controls\"><button id=\"first\" title=\"first (Home)\">|\u25c0</button>"
        "<button id=\"back\" title=\"back (\u2190)\">\u25c0</button>"
        "<button id=\"play\" title=\"play / pause (space)\">\u25b6 play</button>"
        "<button id=\"forward\" title=\"forward (\u2192)\">\u25b6</button>"
        "<button id=\"last\" title=\"last (End)\">\u25b6|</button>"
        "<input id=\"slider\" type=\"range\" min=\"0\" value=\"0\" aria-label=\"move\"></div>"
        "<p id=\"label\"></p><div id=\"layout\"><div id=\"board\" aria-label=\"board\"></div>"
        "<div style=\"width:430px\"><h2>Racks</h2><div id=\"racks\"></div></div>"
        "<div><h2>Moves</h2><ol id=\"moves\" start=\"0\"></ol></div></div>"
        f"<div id=\"result\" hidden><h2>Result</h2>{result_table(game)}</div>"
        f"<script type=\"application/json\" id=\"game\">{_json_script(game_data(game))}</script>"
        f"<script>\n{asset('replay.js')}</script></body></html>\n"
    )


def _frame_table(frame: Any, index: bool = False) -> str:
    """A pandas table as escaped HTML."""
    headings = ([str(frame.index.name or "")] if index else []) + [str(c) for c in frame.columns]
    rows = []
    for key, row in frame.iterrows():
        values = ["" if _missing(v) else v for v in row.tolist()]
        rows.append(([key] if index else []) + values)
    return _table(headings, rows)


def _missing(value: Any) -> bool:
    try:
        return bool(value != value)  # NaN
    except (TypeError, ValueError):
        return False


def report_page(
    title: str,
    tables: Mapping[str, Any],
    plots: Sequence[Path],
    games: Sequence[tuple[str, str | None]],
    more: int,
    folder: str,
) -> str:
    """A tournament's report: ``tables`` (heading -> (frame, with index)), ``plots`` (PNG files, embedded),
    ``games`` (id, link to its replay or None) and how many ``more`` games have no link."""
    parts = [
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        f"<title>{html.escape(title)}</title><style>\n{asset('replay.css')}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
    ]
    for heading, (frame, index) in tables.items():
        parts.append(f"<h2>{html.escape(heading)}</h2>{_frame_table(frame, index)}")
    if plots:
        parts.append("<h2>Plots</h2>")
    for picture in plots:
        data = base64.b64encode(picture.read_bytes()).decode("ascii")
        parts.append(f"<figure><img alt=\"{html.escape(picture.name)}\" src=\"data:image/png;base64,{data}\">"
                     f"<figcaption>{html.escape(picture.name)}</figcaption></figure>")
    parts.append("<h2>Games</h2><ul id=\"games\">")
    for game_id, link in games:
        text = html.escape(game_id)
        parts.append(f"<li><a href=\"{html.escape(link)}\">{text}</a></li>" if link else f"<li>{text}</li>")
    parts.append("</ul>")
    if more:
        parts.append(f"<p>{more} more games: <code>arena view {html.escape(folder)} --game ID</code> "
                     "writes the replay of any of them.</p>")
    parts.append("</body></html>\n")
    return "".join(parts)
