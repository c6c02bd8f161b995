"""arena run --serve in a real headless Chromium: the run's page follows its standings, and a game in
progress its moves, without a reload; the game then turns into its replay."""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

pytest.importorskip("starlette", reason="the serve extra is not installed (pip install 'uptown-arena[serve]')")
pytest.importorskip("uvicorn", reason="the serve extra is not installed (pip install 'uptown-arena[serve]')")
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    pytest.skip("no chromium on PATH (apt-get install chromium)", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
# One seat thinks 0.1 s a move: a game takes about 2.5 s, long enough to be seen move by move.
TOURNAMENT = f"""name = "watched"
players = 3
deals = 20
seed = 2
seating = "rotate"
isolation = "none"
[[entrants]]
name = "paced"
bot = "{FIXTURES / 'clock_bots.py'}:PacedBot"
options = {{ seconds = 0.1 }}
[[entrants]]
name = "greedy"
bot = "greedy"
[[entrants]]
name = "random"
bot = "random"
"""


def started_run(tmp_path: Path) -> tuple[subprocess.Popen[str], str]:
    """``arena run --serve`` of the tournament, and the address of its page (read from its standard error)."""
    (tmp_path / "t.toml").write_text(TOURNAMENT)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.Popen([sys.executable, "-m", "arena", "run", str(tmp_path / "t.toml"), "--out",
                            str(tmp_path / "out"), "--serve", "--workers", "1", "-q"], env=env, text=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert run.stderr is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([run.stderr], [], [], 1)
        line = run.stderr.readline() if ready else ""
        if line.startswith("Watch it at "):
            return run, line.split()[3]
        if run.poll() is not None:
            break
    run.kill()
    pytest.fail(f"arena run --serve printed no address: {line!r}")


def wait_until(page, expression: str, timeout: float) -> None:
    """Wait until ``expression`` is true on ``page`` (asked from here: the page's policy allows no eval,
    which playwright's wait_for_function needs)."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            pytest.fail(f"not true after {timeout} s: {expression}")
        time.sleep(0.1)


def follow_a_game_in_progress(page, url: str, tries: int = 10) -> None:
    """Open the game being played from the run's page and see a move of it arrive without a reload.  The
    link is to the game being played when the section was made: one that has ended since leads to its
    replay, and one that ends before a move is seen (on a busy machine a page can take longer to load
    than a game's last moves) turns into its replay under the test: the next game is tried."""
    for _ in range(tries):
        page.goto(url)
        page.wait_for_selector("#playing a", timeout=30000)
        page.goto(page.eval_on_selector("#playing a", "a => a.href"))
        if "/live/" not in page.url:
            continue
        try:
            page.evaluate("window.notReloaded = true")
            rows = page.locator("#moves tbody tr").count()
            # The game may end, and its page become its replay, between two looks.
            wait_until(page, f"document.querySelectorAll('#moves tbody tr').length > {rows} || "
                             "document.body.hasAttribute('data-over') || location.pathname.includes('/game/')",
                       15)
            if page.locator("#moves tbody tr").count() > rows:
                seen = page.evaluate("window.notReloaded"), page.text_content("#winner")
                if "/game/" in page.url:
                    continue  # it ended meanwhile, and its page is its replay now
                assert seen == (True, "being played")
                return
        except sync_api.Error as error:
            # Anything but the game's end turning the page into its replay, which may come during a look
            # (the page's context destroyed while its address still names the live game).
            try:
                page.wait_for_url("**/game/**", timeout=10000)
            except sync_api.Error:
                raise error from None
    pytest.fail(f"no game of {tries} tried was seen to get a move while it was played")


def test_the_run_s_page_and_a_game_in_progress_change_without_a_reload(tmp_path):
    run, url = started_run(tmp_path)
    try:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(url)
            page.evaluate("window.notReloaded = true")
            # The standings come, then change, as games are stored: the section replaced by its events.
            wait_until(page, "document.querySelector('#progress') && "
                             "+document.querySelector('#progress').dataset.games >= 1", 30)
            first = int(page.get_attribute("#progress", "data-games"))
            wait_until(page, f"+document.querySelector('#progress').dataset.games > {first}", 30)
            assert page.locator("h2", has_text="Standings").count() == 1
            assert page.evaluate("window.notReloaded") is True
            assert int(page.get_attribute("body", "data-updates")) >= 1
            # A game being played: its page follows its moves, then shows its replay.
            follow_a_game_in_progress(page, url)
            page.wait_for_url("**/game/**", timeout=30000)
            page.wait_for_selector("#result table.result", state="attached", timeout=30000)
            assert "wins under" in page.text_content("#winner") or "share the win" in page.text_content("#winner")
            assert errors == []
            browser.close()
    finally:
        run.send_signal(signal.SIGINT)
        try:
            run.wait(30)
        except subprocess.TimeoutExpired:
            run.kill()
            run.wait()
        if run.stderr is not None:
            run.stderr.close()
