"""A deals file: a fixed list of game seeds that tournaments and matches play, the same tiles in any run."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from arena.cli import main
from arena.plan.config import ConfigError, load_config
from arena.plan.deals import seating_seed

DEALS = "# shared deals\n12\n99   # a close one\n\n7\n"


def tournament(folder: Path, deals: str = '"deals.txt"', extra: str = "", entrants: tuple[str, ...] = ("random", "greedy"),
               players: int = 2) -> Path:
    path = folder / "t.toml"
    bots = "".join(f'\n[[entrants]]\nname = "e{i}"\nbot = "{bot}"\n' for i, bot in enumerate(entrants))
    path.write_text(f'name = "dl"\nplayers = {players}\ndeals = {deals}\nseed = 1\nisolation = "none"\n{extra}{bots}',
                    encoding="utf-8")
    return path


def seeds(out: Path) -> dict[str, int]:
    rows = csv.DictReader(io.StringIO((out / "games.csv").read_text(encoding="utf-8")))
    return {row["game_id"]: int(row["seed"]) for row in rows}


def run(cli, path: Path, out: Path, *more: str):
    return cli.invoke(main, ["run", str(path), "--out", str(out), "-q", "-j", "1", *more])


def test_two_runs_of_a_deals_file_deal_the_same_tiles(cli, tmp_path):
    (tmp_path / "deals.txt").write_text(DEALS, encoding="utf-8")
    path = tournament(tmp_path, entrants=("random", "greedy", "random"))
    assert load_config(path).deal_seeds == (12, 99, 7) and load_config(path).deals == 3
    first, second = tmp_path / "a", tmp_path / "b"
    for out in (first, second):
        result = run(cli, path, out)
        assert result.exit_code == 0, result.output
    assert (first / "deal.key").read_text() != (second / "deal.key").read_text()  # each folder its own secret key
    assert seeds(first) == seeds(second)
    # Round d of every table (three tables of two) is dealt from the file's d-th seed, seating by seating.
    for game_id, seed in seeds(first).items():
        deal, seating = int(game_id.split("-")[1][1:]), int(game_id.split("-")[2][1:])
        assert seed == seating_seed((12, 99, 7)[deal], seating)
    # The folder keeps the seeds themselves: reports need no deals file.
    stored = (first / "tournament.toml").read_text(encoding="utf-8")
    assert "deals = [  # the deals of deals.txt\n    12, 99, 7,\n]\n" in stored
    (tmp_path / "deals.txt").unlink()
    assert cli.invoke(main, ["report", str(first)]).exit_code == 0


def test_the_duplicate_format_deals_the_file_s_seeds_as_they_are(cli, tmp_path):
    (tmp_path / "deals.txt").write_text(DEALS, encoding="utf-8")
    path = tournament(tmp_path, deals='{ file = "deals.txt", count = 2 }', extra="duplicate = true\n")
    out = tmp_path / "out"
    assert run(cli, path, out).exit_code == 0
    assert sorted(set(seeds(out).values())) == [12, 99]  # arena play --seed 12 deals these tiles


def test_a_resume_and_an_update_keep_the_deals(cli, tmp_path):
    deals = tmp_path / "deals.txt"
    deals.write_text(DEALS, encoding="utf-8")
    path = tournament(tmp_path)
    out = tmp_path / "out"
    assert run(cli, path, out).exit_code == 0
    whole = seeds(out)
    # Interrupted after its first game: the resume plays the rest with the file's deals.
    rows = (out / "games.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    (out / "games.csv").write_text("".join(rows[:3]), encoding="utf-8")
    (out / "checkpoints.jsonl").unlink()
    resumed = run(cli, path, out, "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert seeds(out) == whole
    # A deals file changed since is another tournament...
    deals.write_text(DEALS + "5\n", encoding="utf-8")
    refused = run(cli, path, out, "--resume")
    assert refused.exit_code == 1 and "differs in deals)" in refused.output
    # ...which --update plays on from the games stored: the first three rounds kept, the fourth played.
    updated = run(cli, path, out, "--update")
    assert updated.exit_code == 0, updated.output
    after = seeds(out)
    assert len(after) == 8 and {k: v for k, v in after.items() if k in whole} == whole
    assert sorted(v for k, v in after.items() if k not in whole) == sorted(seating_seed(5, r) for r in (0, 1))


@pytest.mark.parametrize(("text", "deals", "message"), [
    (None, '"deals.txt"', "t.toml: deals: deals.txt: no such deals file (read from "),
    ("12\nabc\n", '"deals.txt"', "t.toml: deals: deals.txt line 2: 'abc' is not a whole number (a deals file holds "
                                 "one game seed a line, # for comments)"),
    ("# nothing\n\n", '"deals.txt"', "t.toml: deals: deals.txt: holds no deal (one game seed a line, # for comments)"),
    ("1\n-4\n", '"deals.txt"', "t.toml: deals: deals.txt line 2: '-4' is not a seed from 0 to 9223372036854775807"),
    ("1\n2\n1\n", '"deals.txt"', "t.toml: deals: deals.txt line 3: seed 1 is there already (line 1; each deal once)"),
    ("1\n2\n", '{ file = "deals.txt", count = 3 }', "t.toml: deals: deals.txt holds 2 deals, fewer than the 3 asked "
                                                    "(deals.count)"),
    ("1\n", "[1, 2.5]", "t.toml: deals: an array of deals holds whole numbers (game seeds) only"),
])
def test_a_bad_deals_file_is_one_line(cli, tmp_path, text, deals, message):
    if text is not None:
        (tmp_path / "deals.txt").write_text(text, encoding="utf-8")
    path = tournament(tmp_path, deals=deals)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value).startswith(f"{path}: {message.removeprefix('t.toml: ')}")
    result = run(cli, path, tmp_path / "out")
    assert result.exit_code == 1 and result.output.strip().splitlines() == [f"Error: {caught.value}"]


def test_a_match_plays_a_deals_file_and_refuses_one_too_short(cli, tmp_path):
    deals = tmp_path / "deals.txt"
    deals.write_text(DEALS, encoding="utf-8")
    outs = [tmp_path / "m1", tmp_path / "m2"]
    for out in outs:
        result = cli.invoke(main, ["match", "greedy", "random", "--games", "6", "--deals", str(deals),
                                   "--isolation", "none", "--workers", "1", "--out", str(out), "-q"])
        assert result.exit_code == 0, result.output
    assert seeds(outs[0]) == seeds(outs[1])
    assert sorted(set(seeds(outs[0]).values())) == sorted(seating_seed(s, r) for s in (12, 99, 7) for r in (0, 1))
    short = cli.invoke(main, ["match", "greedy", "random", "--games", "8", "--deals", str(deals), "--out",
                              str(tmp_path / "m3")])
    assert short.exit_code == 1 and short.output.strip().splitlines() == [
        f"Error: --deals: {deals} holds 3 deals, fewer than the 4 the match may play (--games 8, 2 games a deal); "
        f"give --games at most 6, or a longer file"]
    missing = cli.invoke(main, ["match", "greedy", "random", "--games", "2", "--deals", str(tmp_path / "no.txt")])
    assert missing.output.strip().splitlines() == [f"Error: {tmp_path / 'no.txt'}: no such deals file"]
