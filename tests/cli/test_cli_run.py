"""``arena run``: the command a newcomer runs first, and its one-line errors."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.cli import main
from tests.stored import record_lines

SMALL = """
name = "small"
players = 3
deals = 2
seed = 5
deal_key = "0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f"  # the same deals in every folder compared
time_limit = 5
isolation = "none"
seating = "rotate"
[[entrants]]
bot = "random"
[[entrants]]
bot = "greedy"
[[entrants]]
name = "random-2"
bot = "random"
"""


#: SMALL's bots play in process: isolation never changes a game, and a bot program costs a start.  The
#: tests of the default (every bot a program in the sandbox) and of --isolation write the file without it.
IN_PROCESS = 'isolation = "none"\n'


@pytest.fixture
def small(write_tournament) -> Path:
    return write_tournament(SMALL, "small.toml")


@pytest.fixture
def invoke(cli):
    """``arena run`` with these arguments."""
    return lambda *args: cli.invoke(main, ["run", *args])


@pytest.mark.slow
def test_run_writes_every_file_and_prints_the_standings(tmp_path, results_dir, monkeypatch, invoke,
                                                      write_tournament):
    small = write_tournament(SMALL.replace(IN_PROCESS, ""), "small.toml")  # the default: every bot a program
    monkeypatch.chdir(tmp_path)
    result = invoke(str(small), "--workers", "2")
    assert result.exit_code == 0, result.output
    out = results_dir / "small"  # results/ of the working folder: this test's own
    for name in ("tournament.toml", "games.csv", "records.jsonl.gz", "arena.log", "standings.csv",
                 "head_to_head.csv", "seats.csv"):
        assert (out / name).exists(), name
    assert "small - Standings" in result.stdout
    standings = result.stdout.split("Standings", 1)[1]
    # ordered by the deciding scoring: greedy first against two random bots
    assert standings.splitlines()[2].split()[1] == "greedy"
    assert "6 games" in result.stderr and "played 6 games" in result.stderr and "bots run in " in result.stderr
    assert len(record_lines(out)) == 6


@pytest.mark.slow
def test_quiet_prints_only_the_standings(small, tmp_path, invoke):
    result = invoke(str(small), "--out", str(tmp_path / "o"), "--quiet", "--workers", "1")
    assert result.exit_code == 0
    assert result.stderr == ""
    assert result.stdout.startswith("small - Standings\n")


@pytest.mark.slow
def test_compress_and_start_method(small, tmp_path, invoke):
    result = invoke(str(small), "--out", str(tmp_path / "o"), "-q", "-j", "2", "--compress", "--start-method", "spawn")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "o" / "records.jsonl.gz").exists()
    assert not (tmp_path / "o" / "records.jsonl").exists()


@pytest.mark.slow  # a real run: seconds
def test_records_are_compressed_by_default_and_plain_with_no_compress(small, tmp_path, invoke):
    assert invoke(str(small), "--out", str(tmp_path / "packed"), "-q", "-j", "1").exit_code == 0
    assert invoke(str(small), "--out", str(tmp_path / "plain"), "-q", "-j", "1", "--no-compress").exit_code == 0
    assert not (tmp_path / "packed" / "records.jsonl").exists()
    assert not (tmp_path / "plain" / "records.jsonl.gz").exists()
    # The same games either way; the gzip file is a series of members, one per chunk stored.
    assert sorted(record_lines(tmp_path / "packed")) == sorted(record_lines(tmp_path / "plain"))
    packed = (tmp_path / "packed" / "records.jsonl.gz").stat().st_size
    assert packed * 3 < (tmp_path / "plain" / "records.jsonl").stat().st_size
    # A resume keeps the kind the folder holds, whatever the flag says.
    assert invoke(str(small), "--out", str(tmp_path / "plain"), "-q", "--resume").exit_code == 0
    assert not (tmp_path / "plain" / "records.jsonl.gz").exists()


@pytest.mark.slow
def test_resume_and_refusals(small, tmp_path, invoke, write_tournament):
    out = str(tmp_path / "o")
    assert invoke(str(small), "--out", out, "-q", "-j", "1").exit_code == 0
    again = invoke(str(small), "--out", out, "-q", "-j", "1")
    assert again.exit_code == 1
    assert again.output.strip().splitlines() == [
        f"Error: {out} already holds 6 games of this tournament; add --resume to play only the missing ones, "
        + "or --overwrite to start again"
    ]
    resumed = invoke(str(small), "--out", out, "-j", "1", "--resume")
    assert resumed.exit_code == 0 and "played 0 games" in resumed.stderr and "6 were stored already" in resumed.stderr
    other = write_tournament(SMALL.replace("seed = 5", "seed = 6"), "other.toml")
    refused = invoke(str(other), "--out", out, "-q", "--resume")
    assert refused.exit_code == 1
    assert "already holds a different tournament" in refused.output and "differs in seed" in refused.output
    both = invoke(str(small), "--out", out, "--resume", "--overwrite")
    assert both.exit_code == 1 and "exclude each other" in both.output


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (None, "no such file"),
        ("players = = 2", "not valid TOML"),
        (SMALL + "\nrounds = 2\n", "rounds: unknown key"),
        (SMALL.replace("players = 3", "players = 1"), "players: Uptown is played by 2 to 5 players, not 1"),
        (SMALL.replace("players = 3", "players = 6"), "players: Uptown is played by 2 to 5 players, not 6"),
        (SMALL.replace("deals = 2", "deals = 0"), "deals: must be a whole number of at least 1 and at most 100000, not 0"),
        (SMALL.replace('bot = "greedy"', 'bot = "nobody"'), "entrants[1].bot: bot 'nobody'"),
        (SMALL.replace('bot = "greedy"', 'bot = "greedy:depth=3"'), "entrants[1].bot: bot 'greedy'"),
    ],
)
@pytest.mark.slow
def test_bad_files_are_one_line_errors_and_start_nothing(tmp_path, monkeypatch, text, message, invoke,
                                                         write_tournament):
    monkeypatch.chdir(tmp_path)
    path = write_tournament(text) if text is not None else tmp_path / "t.toml"
    result = invoke(str(path))
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {path}: ") and message in lines[0], result.output
    assert not (tmp_path / "results").exists()


@pytest.mark.slow
def test_unwritable_output_folder(small, tmp_path, invoke):
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = invoke(str(small), "--out", str(blocker / "sub"))
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1].startswith(f"Error: {blocker / 'sub'}: cannot write there")


def test_bad_workers_option(small, invoke):
    result = invoke(str(small), "--workers", "0")
    assert result.exit_code == 2 and "--workers" in result.output


@pytest.mark.slow
def test_records_carry_the_game_id_of_games_csv(small, tmp_path, invoke):
    out = tmp_path / "o"
    assert invoke(str(small), "--out", str(out), "-q", "-j", "1").exit_code == 0
    ids_csv = {line.split(",")[0] for line in (out / "games.csv").read_text().splitlines()[1:]}
    ids_records = {json.loads(line)["game_id"] for line in record_lines(out)}
    assert ids_csv == ids_records and len(ids_csv) == 6


# -- bot programs -----------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = Path(__file__).resolve().parents[1] / "fixtures" / "programs"
EXAMPLES = ROOT / "examples" / "protocol"


def programs_tournament(write_tournament: Callable[..., Path], *entrants: str, extra: str = "") -> Path:
    text = ('name = "programs"\nplayers = 3\ndeals = 2\nseed = 8\ntime_limit = 5\nseating = "rotate"\n'
            f'deal_key = "{"0f" * 32}"\n' + extra)
    for entrant in entrants:
        text += "[[entrants]]\n" + entrant + "\n"
    return write_tournament(text, "programs.toml")


@pytest.mark.slow
def test_a_tournament_of_protocol_programs_in_two_languages(tmp_path, monkeypatch, invoke, write_tournament):
    import shutil
    import sys

    if shutil.which("node") is None:
        pytest.skip("node is not installed: the JavaScript example cannot run")
    monkeypatch.chdir(ROOT)
    path = programs_tournament(
        write_tournament,
        f'name = "js"\ncommand = ["node", "{EXAMPLES / "random_bot.js"}"]\noptions = {{ captures = false }}',
        f'name = "py"\ncommand = ["{sys.executable}", "{EXAMPLES / "random_bot.py"}"]',
        'name = "greedy"\nbot = "greedy"',
        f'name = "example"\nbot = "{ROOT / "examples" / "example_bot.py"}:ExampleBot"',
    )
    out = tmp_path / "out"
    result = invoke(str(path), "--out", str(out), "--workers", "2")
    assert result.exit_code == 0, result.output
    assert "bots run in " in result.stderr
    records = [json.loads(line) for line in record_lines(out)]
    assert len(records) == 4 * 2 * 3 and not any(r["faults"] for r in records)
    specs = {entry["spec"]: entry["options"] for r in records for entry in r["bots"]}
    js = f"exec:node {EXAMPLES / 'random_bot.js'}:captures=false"
    assert specs[js] == {"captures": False}
    assert "random-js: game as seat" in (out / "bots" / "js.log").read_text()
    # The same seeds give the same games, also for programs with generators of their own.
    again = tmp_path / "again"
    assert invoke(str(path), "--out", str(again), "--workers", "1", "-q").exit_code == 0
    assert sorted(record_lines(out)) == \
        sorted(record_lines(again))


@pytest.mark.parametrize("entrant, message", [
    ('name = "gone"\ncommand = ["./no-such-bot"]', "entrants[1].command: bot 'exec:./no-such-bot': "
                                                   "./no-such-bot: ./no-such-bot does not exist"),
    ('name = "text"\ncommand = ["README.md"]', "no program 'README.md' on the bots' PATH"),
    ('name = "mute"\ncommand = ["sleep", "30"]', "sleep 30: no answer to hello within"),
    ('name = "quits"\ncommand = ["true"]', "true: ended before answering hello: exit code 0"),
    ('name = "old"\ncommand = ["PYTHON", "PROGRAMS/other_version.py"]', "speaks protocol \"uptown-bot/0\", "
                                                                       "not uptown-bot/1"),
    ('name = "opts"\ncommand = ["PYTHON", "EXAMPLES/random_bot.py"]\noptions = { depth = 3 }',
     "takes no option 'depth' (its options: captures)"),
    ('name = "both"\nbot = "random"\ncommand = ["true"]', "entrants[1]: give either bot or command, not both"),
    ('name = "env"\ncommand = ["true"]\nenv = { "1X" = "a" }', "entrants[1].env: must be a table of NAME"),
    ('name = "mem"\ncommand = ["true"]\nmemory_mb = 2', "entrants[1].memory_mb: must be a whole number of MiB"),
    ('name = "cwd"\ncommand = ["true"]\ncwd = "/no/such/folder"', "entrants[1].cwd: /no/such/folder is not a folder"),
])
@pytest.mark.slow
def test_bad_programs_are_one_line_errors_before_anything_starts(tmp_path, monkeypatch, entrant, message, invoke,
                                                                 write_tournament):
    import sys

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("arena.play.botprocess.STARTUP_SECONDS", 1.0)
    entrant = entrant.replace("PYTHON", sys.executable).replace("PROGRAMS", str(PROGRAMS))
    entrant = entrant.replace("EXAMPLES", str(EXAMPLES))
    path = programs_tournament(write_tournament, 'bot = "random"', entrant, 'bot = "greedy"')
    result = invoke(str(path), "--out", str(tmp_path / "out"))
    assert result.exit_code != 0
    assert message in result.output and f"{path}: " in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_isolation_none_from_the_command_line(tmp_path, invoke, write_tournament):
    sandboxed = write_tournament(SMALL.replace(IN_PROCESS, 'isolation = "process"\n'), "small.toml")
    result = invoke(str(sandboxed), "--out", str(tmp_path / "o"), "--isolation", "none", "--workers", "1")
    assert result.exit_code == 0, result.output
    assert "isolation none: trusted code only" in result.stderr and "bots run in jail" not in result.stderr
    assert "isolation none" in (tmp_path / "o" / "arena.log").read_text()


FAULTY = '''
from arena.api import Bot


class Broken(Bot):
    """Raises on its second move of every game."""

    def __init__(self, *args):
        super().__init__(*args)
        self.moves = 0

    def choose(self, view):
        self.moves += 1
        if self.moves == 2:
            raise ValueError("no second move")
        return view.legal.choice(self.rng)


class Wrong(Bot):
    """Answers with something that is not a move."""

    def choose(self, view):
        return "B2"
'''


@pytest.mark.parametrize("isolation", ["none", "process"])
@pytest.mark.slow
def test_a_run_ends_with_its_fault_summary_and_the_log(tmp_path, isolation, invoke, write_tournament):
    (tmp_path / "faulty.py").write_text(FAULTY)
    text = (SMALL.replace('bot = "greedy"', f'bot = "{tmp_path}/faulty.py:Broken"\nname = "broken"')
            .replace('name = "random-2"\nbot = "random"', f'name = "wrong"\nbot = "{tmp_path}/faulty.py:Wrong"'))
    path = write_tournament(text, "faulty.toml")
    out = tmp_path / "out"
    result = invoke(str(path), "--out", str(out), "-j", "1", "--isolation", isolation)
    assert result.exit_code == 0, result.output
    err = result.stderr.splitlines()
    # 6 games, each with both bad bots: 12 faults, by entrant and kind, with the first message.
    start = err.index("12 fault(s) in 6 games (faulted seats play on with random legal moves and rank last):")
    table = err[start + 1:start + 4]
    assert table[0].split() == ["entrant", "kind", "count", "first", "(game,", "message)"]
    assert table[1].split()[:3] == ["broken", "exception", "6"]
    assert "ValueError: no second move (at faulty.py:" in table[1]
    assert table[2].split()[:3] == ["wrong", "invalid", "6"]
    assert err[start + 4] == f"Every fault is in {out / 'arena.log'}, with the bot's log to look in for its traceback."
    # Each fault logged once, the traceback in the bot's log.
    log = (out / "arena.log").read_text()
    assert log.count("fault at move") == 12 and log.count("no second move") == 6
    bot_log = (out / "bots" / "broken.log").read_text()
    assert bot_log.count("Traceback (most recent call last)") == 6
    assert 'raise ValueError("no second move")' in bot_log


@pytest.mark.slow
def test_a_run_without_faults_says_so(small, tmp_path, invoke):
    out = tmp_path / "clean"
    result = invoke(str(small), "--out", str(out), "-j", "1")
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[-1] == f"No bot faulted.  Log: {out / 'arena.log'}"


def test_entrants_fewer_than_seats_are_told_why_the_standings_count_more_games(tmp_path, write_tournament, invoke):
    """2 entrants at 4 seats: 18 games, 36 seats each in the standings; the run says why before it starts."""
    path = write_tournament("""name = "repeat"
players = 4
deals = 3
seed = 1
isolation = "none"
[[entrants]]
name = "a"
bot = "random"
[[entrants]]
name = "b"
bot = "random"
""", "repeat.toml")
    result = invoke(str(path), "--out", str(tmp_path / "out"), "--workers", "1")
    assert result.exit_code == 0, result.output
    assert "repeat: 18 games (2 entrants, 4 players" in result.stderr
    assert "2 entrants at 4 seats: the entrants repeat at every table (A, B, A, B), so the standings count each " \
           "entrant's seats, more than the games" in result.stderr
    assert re.search(r"^\d +[ab] +36 ", result.output, re.MULTILINE), result.output


@pytest.mark.parametrize("command", [["run", "{file}"], ["match", "greedy", "random", "--games", "2"]])
@pytest.mark.parametrize("where", ["a-file", "a-file/below"])
def test_an_output_folder_that_cannot_be_made_is_refused_before_the_start_lines(cli, small, tmp_path, command,
                                                                                  where) -> None:
    (tmp_path / "a-file").write_text("not a folder\n")
    out = tmp_path / where
    args = [arg.replace("{file}", str(small)) for arg in command]
    result = cli.invoke(main, [*args, "--out", str(out), "--isolation", "none"])
    assert result.exit_code == 1, result.output
    why = "exists and is not a folder" if where == "a-file" else "cannot write there: "
    assert result.output.startswith(f"Error: {out}: {why}"), result.output  # nothing printed before it
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["a-file", small.name])


def test_checking_the_output_folder_leaves_nothing_made(cli, write_tournament, tmp_path) -> None:
    # Refused after the folder's check, for a bot that cannot be loaded: the folder tried is not left behind.
    bad = write_tournament(SMALL.replace('bot = "greedy"', 'bot = "no-such-bot"'), "bad.toml")
    result = cli.invoke(main, ["run", str(bad), "--out", str(tmp_path / "new" / "deeper" / "out")])
    assert result.exit_code == 1 and "no-such-bot" in result.output, result.output
    assert not (tmp_path / "new").exists()
