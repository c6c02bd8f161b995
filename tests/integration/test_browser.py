"""The replay page in a real headless Chromium: step through a game with the controls and check the DOM."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from arena import records
from arena.display.html import replay_page
from arena.rules import CELL_NAMES, COLORS, TILE_NAMES

# On one pytest-xdist worker (--dist loadgroup): the module's Chromium starts once.
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.xdist_group("browser")]

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
if CHROMIUM is None:
    pytest.skip("no chromium on PATH (apt-get install chromium)", allow_module_level=True)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM)
        yield b
        b.close()


def open_page(browser, tmp_path: Path, record: str | dict, fragment: str = "#deal",
              viewport: tuple[int, int] = (1280, 900)):
    """The replay page of ``record`` (a golden file's name, or a record) opened at ``fragment``."""
    game = records.replay(records.load(GOLDEN / record) if isinstance(record, str) else record)
    path = tmp_path / "g.html"
    path.write_text(replay_page(game, record if isinstance(record, str) else "game"), encoding="utf-8")
    page = browser.new_page(viewport={"width": viewport[0], "height": viewport[1]})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: errors.append("fetched " + r.url) if not r.url.startswith(("file:", "data:")) else None)
    page.goto(path.as_uri() + fragment)
    return game, page, errors


def describe(move) -> str:
    return f"{COLORS[move.color]} {TILE_NAMES[move.tile]} on {CELL_NAMES[move.cell]}"


def check_step(page, game: records.Replay, k: int) -> None:
    """The DOM after ``k`` steps shows the position after the first ``k`` moves."""
    assert page.locator("#board .cell").count() == 81
    state = list(game.states())[k - 1].state if k else None
    cells = page.eval_on_selector_all("#board .cell", "cs => cs.map(c => [c.dataset.color||null, c.dataset.tile||null])")
    expected: list[list[str | None]] = [[None, None] for _ in range(81)]
    for move, _ in (state.history if state else []):
        if not move.is_pass:
            expected[move.cell] = [COLORS[move.color], TILE_NAMES[move.tile]]
    assert cells == expected
    racks = page.eval_on_selector_all(
        "#racks .rack", "rs => rs.map(r => Array.from(r.querySelectorAll('.tile')).map(t => t.dataset.tile))")
    colors = [c for cs in game.settings.seat_colors for c in cs]
    from arena.rules import GameState
    now = state or GameState(game.settings, game.deals)
    assert racks == [[TILE_NAMES[t] for t in now.racks[c]] for c in colors]
    piles = page.eval_on_selector_all("#racks .pile", "ps => ps.map(p => +p.dataset.pile)")
    assert piles == [len(now.pile(c)) for c in colors]
    current = page.eval_on_selector_all("#moves tr.current", "ls => ls.map(l => +l.dataset.step)")
    assert current == [k]
    assert page.evaluate("location.hash") == ("#deal" if k == 0 else f"#{k - 1}")  # the move shown, as labelled
    assert page.locator("#result").is_visible() == (k == len(game.moves))


def test_stepping_with_buttons_keys_and_slider(browser, tmp_path):
    game, page, errors = open_page(browser, tmp_path, "4p-seed4.json")
    check_step(page, game, 0)
    for k in range(1, 6):
        page.click("#forward")
        check_step(page, game, k)
    page.click("#back")
    check_step(page, game, 4)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    check_step(page, game, 6)
    page.keyboard.press("ArrowLeft")
    check_step(page, game, 5)
    page.click("#last")
    check_step(page, game, len(game.moves))
    assert "blockers rank" in page.inner_text("#result")
    page.click("#first")
    check_step(page, game, 0)
    page.fill("#slider", "17")
    check_step(page, game, 17)
    page.locator("#moves tbody tr").nth(9).click()
    check_step(page, game, 9)
    page.screenshot(path=str(tmp_path / "replay.png"))
    assert (tmp_path / "replay.png").stat().st_size > 10_000
    assert errors == []


def test_play_runs_to_the_end_and_passes_are_shown(browser, tmp_path):
    game, page, errors = open_page(browser, tmp_path, "5p-passes.json", "")
    check_step(page, game, len(game.moves))  # without a fragment the page opens on the final position
    page.evaluate("() => { const s = document.getElementById('slider'); s.value = s.max - 3;"
                  " s.dispatchEvent(new Event('input')); }")
    page.click("#play")
    page.wait_for_selector(f"body[data-step='{len(game.moves)}']", timeout=0)  # no clock: play reaches the end
    check_step(page, game, len(game.moves))
    assert "passes" in page.inner_text("#moves")
    assert errors == []


def test_a_hostile_name_does_not_run(browser, tmp_path):
    import json
    record = json.loads((GOLDEN / "4p-seed4.json").read_text())
    record["players"][1]["name"] = "<img src=x onerror=\"document.title='pwned'\"><script>document.title='pwned'</script>"
    path = tmp_path / "h.html"
    path.write_text(replay_page(records.replay(record), record["players"][1]["name"]), encoding="utf-8")
    page = browser.new_page()
    page.goto(path.as_uri() + "#deal")
    page.click("#forward")
    assert page.title() == record["players"][1]["name"]  # shown as text, never run
    assert page.locator("img").count() == 0
    assert "<script>" in page.inner_text("#racks")  # shown as text


def test_the_board_has_the_coordinates_moves_name_cells_by(browser, tmp_path):
    game, page, errors = open_page(browser, tmp_path, "4p-seed4.json", "#0")
    labels = page.eval_on_selector_all("#board .coord", "cs => cs.map(c => c.textContent)")
    assert labels == ["", *"123456789", *"ABCDEFGHI"]
    # Every cell lies in the column under its number and in the row beside its letter.
    boxes = page.eval_on_selector_all(
        "#board .coord, #board .cell",
        "es => es.map(e => { const r = e.getBoundingClientRect();"
        " return [e.className, e.textContent, e.dataset.cell || null, r.x + r.width / 2, r.y + r.height / 2]; })")
    columns = {text: x for cls, text, _, x, y in boxes if cls == "coord" and text.isdigit()}
    rows = {text: y for cls, text, _, x, y in boxes if cls == "coord" and text.isalpha()}
    for cls, _, cell, x, y in boxes:
        if cell is not None:
            assert abs(x - columns[cell[1]]) < 2 and abs(y - rows[cell[0]]) < 2, cell
    label = page.inner_text("#label")
    assert label == f"move 0: seat 0 (random-0) plays {describe(game.moves[0])}"
    played = page.get_attribute("#board .cell.last", "data-cell")
    assert label.endswith(f"on {played}")
    assert errors == []


def test_the_legend_names_every_symbol_and_mark_and_the_capture_mark_is_visible(browser, tmp_path):
    from arena.display.html import SYMBOL_GLYPHS

    game, page, errors = open_page(browser, tmp_path, "5p-passes.json", "#110")  # a capture, empty cells left
    legend = page.eval_on_selector_all("#legend li", "ls => ls.map(l => l.dataset.legend)")
    assert set(SYMBOL_GLYPHS) | {"$", "letter", "number", "last", "capmark", "region"} <= set(legend)
    assert page.locator("#legend").is_visible()
    # Each mark on the board is drawn in the legend the same way.
    for mark in (".last .tile", ".capmark", ".region"):
        assert page.locator(f"#board {mark}").count() > 0 and page.locator(f"#legend {mark}").count() == 1
    # The capture mark: at least 14 px, opaque, in the captured color, on every captured cell.
    marks = page.eval_on_selector_all(
        "#board .capmark", "ms => ms.map(m => { const s = getComputedStyle(m), r = m.getBoundingClientRect();"
        " return [r.width, r.height, s.opacity, s.backgroundColor, m.parentElement.title]; })")
    assert len(marks) == page.locator("#board .cell.captured").count() > 0
    for width, height, opacity, background, title in marks:
        assert width >= 14 and height >= 14 and opacity == "1" and "captured" in title
        assert background in {"rgb(198, 40, 40)", "rgb(21, 101, 192)", "rgb(46, 125, 50)", "rgb(212, 166, 0)",
                               "rgb(106, 27, 154)"}
    assert errors == []


def test_the_url_fragment_names_the_move_and_end_or_the_button_shows_the_final_position(browser, tmp_path):
    game, page, errors = open_page(browser, tmp_path, "4p-seed4.json", "#40")
    check_step(page, game, 41)
    assert "move 40:" in page.inner_text("#label")
    page.keyboard.press("ArrowRight")
    check_step(page, game, 42)
    assert page.evaluate("location.hash") == "#41"
    page.evaluate("location.hash = '#7'")
    page.wait_for_selector("body[data-step='8']")
    check_step(page, game, 8)
    page.keyboard.press("End")
    check_step(page, game, len(game.moves))
    page.keyboard.press("Home")
    check_step(page, game, 0)
    assert "final" in page.inner_text("#last") and "(End)" in page.get_attribute("#last", "title")
    page.click("#last")
    check_step(page, game, len(game.moves))
    # A fragment past the end shows the final position; one that names no move, the final position too.
    for fragment in ("#9999", "#nonsense"):
        _, other, _ = open_page(browser, tmp_path, "4p-seed4.json", fragment)
        assert other.get_attribute("body", "data-step") == str(len(game.moves))
    assert errors == []


def test_the_result_is_visible_without_scrolling_at_1200_by_900(browser, tmp_path):
    for record in ("4p-seed4.json", "5p-passes.json", "2p-seed2.json"):
        game, page, errors = open_page(browser, tmp_path, record, "", (1200, 900))
        box = page.locator("#result table").bounding_box()
        assert box is not None and box["y"] + box["height"] <= 900 and box["x"] + box["width"] <= 1200, (record, box)
        assert page.evaluate("document.documentElement.scrollWidth") <= 1200
        winner = page.locator("#winner")
        names = page.evaluate("JSON.parse(document.getElementById('game').textContent).names")
        assert all(f"{names[s]} (seat {s})" in winner.inner_text() for s in game.winners)
        page.click("#first")  # the winner stays in sight at any move
        assert winner.is_visible() and winner.bounding_box()["y"] < 900
        assert errors == []


def test_a_phone_sized_viewport_shows_the_whole_board_and_its_controls(browser, tmp_path):
    game, page, errors = open_page(browser, tmp_path, "5p-passes.json", "#30", (390, 844))
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing to scroll sideways
    board = page.locator("#board").bounding_box()
    assert board["x"] >= 0 and board["x"] + board["width"] <= 390 and board["y"] + board["height"] <= 844
    for control in ("#first", "#back", "#play", "#forward", "#last"):
        box = page.locator(control).bounding_box()
        assert box["x"] + box["width"] <= 390 and box["height"] >= 24
    page.click("#forward")
    check_step(page, game, 32)
    page.click("#last")  # the result's wide table scrolls in its own box, not the page
    assert page.locator("#result").is_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert errors == []


def test_an_exec_bot_is_named_as_it_declared_itself_with_its_spec_in_a_tooltip(browser, tmp_path):
    import json

    record = json.loads((GOLDEN / "4p-seed4.json").read_text())
    spec = "exec:python3 /home/someone/bots/random_bot.py"
    record["players"][2]["name"] = spec
    record["bots"] = [{"seat": s, "spec": p["name"], "options": {}} for s, p in enumerate(record["players"])]
    record["bots"][2]["name"] = "random-py"
    game, page, errors = open_page(browser, tmp_path, record, "#5")
    shown = page.inner_text("body")
    assert "random-py" in shown and spec not in shown  # the spec is not shown, but in a tooltip and the details
    player = page.locator(".player[data-seat='2']")
    assert "random-py" in player.inner_text() and player.get_attribute("title") == spec
    assert page.get_attribute("#racks .rack[data-color='green'] .who", "title") == spec
    page.click("#bots summary")
    assert spec in page.inner_text("#bots")
    assert "(random-py)" in " ".join(page.eval_on_selector_all("#moves tr", "ts => ts.map(t => t.title)"))
    assert errors == []
