"""A folder's address in arena serve is its name, however it is served: given itself (as ``arena run --serve``
serves a run) or found in a folder of folders (``arena serve results/``); and every page's site has an icon."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest

pytest.importorskip("starlette", reason="the serve extra is not installed (pip install 'uptown-arena[serve]')")
pytest.importorskip("httpx2", reason="Starlette's TestClient needs httpx2")

from starlette.testclient import TestClient  # noqa: E402

from arena.serve.app import create_app  # noqa: E402
from arena.serve.folders import Folders  # noqa: E402

TOURNAMENT = 'name = "t"\nplayers = 2\ndeals = 1\nseed = 1\n[[entrants]]\nbot = "random"\n[[entrants]]\nbot = "greedy"\n'


def results_folder(path: Path) -> Path:
    path.mkdir(parents=True)
    (path / "tournament.toml").write_text(TOURNAMENT, encoding="utf-8")
    return path


def client(*roots: Path) -> TestClient:
    return TestClient(create_app(list(roots)), base_url="http://127.0.0.1")


def test_a_folder_has_one_address_given_itself_or_found_in_its_parent(tmp_path: Path) -> None:
    league = results_folder(tmp_path / "results" / "league")
    results_folder(tmp_path / "results" / "other")
    alone, parent = client(league), client(league.parent)
    for served in (alone, parent):
        assert 'href="/run/league/"' in served.get("/").text
        page = served.get("/run/league/")
        assert page.status_code == 200 and "league" in page.text
    assert 'href="/run/other/"' in parent.get("/").text
    # The numbered keys of earlier addresses still find the folder.
    assert alone.get("/run/0/").status_code == 200 and parent.get("/run/0:league/").status_code == 200


def test_two_folders_of_one_name_the_later_keyed_by_number(tmp_path: Path) -> None:
    first = results_folder(tmp_path / "a" / "run")
    second = results_folder(tmp_path / "b" / "run")
    listing = Folders([first.parent, second.parent]).listing()
    assert [(served.key, served.path) for served in listing] == [("run", first), ("1:run", second)]
    served = client(first.parent, second.parent)
    assert served.get("/run/run/").status_code == 200 and served.get("/run/1:run/").status_code == 200


@pytest.mark.parametrize("name", ["..", ".", "../a", "a%2F..%2F..", "missing"])
def test_a_name_finds_no_folder_outside_those_given(tmp_path: Path, name: str) -> None:
    results_folder(tmp_path / "outside")
    results_folder(tmp_path / "results" / "inside")
    assert Folders([tmp_path / "results"]).find(name) is None
    if name not in (".", ".."):  # an HTTP client takes those out of a path itself
        assert client(tmp_path / "results").get(f"/run/{quote(name, safe='')}/").status_code == 404


def test_the_site_has_an_icon(tmp_path: Path) -> None:
    answer = client(results_folder(tmp_path / "one")).get("/favicon.ico")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("image/svg+xml")
    assert answer.text.startswith("<svg ")
