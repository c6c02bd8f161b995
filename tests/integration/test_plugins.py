"""Plug-ins: the built-in bots' own package name, names registered twice, and DIST:NAME specs.

The plug-ins here are real distributions: a ``.dist-info`` folder with an
``entry_points.txt``, written into a temporary folder put on ``sys.path``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import arena.plugins.loading
from arena.plugins import BotError, discover, load_bot, parse_bot_spec, split_bot_spec

ROOT = Path(__file__).resolve().parents[2]


# -- the built-in bots' package ----------------------------------------------------


def test_the_builtin_bots_live_in_a_package_that_cannot_collide():
    from arena_bots.greedy import GreedyBot

    assert load_bot("greedy") is GreedyBot
    assert GreedyBot.__module__ == "arena_bots.greedy"


@pytest.mark.slow
def test_a_users_folder_called_bots_breaks_no_builtin_bot(tmp_path):
    """A folder ``bots/`` (a package of the user's) first on the import path and as the current folder."""
    user = tmp_path / "project"
    (user / "bots").mkdir(parents=True)
    (user / "bots" / "__init__.py").write_text("MINE = True\n")
    (user / "bots" / "greedy.py").write_text("raise ImportError('the user bots.greedy was imported')\n")
    env = {**os.environ, "PYTHONPATH": str(user)}
    result = subprocess.run(
        [sys.executable, "-m", "arena", "play", "random", "greedy", "--seed", "3", "-q"],
        cwd=user, env=env, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("seed 3: winner")
    assert "Traceback" not in result.stderr


# -- real distributions on sys.path ---------------------------------------------------


def make_distribution(site: Path, name: str, version: str, bots: dict[str, str], module: str = "") -> None:
    """A distribution ``name`` installed into ``site``: its entry points in group arena.bots, and a module."""
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    lines = "".join(f"{key} = {value}\n" for key, value in bots.items())
    (info / "entry_points.txt").write_text(f"[{arena.plugins.GROUP}]\n{lines}")
    if module:
        (site / f"{name.replace('-', '_')}.py").write_text(module)


PLUGIN = '''
from arena.api import Bot


class MyBot(Bot):
    """The plug-in's own greedy."""

    def choose(self, view):
        return self.rng.choice(list(view.legal))
'''


@pytest.fixture
def site(tmp_path, monkeypatch):
    """A folder on sys.path that distributions are installed into."""
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    return folder


def test_a_distribution_installed_or_removed_after_the_entry_points_were_read_is_seen(site):
    def names() -> set[str]:
        return {ep.name for ep in arena.plugins.loading.entry_points(arena.plugins.GROUP)}

    assert "later" not in names()
    make_distribution(site, "laterpkg", "1.0", {"later": "laterpkg:MyBot"}, PLUGIN)
    assert load_bot("later").__module__ == "laterpkg"
    shutil.rmtree(site / "laterpkg-1.0.dist-info")
    assert "later" not in names() and "greedy" in names()


def test_a_name_registered_by_two_distributions_is_an_error_naming_both(site):
    make_distribution(site, "mypkg", "1.0", {"greedy": "mypkg:MyBot"}, PLUGIN)
    with pytest.raises(BotError) as caught:
        load_bot("greedy")
    message = str(caught.value)
    assert "\n" not in message
    assert "uptown-arena" in message and "mypkg" in message
    assert "uptown-arena:greedy" in message and "mypkg:greedy" in message
    assert "arena_bots.greedy:GreedyBot" in message and "mypkg:MyBot" in message


def test_dist_name_picks_one_of_two(site):
    from arena_bots.greedy import GreedyBot

    make_distribution(site, "mypkg", "1.0", {"greedy": "mypkg:MyBot"}, PLUGIN)
    mine = load_bot("mypkg:greedy")
    assert mine.__name__ == "MyBot" and mine.__module__ == "mypkg"
    assert load_bot("uptown-arena:greedy") is GreedyBot
    assert load_bot("uptown_arena:greedy") is GreedyBot  # a distribution's name, however it is spelled


def test_dist_name_specs_take_options_after_the_last_colon():
    assert split_bot_spec("uptown-arena:mcts:iterations=5") == ("uptown-arena:mcts", {"iterations": "5"})
    spec = parse_bot_spec("uptown-arena:mcts:iterations=5")
    assert spec.ref == "uptown-arena:mcts" and spec.given == {"iterations": 5}


def test_a_dist_that_does_not_register_the_name_says_what_it_registers(site):
    make_distribution(site, "otherpkg", "2.0", {"tidy": "otherpkg:MyBot"}, PLUGIN)
    with pytest.raises(BotError, match=r"otherpkg registers no bot 'greedy' \(it registers: tidy\)"):
        load_bot("otherpkg:greedy")


def test_arena_bots_reports_the_clash_and_plays_neither_silently(site):
    make_distribution(site, "mypkg", "1.0", {"greedy": "mypkg:MyBot"}, PLUGIN)
    found, failures = discover()
    assert "greedy" not in found
    (failure,) = [f for f in failures if f.name == "greedy"]
    assert "uptown-arena:greedy" in failure.reason and "mypkg:greedy" in failure.reason


@pytest.mark.slow
def test_arena_play_with_a_clashing_name_is_one_line_and_dist_name_plays(site):
    make_distribution(site, "mypkg", "1.0", {"greedy": "mypkg:MyBot"}, PLUGIN)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    bad = subprocess.run([sys.executable, "-m", "arena", "play", "greedy", "random", "--seed", "1", "-q"],
                         env=env, capture_output=True, text=True, timeout=120)
    assert bad.returncode != 0
    assert bad.stderr.count("\n") == 1 and "mypkg:greedy" in bad.stderr, bad.stderr
    # The plug-in is on PYTHONPATH only, which bot processes do not get: it plays in this process.
    good = subprocess.run([sys.executable, "-m", "arena", "play", "mypkg:greedy", "random", "--seed", "1", "-q",
                           "--isolation", "none"], env=env, capture_output=True, text=True, timeout=120)
    assert good.returncode == 0, good.stderr
    builtin = subprocess.run([sys.executable, "-m", "arena", "play", "uptown-arena:greedy", "random", "--seed", "1",
                              "-q"], env=env, capture_output=True, text=True, timeout=120)
    assert builtin.returncode == 0, builtin.stderr
