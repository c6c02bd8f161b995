"""The replay page in a real headless Chromium: step through a game with the controls and check the DOM."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from arena import records
from arena.display.html import replay_page
from arena.rules import COLORS, TILE_NAMES

pytestmark = [pytest.mark.browser, pytest.mark.slow]

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


def open_page(browser, tmp_path: Path, record: str):
    game = records.replay(records.load(GOLDEN / record))
    path = tmp_path / "g.html"
    path.write_text(replay_page(game, record), encoding="utf-8")
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: errors.append("fetched " + r.url) if not r.url.startswith(("file:", "data:")) else None)
    page.goto(path.as_uri())
    return game, page, errors


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
    current = page.eval_on_selector_all("#moves li.current", "ls => ls.map(l => +l.dataset.step)")
    assert current == [k]
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
    page.locator("#moves li").nth(9).click()
    check_step(page, game, 9)
    page.screenshot(path=str(tmp_path / "replay.png"))
    assert (tmp_path / "replay.png").stat().st_size > 10_000
    assert errors == []


def test_play_runs_to_the_end_and_passes_are_shown(browser, tmp_path):
    game, page, errors = open_page(browser, tmp_path, "5p-passes.json")
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
    page.goto(path.as_uri())
    page.click("#forward")
    assert page.title() == record["players"][1]["name"]  # shown as text, never run
    assert page.locator("img").count() == 0
    assert "<script>" in page.inner_text("#racks")  # shown as text
