"""Draw docs/images/replay.png: the replay page of a golden game, as headless Chromium shows it.

Run from the repository root (needs playwright and Debian's chromium)::

    python docs/make_screenshots.py

The page is ``arena view tests/golden/4p-seed4.json`` stepped to move 40.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from arena import records
from arena.display.html import replay_page

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "tests" / "golden" / "4p-seed4.json"
OUT = ROOT / "docs" / "images" / "replay.png"
STEPS = 41


def main() -> int:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("no chromium on PATH (apt-get install chromium)", file=sys.stderr)
        return 1
    game = records.replay(records.load(GAME))
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        page_file = Path(tmp) / "replay.html"
        page_file.write_text(replay_page(game, "4p-seed4.json"), encoding="utf-8")
        browser = p.chromium.launch(executable_path=chromium)
        page = browser.new_page(viewport={"width": 1280, "height": 640})
        page.goto(page_file.as_uri())
        for _ in range(STEPS):
            page.keyboard.press("ArrowRight")
        page.screenshot(path=str(OUT))
        browser.close()
    print(OUT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
