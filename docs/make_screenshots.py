"""Draw the pictures of the docs in docs/images/, each from a real run of the arena.

Run from the repository root (needs playwright, Debian's chromium and, for the human game, tmux)::

    python docs/make_screenshots.py            # all four
    python docs/make_screenshots.py replay     # or some of: replay report human serve

* ``replay.png``: ``arena view tests/golden/4p-seed4.json`` opened at move 40 (``#40``), 1200x900.
* ``report.png``: the ``report.html`` of ``arena run tournaments/quickstart.toml``, its top at 1200x900.
* ``human.png``: ``arena play human random random --seed 12`` in a 100x50 tmux window after ``?``,
  captured with ``tmux capture-pane -e`` and drawn as a terminal page (its ANSI colors kept).
* ``serve.png`` and ``serve-live.png`` (needs the serve extra): ``arena run --serve`` of the built-in
  bots four to a table (:data:`WATCHED`: mcts thinks 0.2 s a move, so a game takes seconds), its page
  once four games are stored and a game is being played, 1200x900, then that game's page 1.5 s after it
  opened, while the game is still being played; the run is interrupted afterwards.
"""

from __future__ import annotations

import html
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "docs" / "images"
GAME = ROOT / "tests" / "golden" / "4p-seed4.json"
TOURNAMENT = ROOT / "tournaments" / "quickstart.toml"
VIEWPORT = {"width": 1200, "height": 900}
#: The human game: its command, the keys typed, and the tmux window it runs in.
HUMAN = ["arena", "play", "human", "random", "random", "--seed", "12"]
HUMAN_KEYS = ["A3", "?"]
TMUX_SIZE = (100, 50)
#: The colors of the terminal picture, by SGR code.
_SGR = {"31": "#e06c75", "32": "#98c379", "33": "#e5c07b", "34": "#61afef", "35": "#c678dd"}


def arena(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "arena", *args], check=True, cwd=ROOT, stderr=subprocess.DEVNULL)


def replay(browser, tmp: Path) -> Path:
    page_file = tmp / "replay.html"
    arena("view", str(GAME), "-o", str(page_file))
    page = browser.new_page(viewport=VIEWPORT)
    page.goto(page_file.as_uri() + "#40")
    out = IMAGES / "replay.png"
    page.screenshot(path=str(out))
    return out


def report(browser, tmp: Path) -> Path:
    folder = tmp / "quickstart"
    arena("run", str(TOURNAMENT), "--out", str(folder), "-q")
    page = browser.new_page(viewport=VIEWPORT)
    page.goto((folder / "report.html").as_uri())
    out = IMAGES / "report.png"
    page.screenshot(path=str(out))
    return out


def ansi_html(text: str) -> str:
    """Terminal text with ANSI SGR codes (bold, dim, reverse, colors) as HTML spans."""
    parts, style = [], {"bold": False, "dim": False, "reverse": False, "color": None}
    for chunk in re.split(r"(\x1b\[[0-9;]*m)", text):
        if chunk.startswith("\x1b["):
            for code in (chunk[2:-1] or "0").split(";"):
                if code in ("0", ""):
                    style = {"bold": False, "dim": False, "reverse": False, "color": None}
                elif code in ("1", "2", "7"):
                    style[{"1": "bold", "2": "dim", "7": "reverse"}[code]] = True
                elif code in _SGR:
                    style["color"] = _SGR[code]
            continue
        if not chunk:
            continue
        css = []
        color = style["color"] or "#d8d8d8"
        if style["reverse"]:
            css.append(f"background:{color};color:#1e1e1e")
        else:
            css.append(f"color:{color}")
        if style["bold"]:
            css.append("font-weight:bold")
        if style["dim"]:
            css.append("opacity:.55")
        parts.append(f"<span style=\"{';'.join(css)}\">{html.escape(chunk)}</span>")
    return "".join(parts)


def human(browser, tmp: Path) -> Path:
    if shutil.which("tmux") is None:
        raise SystemExit("no tmux on PATH (apt-get install tmux)")
    session = f"arena-shot-{os.getpid()}"
    command = " ".join([sys.executable, "-m", *HUMAN])
    width, height = TMUX_SIZE
    env = {**os.environ, "COLUMNS": str(width)}
    env.pop("NO_COLOR", None)
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", str(width), "-y", str(height),
                    "-c", str(ROOT), command], check=True, env=env)
    try:
        wait_for(session, "your move")
        for keys in HUMAN_KEYS:
            subprocess.run(["tmux", "send-keys", "-t", session, keys, "Enter"], check=True)
            time.sleep(1.0)
            wait_for(session, "your move")
        shown = subprocess.run(["tmux", "capture-pane", "-p", "-e", "-t", session], check=True,
                               capture_output=True, text=True).stdout
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], check=False)
    page_file = tmp / "human.html"
    page_file.write_text(
        "<!DOCTYPE html><html><body style=\"margin:0;background:#1e1e1e\"><pre style=\"margin:0;padding:12px;"
        "font:14px/1.25 'DejaVu Sans Mono',monospace;color:#d8d8d8\">" + ansi_html(shown.rstrip()) + "</pre></body></html>",
        encoding="utf-8")
    page = browser.new_page(viewport={"width": 900, "height": 400})
    page.goto(page_file.as_uri())
    out = IMAGES / "human.png"
    page.locator("pre").screenshot(path=str(out))
    return out


def wait_for(session: str, text: str, seconds: float = 60) -> None:
    """Wait until the last line of the tmux window holds ``text`` (the prompt)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pane = subprocess.run(["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True).stdout
        lines = pane.rstrip().splitlines()
        if lines and text in lines[-1]:
            return
        time.sleep(0.2)
    raise SystemExit(f"tmux: no {text!r} within {seconds:g} s")


#: The run the serve pictures show: the built-in bots, mcts thinking 0.2 s a move (a game takes seconds).
WATCHED = """name = "baselines"
players = 4
deals = 25
seed = 1
seating = "balanced"
""" + "".join(f'[[entrants]]\nname = "{bot}"\nbot = "{bot}"\n' for bot in ("random", "greedy", "lookahead")) + (
    '[[entrants]]\nname = "mcts"\nbot = "mcts"\noptions = { seconds = 0.2, iterations = 0 }\n')


def serve(browser, tmp: Path) -> Path:
    (tmp / "baselines.toml").write_text(WATCHED, encoding="utf-8")
    run = subprocess.Popen([sys.executable, "-m", "arena", "run", str(tmp / "baselines.toml"), "--out",
                            str(tmp / "baselines"), "--serve", "-q"], cwd=ROOT, text=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
    try:
        url = _address(run)
        page = browser.new_page(viewport=VIEWPORT)
        page.goto(url)
        end = time.monotonic() + 600
        while not page.evaluate("+(document.querySelector('#progress')||{dataset:{}}).dataset.games >= 4 && "
                                "!!document.querySelector('#playing a')"):
            if time.monotonic() > end:
                raise SystemExit("serve: no four games and a game being played within 10 minutes")
            time.sleep(0.5)
        out = IMAGES / "serve.png"
        page.screenshot(path=str(out))
        for _ in range(20):  # a game that ends before the picture (they take about a second): the next one
            page.goto(url)
            page.wait_for_selector("#playing a")
            page.goto(page.eval_on_selector("#playing a", "a => a.href"))
            time.sleep(1.5)  # a few moves come in
            if "/live/" in page.url and page.text_content("#winner") == "being played":
                page.screenshot(path=str(IMAGES / "serve-live.png"))
                if "/live/" in page.url:
                    return out
        raise SystemExit("serve: no game being played long enough for its picture")
    finally:
        run.send_signal(signal.SIGINT)
        run.wait(60)


def _address(run: subprocess.Popen[str]) -> str:
    """The address ``arena run --serve`` prints on standard error."""
    assert run.stderr is not None
    end = time.monotonic() + 120
    while time.monotonic() < end:
        if select.select([run.stderr], [], [], 1)[0]:
            line = run.stderr.readline()
            if line.startswith("Watch it at "):
                return line.split()[3]
    raise SystemExit("arena run --serve printed no address")


PICTURES = {"replay": replay, "report": report, "human": human, "serve": serve}


def main(names: list[str]) -> int:
    from playwright.sync_api import sync_playwright

    unknown = [n for n in names if n not in PICTURES]
    if unknown:
        print(f"unknown picture {unknown[0]!r} (choose {', '.join(PICTURES)})", file=sys.stderr)
        return 2
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("no chromium on PATH (apt-get install chromium)", file=sys.stderr)
        return 1
    IMAGES.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium)
        for name in names or list(PICTURES):
            print(PICTURES[name](browser, Path(tmp)))
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
