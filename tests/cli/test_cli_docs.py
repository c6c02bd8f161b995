"""``arena docs``: the documentation site built (or served), or one line saying how to install the docs extra."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import arena.commands.docs as docs
from arena.cli import main


def test_without_the_docs_extra_it_is_one_line_naming_the_install(cli, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(docs.importlib.util, "find_spec", lambda name: None if name == "mkdocs" else real(name))
    result = cli.invoke(main, ["docs"])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert lines == ["Error: building the documentation needs the docs extra: pip install -e '.[docs]'"]


def test_serve_builds_in_memory_so_it_takes_no_out(cli, tmp_path):
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        pytest.skip("the docs extra is not installed: pip install -e '.[docs]'")
    result = cli.invoke(main, ["docs", "--serve", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "--out" in result.output


def test_the_site_s_configuration_is_the_checkout_s():
    assert docs.CONFIG == Path(__file__).resolve().parents[2] / "mkdocs.yml" and docs.CONFIG.is_file()


@pytest.mark.tooling
@pytest.mark.slow
def test_it_builds_the_site_and_prints_its_index(cli, tmp_path):
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        pytest.skip("the docs extra is not installed: pip install -e '.[docs]'")
    result = cli.invoke(main, ["docs", "--out", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    index = Path(result.output.strip().splitlines()[-1])
    assert index == (tmp_path / "site" / "index.html").resolve() and index.is_file()
