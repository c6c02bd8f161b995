"""Plots: each picture drawn from a real tournament's tables, valid, not blank, byte for byte the same twice."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zlib
from dataclasses import replace
from pathlib import Path

import matplotlib as mpl
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from matplotlib.image import imread

from arena.cli import main
from arena.report.columns import RATING_HIGH, RATING_LOW
from arena.report.plots import PlotError, llr_plot, rating_plot, try_write_plots, write_plots
from arena.report.tables import Tables, build_tables, load_games
from arena.results.match_file import FORMAT as MATCH_FORMAT
from arena.results.tournament_file import read_tournament

# On one pytest-xdist worker (--dist loadgroup): the module's runs and pictures are made once.
pytestmark = pytest.mark.xdist_group("plots")

TINY = """
name = "pics"
players = 3
deals = 2
seed = 11
isolation = "none"
[[entrants]]
name = "greedy"
bot = "greedy"
[[entrants]]
name = "rnd1"
bot = "random"
[[entrants]]
name = "rnd2"
bot = "random"
[[entrants]]
name = "rnd3"
bot = "random"
"""

#: Tables of a folder with no game: every frame empty.
EMPTY = Tables(scoring="uptown", standings=pd.DataFrame(), head_to_head=pd.DataFrame(), seats=pd.DataFrame(),
               order=pd.DataFrame(), time_use=pd.DataFrame())
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

#: The keys of a match's match.json that llr_plot reads (arena/tournament/match/folder.py writes them), and one it does not.
MATCH = {
    "format": MATCH_FORMAT,
    "history": {"games": [2, 4, 6, 8, 10, 12], "llr": [0.0, 0.35, -0.2, 0.9, 1.6, 3.1]},
    "lower": -2.944, "upper": 2.944, "verdict": "H1",
    "parameters": {"games": None, "sprt": {"elo0": 0, "elo1": 20, "alpha": 0.05, "beta": 0.05, "model": "normalized"}},
    "bots": [{"name": "greedy", "spec": "greedy"}, {"name": "rnd1", "spec": "random"}], "pentanomial": {"LL": 0},
}


@pytest.fixture
def run_cli(cli):
    """``arena`` with these arguments."""
    return lambda *args: cli.invoke(main, list(args))


def _tiny_run(base: Path, *options: str) -> Path:
    (base / "pics.toml").write_text(TINY)
    out = base / "out"
    result = CliRunner().invoke(  # module-wide: not `cli`
        main, ["run", str(base / "pics.toml"), "--out", str(out), "-q", "-j", "1", "--isolation", "none", *options])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A finished run of 4 entrants at 3-player tables, random bots and greedy, in this process, no pictures."""
    return _tiny_run(tmp_path_factory.mktemp("plots"), "--no-plots")


@pytest.fixture(scope="module")
def drawn(tmp_path_factory) -> Path:
    """The same run, its pictures drawn (``--plots``)."""
    return _tiny_run(tmp_path_factory.mktemp("drawn"), "--plots")


@pytest.fixture(scope="module")
def tables(folder) -> Tables:
    """The run's tables."""
    config, _ = read_tournament(folder)
    return build_tables(load_games(folder / "games.csv", config.players), config.scoring, config.names)


@pytest.fixture(scope="module")
def pictures(tables, tmp_path_factory) -> tuple[Path, list[Path]]:
    """Every picture of the run's tables and of MATCH, drawn once by write_plots: its folder and the paths it gave."""
    folder = tmp_path_factory.mktemp("pictures")
    return folder, write_plots(folder, tables, MATCH)


def colours(image: np.ndarray) -> int:
    """How many distinct pixel values ``image`` holds: each pixel's channels compared bit for bit, after a sort
    (``np.unique(axis=0)`` takes about a second a picture)."""
    pixels = np.ascontiguousarray(image.reshape(-1, image.shape[-1]))
    bits = pixels.view(f"u{pixels.itemsize}")
    ordered = bits[np.lexsort(bits.T)]
    return 1 + int(np.count_nonzero((ordered[1:] != ordered[:-1]).any(axis=1)))


def assert_picture(path: Path) -> None:
    """A PNG by its signature that matplotlib reads back as a picture with more than one colour."""
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE, path
    image = imread(path)
    assert image.shape[0] > 100 and image.shape[1] > 100
    assert colours(image) > 10, f"{path.name} is blank"


def text_chunks(path: Path) -> list[bytes]:
    """The keywords of every tEXt, zTXt and iTXt chunk of a PNG."""
    data = path.read_bytes()
    at, keys = 8, []
    while at < len(data):
        length = int.from_bytes(data[at:at + 4], "big")
        kind = data[at + 4:at + 8]
        body = data[at + 8:at + 8 + length]
        assert zlib.crc32(kind + body) == int.from_bytes(data[at + 8 + length:at + 12 + length], "big")
        if kind in (b"tEXt", b"zTXt", b"iTXt"):
            keys.append(body.split(b"\0", 1)[0])
        at += 12 + length
    return keys


@pytest.mark.slow
def test_arena_run_writes_the_plots(drawn):
    for name in ("win_share.png", "head_to_head.png", "seats.png"):
        assert_picture(drawn / name)
    assert (drawn / "standings.csv").exists()


@pytest.mark.parametrize("name", ["win_share.png", "rating.png", "head_to_head.png", "seats.png", "order.png"])
@pytest.mark.slow
def test_each_plot_is_a_picture_of_the_tables(pictures, name):
    folder, written = pictures
    assert folder / name in written
    assert_picture(folder / name)


@pytest.mark.slow
def test_the_plots_are_the_same_bytes_twice_whatever_the_user_s_matplotlibrc(pictures, tables, tmp_path):
    first = pictures[1]  # drawn under matplotlib's defaults
    with mpl.rc_context({"font.size": 20, "axes.facecolor": "black", "figure.dpi": 300, "lines.linewidth": 5}):
        second = write_plots(tmp_path / "b", tables, MATCH)
    assert [p.name for p in first] == [p.name for p in second]
    assert len(first) == 6
    for a, b in zip(first, second):
        assert a.read_bytes() == b.read_bytes(), a.name
        assert text_chunks(a) == [], f"{a.name} carries metadata that changes between versions or runs"


@pytest.mark.slow
def test_the_rating_plot_draws_the_rating_interval_the_tables_give(pictures, tables, tmp_path):
    narrow = tables.standings.assign(**{RATING_LOW: tables.standings["rating"] - 1,
                                        RATING_HIGH: tables.standings["rating"] + 1})
    rating_plot(replace(tables, standings=narrow), tmp_path / "rating.png")
    assert (tmp_path / "rating.png").read_bytes() != (pictures[0] / "rating.png").read_bytes()


@pytest.mark.slow
def test_an_order_plot_only_with_an_order_table(pictures, tables, tmp_path):
    assert "order.png" in [p.name for p in pictures[1]]
    names = [p.name for p in write_plots(tmp_path, replace(tables, order=tables.order.iloc[0:0]))]
    assert "order.png" not in names and "llr.png" not in names
    assert {"win_share.png", "head_to_head.png", "seats.png"} <= set(names)


@pytest.mark.slow
def test_llr_plot_from_a_hand_made_match(tmp_path):
    llr_plot(MATCH, tmp_path / "llr.png")
    assert_picture(tmp_path / "llr.png")
    llr_plot({**MATCH, "history": {"games": [], "llr": []}, "verdict": "inconclusive"}, tmp_path / "empty.png")
    assert_picture(tmp_path / "empty.png")
    # The verdict and the bounds are drawn: another verdict is another picture.
    llr_plot({**MATCH, "verdict": "H0"}, tmp_path / "h0.png")
    assert (tmp_path / "h0.png").read_bytes() != (tmp_path / "llr.png").read_bytes()
    # a field test on deals with no spread: its corrected bounds meet
    llr_plot({**MATCH, "lower": 0.0, "upper": 0.0}, tmp_path / "met.png")
    assert_picture(tmp_path / "met.png")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"upper": None}, "lower and upper must be numbers"),
        ({"history": {"games": [1, 2], "llr": [0.5]}}, "'history' is not {games: [...], llr: [...]}"),
        ({"history": 5}, "'history' is not {games: [...], llr: [...]}"),
        ({"lower": 3.0}, "lower <= upper"),
        ({"parameters": {"games": 10, "sprt": None}}, "not a sequential test"),
    ],
)
def test_a_bad_match_is_one_line(tmp_path, change, message):
    with pytest.raises(PlotError) as caught:
        llr_plot({**MATCH, **change}, tmp_path / "llr.png")
    assert message in str(caught.value) and "\n" not in str(caught.value)
    assert not (tmp_path / "llr.png").exists()
    missing = {k: v for k, v in MATCH.items() if k != "verdict"}
    with pytest.raises(PlotError, match="no key 'verdict'"):
        llr_plot(missing, tmp_path / "llr.png")


@pytest.mark.slow
def test_report_plots(folder, tmp_path, run_cli):
    result = run_cli("report", str(folder), "--plots")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("pics - Standings")  # the tables as before
    printed = result.stderr.split()
    assert str(folder / "win_share.png") in printed and str(folder / "seats.png") in printed
    out = tmp_path / "elsewhere" / "pics"
    (folder / "match.json").write_text(json.dumps(MATCH))
    try:
        result = run_cli("report", str(folder), "--plots-dir", str(out), "--format", "json")
    finally:
        (folder / "match.json").unlink()
    assert result.exit_code == 0, result.output
    json.loads(result.stdout)  # still only the tables on standard output
    assert str(out / "llr.png") in result.stderr.split()
    for name in ("win_share.png", "head_to_head.png", "seats.png", "llr.png"):
        assert_picture(out / name)


def one_line_error(result, *words: str) -> None:
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and all(w in lines[0] for w in words), result.output
    assert "Traceback" not in result.output


def test_report_plots_of_a_folder_with_no_games(folder, tmp_path, run_cli):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "tournament.toml").write_text((folder / "tournament.toml").read_text())
    one_line_error(run_cli("report", str(empty), "--plots"), "no games.csv yet")
    (empty / "games.csv").write_text((folder / "games.csv").read_text().splitlines(keepends=True)[0])
    one_line_error(run_cli("report", str(empty), "--plots"), "no complete game yet")
    assert sorted(p.name for p in empty.iterdir()) == ["games.csv", "tournament.toml"]
    with pytest.raises(PlotError, match="no standings to plot"):
        write_plots(tmp_path / "none", EMPTY)


@pytest.mark.slow
def test_report_plots_into_a_folder_it_cannot_write(folder, tmp_path, run_cli):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    one_line_error(run_cli("report", str(folder), "--plots-dir", str(blocker / "plots")), str(blocker))
    one_line_error(run_cli("report", str(folder), "--plots-dir", str(blocker)), str(blocker), "not a folder")
    taken = tmp_path / "taken"
    (taken / "win_share.png").mkdir(parents=True)
    one_line_error(run_cli("report", str(folder), "--plots-dir", str(taken)), "win_share.png", "cannot write")
    assert sorted(p.name for p in taken.iterdir()) == ["win_share.png"]  # no temporary file left
    bad_match = tmp_path / "bad-match"
    bad_match.mkdir()
    for name in ("tournament.toml", "deal.key", "games.csv"):
        (bad_match / name).write_text((folder / name).read_text())
    (bad_match / "match.json").write_text("{not json")
    one_line_error(run_cli("report", str(bad_match), "--plots"), "match.json")


@pytest.mark.slow
def test_a_failing_plot_costs_the_run_nothing_but_one_line(tmp_path, run_cli, write_tournament):
    path = write_tournament(TINY.replace("deals = 2", "deals = 1"), "pics.toml")
    out = tmp_path / "out"
    (out / "head_to_head.png").mkdir(parents=True)  # where a picture should be
    result = run_cli("run", str(path), "--out", str(out), "-j", "1", "--plots")
    assert result.exit_code == 0, result.output
    problems = [line for line in result.stderr.splitlines() if "plots not written" in line]
    assert len(problems) == 1 and "head_to_head.png" in problems[0]
    assert "Traceback" not in result.output
    assert result.stdout.startswith("pics - Standings")
    for name in ("games.csv", "standings.csv", "head_to_head.csv", "seats.csv"):
        assert (out / name).stat().st_size > 0
    assert problems[0] in (out / "arena.log").read_text()


def test_try_write_plots_never_raises(tmp_path):
    written, problem = try_write_plots(tmp_path, EMPTY,
                                       log_file=tmp_path / "arena.log")
    assert written == [] and problem is not None and problem.startswith("plots not written: no standings")
    assert problem in (tmp_path / "arena.log").read_text()


@pytest.mark.slow
def test_the_arena_starts_without_matplotlib():
    code = "import sys, arena.cli, arena.report.plots; from arena.commands import report, run; " \
           "assert 'matplotlib' not in sys.modules, 'matplotlib imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.slow
def test_overwrite_removes_the_pictures_of_the_run_before(drawn, tmp_path, run_cli):
    """``--overwrite`` starts again: a picture the new run does not draw (here a match's llr.png) is gone."""
    out = tmp_path / "out"
    shutil.copytree(drawn, out)  # the run before, its pictures drawn
    (out / "llr.png").write_bytes((out / "seats.png").read_bytes())
    args = ("run", str(drawn.parent / "pics.toml"), "--out", str(out), "-q", "-j", "1", "--isolation", "none", "--plots")
    assert run_cli(*args, "--overwrite").exit_code == 0
    assert not (out / "llr.png").exists()
    assert_picture(out / "seats.png")


@pytest.mark.slow
def test_each_legend_names_the_interval_its_figure_has(tables, tmp_path, monkeypatch):
    # A win share's interval is Wilson's over deals; only the rating's comes from the deal bootstrap.
    import arena.report.plots as plots

    legends: dict[str, list[str]] = {}

    def keep(figure, path):
        legends[path.name] = [text.get_text() for ax in figure.axes if ax.get_legend()
                              for text in ax.get_legend().get_texts()]

    monkeypatch.setattr(plots, "_save", keep)
    write_plots(tmp_path, tables)
    shares = [label for label in legends["win_share.png"] if "interval" in label]
    assert shares and all("Wilson" in label for label in shares), legends["win_share.png"]
    assert not any("bootstrap" in label for label in legends["win_share.png"] + legends["seats.png"])
    assert any("information summed by deal" in label for label in legends["rating.png"]), legends["rating.png"]


@pytest.mark.slow
def test_no_plots_draws_none_and_removes_a_resumed_folder_s_older_ones(drawn, tmp_path):
    """``--no-plots`` (and ``ARENA_PLOTS=0``): no picture, and none of an earlier run left beside the new page."""
    out = tmp_path / "out"
    shutil.copytree(drawn, out)
    assert (out / "win_share.png").exists()
    result = CliRunner().invoke(main, ["run", str(drawn.parent / "pics.toml"), "--out", str(out), "-q", "-j", "1",
                                       "--isolation", "none", "--resume", "--no-plots"])
    assert result.exit_code == 0, result.output
    assert not list(out.glob("*.png")) and (out / "report.html").exists()
    assert "data:image/png" not in (out / "report.html").read_text()
    again = CliRunner(env={"ARENA_PLOTS": "1"}).invoke(main, ["run", str(drawn.parent / "pics.toml"), "--out", str(out),
                                                                "-q", "-j", "1", "--isolation", "none", "--resume"])
    assert again.exit_code == 0 and (out / "win_share.png").exists()
