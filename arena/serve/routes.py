"""The routes of ``arena serve``'s app (:mod:`arena.serve.app` says what each answers): every one reads,
none writes.  The app's state holds the folders it serves (``folders``) and a view of each (``views``)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import quote

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from arena import records
from arena.display.html import game_data
from arena.errors import ArenaError
from arena.results.finding import find_record
from arena.results.lock import FolderLock
from arena.serve import pages
from arena.serve.folders import Served, read_picture
from arena.serve.gamelist import games_page
from arena.serve.live import ended_game, live_replay, worker_game
from arena.serve.views import FolderView

#: Seconds between two looks at a folder for an open page, and at a live file for a game's page.
FOLDER_EVERY = 1.0
LIVE_EVERY = 0.25
#: Seconds an event stream lasts: then it ends, and the page's EventSource opens another (a page closed
#: without a word is let go by then at the latest).
STREAM_SECONDS = 300.0


class NotFound(Exception):
    """A page that is not there: 404, with one line that says what."""


async def not_found(request: Request, exc: Exception) -> Response:
    """The 404 page: what is not there."""
    text = str(exc) if isinstance(exc, NotFound) else "no such page"
    return HTMLResponse(pages.message_page("not found", text), 404)


def served(request: Request) -> Served:
    """The folder the request's ``key`` names (:class:`NotFound` when none)."""
    found = request.app.state.folders.find(request.path_params["key"])
    if found is None:
        raise NotFound("no such results folder")
    return found


def view_of(request: Request) -> FolderView:
    """The view of the request's folder, kept between requests."""
    found = served(request)
    views: dict[Any, FolderView] = request.app.state.views
    view = views.get(found.path)
    if view is None:
        view = views[found.path] = FolderView(found)
    return view


async def index(request: Request) -> Response:
    listing = await run_in_threadpool(request.app.state.folders.listing)
    return HTMLResponse(pages.index_page(listing))


async def favicon(request: Request) -> Response:
    # The icon a browser asks every page's site for: a tile, not a 404 in every page's console.
    return Response(pages.serve_asset("favicon.svg"), media_type="image/svg+xml",
                    headers={"cache-control": "max-age=86400"})


async def to_folder(request: Request) -> Response:
    return RedirectResponse(pages.folder_href(served(request).key))


async def folder(request: Request) -> Response:
    view = view_of(request)
    try:
        facts = await run_in_threadpool(view.facts)
    except ArenaError as exc:
        return HTMLResponse(pages.message_page("arena serve", str(exc)), 500)
    _, section = await run_in_threadpool(view.section)
    return HTMLResponse(pages.folder_page(view.served, facts.title, section))


async def folder_events(request: Request) -> Response:
    view = view_of(request)

    async def events() -> AsyncIterator[str]:
        sent: Any = None
        until = time.monotonic() + STREAM_SECONDS
        while time.monotonic() < until and not await request.is_disconnected():
            signature, section = await run_in_threadpool(view.section, False)
            if signature != sent:
                if sent is not None:
                    yield _event("section", {"html": section})
                sent = signature
            else:
                yield ": still here\n\n"  # a comment: a closed page is noticed at the next write
            await asyncio.sleep(FOLDER_EVERY)

    return _stream(events())


async def games(request: Request) -> Response:
    view = view_of(request)
    try:
        facts = await run_in_threadpool(view.facts)
    except ArenaError as exc:
        return JSONResponse({"error": str(exc)}, 500)
    params = request.query_params
    page = _number(params.get("page"))
    found = await run_in_threadpool(games_page, view.served.path, facts.players, facts.scoring, page,
                                    params.get("sort"), params.get("desc") == "1", params.get("q") or "")
    return JSONResponse(found.as_json())


async def file(request: Request) -> Response:
    found = served(request)
    data = await run_in_threadpool(read_picture, found.path, request.path_params["name"])
    if data is None:
        raise NotFound("no such picture")
    # A picture is shown, never run (sandbox), and never taken for another kind (nosniff, on every answer).
    return Response(data, media_type="image/png", headers={"content-security-policy": "default-src 'none'; sandbox"})


async def game(request: Request) -> Response:
    found = served(request)
    game_id = request.path_params["game_id"]
    record = await run_in_threadpool(find_record, found.path, game_id)
    title = f"{found.name}: {game_id}"
    if record is None:
        ended = await run_in_threadpool(ended_game, found.path, game_id)
        if ended is not None:  # over, its record being stored (a game is, as it ends): the live file's moves
            return HTMLResponse(pages.game_page(ended, title))
        if FolderLock.held(found.path):
            return HTMLResponse(pages.message_page(title, "This game's record is not stored yet (a run stores "
                                                   "each game as it ends): this page looks again "
                                                   "every 2 seconds.", again=2), 202)
        raise NotFound(f"no game {game_id} in this folder's records")
    try:
        replayed = await run_in_threadpool(records.replay, record)
    except records.RecordError as exc:
        return HTMLResponse(pages.message_page(title, f"the record does not replay: {exc}"), 500)
    return HTMLResponse(await run_in_threadpool(pages.game_page, replayed, title))


async def live(request: Request) -> Response:
    found = served(request)
    worker = request.path_params["worker"]
    current = await run_in_threadpool(worker_game, found.path, worker)
    if current is None:  # between two games: the last one's replay
        current = await run_in_threadpool(worker_game, found.path, worker, True)
    replayed = None if current is None else await run_in_threadpool(live_replay, current)
    if current is None or replayed is None:
        raise NotFound("no game is being played by this worker")
    if current.over:
        return RedirectResponse(f"../game/{quote(current.game_id, safe='')}")
    return HTMLResponse(pages.live_page(replayed, current.game_id, f"{found.name}: {current.game_id} (being played)"))


async def live_events(request: Request) -> Response:
    found = served(request)
    worker = request.path_params["worker"]

    wanted = request.query_params.get("game", "")
    shown = _number(request.query_params.get("from")) or 1  # the steps the page has (the deal is one)

    async def events() -> AsyncIterator[str]:
        nonlocal shown
        until = time.monotonic() + STREAM_SECONDS
        while time.monotonic() < until and not await request.is_disconnected():
            current = await run_in_threadpool(worker_game, found.path, worker)
            if current is None or current.game_id != wanted:  # over: its last moves are in the last game's file
                current = await run_in_threadpool(worker_game, found.path, worker, True)
            if current is None or current.game_id != wanted:
                yield _event("over", {"game": wanted, "href": f"../game/{quote(wanted, safe='')}"})
                return
            replayed = await run_in_threadpool(live_replay, current)
            if replayed is not None and len(replayed.moves) + 1 > shown:
                steps = game_data(replayed)["steps"]
                info = (f"seed {replayed.seed}, {replayed.settings.players} players, "
                        f"{replayed.settings.scoring} scoring, {len(replayed.moves)} moves so far")
                yield _event("moves", {"steps": steps[shown:], "total": len(steps), "info": info})
                shown = len(steps)
            if current.over:  # its last moves sent: the page turns into its replay
                yield _event("over", {"game": wanted, "href": f"../game/{quote(wanted, safe='')}"})
                return
            await asyncio.sleep(LIVE_EVERY)

    return _stream(events())


ROUTES = [
    Route("/", index),
    Route("/favicon.ico", favicon),
    Route("/run/{key}", to_folder),
    Route("/run/{key}/", folder),
    Route("/run/{key}/events", folder_events),
    Route("/run/{key}/games", games),
    Route("/run/{key}/file/{name}", file),
    Route("/run/{key}/game/{game_id}", game),
    Route("/run/{key}/live/{worker:int}", live),
    Route("/run/{key}/live/{worker:int}/events", live_events),
]


def _event(name: str, data: Any) -> str:
    """One server-sent event: its name and its data as one line of JSON."""
    return f"event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def _stream(events: AsyncIterator[str]) -> StreamingResponse:
    return StreamingResponse(events, media_type="text/event-stream", headers={"x-accel-buffering": "no"})


def _number(text: str | None) -> int:
    try:
        return max(0, min(int(text or 0), 10**7))
    except ValueError:
        return 0

