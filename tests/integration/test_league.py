"""A league that grows: ``arena run FILE --resume --update`` keeps what it can, plays only the new games.

The games a league plays after entrants join and change are the games a run from scratch of the final
file plays, record for record (their table numbers apart: a league keeps the numbers tables had when
first played); an edit that would change what stored games mean is refused before anything is written.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.plan.config import TournamentConfig, parse_config
from arena.plan.schedule import schedule
from arena.results.files import LEAGUE_FILE, RETIRED_FILE
from arena.results.league import plan_update

HEAD = """
name = "league"
players = 3
deals = 2
seed = 11
seating = "rotate"
isolation = "none"
"""


def entrants(*pairs: tuple[str, str]) -> str:
    return "".join(f'\n[[entrants]]\nname = "{name}"\nbot = "{bot}"\n' for name, bot in pairs)


A, B, C, D = ("a", "random"), ("b", "greedy"), ("c", "random"), ("d", "greedy")
FIRST = HEAD + entrants(A, B, C)
#: d joins at the top of the file: the entrants already there keep their order, so their tables and seeds.
JOINED = HEAD + entrants(D, A, B, C)
#: c's bot is replaced.
REPLACED = HEAD + entrants(D, A, B, ("c", "greedy"))


def run(cli: CliRunner, *args: str) -> Any:
    result = cli.invoke(main, ["run", *args, "-j", "1"])
    return result


def played(output: str) -> int:
    found = re.search(r"played (\d+) games", output)
    assert found, output
    return int(found.group(1))


def records(folder: Path) -> dict[tuple[Any, ...], dict[str, Any]]:
    """Every record of ``folder`` by who sat where, deal and seating, without the table's number."""
    found = {}
    for line in gzip.decompress((folder / "records.jsonl.gz").read_bytes()).decode().splitlines():
        record = json.loads(line)
        key = (tuple(p["name"] for p in record["players"]), record["tournament"]["deal"],
               record["tournament"]["rotation"])
        record.pop("game_id")
        record["tournament"].pop("table")
        assert key not in found
        found[key] = record
    return found


def snapshot(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.slow  # a real run: seconds
def test_a_league_with_an_entrant_added_then_one_replaced_plays_exactly_the_new_games(
        cli: CliRunner, write_tournament: Callable[..., Path], tmp_path: Path) -> None:
    league = tmp_path / "league"
    path = write_tournament(FIRST)
    first = run(cli, str(path), "--out", str(league))
    assert first.exit_code == 0, first.output
    assert played(first.output) == 3 * 2  # one table, 3 rotations, 2 deals

    write_tournament(JOINED)
    joined = run(cli, str(path), "--out", str(league), "--resume", "--update")
    assert joined.exit_code == 0, joined.output
    assert "update: keeps 6 stored game(s), drops 0, adds 18 to play" in joined.output
    assert "adds 18: entrant 'd' joined" in joined.output
    assert played(joined.output) == 18
    # the plan is said before the first game
    assert joined.output.index("update: keeps") < joined.output.index("played 18")

    write_tournament(REPLACED)
    replaced = run(cli, str(path), "--out", str(league), "--resume", "--update")
    assert replaced.exit_code == 0, replaced.output
    assert "update: keeps 6 stored game(s), drops 18, adds 18 to play" in replaced.output
    assert "drops 18: entrant 'c' changed: its class" in replaced.output
    assert played(replaced.output) == 18  # c's three tables; d, a, b's table is kept
    assert len((league / RETIRED_FILE).read_text().splitlines()) == 18

    scratch = tmp_path / "scratch"
    # the league's own deal key (its deal.key) deals a fresh folder's games the same
    key = (league / "deal.key").read_text().strip()
    fresh = run(cli, str(path), "--out", str(scratch), "--deal-key", key)
    assert fresh.exit_code == 0, fresh.output
    assert played(fresh.output) == 24
    mine, theirs = records(league), records(scratch)
    assert mine.keys() == theirs.keys()
    for key in theirs:
        assert mine[key] == theirs[key], key

    stored = json.loads((league / LEAGUE_FILE).read_text())
    assert stored["tables"] == ["a|b|c", "d|a|b", "d|a|c", "d|b|c"]  # a fresh run numbers d's tables first
    assert [u["added"] for u in stored["updates"]] == [["d"], []]
    assert [u["changed"] for u in stored["updates"]] == [[], ["c"]]

    report = cli.invoke(main, ["report", str(league)])
    assert report.exit_code == 0, report.output
    section = report.output[report.output.index("League (2 update(s)"):].splitlines()
    assert section[1].split()[:3] == ["entrant", "games", "joined"]
    rows = {line.split()[0]: line.split() for line in section[2:]}
    assert rows["d"][1] == rows["a"][1] == "18"  # three tables each, whenever they joined
    assert rows["c"][4] != "-"  # c's bot changed


@pytest.mark.slow  # a real run: seconds
def test_a_plain_resume_of_a_league_keeps_its_game_ids(
        cli: CliRunner, write_tournament: Callable[..., Path], tmp_path: Path) -> None:
    league = tmp_path / "league"
    path = write_tournament(FIRST)
    assert run(cli, str(path), "--out", str(league)).exit_code == 0
    write_tournament(JOINED)
    assert run(cli, str(path), "--out", str(league), "--resume", "--update").exit_code == 0
    ids = sorted(line.split(",", 1)[0] for line in (league / "games.csv").read_text().splitlines()[1:])
    again = run(cli, str(path), "--out", str(league), "--resume")
    assert again.exit_code == 0, again.output
    assert played(again.output) == 0 and "24 were stored already" in again.output
    assert sorted(line.split(",", 1)[0] for line in (league / "games.csv").read_text().splitlines()[1:]) == ids
    report = cli.invoke(main, ["report", str(league)])
    assert report.exit_code == 0 and "left out" not in report.output


@pytest.mark.slow  # a real run: seconds
def test_a_folder_without_league_file_is_numbered_by_its_own_schedule(
        cli: CliRunner, write_tournament: Callable[..., Path], tmp_path: Path) -> None:
    league = tmp_path / "league"
    path = write_tournament(FIRST)
    assert run(cli, str(path), "--out", str(league)).exit_code == 0
    (league / LEAGUE_FILE).unlink()  # as a folder written before leagues
    write_tournament(JOINED)
    joined = run(cli, str(path), "--out", str(league), "--resume", "--update")
    assert joined.exit_code == 0, joined.output
    assert played(joined.output) == 18
    assert json.loads((league / LEAGUE_FILE).read_text())["tables"][0] == "a|b|c"


@pytest.mark.slow  # a real run: seconds
def test_an_entrant_removed_drops_its_games_into_retired(
        cli: CliRunner, write_tournament: Callable[..., Path], tmp_path: Path) -> None:
    league = tmp_path / "league"
    path = write_tournament(JOINED)
    assert run(cli, str(path), "--out", str(league)).exit_code == 0
    write_tournament(HEAD + entrants(D, A, C))
    removed = run(cli, str(path), "--out", str(league), "--resume", "--update")
    assert removed.exit_code == 0, removed.output
    assert "update: keeps 6 stored game(s), drops 18, adds 0 to play" in removed.output
    assert "drops 18: entrant 'b' left" in removed.output
    assert played(removed.output) == 0
    assert len((league / RETIRED_FILE).read_text().splitlines()) == 18
    assert "b" not in (league / "standings.csv").read_text().split()


@pytest.mark.parametrize(("edit", "key"), [
    (lambda t: t.replace('seed = 11', 'seed = 12'), "seed"),
    (lambda t: t.replace('players = 3', 'players = 2'), "players"),
    (lambda t: t.replace('seating = "rotate"', 'seating = "all"'), "seating"),
    (lambda t: t.replace('isolation = "none"', 'isolation = "none"\nscoring = "blockers"'), "scoring"),
    (lambda t: t.replace('isolation = "none"', 'isolation = "none"\ntime_limit = 2.0'), "time_limit"),
    (lambda t: t.replace('isolation = "none"', 'isolation = "none"\nclock = "60+1"'), "clock"),
    (lambda t: HEAD + entrants(B, A, C), "entrants"),
])
@pytest.mark.slow  # a real run: seconds
def test_an_update_that_would_change_stored_games_is_refused_and_nothing_is_lost(
        cli: CliRunner, write_tournament: Callable[..., Path], tmp_path: Path,
        edit: Callable[[str], str], key: str) -> None:
    league = tmp_path / "league"
    path = write_tournament(FIRST)
    assert run(cli, str(path), "--out", str(league)).exit_code == 0
    before = snapshot(league)
    write_tournament(edit(FIRST))
    refused = run(cli, str(path), "--out", str(league), "--resume", "--update")
    assert refused.exit_code == 1
    lines = refused.output.strip().splitlines()
    assert lines[-1].startswith("Error: ") and f": {key}:" in lines[-1], refused.output
    assert "Traceback" not in refused.output and "played 0 games" not in refused.output
    after = snapshot(league)
    after.pop(".arena.lock", None), before.pop(".arena.lock", None)
    assert after == before


def test_update_excludes_overwrite_and_allow_changed_bots(
        cli: CliRunner, write_tournament: Callable[..., Path]) -> None:
    path = write_tournament(FIRST)
    for other in ("--overwrite", "--allow-changed-bots"):
        result = cli.invoke(main, ["run", str(path), "--update", other])
        assert result.exit_code == 2 and "choose one" in result.output


def keyed(text: str) -> TournamentConfig:
    """The tournament of ``text`` with a results folder's deal key."""
    return replace(parse_config(text, "t.toml"), deal_key="0f" * 32)


def test_the_plan_counts_each_game_once_and_keeps_ids() -> None:
    old = keyed(FIRST)
    new = keyed(JOINED + "")
    stored = [game.game_id for game in schedule(old)]
    same = {n: {"spec": "x"} for n in ("a", "b", "c", "d")}
    plan = plan_update(old, new, stored, same, same)
    assert plan.kept == set(stored) and not plan.dropped
    assert sum(plan.added.values()) == 18
    assert plan.tables[0] == "a|b|c"
    more = keyed(JOINED.replace("deals = 2", "deals = 3"))
    plan = plan_update(old, more, stored, same, same)
    assert plan.added["deals 2 -> 3"] == 3 and plan.added["entrant 'd' joined"] == 27


def test_no_two_games_of_a_league_that_grew_share_a_deal() -> None:
    # S1: every game its own deal, the kept games' and the new tables' alike (a league keeps its numbering)
    old = keyed(FIRST)
    plan = plan_update(old, keyed(JOINED.replace("deals = 2", "deals = 3")), [g.game_id for g in schedule(old)],
                       None, {})
    grown = keyed(JOINED.replace("deals = 2", "deals = 3"))
    seeds = [game.seed for game in schedule(grown, plan.tables)]
    assert len(seeds) == 4 * 3 * 3 and len(set(seeds)) == len(seeds)
    kept = {g.game_id: g.seed for g in schedule(old)}
    assert all(kept[g.game_id] == g.seed for g in schedule(grown, plan.tables) if g.game_id in kept)
    duplicate = replace(grown, duplicate=True)
    assert len({game.seed for game in schedule(duplicate, plan.tables)}) == 4 * 3  # one deal a round of a table
