"""Every tutorial and how-to page, followed from a fresh folder: its shell commands run as the page shows them.

A page's commands are the lines of its ```sh blocks, run in order by a shell in a new empty folder, with
``arena`` the arena under test.  The folder holds only what the page tells a reader to have: the files the
page gives whole, a ```toml block after ``<!-- file: NAME -->``, written where the page shows them, and for a
how-to page the files of the checkout its commands name (a tournament file under ``examples/`` comes with its
folder, whose bots it names).  A tutorial gets nothing of the checkout: what it uses, its own ``arena init``
copies from the installed package, as a newcomer's empty folder gets it.  Every command must exit with status 0.

A few lines are not run, each for the reason :data:`NOT_RUN` gives (machines of a cluster, a million
games, an install), and a few long ones play fewer games (:data:`FEWER`, :data:`FEWER_DEALS`): the rest are
the page's own.
``arena run tournaments/quickstart.toml``, the README's first command, deals publicly from its seed: its
folder is made once for the whole run (whichever worker asks first) and copied into every page that runs it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.project.conftest import QUICKSTART

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = [*sorted((DOCS / "tutorials").glob("*.md")), *sorted((DOCS / "how-to").glob("*.md"))]

#: ```sh blocks, and the files a page gives whole.
_SH = re.compile(r"^```sh\n(.*?)^```$", re.MULTILINE | re.DOTALL)
_FILE = re.compile(r"^<!-- file: ([\w./-]+) -->\n```\w*\n(.*?)^```$", re.MULTILINE | re.DOTALL)

#: Lines a test does not run, and why.
NOT_RUN = {
    "pip install '.[dask]'          # or: pip install 'uptown-arena[dask]'":
        "an install: the tests run the installed package",
    "dask scheduler --port 8786                                   # on HOST":
        "a cluster's machines (tests/integration/test_cluster.py runs a local cluster)",
    "dask worker tcp://HOST:8786 --nworkers -1 --nthreads 1       # on each machine":
        "a cluster's machines",
    "arena run tournaments/quickstart.toml --cluster tcp://HOST:8786": "a cluster's machines",
    "arena run million.toml --out results/million --workers 2": "a million games, the page's subject",
    "pip install 'uptown-arena[openspiel]'   # open-spiel (a 16 MB wheel, and scipy): python_uptown, openspiel-ismcts":
        "an install",
    "pip install 'uptown-arena[rl]'          # pettingzoo and gymnasium (about 2 MB): uptown_v0": "an install",
    "python -m pip install -e '.[serve]'": "an install",
    "arena run tournaments/baselines.toml --serve":
        "300 games and a web page: tests/integration/test_serve_browser.py runs arena run --serve in a browser",
    "arena serve results/": "a server that runs until Ctrl-C: tests/integration/test_serve.py serves folders",
    "arena run tournaments/my-first.toml":
        "tests/project/test_newcomer_path.py runs it from the page's file in a fresh folder and checks what it prints",
}

#: Lines that play fewer games here than on the page, or play them cheaper (the options they end with win),
#: and why.
FEWER = {
    # The first SPRT's matches, in process too: the tutorial's subject is the test, not the sandbox.
    "arena match mcts greedy --sprt elo0=0,elo1=20,alpha=0.05,beta=0.05,model=normalized":
        ("--max-games 4 --isolation none", "about 25 minutes to a verdict"),
    "arena match greedy random lookahead --games 600": ("--games 12 --isolation none", "600 games"),
    "arena match lookahead greedy --sprt elo0=0,elo1=50": ("--max-games 8 --isolation none", "84 games to a verdict"),
    "arena match lookahead greedy --sprt elo0=0,elo1=50 --seed 2024 --public-deals --out results/seeded-match":
        ("--max-games 8 --isolation none", "tests/project/test_outputs.py plays it whole"),
    "arena match mcts:iterations=0,clock_share=0.05 greedy --games 100 --clock 5+0.1 --overage 2":
        ("--games 2 --clock 0.25+0.01", "100 games of up to 5 s a seat"),
    "arena play mcts:iterations=0,clock_share=0.05 greedy --clock 20+0.2": ("--clock 0.5+0.01", "a game of 20 s a seat"),
    # The quickstart's sandboxed run is the README's command: run whole and checked by test_newcomer_path.py.
    # These three play 12 of its games (FEWER_DEALS), in process.
    "arena run tournaments/quickstart.toml --clock 60+0.5 --overage 10":
        ("--isolation none", "120 games with every bot sandboxed"),
    "arena run tournaments/quickstart.toml --report-every 40   # in one terminal":
        ("--isolation none --report-every 10", "120 games with every bot sandboxed"),
    "arena run tournaments/quickstart.toml --out results/plain --no-compress                 # plain JSON lines":
        ("--isolation none", "120 games with every bot sandboxed"),
    "python benchmarks/live_standings.py --deals 25 --repeat 2": ("--deals 2 --repeat 1", "a benchmark: 2,400 games"),
    "python benchmarks/serve_live.py --games 2000 --rounds 9": ("--games 20 --rounds 1", "a benchmark: 36,000 games"),
    "arena match lookahead greedy --games 200 --deals more-deals.txt --out results/more-deals":
        ("--games 4 --isolation none", "200 games"),
    # A league grows the same in process: the page's subject is the update, not the sandbox.
    "arena run league.toml": ("--isolation none", "a league of sandboxed bots"),
    "arena run league.toml --update": ("--isolation none", "a league of sandboxed bots"),
    "arena run examples/collusion/tournament.toml": ("", "240 games (tests/integration/test_collusion_example.py "
                                                         "runs the example)"),
}

#: Tournament files that FEWER lines play with fewer deals: a copy of the file, beside it, whose ``deals`` key
#: says how many (the same name key, so the same results folder), named by the line in its place.
FEWER_DEALS = {"tournaments/quickstart.toml": 1, "examples/collusion/tournament.toml": 1}


#: Seconds one line may take.
LINE_LIMIT = 600


def steps(text: str) -> list[tuple[str, str, str]]:
    """The page's steps in order: ("file", name, content) and ("run", line, "")."""
    found: list[tuple[int, tuple[str, str, str]]] = []
    for match in _FILE.finditer(text):
        found.append((match.start(), ("file", match.group(1), match.group(2))))
    for match in _SH.finditer(text):
        for number, line in enumerate(match.group(1).splitlines()):
            if line.strip() and not line.lstrip().startswith("#"):
                found.append((match.start() + number, ("run", line.rstrip(), "")))
    return [step for _, step in sorted(found, key=lambda item: item[0])]


def named_files(text: str) -> Iterator[Path]:
    """The checkout's files and folders a command line or a file the page gives names (a tournament file
    under examples/: its folder)."""
    for word in re.split(r"[\s\"':=,\[\]]+", text):
        if ("/" in word or word.endswith((".toml", ".py", ".js"))) and not word.startswith("-"):
            path = ROOT / word
            if path.is_file() and not word.startswith("results/"):
                yield path.parent if word.startswith("examples/") and word.endswith(".toml") else path


def page_steps(path: Path) -> list[tuple[str, str, str]]:
    return steps(path.read_text(encoding="utf-8"))


def test_the_steps_are_read_in_page_order() -> None:
    text = ("a\n```sh\narena play random random   # a game\n\n# a comment\n```\n"
            "<!-- file: t.toml -->\n```toml\nname = \"t\"\n```\n```sh\narena run t.toml\n```\n```text\nout\n```\n")
    assert steps(text) == [("run", "arena play random random   # a game", ""), ("file", "t.toml", 'name = "t"\n'),
                           ("run", "arena run t.toml", "")]


def test_every_page_has_commands_and_every_exception_is_a_line_of_a_page() -> None:
    lines = {line for page in PAGES for kind, line, _ in page_steps(page) if kind == "run"}
    bare = [page.name for page in PAGES if not any(kind == "run" for kind, *_ in page_steps(page))]
    assert not bare, f"pages without a ```sh block: {bare}"
    stale = sorted((set(NOT_RUN) | set(FEWER)) - lines)
    assert not stale, f"no page shows these lines any more: {stale}"


def run_line(line: str, where: Path, env: dict[str, str], quickstart: Callable[[], tuple[Path, str]]) -> None:
    bare = re.sub(r"\s+#.*", "", line)  # the command, without the page's comment
    if bare == QUICKSTART:
        shutil.copytree(quickstart()[0] / "results" / "quickstart", where / "results" / "quickstart")
        return
    if line in FEWER:
        line = f"{_fewer_deals(bare, where)} {FEWER[line][0]}"
    _run(line, where, env)


def _fewer_deals(command: str, where: Path) -> str:
    """``command`` naming, for each file of :data:`FEWER_DEALS` it names, a copy of that file with fewer deals."""
    for name, deals in FEWER_DEALS.items():
        if name in command.split():
            text, count = re.subn(r"^deals = \d+", f"deals = {deals}", (where / name).read_text(encoding="utf-8"),
                                  flags=re.MULTILINE)
            assert count == 1, f"{name} has no deals key to lower"
            fewer = (where / name).with_stem(f"{Path(name).stem}-fewer")
            fewer.write_text(text, encoding="utf-8")
            command = command.replace(name, str(fewer.relative_to(where)))
    return command


def _run(command: str, where: Path, env: dict[str, str]) -> None:
    done = subprocess.run(["bash", "-c", command], cwd=where, env=env, capture_output=True,
                          text=True, timeout=LINE_LIMIT, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"{command}\nexit status {done.returncode}\n{done.stdout[-3000:]}{done.stderr[-3000:]}"


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_the_page_s_commands_run_from_a_fresh_folder(page: Path, tmp_path: Path, shell_env: dict[str, str],
                                                     request: pytest.FixtureRequest) -> None:
    if "node examples/" in page.read_text(encoding="utf-8") and shutil.which("node") is None:
        pytest.skip("node is not installed: the page's program bot is a Node.js bot")
    if "javac " in page.read_text(encoding="utf-8") and not (shutil.which("java") and shutil.which("javac")):
        pytest.skip("java and javac are not both installed: the page's program bot is a Java bot too")
    where = tmp_path / "fresh"
    where.mkdir()
    tutorial = page.parent.name == "tutorials"  # from an empty folder and arena init alone
    for kind, line, content in page_steps(page):
        if kind == "run" and line in NOT_RUN:
            continue
        if not tutorial:
            bring(content if kind == "file" else line, where)
        if kind == "file":
            (where / line).parent.mkdir(parents=True, exist_ok=True)
            (where / line).write_text(content, encoding="utf-8")
        else:
            # The README's tournament is run once for the suite, by the first test that asks.
            run_line(line, where, shell_env, lambda: request.getfixturevalue("readme_quickstart"))


def bring(text: str, where: Path) -> None:
    """Copy the checkout's files ``text`` names into ``where``, at the same paths."""
    for path in named_files(text):
        copy = where / path.relative_to(ROOT)
        if path.is_dir():
            shutil.copytree(path, copy, dirs_exist_ok=True)
        elif not copy.exists():
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, copy)
