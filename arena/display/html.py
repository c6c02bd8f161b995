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
"""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import records, render
from ..rules import CELL_NAMES, COLORS, REGIONS, TILE_NAMES, GameState
from ..rules.geometry import region_of
from ..terminal import printable

#: The glyph drawn for each symbol tile and region (Unicode); the ones no common font has are SVG icons.
SYMBOL_GLYPHS = {
    "man": "\u2642", "ring": "\u26ad", "woman": "\u2640", "sign": "\u2691",
    "skyline": "svg:skyline", "sax": "\u266b", "car": "svg:car", "cards": "\u2660", "champagne": "svg:champagne",
}
#: The CSS color of each tile color.
TILE_COLORS = {"red": "#c62828", "blue": "#1565c0", "green": "#2e7d32", "yellow": "#d4a600", "purple": "#6a1b9a"}

_ICONS = """<svg width="0" height="0" style="position:absolute" aria-hidden="true">
<symbol id="sym-skyline" viewBox="0 0 24 24"><path fill="currentColor"
 d="M2 22V12h4V6h4v16h1V9h5v13h1V3h5v19z"/></symbol>
<symbol id="sym-car" viewBox="0 0 24 24"><path fill="currentColor"
 d="M4 16l1.5-5.5C6 9 7 8 8.5 8h7c1.5 0 2.5 1 3 2.5L20 16v4h-2v-2H6v2H4zm3-1.5a1.5 1.5 0 100-.01zm10 0a1.5 1.5
 0 100-.01zM7 13h10l-1-3H8z"/></symbol>
<symbol id="sym-champagne" viewBox="0 0 24 24"><path fill="currentColor"
 d="M8 2h8l-1 7a3 3 0 01-2 3v7h3v2H8v-2h3v-7a3 3 0 01-2-3z"/></symbol>
</svg>"""


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
    for index, seat, move, captured, state in game.states():
        step = _position(state, seat_colors)
        step["label"] = render.describe_move(index, seat, move, captured, names)
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
    title = "Uptown" if game.settings.scoring == "uptown" else "Blockers!"
    out += f"<p>Scoring: {title}</p>"
    return out


_STYLE = """
body{font-family:DejaVu Sans,Arial,sans-serif;margin:1em;background:#fafafa;color:#222}
h1{font-size:1.3em;margin:.2em 0}h2{font-size:1.05em;margin:.2em 0}
#layout{display:flex;gap:1.5em;flex-wrap:wrap;align-items:flex-start}
#board{display:grid;grid-template-columns:repeat(9,44px);grid-template-rows:repeat(9,44px);
 border:3px solid #333;background:#333;gap:1px}
.cell{position:relative;background:#fff;display:flex;align-items:center;justify-content:center;
 font-weight:bold;font-size:20px}
.cell.r1{background:#f1f1e6}.cell.r0{background:#fff}
.cell.c3{margin-left:2px}.cell.row3{margin-top:2px}
.cell .region{color:#bbb;font-weight:normal;font-size:16px}
.tile{width:38px;height:38px;border-radius:6px;color:#fff;display:flex;align-items:center;justify-content:center}
.cell.last .tile{outline:3px solid #ff6f00;outline-offset:1px}
.cell.captured::after{content:"\\2715";position:absolute;right:0;top:0;font-size:10px;line-height:12px;width:12px;background:#000;color:#fff;border-radius:6px;text-align:center}
svg.glyph{width:22px;height:22px}
#racks .rack{margin:.25em 0;display:flex;align-items:center;gap:4px;flex-wrap:wrap}
#racks .rack .tile{width:28px;height:28px;font-size:15px}
#racks .rack .who{min-width:11em;font-size:13px}
#racks .rack .pile,#racks .rack .captures{font-size:12px;white-space:nowrap}
#moves{position:relative;max-height:400px;width:330px;overflow:auto;font-size:12px;margin:0;padding:0;list-style:none}
#moves li{cursor:pointer}#moves li.current{background:#ffe082;font-weight:bold}
#controls{margin:.6em 0;display:flex;gap:.3em;align-items:center}
#slider{width:260px}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px}
th{background:#eee}
"""

_SCRIPT = """
(function(){
var G=JSON.parse(document.getElementById('game').textContent);
var board=document.getElementById('board'),racks=document.getElementById('racks');
var moves=document.getElementById('moves'),slider=document.getElementById('slider');
var label=document.getElementById('label'),result=document.getElementById('result');
var playBtn=document.getElementById('play'),last=G.steps.length-1,at=0,timer=null;
function glyph(name){
  var g=G.glyphs[name];
  if(g===undefined){return document.createTextNode(name);}
  if(g.indexOf('svg:')===0){
    var ns='http://www.w3.org/2000/svg',s=document.createElementNS(ns,'svg'),u=document.createElementNS(ns,'use');
    s.setAttribute('class','glyph');s.setAttribute('viewBox','0 0 24 24');
    u.setAttribute('href','#sym-'+g.slice(4));s.appendChild(u);return s;}
  return document.createTextNode(g);}
function tile(color,name){
  var t=document.createElement('span');t.className='tile';t.style.background=G.colors[color];
  t.setAttribute('data-color',color);t.setAttribute('data-tile',name);t.title=color+' '+name;
  t.appendChild(glyph(name));return t;}
var cells=[];
for(var i=0;i<81;i++){
  var c=document.createElement('div'),row=Math.floor(i/9),col=i%9;
  c.className='cell r'+((Math.floor(row/3)+Math.floor(col/3))%2)+(col%3===0&&col?' c3':'')+(row%3===0&&row?' row3':'');
  c.setAttribute('data-cell',G.cells[i]);c.setAttribute('data-region',G.regions[i]);
  board.appendChild(c);cells.push(c);}
G.steps.forEach(function(s,k){
  var li=document.createElement('li');li.setAttribute('data-step',k);li.textContent=s.label;
  li.addEventListener('click',function(){stop();show(k);});moves.appendChild(li);});
slider.max=last;
function show(k){
  at=Math.max(0,Math.min(last,k));var s=G.steps[at];
  for(var i=0;i<81;i++){
    var c=cells[i],v=s.board[i];c.textContent='';c.classList.remove('last','captured');
    c.removeAttribute('data-color');c.removeAttribute('data-tile');
    if(v){c.appendChild(tile(v[0],v[1]));c.setAttribute('data-color',v[0]);c.setAttribute('data-tile',v[1]);
      if(v.length>2){c.classList.add('captured');c.title='captured '+v[2];}else{c.title='';}}
    else{var r=document.createElement('span');r.className='region';r.appendChild(glyph(G.regions[i]));c.appendChild(r);
      c.title=G.regions[i];}
    if(G.cells[i]===s.cell){c.classList.add('last');}}
  racks.textContent='';
  s.racks.forEach(function(r){
    var d=document.createElement('div');d.className='rack';d.setAttribute('data-color',r.color);
    var w=document.createElement('span');w.className='who';
    var caps=s.captures[r.seat],ct=Object.keys(caps).map(function(k){return caps[k]+' '+k;}).join(', ');
    w.textContent=r.color+' (seat '+r.seat+' '+G.names[r.seat]+')';d.appendChild(w);
    r.tiles.forEach(function(t){d.appendChild(tile(r.color,t));});
    var p=document.createElement('span');p.className='pile';p.setAttribute('data-pile',r.pile);
    p.textContent=r.finished?' finished':' '+r.pile+' in the pile';d.appendChild(p);
    var cp=document.createElement('span');cp.className='captures';cp.textContent=ct?' captured: '+ct:'';
    d.appendChild(cp);racks.appendChild(d);});
  Array.prototype.forEach.call(moves.children,function(li,k){
    if(k===at){li.classList.add('current');li.setAttribute('aria-current','step');
      var top=li.offsetTop;
      if(top<moves.scrollTop||top>moves.scrollTop+moves.clientHeight-20){moves.scrollTop=top-moves.clientHeight/2;}}
    else{li.classList.remove('current');li.removeAttribute('aria-current');}});
  slider.value=at;label.textContent='step '+at+' of '+last+': '+s.label;
  result.hidden=at!==last;document.body.setAttribute('data-step',at);}
function stop(){if(timer){clearInterval(timer);timer=null;}playBtn.textContent='\\u25b6 play';}
function play(){if(timer){stop();return;}if(at===last){show(0);}
  playBtn.textContent='\\u23f8 pause';timer=setInterval(function(){if(at>=last){stop();}else{show(at+1);}},700);}
document.getElementById('first').onclick=function(){stop();show(0);};
document.getElementById('back').onclick=function(){stop();show(at-1);};
document.getElementById('forward').onclick=function(){stop();show(at+1);};
document.getElementById('last').onclick=function(){stop();show(last);};
playBtn.onclick=play;
slider.addEventListener('input',function(){stop();show(parseInt(slider.value,10));});
document.addEventListener('keydown',function(e){
  if(e.target===slider){return;}
  if(e.key==='ArrowRight'){stop();show(at+1);e.preventDefault();}
  else if(e.key==='ArrowLeft'){stop();show(at-1);e.preventDefault();}
  else if(e.key==='Home'){stop();show(0);e.preventDefault();}
  else if(e.key==='End'){stop();show(last);e.preventDefault();}
  else if(e.key===' '){play();e.preventDefault();}});
show(0);
})();
"""


def replay_page(game: records.Replay, title: str) -> str:
    """One self-contained HTML page that replays ``game``; ``title`` is any text (it is escaped)."""
    who = ", ".join(f"{printable(n)} (seat {s})" for s, n in enumerate(game.names))
    seed = f"seed {game.seed}, " if game.seed is not None else ""
    info = f"{seed}{game.settings.players} players, {game.settings.scoring} scoring, {len(game.moves)} moves"
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
        f"<title>{html.escape(printable(title))}</title><style>{_STYLE}</style></head><body>"
        f"{_ICONS}<h1>{html.escape(printable(title))}</h1><p class=\"info\">{html.escape(who)}<br>"
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
        f"<script>{_SCRIPT}</script></body></html>\n"
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
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>",
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
