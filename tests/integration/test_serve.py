"""arena serve's app through Starlette's TestClient: its pages, the games list, the replays, the live game,
and its walls — read-only, no path outside the folders given, the token, hostile names escaped, a folder
being written."""

from __future__ import annotations

import fcntl
import gzip
import json
import os
import random
import shutil
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the serve extra is not installed (pip install 'uptown-arena[serve]')")
pytest.importorskip("httpx2", reason="Starlette's TestClient needs httpx2")

from starlette.testclient import TestClient  # noqa: E402

from arena.cli import main  # noqa: E402
from arena.results.finding import find_record  # noqa: E402
from arena.results.live import LivePublisher, live_path, read_live  # noqa: E402
from arena.rules import PASS, GameSettings, GameState, deal  # noqa: E402
from arena.serve import routes as serve_routes  # noqa: E402
from arena.serve.app import create_app  # noqa: E402
from tests.stored import record_lines  # noqa: E402

HOSTILE = ["<script>alert(1)</script>", "\"onmouseover='x'", "</textarea><img src=x onerror=alert(2)>"]


@pytest.fixture(scope="module")
def made(shared_folder) -> Path:
    """report.html's tests' run (120 games), made once for both."""
    from tests.integration.test_report_html import make_listed

    return shared_folder("report-html", make_listed) / "out"


@pytest.fixture
def folder(made: Path, tmp_path: Path) -> Path:
    """A copy of the run's folder of this test's own, in a folder of folders (``tmp_path/runs``)."""
    copy = tmp_path / "runs" / "one"
    shutil.copytree(made, copy, ignore=shutil.ignore_patterns("games", "report.html"))
    return copy


def client(root: Path, **kwargs) -> TestClient:
    return TestClient(create_app([root], **kwargs), base_url="http://127.0.0.1")


def game_ids(folder: Path) -> list[str]:
    return [json.loads(line)["game_id"] for line in record_lines(folder)]


def test_the_index_lists_the_folders_and_a_folder_page_shows_its_tables_and_pictures(folder):
    c = client(folder.parent)
    index = c.get("/")
    assert index.status_code == 200 and 'href="/run/one/"' in index.text
    page = c.get("/run/0:one/")
    assert page.status_code == 200
    assert "120 of 120 games stored" in page.text and "no run is writing this folder" in page.text
    for heading in ("Standings", "Head to head", "By seat"):
        assert heading in page.text
    assert "rating 95% CI" in page.text and "greedy-2" in page.text
    assert 'src="file/win_share.png?v=' in page.text
    picture = c.get("/run/0:one/file/win_share.png")
    assert picture.status_code == 200 and picture.content[:4] == b"\x89PNG"
    assert "sandbox" in picture.headers["content-security-policy"]
    assert c.get("/run/0:one").status_code == 200  # redirected to the page
    # A results folder given itself has the key of its number.
    assert "120 of 120 games stored" in client(folder).get("/run/0/").text


def test_the_games_list_is_paged_sorted_and_filtered_by_the_server(folder):
    c = client(folder)
    ids = game_ids(folder)
    pages = [c.get(f"/run/0/games?page={n}").json() for n in range(4)]
    assert [p["matched"] for p in pages] == [120] * 4 and pages[0]["pages"] == 3
    assert [r[0] for p in pages for r in p["rows"]] == sorted(ids) and pages[3]["rows"] == []
    columns = pages[0]["columns"]
    assert columns[:4] == ["game", "table", "deal", "seat 0"]
    by_groups = [row for n in range(3) for row in c.get(f"/run/0/games?sort=groups 0&desc=1&page={n}").json()["rows"]]
    values = [r[columns.index("groups 0")] for r in by_groups]
    assert values == sorted(values, reverse=True) and len(values) == 120
    assert sorted(r[0] for r in by_groups) == sorted(ids)
    found = c.get("/run/0/games?q=GREEDY-2").json()
    assert 0 < found["matched"] < 120 and all("greedy-2" in r for r in found["rows"])
    assert c.get("/run/0/games?page=x&sort=nothing").json()["matched"] == 120  # a bad page or column: the defaults


def test_a_stored_game_is_replayed_from_the_records_and_an_unknown_one_is_not_found(folder):
    c = client(folder)
    last = game_ids(folder)[-1]
    page = c.get(f"/run/0/game/{last}")
    assert page.status_code == 200 and 'id="board"' in page.text and last in page.text
    assert find_record(folder, last)["game_id"] == last
    missing = c.get("/run/0/game/t999-d0000-r0")
    assert missing.status_code == 404 and "no game t999-d0000-r0" in missing.text


def test_a_folder_being_written_never_breaks_a_page(folder):
    """A last line of games.csv cut short, and the records' last gzip member cut short."""
    c = client(folder)
    ids = game_ids(folder)
    games = folder / "games.csv"
    games.write_bytes(games.read_bytes()[:-17])
    records = folder / "records.jsonl.gz"
    first = gzip.compress((record_lines(folder)[0] + "\n").encode())
    rest = gzip.compress(("\n".join(record_lines(folder)[1:]) + "\n").encode())
    records.write_bytes(first + rest[: len(rest) // 2])
    assert c.get("/run/0/").status_code == 200
    listed = c.get("/run/0/games").json()
    assert listed["matched"] == 119  # the game whose last row is cut short is not whole yet
    assert len(listed["rows"][-1]) == len(listed["columns"])
    assert c.get(f"/run/0/game/{ids[0]}").status_code == 200
    assert c.get(f"/run/0/game/{ids[-1]}").status_code == 404  # in the member cut short: not there yet


def test_only_get_is_answered(folder):
    c = client(folder)
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        answer = c.request(method, "/run/0/")
        assert answer.status_code == 405, method
    assert c.head("/run/0/").status_code == 200


@pytest.mark.parametrize("path", [
    "/run/0/file/tournament.toml", "/run/0/file/deal.key", "/run/0/file/..%2Fone%2Fdeal.key",
    "/run/0/file/../../etc/passwd", "/run/0/file/%2E%2E%2Fpasswd.png", "/run/0/file/outside.png",
    "/run/0:..%2F..%2F/", "/run/0:../", "/run/0:..", "/run/1/", "/run/-1/", "/run/0:outside/", "/run/%2Fetc/",
    "/run/0:one%2F..%2F..%2F/", "/run/0:one/file/outside.png", "/run/0:one/game/..%2F..%2Fdeal.key",
])
def test_no_path_outside_the_folders_given_is_reached(folder, tmp_path, path):
    outside = tmp_path / "secret"
    outside.mkdir()
    shutil.copy(folder / "tournament.toml", outside)
    (outside / "passwd.png").write_bytes(b"\x89PNG secret")
    (folder / "outside.png").symlink_to(outside / "passwd.png")  # a link out of the folder
    (folder.parent / "outside").symlink_to(outside)  # a "results folder" that is a link out
    root = folder.parent if ":" in path else folder
    answer = client(root).get(path)
    assert answer.status_code in (404, 405), (path, answer.status_code)
    assert b"secret" not in answer.content and b"deal" not in answer.content.lower().replace(b"a deal", b"")


def test_a_link_out_is_not_listed(folder, tmp_path):
    outside = tmp_path / "secret"
    shutil.copytree(folder, outside)
    (folder.parent / "linked").symlink_to(outside)
    assert "linked" not in client(folder.parent).get("/").text


def test_with_a_token_every_request_must_carry_it(folder):
    c = client(folder, token="s3cret-token")
    assert c.get("/run/0/").status_code == 403
    assert c.get("/run/0/?token=wrong").status_code == 403
    wrong = client(folder, token="s3cret-token")
    wrong.cookies.set("arena_token", "nope")
    assert wrong.get("/run/0/games").status_code == 403
    first = c.get("/run/0/?token=s3cret-token")
    assert first.status_code == 200 and "HttpOnly" in first.headers["set-cookie"]
    assert c.get("/run/0/games").status_code == 200  # the cookie it set
    fresh = client(folder, token="s3cret-token")
    fresh.cookies.set("arena_token", "s3cret-token")
    assert fresh.get("/run/0/games").status_code == 200


def test_without_a_token_only_the_loopback_names_are_answered(folder):
    app = create_app([folder])
    assert TestClient(app, base_url="http://localhost:8111").get("/").status_code == 200
    assert TestClient(app, base_url="http://evil.example").get("/").status_code == 421


def test_every_name_a_bot_or_a_file_chose_is_escaped(folder):
    """Hostile names in the tables, the games list, a live game and a record's faults."""
    from arena.report.stamp import write_stamp

    for name in ("standings.csv", "games.csv", "head_to_head.csv", "seats.csv", "order.csv"):
        path = folder / name
        path.write_text(path.read_text().replace("greedy-2", HOSTILE[0]).replace("random-2", HOSTILE[2]))
    write_stamp(folder, "uptown", 120)  # the tables are the folder's own again: shown as they are
    with LiveGameFile(folder, names=HOSTILE, moves=3):
        c = client(folder)
        page = c.get("/run/0/").text
        live = c.get("/run/0/live/0").text
    for text in (page, live):
        html, data = without_data(text)
        for name in HOSTILE:
            assert name not in html
        assert "<script>alert" not in text and "<img src=x" not in text
        assert all("<" not in block and ">" not in block for block in data)  # JSON that cannot end its element
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    games = c.get("/run/0/games")
    assert games.headers["content-type"].startswith("application/json")
    assert any(HOSTILE[0] in row for row in games.json()["rows"])  # data, put on the page as text by its script
    record = json.loads(record_lines(folder)[0])
    record["faults"] = [{"seat": 0, "move": 0, "kind": "crash", "message": HOSTILE[2]}]
    record["bots"][0]["spec"] = HOSTILE[1]
    (folder / "records.jsonl.gz").write_bytes(gzip.compress((json.dumps(record) + "\n").encode()))
    replay = c.get(f"/run/0/game/{record['game_id']}").text
    html, _ = without_data(replay)
    assert HOSTILE[2] not in html and HOSTILE[1] not in html and "&lt;/textarea&gt;" in html


def without_data(page: str) -> tuple[str, list[str]]:
    """A page without its JSON data elements, and those elements' texts."""
    data = []
    while (start := page.find('<script type="application/json"')) >= 0:
        body = page.index(">", start) + 1
        end = page.index("</script>", body)
        data.append(page[body:end])
        page = page[:start] + page[end + len("</script>"):]
    return page, data


class LiveGameFile:
    """A worker's live file in ``folder``: a game of ``names`` with its first ``moves`` moves, the folder
    locked as a run locks it while it writes."""

    def __init__(self, folder: Path, names: list[str], moves: int, seed: int = 9) -> None:
        self.folder, self.names, self.moves, self.seed = folder, names, moves, seed
        self.settings = GameSettings.for_players(len(names), "uptown", "color")
        self.state = GameState(self.settings, deal(seed, self.settings))
        self.now = 1e9
        self.publisher = LivePublisher(live_path(folder, 0), clock=lambda: self.now)

    def __enter__(self) -> LiveGameFile:
        self.lock = open(self.folder / ".arena.lock", "a")
        fcntl.flock(self.lock, fcntl.LOCK_EX)
        assert self.publisher.start("g-live", self.names, self.seed, len(self.names), "uptown", "color")
        self.play(self.moves)
        return self

    def play(self, count: int) -> None:
        """Play ``count`` more moves (or to the game's end), each written at once."""
        for _ in range(count):
            if self.state.over:
                return
            moves = self.state.legal_moves()
            self.state.push(moves.choice(random.Random(len(self.state.history))) if moves.options else PASS)
            self.now += 1  # a slow game: every move written as it is made
            self.publisher.on_move(self.state, self.state.history[-1][0])

    def __exit__(self, *exc: object) -> None:
        self.publisher.close()
        self.lock.close()


def test_the_live_file_holds_the_game_being_played_and_reads_when_cut_short(tmp_path):
    with LiveGameFile(tmp_path, ["a", "b", "c"], moves=5) as live:
        path = live_path(tmp_path, 0)
        game = read_live(path)
        assert game is not None and game.game_id == "g-live" and not game.over
        assert game.moves == [m for m, _ in live.state.history]
        data = path.read_bytes()
        path.write_bytes(data[:-3])  # a move line cut short: not read
        assert len(read_live(path).moves) == 4
        path.write_bytes(data[:20])  # the header cut short: no game
        assert read_live(path) is None
        path.write_bytes(data)
        live.publisher.end(live.state)
        assert read_live(path).over and read_live(live_path(tmp_path, 0, last=True)) is None
        # The next game takes its place; the finished one is the last game's now.
        live.now += 1
        assert live.publisher.start("g-next", ["a", "b", "c"], 10, 3, "uptown", "color")
        assert read_live(path).game_id == "g-next" and read_live(path).moves == []
        last = read_live(live_path(tmp_path, 0, last=True))
        assert last.game_id == "g-live" and last.over and len(last.moves) == 5
    assert not path.exists() and not live_path(tmp_path, 0, last=True).exists()  # a worker that ends removes them


def test_a_game_played_again_from_its_deal_is_written_anew(tmp_path):
    """The referee plays a game again (every bot in a process of its own) with another state: its moves anew."""
    with LiveGameFile(tmp_path, ["a", "b", "c"], moves=6) as live:
        again = GameState(live.settings, deal(live.seed, live.settings))
        for move in [m for m, _ in live.state.history][:2]:
            again.push(move)
            live.now += 1
            live.publisher.on_move(again, move)
        game = read_live(live_path(tmp_path, 0))
        assert game.moves == [m for m, _ in again.history] and len(game.moves) == 2


def test_a_quick_game_after_a_published_one_is_not_published(tmp_path):
    now = [100.0]
    publisher = LivePublisher(live_path(tmp_path, 1), clock=lambda: now[0])
    assert publisher.start("g1", ["a", "b"], 1, 2, "uptown", "color")
    now[0] += 0.01
    assert not publisher.start("g2", ["a", "b"], 2, 2, "uptown", "color")
    now[0] += 1
    assert publisher.start("g3", ["a", "b"], 3, 2, "uptown", "color")
    assert read_live(live_path(tmp_path, 1)).game_id == "g3"
    publisher.close()


def test_a_publisher_whose_files_a_bot_closed_stops_without_an_error(tmp_path):
    """A bot playing in the worker's process may close every descriptor, the live files' too: writing and
    closing them then cost the live view, never the game or the worker's clean end."""
    now = [100.0]
    publisher = LivePublisher(live_path(tmp_path, 1), clock=lambda: now[0])
    assert publisher.start("g1", ["a", "b"], 1, 2, "uptown", "color")
    mine = [fd for fd in map(int, os.listdir("/proc/self/fd"))
            if os.path.realpath(f"/proc/self/fd/{fd}").startswith(str(tmp_path.resolve()))]
    assert len(mine) == 2
    for fd in mine:
        os.close(fd)
    state = GameState(GameSettings.for_players(2), deal(1, GameSettings.for_players(2)))
    move = state.legal_moves().choice(random.Random(1))
    state.push(move)
    now[0] += 10
    publisher.on_move(state, move)  # its write fails: it stops writing
    assert not publisher.start("g2", ["a", "b"], 2, 2, "uptown", "color")
    publisher.close()
    assert not live_path(tmp_path, 1).exists()


def events_of(text: str) -> list[tuple[str, dict]]:
    found = []
    for block in text.split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if not line.startswith(":") and ": " in line)
        if "event" in lines:
            found.append((lines["event"], json.loads(lines["data"])))
    return found


def test_a_game_being_played_is_followed_move_by_move_then_its_replay(folder, monkeypatch):
    monkeypatch.setattr(serve_routes, "STREAM_SECONDS", 0.6)
    monkeypatch.setattr(serve_routes, "LIVE_EVERY", 0.05)
    c = client(folder)
    with LiveGameFile(folder, ["random", "greedy", "random-2"], moves=4) as live:
        page = c.get("/run/0/")
        assert 'href="live/0"' in page.text and "g-live" in page.text
        shown = c.get("/run/0/live/0")
        assert shown.status_code == 200 and "being played" in shown.text and "window.arenaReplay" in shown.text
        live.play(3)
        moves = events_of(c.get("/run/0/live/0/events?game=g-live&from=5").text)
        assert moves and moves[0][0] == "moves" and len(moves[0][1]["steps"]) == 3 and moves[0][1]["total"] == 8
        live.play(1000)
        live.publisher.end(live.state)
        *last, over = events_of(c.get("/run/0/live/0/events?game=g-live&from=8").text)
        assert over == ("over", {"game": "g-live", "href": "../game/g-live"})
        assert last[0][1]["total"] == len(live.state.history) + 1  # its last moves first
        assert c.get("/run/0/live/0", follow_redirects=False).headers["location"] == "../game/g-live"
        # Its record is not stored yet: its replay is made of the live file's moves, its result with it, and
        # titled as the stored game's page is (the record follows within a second of the game's end).
        replay = c.get("/run/0/game/g-live")
        assert replay.status_code == 200 and "<title>" in replay.text
        title = replay.text.split("<title>", 1)[1].split("</title>", 1)[0]
        assert title.endswith(": g-live"), title
        assert "under Uptown scoring" in replay.text and 'class="result"' in replay.text


def test_the_folder_s_events_send_its_section_when_it_changes(folder, monkeypatch):
    monkeypatch.setattr(serve_routes, "STREAM_SECONDS", 1.2)
    monkeypatch.setattr(serve_routes, "FOLDER_EVERY", 0.05)
    c = client(folder)
    c.get("/run/0/")
    games = folder / "games.csv"

    def change() -> None:  # as a run's append would: the page's section is made again
        time.sleep(0.4)
        later = games.stat().st_mtime + 5
        os.utime(games, (later, later))

    threading.Thread(target=change).start()
    events = events_of(c.get("/run/0/events").text)
    assert [name for name, _ in events] == ["section"]
    assert "120 of 120 games stored" in events[0][1]["html"]


def test_serve_refuses_a_missing_folder_and_names_the_extra_when_it_is_missing(cli, tmp_path, monkeypatch):
    result = cli.invoke(main, ["serve", str(tmp_path / "nowhere")])
    assert result.exit_code == 1 and result.output.strip() == f"Error: {tmp_path / 'nowhere'}: no such folder"
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    result = cli.invoke(main, ["serve", str(tmp_path)])
    assert result.exit_code == 1
    assert result.output.strip() == "Error: arena serve needs the serve extra: pip install 'uptown-arena[serve]'"


def test_run_with_serve_names_the_missing_extra_before_it_plays(cli, tmp_path, monkeypatch):
    from tests.integration.test_report_html import TOURNAMENT

    (tmp_path / "t.toml").write_text(TOURNAMENT)
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    result = cli.invoke(main, ["run", str(tmp_path / "t.toml"), "--out", str(tmp_path / "out"), "--serve", "-q"])
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1] == ("Error: arena serve needs the serve extra: "
                                                      "pip install 'uptown-arena[serve]'")
    assert not (tmp_path / "out" / "games.csv").exists()
