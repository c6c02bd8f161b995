"""What reaches the terminal: escaped names, the color decision (NO_COLOR, --color), tables that fit the width."""

from __future__ import annotations

import io
import re
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest
from click.testing import CliRunner

import arena.plugins.loading
from arena.cli import main
from arena.display import terminal
from arena.display.terminal import Column, fit_table, printable

ANSI = re.compile(r"\x1b\[[0-9;]*m")
GOLDEN = Path(__file__).resolve().parents[1] / "golden"


# -- printable -----------------------------------------------------------------


@pytest.mark.parametrize(("raw", "shown"), [
    ("greedy", "greedy"),
    ("Zoë 名前 ♠ $", "Zoë 名前 ♠ $"),  # printable text of any script stays as it is
    ("a\x1b[31mb", "a\\x1b[31mb"),
    ("line\r\nnext\tcol", "line\\r\\nnext\\tcol"),
    ("bell\x07 del\x7f c1\x9b", "bell\\x07 del\\x7f c1\\x9b"),
    ("lone\ud800 surrogate", "lone\\ud800 surrogate"),
    ("bidi\u202eevil\u2066", "bidi\\u202eevil\\u2066"),
    ("sep\u2028par\u2029", "sep\\u2028par\\u2029"),
    ("unassigned\U000e0080", "unassigned\\U000e0080"),
])
def test_printable_escapes_every_non_printable_character(raw, shown):
    out = printable(raw)
    assert out == shown
    assert out.isprintable()
    out.encode("utf-8")  # never fails: no lone surrogate is left
    assert printable(out) == out


def test_printable_takes_any_object():
    assert printable(Path("a\nb")) == "a\\nb"
    assert printable(None) == "None"


def test_text_width_and_cut_count_terminal_columns():
    assert terminal.text_width("abc") == 3
    assert terminal.text_width("名前") == 4
    assert terminal.text_width("e\u0301") == 1
    assert terminal.cut("tournament", 6) == "tourn~"
    assert terminal.cut("short", 6) == "short"
    assert terminal.text_width(terminal.cut("名前名前名前", 7)) <= 7


# -- the color decision ----------------------------------------------------------


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_use_color_follows_the_option_then_NO_COLOR_then_the_terminal(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert terminal.use_color(None, Tty()) is True
    assert terminal.use_color(None, io.StringIO()) is False
    assert terminal.use_color(True, io.StringIO()) is True
    assert terminal.use_color(False, Tty()) is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert terminal.use_color(None, Tty()) is False
    assert terminal.use_color(True, Tty()) is True  # an explicit --color wins
    monkeypatch.setenv("NO_COLOR", "")  # no-color.org: an empty value does not count
    assert terminal.use_color(None, Tty()) is True
    monkeypatch.setenv("TERM", "dumb")
    assert terminal.use_color(None, Tty()) is False


def test_output_width_from_COLUMNS_else_whole_when_not_a_terminal(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    assert terminal.output_width(io.StringIO()) is None
    monkeypatch.setenv("COLUMNS", "72")
    assert terminal.output_width(io.StringIO()) == 72
    for bad in ("0", "-5", "wide", "٣٣"):
        monkeypatch.setenv("COLUMNS", bad)
        assert terminal.output_width(io.StringIO()) is None


@pytest.fixture
def play(cli):
    """``arena play`` of a quick game of two random bots, with these arguments (and ``env``: variables to set)."""
    return lambda *args, env=None: cli.invoke(
        main, ["play", "random", "random", "--seed", "3", "--isolation", "none", *args], env=env)


def test_play_colors_follow_color_options_and_NO_COLOR(cli, play):
    assert ANSI.search(play("--color").output)
    assert not ANSI.search(play().output)  # not a terminal
    assert not ANSI.search(play("--no-color").output)
    assert not ANSI.search(cli.invoke(main, ["play", "random", "random", "--seed", "3", "--isolation", "none"],
                                      env={"NO_COLOR": "x"}, color=True).output)
    assert ANSI.search(play("--color", env={"NO_COLOR": "x"}).output)


# -- names and messages from bots --------------------------------------------------

EVIL_BOT = '''
from arena.api import Bot


class EvilBot(Bot):
    """Clears\\x1b[2J the screen\\r from its description."""

    def choose(self, view):
        raise ValueError("gone\\x1b[2J\\x1b]0;title\\x07\\r\\nfake prompt $ ")
'''


def test_play_escapes_a_bots_fault_message(tmp_path, cli):
    path = tmp_path / "evil_bot.py"
    path.write_text(EVIL_BOT)
    for args in ([], ["--quiet"]):
        result = cli.invoke(
            main, ["play", f"{path}:EvilBot", "random", "--seed", "1", "--isolation", "none", *args],
        )
        assert result.exit_code == 0, result.output
        assert "\x1b" not in result.output and "\r" not in result.output and "\x07" not in result.output
        assert not any(line.startswith("fake prompt") for line in result.output.splitlines())
    assert "gone\\x1b[2J\\x1b]0;title\\x07 fake prompt $" in cli.invoke(
        main, ["play", f"{path}:EvilBot", "random", "--seed", "1", "--isolation", "none"]).output


def test_bots_listing_escapes_plugin_names_and_descriptions(tmp_path, monkeypatch, cli):
    (tmp_path / "evil_plugin.py").write_text(EVIL_BOT)
    monkeypatch.syspath_prepend(str(tmp_path))
    eps = [
        EntryPoint("evil\x1b[8m", "evil_plugin:EvilBot", arena.plugins.GROUP),
        EntryPoint("broken\r", "evil_plugin:Missing\x1b[2J", arena.plugins.GROUP),
    ]
    monkeypatch.setattr(arena.plugins.loading, "entry_points", lambda group: [ep for ep in eps if ep.group == group])
    result = cli.invoke(main, ["bots"])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "\r" not in result.output
    assert "evil\\x1b[8m  Clears\\x1b[2J the screen" in result.output
    assert "broken\\r" in result.output


# -- tables that fit the width ---------------------------------------------------


def test_fit_table_shortens_then_drops_in_order_then_cuts():
    columns = [
        Column("name", ["a-rather-long-entrant-name", "b"], left=True, shrink=True),
        Column("wins (uptown)", ["50.0%", "25.0%"], short="U wins"),
        Column("extra one", ["1.00", "2.00"], drop=2),
        Column("extra two", ["3.00", "4.00"], drop=1),
    ]
    whole = fit_table(columns, None)
    assert re.split(r"\s{2,}", whole.lines[0])[1:] == ["wins (uptown)", "extra one", "extra two"]
    assert not whole.short
    assert fit_table(columns, 200).lines == whole.lines
    narrower = fit_table(columns, 50)
    assert narrower.short and narrower.dropped == ["extra two"] and narrower.width <= 50
    assert "U wins" in narrower.lines[0] and "extra one" in narrower.lines[0]
    narrowest = fit_table(columns, 20)
    assert narrowest.dropped == ["extra two", "extra one"] and narrowest.width <= 20
    assert narrowest.lines[1].startswith("a-rather-") and "~" in narrowest.lines[1]


LONG = "an-entrant-with-a-name-of-forty-letters"
TOURNAMENT = f"""
name = "wide"
players = 3
deals = 2
seed = 11
isolation = "none"

[[entrants]]
name = "{LONG}"
bot = "random"

[[entrants]]
name = "greedy"
bot = "greedy"

[[entrants]]
name = "random"
bot = "random"
"""


@pytest.fixture(scope="module")
def wide(tmp_path_factory) -> tuple[Path, str]:
    base = tmp_path_factory.mktemp("wide")
    path = base / "wide.toml"
    path.write_text(TOURNAMENT)
    out = base / "out"
    result = CliRunner(env={"COLUMNS": "80"}).invoke(  # module-wide: not `cli`
        main, ["run", str(path), "--out", str(out), "-q", "-j", "1"])
    assert result.exit_code == 0, result.output
    return out, result.stdout


@pytest.mark.slow
def test_run_standings_fit_80_columns(wide):
    _, stdout = wide
    lines = stdout.splitlines()
    assert max(len(line) for line in lines) <= 80, stdout
    assert LONG in stdout  # the name fits once columns are left out
    assert "left out to fit 80 columns: penalty, blockers" in stdout
    assert "U wins" in lines[1] and "rating" in lines[1] and "faults" in lines[1]


def test_report_fits_COLUMNS_and_prints_whole_tables_when_not_a_terminal(wide, cli):
    folder, _ = wide
    whole = cli.invoke(main, ["report", str(folder)])
    assert whole.exit_code == 0
    assert "wins (uptown)" in whole.output and "penalty" in whole.output and "left out" not in whole.output
    assert max(len(line) for line in whole.output.splitlines()) > 100
    for width in (80, 60, 40):
        fitted = cli.invoke(main, ["report", str(folder)], env={"COLUMNS": str(width)})
        assert fitted.exit_code == 0
        assert max(len(line) for line in fitted.output.splitlines()) <= width, fitted.output
        assert "Head to head" in fitted.output and "By seat" in fitted.output
    narrow = cli.invoke(main, ["report", str(folder)], env={"COLUMNS": "40"}).output
    assert LONG not in narrow and LONG[:10] in narrow  # cut, ending in ~
    assert "columns: the entrants by place" in narrow


def test_tables_escape_names_in_every_format(wide):
    from arena.report.tables import build_tables, load_games
    from arena.report.text import format_tables

    games = load_games(wide[0] / "games.csv", 3)
    games["entrant"] = games["entrant"].astype(str).replace("greedy", "gr\x1b[2Jeedy\u202e")
    tables = build_tables(games, "uptown")
    for fmt in ("text", "markdown", "csv", "json"):
        for width in (None, 50):
            out = format_tables(tables, fmt, title="t", width=width)
            out.encode("utf-8")
            assert "\x1b" not in out
            assert "\u202e" not in out
            assert "gr\\x1b[2Jeedy\\u202e" in out or "gr\\u001b[2Jeedy\\u202e" in out


def test_replay_result_fits_the_width(cli):
    result = cli.invoke(main, ["replay", str(GOLDEN / "5p-seed5.json")], env={"COLUMNS": "80"})
    assert result.exit_code == 0
    assert max(len(line) for line in result.output.splitlines()[1:]) <= 80  # all but the line naming the file
    assert "left out to fit 80 columns: captures" in result.output
    whole = cli.invoke(main, ["replay", str(GOLDEN / "5p-seed5.json")]).output
    assert "captured  penalty  blockers  uptown rank  blockers rank" in whole


def test_the_fault_summary_escapes_what_bots_wrote() -> None:
    """A fault's kind and message come from a bot or a record: the run's last lines print them escaped."""
    from arena.results.faults import FaultSummary

    summary = FaultSummary()
    summary.add("mallory", "crash", "boom\x1b]0;owned\x07\r\nfake line", "t000-d0000-r0")
    (header, line) = summary.lines()
    assert "\x1b" not in line and "\r" not in line and "\n" not in line
    assert "\\x1b]0;owned\\x07\\r\\nfake line" in line
