"""A results folder's secret deal key: made with the folder, kept by a resume, refused when it is gone.

Every game seed of a tournament (rule S1: a game's deal follows from its seed) is keyed with the key
its results folder keeps in ``deal.key``; the records keep the game seed, so they replay and verify.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.plan.config import ConfigError, parse_config
from arena.plan.schedule import game_seed, schedule
from arena.records import replay
from arena.results.dealkey import read_key
from arena.results.tournament_file import read_tournament
from arena.wire.protocol import bot_random, bot_seed

TOURNAMENT = """name = "keyed"
players = 2
deals = 2
seed = 5
time_limit = 5
isolation = "none"
[[entrants]]
name = "rnd"
bot = "random"
[[entrants]]
name = "greedy"
bot = "greedy"
"""


def run(cli: CliRunner, *args: str):
    return cli.invoke(main, ["run", *args, "-j", "1", "--quiet"])


def records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]


@pytest.fixture
def keyed(cli, write_tournament, tmp_path) -> tuple[Path, Path]:
    path = write_tournament(TOURNAMENT)
    out = tmp_path / "out"
    result = run(cli, str(path), "--out", str(out), "--no-compress")
    assert result.exit_code == 0, result.output
    return path, out


def test_s1_a_new_folder_gets_a_secret_key_its_games_are_dealt_with(keyed):
    path, out = keyed
    key_file = out / "deal.key"
    assert key_file.stat().st_mode & 0o777 == 0o600
    key = read_key(out)
    assert len(key) == 64 and key not in path.read_text() and key not in (out / "tournament.toml").read_text()
    stored = records(out)
    assert len(stored) == 4 and len({r["seed"] for r in stored}) == 4  # every game its own deal
    for record in stored:
        deal, rotation = record["tournament"]["deal"], record["tournament"]["rotation"]
        assert record["seed"] == game_seed(5, "rnd|greedy", deal, rotation, key)
        assert record["seed"] != game_seed(5, "rnd|greedy", deal, rotation)  # not the public seed
        assert replay(record).seed == record["seed"]  # the record replays from its own seed
    config, _ = read_tournament(out)
    assert {g.game_id: g.seed for g in schedule(config)} == {r["game_id"]: r["seed"] for r in stored}


@pytest.mark.slow  # a real run: seconds
def test_a_resume_keeps_the_key_and_an_overwrite_makes_a_new_one(cli, keyed):
    path, out = keyed
    key = read_key(out)
    lines = (out / "records.jsonl").read_text().splitlines(keepends=True)
    (out / "records.jsonl").write_text("".join(lines[:2]))  # two games lost: the resume plays them again
    result = run(cli, str(path), "--out", str(out), "--resume")
    assert result.exit_code == 0, result.output
    assert read_key(out) == key
    assert sorted(records(out), key=lambda r: r["game_id"]) == sorted(
        (json.loads(line) for line in lines), key=lambda r: r["game_id"])
    result = run(cli, str(path), "--out", str(out), "--overwrite")
    assert result.exit_code == 0, result.output
    assert read_key(out) != key and (out / "deal.key").stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("damage", ["remove", "garble"])
def test_a_folder_without_its_key_is_refused_in_one_line_and_kept(cli, keyed, damage):
    path, out = keyed
    before = {name: (out / name).read_bytes() for name in ("games.csv", "records.jsonl")}
    if damage == "remove":
        (out / "deal.key").unlink()
    else:
        (out / "deal.key").write_text("not a key\n")
    for more in ([], ["--update"]):
        result = run(cli, str(path), "--out", str(out), "--resume", *more)
        assert result.exit_code == 1
        message = result.output.strip()
        assert message.startswith("Error: ") and "deal.key" in message and "\n" not in message, message
        assert "Traceback" not in result.output
    assert {name: (out / name).read_bytes() for name in before} == before  # nothing stored was dropped


def test_a_published_key_deals_the_same_games_elsewhere_and_a_wrong_one_is_refused(cli, keyed, tmp_path):
    path, out = keyed
    key = read_key(out)
    again = tmp_path / "again"
    result = run(cli, str(path), "--out", str(again), "--no-compress", "--deal-key", key)
    assert result.exit_code == 0, result.output
    assert {r["game_id"]: r["seed"] for r in records(again)} == {r["game_id"]: r["seed"] for r in records(out)}
    # a copy of the folder without its key: the right key is taken back, a wrong one refused, nothing lost
    (out / "deal.key").unlink()
    wrong = run(cli, str(path), "--out", str(out), "--resume", "--deal-key", "1" * 64)
    assert wrong.exit_code == 1 and "does not deal the games stored there" in wrong.output
    assert not (out / "deal.key").exists() and len(records(out)) == 4
    report = cli.invoke(main, ["report", str(out), "--deal-key", key])
    assert report.exit_code == 0, report.output
    right = run(cli, str(path), "--out", str(out), "--resume", "--deal-key", key)
    assert right.exit_code == 0, right.output
    assert read_key(out) == key and len(records(out)) == 4
    # another key than the folder's is refused
    other = run(cli, str(path), "--out", str(out), "--resume", "--deal-key", "2" * 64)
    assert other.exit_code == 1 and "holds another deal key" in other.output


@pytest.mark.slow  # a real run: seconds
def test_public_deals_need_no_key_and_the_file_alone_deals_them(cli, write_tournament, tmp_path):
    path = write_tournament(TOURNAMENT.replace("seed = 5\n", "seed = 5\npublic_deals = true\n"))
    out = tmp_path / "public"
    assert run(cli, str(path), "--out", str(out), "--no-compress").exit_code == 0
    assert not (out / "deal.key").exists()
    for record in records(out):
        t = record["tournament"]
        assert record["seed"] == game_seed(5, "rnd|greedy", t["deal"], t["rotation"])
    # --public-deals does the same for a file that does not say it, and the folder keeps it for a resume
    plain = write_tournament(TOURNAMENT, "plain.toml")
    other = tmp_path / "option"
    assert run(cli, str(plain), "--out", str(other), "--no-compress", "--public-deals").exit_code == 0
    assert {r["seed"] for r in records(other)} == {r["seed"] for r in records(out)}
    assert "public_deals = true" in (other / "tournament.toml").read_text()
    assert run(cli, str(plain), "--out", str(other), "--resume", "--public-deals").exit_code == 0


def test_a_key_and_public_deals_exclude_each_other_in_one_line():
    with pytest.raises(ConfigError, match=r"^t.toml: deal_key: .*give only one$"):
        parse_config(TOURNAMENT.replace("seed = 5\n", f'seed = 5\npublic_deals = true\ndeal_key = "{"a" * 64}"\n'),
                     "t.toml")
    with pytest.raises(ConfigError, match="deal_key: a deal key is 64 hexadecimal digits"):
        parse_config(TOURNAMENT.replace("seed = 5\n", 'seed = 5\ndeal_key = "abc"\n'), "t.toml")
    with pytest.raises(ConfigError, match="duplicate: must be true or false"):
        parse_config(TOURNAMENT.replace("seed = 5\n", "seed = 5\nduplicate = 1\n"), "t.toml")


def test_cli_refuses_a_key_with_public_deals_in_one_line(cli, write_tournament, tmp_path):
    path = write_tournament(TOURNAMENT)
    result = run(cli, str(path), "--out", str(tmp_path / "x"), "--public-deals", "--deal-key", "a" * 64)
    assert result.exit_code == 1 and result.output.count("\n") == 1 and "--public-deals" in result.output
    match = cli.invoke(main, ["match", "random", "greedy", "--games", "2", "--public-deals", "--deal-key", "a" * 64])
    assert match.exit_code == 1 and match.output.count("\n") == 1


def test_the_bot_seed_of_a_keyed_game_is_an_hmac_and_no_oracle_for_the_game_seed():
    key = "3c" * 32
    keyed = bot_seed(7, 1, key)
    assert keyed == hmac.new(bytes.fromhex(key), b"uptown-bot/1:7:1", hashlib.sha256).hexdigest()
    assert keyed != bot_seed(7, 1) == hashlib.sha256(b"uptown-bot/1:7:1").hexdigest()
    assert bot_random(7, 1, key).random() == random.Random(int(keyed, 16)).random()
    # without the key, no small game seed gives the keyed bot seed
    assert keyed not in {bot_seed(seed, 1) for seed in range(10_000)}
