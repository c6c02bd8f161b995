"""Entrants' identities: in every record of a run, stored with the run, and ``--resume`` refuses changed bots."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from arena.cli import main
from arena.plan.config import parse_config
from arena.results.files import IDENTITY_FILE
from arena.results.identity import _program_identity, bot_identity, differences
from arena.tournament.run.runner import RunError, run_tournament

ROOT = Path(__file__).resolve().parents[2]

FILE_BOT = '''
from typing import ClassVar

from arena.api import Bot, Option


class FileBot(Bot):
    """Plays the first legal move."""

    options: ClassVar[dict[str, Option]] = {"depth": Option(1)}

    def choose(self, view):
        return next(iter(view.legal))
'''

PROGRAM = '''
import json, sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "hello", "protocol": "uptown-bot/1", "name": "first",
                          "options": {"style": "calm"}}), flush=True)
    elif message["type"] == "turn":
        print(json.dumps({"type": "move", "move": message["view"]["legal"][0]}), flush=True)
    elif message["type"] == "quit":
        break
'''


def tournament(tmp_path: Path, isolation: str = "none", program: bool = False) -> tuple[Path, str]:
    bot = tmp_path / "file_bot.py"
    bot.write_text(FILE_BOT)
    (tmp_path / "program_bot.py").write_text(PROGRAM)
    third = (f'[[entrants]]\nname = "prog"\ncommand = ["{sys.executable}", "program_bot.py"]\ncwd = "{tmp_path}"\n'
             if program else '[[entrants]]\nname = "greedy"\nbot = "greedy"\n')
    text = f"""
name = "ids"
players = 2
deals = 2
seed = 4
deal_key = "0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f"  # the same deals in every folder compared
time_limit = 5
isolation = "{isolation}"
[[entrants]]
name = "random"
bot = "random"
[[entrants]]
name = "file"
bot = "{bot}:FileBot"
{third}"""
    path = tmp_path / "ids.toml"
    path.write_text(text)
    return path, text


def run(path: Path, text: str, out: Path, **kwargs):
    config = parse_config(text, str(path))
    return run_tournament(config, text, out, **kwargs)


def records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]


def as_a_new_process() -> None:
    """Forget the bot classes this process loaded, as the next ``arena run`` would not have them."""
    import arena.plugins.loading

    arena.plugins.loading._loaded.clear()
    for name in [n for n in sys.modules if n.startswith("arena_bot_file_")]:
        del sys.modules[name]


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.slow
def test_every_record_names_who_played(tmp_path):
    path, text = tournament(tmp_path)
    run(path, text, tmp_path / "out")
    import arena_bots.random_bot

    entries = {}
    for record in records(tmp_path / "out"):
        for player, entry in zip(record["players"], record["bots"], strict=True):
            entries[player["name"]] = entry
    assert entries["random"]["identity"] == {
        "class": "arena_bots.random_bot:RandomBot", "distribution": "uptown-arena", "version": "0.1.0",
        "sha256": sha(Path(arena_bots.random_bot.__file__)),
    }
    assert entries["file"]["identity"] == {"class": f"{tmp_path / 'file_bot.py'}:FileBot",
                                           "sha256": sha(tmp_path / "file_bot.py")}
    assert entries["file"]["options"] == {"depth": 1}
    stored = json.loads((tmp_path / "out" / IDENTITY_FILE).read_text())["entrants"]
    assert stored["file"] == {"spec": f"{tmp_path / 'file_bot.py'}:FileBot", "identity": entries["file"]["identity"],
                              "options": {"depth": 1}}


def test_a_program_entrant_is_its_command_and_the_files_it_names(tmp_path):
    path, text = tournament(tmp_path, program=True)
    config = parse_config(text, str(path))
    identity = bot_identity(config.entrants[2])
    assert identity == {"command": [sys.executable, "program_bot.py"],
                        "sha256": {sys.executable: sha(Path(sys.executable)),
                                   "program_bot.py": sha(tmp_path / "program_bot.py")}}
    assert bot_identity(parse_config(text.replace(sys.executable, "python3"), str(path)).entrants[2])["sha256"] == {
        "program_bot.py": sha(tmp_path / "program_bot.py")}  # a program found through PATH is not hashed


@pytest.mark.slow
def test_records_are_the_same_bytes_with_either_isolation_and_any_workers(tmp_path):
    outs = []
    for index, (isolation, workers) in enumerate([("none", 1), ("process", 2)]):
        folder = tmp_path / str(index)
        folder.mkdir()
        path, text = tournament(folder, isolation)
        # the same bot file in both: the records name it by its path
        text = text.replace(str(folder / "file_bot.py"), str(tmp_path / "0" / "file_bot.py"))
        run(path, text, folder / "out", workers=workers)
        outs.append(sorted((folder / "out" / "records.jsonl").read_text().splitlines()))
    assert outs[0] == outs[1]


@pytest.mark.parametrize("isolation", ["none", "process"])
@pytest.mark.slow
def test_resume_with_changed_code_is_refused_naming_the_entrant(tmp_path, isolation):
    path, text = tournament(tmp_path, isolation)
    out = tmp_path / "out"
    run(path, text, out)
    before = (out / "records.jsonl").read_bytes()
    (tmp_path / "file_bot.py").write_text(FILE_BOT.replace('"depth": Option(1)', '"depth": Option(2)'))
    as_a_new_process()
    with pytest.raises(RunError) as caught:
        run(path, text, out, resume=True)
    message = str(caught.value)
    assert "\n" not in message
    assert "entrant 'file' is not the bot that played the stored games" in message
    assert "its code changed" in message and "option depth 1 -> 2" in message
    assert "--update plays its games again" in message and "--allow-changed-bots keeps them" in message
    assert (out / "records.jsonl").read_bytes() == before


@pytest.mark.slow
def test_resume_with_a_changed_program_is_refused(tmp_path):
    path, text = tournament(tmp_path, "process", program=True)
    out = tmp_path / "out"
    run(path, text, out)
    (tmp_path / "program_bot.py").write_text(PROGRAM.replace('"calm"', '"wild"'))
    with pytest.raises(RunError, match=r"entrant 'prog' .*its code changed \(SHA-256 of program_bot.py\), "
                                       r"option style calm -> wild"):
        run(path, text, out, resume=True)


@pytest.mark.slow
def test_resume_with_the_same_bots_goes_on(tmp_path):
    path, text = tournament(tmp_path)
    out = tmp_path / "out"
    run(path, text, out)
    summary = run(path, text, out, resume=True)
    assert summary.changed == [] and summary.played == 0


@pytest.mark.slow
def test_allow_changed_bots_goes_on_and_says_so(tmp_path, cli):
    path, text = tournament(tmp_path)
    out = tmp_path / "out"
    run(path, text, out)
    (tmp_path / "file_bot.py").write_text(FILE_BOT + "\n# changed\n")
    result = cli.invoke(main, ["run", str(path), "--out", str(out), "--resume", "-q"])
    assert result.exit_code != 0
    assert result.output.count("\n") == 1 and "entrant 'file'" in result.output
    result = cli.invoke(main, ["run", str(path), "--out", str(out), "--resume", "--allow-changed-bots", "-q"])
    assert result.exit_code == 0, result.output
    assert "--allow-changed-bots: entrant 'file' is not the bot that played the stored games" in result.output
    assert "--allow-changed-bots: entrant 'file'" in (out / "arena.log").read_text()
    stored = json.loads((out / IDENTITY_FILE).read_text())["entrants"]
    assert stored["file"]["identity"]["sha256"] == sha(tmp_path / "file_bot.py")
    # acknowledged once: the next resume goes on
    assert cli.invoke(main, ["run", str(path), "--out", str(out), "--resume", "-q"]).exit_code == 0


def test_differences_in_words():
    before = {"identity": {"class": "a:B", "distribution": "d", "version": "1.0", "sha256": "0" * 64},
              "options": {"x": 1, "y": True}}
    now = {"identity": {"class": "a:B", "distribution": "d", "version": "1.1", "sha256": "0" * 64},
           "options": {"x": 2, "y": True, "z": "new"}}
    assert differences(before, before) == ""
    assert differences(before, now) == "its version 1.0 -> 1.1, option x 1 -> 2, option z (none) -> new"


def test_arena_play_records_name_the_resolved_class(tmp_path: Path, cli) -> None:
    """A record from ``arena play`` says which class, distribution and code played each seat (item 4)."""
    out = tmp_path / "game.json"
    result = cli.invoke(main, ["play", "random", "greedy", "--seed", "3", "--isolation", "none",
                               "--record", str(out), "-q"])
    assert result.exit_code == 0, result.output
    bots = json.loads(out.read_text())["bots"]
    assert [b["identity"]["class"] for b in bots] == ["arena_bots.random_bot:RandomBot", "arena_bots.greedy:GreedyBot"]
    assert all(b["identity"]["distribution"] == "uptown-arena" and len(b["identity"]["sha256"]) == 64 for b in bots)


def _bytes_read() -> int:
    """What this process has read so far through read() and its kin (``rchar``)."""
    fields = dict(line.split(": ") for line in Path("/proc/self/io").read_text().splitlines())
    return int(fields["rchar"])


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="no /proc/self/io here to count what is read")
def test_a_large_file_a_command_names_is_not_read_whole_to_identify_it(tmp_path):
    """A 64 MiB library named in a command: its identity reads its first and last MiB, not all of it, and
    still changes when either changes; a small file is hashed whole."""
    library = tmp_path / "model.bin"
    with open(library, "wb") as f:
        f.truncate(64 << 20)
    small = tmp_path / "bot.js"
    small.write_text("// a bot\n")
    before = _bytes_read()
    first = _program_identity(["node", str(small), str(library)], str(tmp_path))["sha256"]
    read = _bytes_read() - before
    assert read < 8 << 20, f"{read} bytes read"
    assert first[str(small)] == hashlib.sha256(small.read_bytes()).hexdigest()
    with open(library, "r+b") as f:
        f.seek(1 << 10)
        f.write(b"changed")
    assert _program_identity(["node", str(small), str(library)], str(tmp_path))["sha256"][str(library)] != first[str(library)]
