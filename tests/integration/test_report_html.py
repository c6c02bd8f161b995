"""report.html in a real headless Chromium: the tables `arena report` prints, and the games list."""

from __future__ import annotations

import csv
import json
import shutil
import tracemalloc
from pathlib import Path

import pytest

from arena.cli import main
from arena.report.html import game_list
from arena.report.tables import build_tables, load_games
from arena.report.text import TITLES, format_tables

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

# Dealt publicly: the same games in every run, so the page's figures are checked against the same printed ones
# every time (a keyed run deals others at each run).
TOURNAMENT = """name = "listed"
players = 3
deals = 10
seed = 11
public_deals = true
seating = "rotate"
isolation = "none"
[[entrants]]
name = "random"
bot = "random"
[[entrants]]
name = "greedy"
bot = "greedy"
[[entrants]]
name = "random-2"
bot = "random"
[[entrants]]
name = "greedy-2"
bot = "greedy"
"""


def make_listed(where: Path) -> None:
    """The run of TOURNAMENT in ``where/out``, pictures drawn: the folder these tests and arena serve's share."""
    from click.testing import CliRunner

    (where / "listed.toml").write_text(TOURNAMENT)
    result = CliRunner().invoke(main, ["run", str(where / "listed.toml"), "--out", str(where / "out"), "-q",
                                       "--workers", "1", "--plots"])
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def folder(shared_folder) -> Path:
    return shared_folder("report-html", make_listed) / "out"


def seat_rows(folder: Path) -> list[dict[str, str]]:
    with open(folder / "games.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_the_games_list_has_each_game_s_seats_players_winner_and_scores(folder):
    rows = seat_rows(folder)
    games = game_list(folder, 3, "uptown")
    ids = list(dict.fromkeys(r["game_id"] for r in rows))
    assert games.total == len(ids) == 4 * 10 * 3 and len(games.rows) == len(ids)
    assert games.columns == ["game", "table", "deal", "seat 0", "seat 1", "seat 2", "groups 0", "groups 1",
                             "groups 2", "winner", "faults", "moves"]
    for listed, game_id in zip(games.rows, ids):
        seats = sorted((r for r in rows if r["game_id"] == game_id), key=lambda r: int(r["seat"]))
        assert listed[0] == game_id
        assert listed[3:6] == [r["entrant"] for r in seats]
        assert listed[6:9] == [int(r["groups"]) for r in seats]  # Uptown scoring: fewest groups (C1)
        assert listed[9] == ", ".join(r["entrant"] for r in seats if r["won"] == "1")
        assert listed[11] == sum(int(r["moves"]) for r in seats)
    blockers = game_list(folder, 3, "blockers", limit=5)
    assert blockers.columns[6] == "blockers score 0" and len(blockers.rows) == 5 and blockers.total == len(ids)


def test_a_million_game_folder_is_read_as_a_stream(tmp_path):
    """The games list keeps the games it shows and counts the rest: memory follows the limit, not the file."""
    header = ("game_id,table,deal,rotation,seed,seat,entrant,bot,groups,captures_red,captures_blue,captures_green,"
              "captures_yellow,captures_purple,captured_total,blockers_penalty,blockers_score,uptown_rank,"
              "blockers_rank,won,faulted,moves,seconds\n")
    with open(tmp_path / "games.csv", "w") as f:
        f.write(header)
        for game in range(60_000):
            for seat in range(4):
                f.write(f"g{game:07d},0,{game},0,1,{seat},entrant-{seat},random,5,0,0,0,0,0,0,0,5,1,1,"
                        f"{int(seat == 0)},0,24,0.01\n")
    tracemalloc.start()
    try:
        games = game_list(tmp_path, 4, "uptown", limit=200)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert games.total == 60_000 and len(games.rows) == 200 and games.rows[-1][0] == "g0000199"
    assert peak < 1_000_000, f"{peak} bytes held to list 200 of 60,000 games"


def test_a_runs_own_page_carries_the_teams_section_it_stamped_with_its_tables(folder):
    page = (folder / "report.html").read_text(encoding="utf-8")
    assert "Teams?" in page and (folder / "teams.csv").is_file()
    assert json.loads((folder / "tables.json").read_text(encoding="utf-8"))["teams"]


def test_the_report_s_tables_are_the_ones_arena_report_prints(folder):
    from arena.plan.config import load_config
    from arena.report.html import tables_shown

    config = load_config(folder / "tournament.toml")
    tables = build_tables(load_games(folder / "games.csv", config.players), config.scoring, config.names)
    titles = [title for title, *_ in tables_shown(tables)]
    assert titles == [TITLES[name] for name in ("standings", "head-to-head", "seats", "order", "time")]
    markdown = format_tables(tables, "markdown")
    assert [line[3:] for line in markdown.splitlines() if line.startswith("## ")] == titles


# On one pytest-xdist worker (--dist loadgroup): the module's Chromium starts once.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("report-html")]


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    if CHROMIUM is None:
        pytest.skip("no chromium on PATH (apt-get install chromium)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM)
        yield b
        b.close()


def open_report(browser, folder: Path, viewport=(1200, 900)):
    page = browser.new_page(viewport={"width": viewport[0], "height": viewport[1]})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: errors.append("fetched " + r.url) if not r.url.startswith(("file:", "data:")) else None)
    page.goto((folder / "report.html").as_uri())
    return page, errors


def markdown_tables(text: str) -> dict[str, list[list[str]]]:
    """The cells of each table of ``arena report --format markdown``, by its title."""
    tables: dict[str, list[list[str]]] = {}
    title = ""
    for line in text.splitlines():
        if line.startswith("## "):
            title = line[3:].removeprefix("listed - ")  # the standings' heading names the tournament
            tables[title] = []
        elif line.startswith("|") and not line.startswith("|---"):
            tables[title].append([cell.strip().replace("\\|", "|") for cell in line.strip("|").split(" | ")])
    return tables


@pytest.mark.browser
def test_the_page_shows_the_figures_arena_report_prints_and_numbers_do_not_wrap(browser, folder, cli):
    printed = cli.invoke(main, ["report", str(folder), "--format", "markdown"])
    assert printed.exit_code == 0, printed.output
    expected = markdown_tables(printed.output)
    assert TITLES["order"] in expected
    page, errors = open_report(browser, folder)
    # the tables arena report prints; the page's Teams? table is a section of its own (test_cli_report_teams.py)
    shown = page.evaluate("""() => Array.from(document.querySelectorAll('h2')).filter(h => h.nextElementSibling
        && h.nextElementSibling.querySelector('table') && !['Games', 'Teams?'].includes(h.textContent))
        .map(h => [h.textContent,
        Array.from(h.nextElementSibling.querySelectorAll('tr')).map(r => Array.from(r.children).map(c =>
        c.textContent))])""")
    assert dict(shown) == expected
    # Every figure is on one line: one box per cell text, at the page's width and at a phone's.
    for width in (1200, 390):
        page.set_viewport_size({"width": width, "height": 900})
        wrapped = page.evaluate("""() => Array.from(document.querySelectorAll('td.num')).filter(td => {
            const r = document.createRange(); r.selectNodeContents(td); return r.getClientRects().length > 1;
            }).map(td => td.textContent)""")
        assert wrapped == [], width
        assert page.locator("td.num").count() > 100
        intervals = page.evaluate("Array.from(document.querySelectorAll('td.num')).filter(t => "
                                  "t.textContent.includes('%-')).length")
        assert intervals == 4  # each entrant's 95% interval is a figure that stays on one line
    assert errors == []


@pytest.mark.browser
def test_the_games_list_sorts_filters_and_pages(browser, folder):
    page, errors = open_report(browser, folder)
    games = game_list(folder, 3, "uptown")
    body = page.locator("#games tbody tr")
    assert body.count() == 100 and "page 1 of 2 (120 games)" in page.inner_text("#games-page")
    first = page.eval_on_selector_all("#games tbody tr:first-child td", "ts => ts.map(t => t.textContent)")
    assert first == [str(v) for v in games.rows[0]]
    # The first games link their replays, written beside the report.
    link = page.get_attribute("#games tbody tr:first-child a", "href")
    assert link == f"games/{games.rows[0][0]}.html" and (folder / link).is_file()
    page.click("#games-next")
    assert body.count() == 20 and "page 2 of 2" in page.inner_text("#games-page")
    assert page.is_disabled("#games-next") and not page.is_disabled("#games-prev")
    # Sort by the moves (a number), then the other way.
    page.click("#games th[data-col='11']")
    moves = [int(t) for t in page.eval_on_selector_all("#games tbody td:nth-child(12)", "ts => ts.map(t => t.textContent)")]
    assert moves == sorted(r[11] for r in games.rows)[:100]
    page.click("#games th[data-col='11']")
    moves = [int(t) for t in page.eval_on_selector_all("#games tbody td:nth-child(12)", "ts => ts.map(t => t.textContent)")]
    assert moves == sorted((r[11] for r in games.rows), reverse=True)[:100]
    assert page.get_attribute("#games th[data-col='11']", "aria-sort") == "descending"
    # A filter keeps the games that name it: greedy-2's wins.
    page.fill("#games-filter", "greedy-2")
    listed = page.eval_on_selector_all("#games tbody tr", "rs => rs.map(r => r.textContent)")
    assert len(listed) == sum(1 for r in games.rows if "greedy-2" in r[3:6]) and all("greedy-2" in t for t in listed)
    assert errors == []


@pytest.mark.browser
@pytest.mark.parametrize("width", [1200, 390])
def test_the_page_opens_on_its_summary_and_contents_at_a_desk_and_on_a_phone(browser, folder, width, cli, tmp_path):
    """Summary first, then contents whose links all land, the plots right after the standings, a line on the
    columns under every table; at a phone's width the page itself never scrolls sideways (tables do, inside).
    The page is arena report's, written elsewhere (with the Teams? test): it links the run's replays."""
    where = tmp_path / "elsewhere"
    written = cli.invoke(main, ["report", str(folder), "--html", "--out", str(where / "report.html")])
    assert written.exit_code == 0, written.output
    page, errors = open_report(browser, where, (width, 900))
    sections = page.evaluate("Array.from(document.body.children).filter(e => ['SECTION', 'NAV'].includes(e.tagName))"
                             ".map(e => [e.id, e.querySelector('h2').textContent])")
    assert sections[0] == ["summary", "Summary"] and sections[1] == ["contents", "Contents"]
    keys = [key for key, _ in sections[2:]]
    assert keys == ["standings", "plots", "head-to-head", "seats", "order", "time", "teams", "games-list"]
    with open(folder / "standings.csv", newline="") as f:
        first = next(csv.DictReader(f))["entrant"]
    summary = page.inner_text("#summary ul")
    assert summary.startswith(f"{first} leads with a rating of") and "120 games of 3 players played." in summary
    assert "Teams?: no pair of entrants plays as a team" in summary
    targets = page.eval_on_selector_all("#contents a", "as => as.map(a => a.getAttribute('href'))")
    assert targets == [f"#{key}" for key in keys]
    assert page.evaluate("hs => hs.every(h => document.getElementById(h.slice(1)) !== null)", targets)
    page.click("#contents a[href='#order']")
    assert page.evaluate("location.hash") == "#order"
    assert page.evaluate("document.getElementById('order').getBoundingClientRect().top") < 50  # scrolled to it
    # Under every table of figures, what its columns mean; the order table's in plain words.
    for key in ("standings", "head-to-head", "seats", "order", "teams", "games-list"):
        assert page.locator(f"#{key} .scroll + p.columns, #{key} .scroll + p.note + p.columns").count() == 1, key
    assert "after moved directly after before" in page.inner_text("#order p.columns")
    link = page.get_attribute("#games tbody tr:first-child a", "href")
    assert link.startswith("../") and (where / link).resolve().is_file()  # the run's replay, where it is
    overflow = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert overflow[0] <= overflow[1], overflow
    if width == 390:  # the standings are wider than a phone: they scroll in their own box
        assert page.evaluate("(() => { const s = document.querySelector('#standings .scroll');"
                             " return s.scrollWidth > s.clientWidth; })()")
    assert errors == []


def test_every_text_of_the_page_is_escaped():
    """Names a bot chose reach the summary, the tables and the games list as text, never as markup."""
    import pandas as pd

    from arena.display.html import GameList, Section, report_page

    evil = "<script>alert(1)</script><b>&"
    frame = pd.DataFrame({"entrant": [evil], "games": [3]})
    games = GameList(["game", "seat 0"], [["g1", evil]], 1)
    page = report_page(evil, [f"{evil} leads"], [Section(evil, frame, False, evil, evil)], [], games, evil,
                       match=[f"{evil} vs x"])
    assert "<script>alert" not in page and "<b>&" not in page
    assert page.count("&lt;script&gt;alert(1)&lt;/script&gt;&lt;b&gt;&amp;") >= 7
