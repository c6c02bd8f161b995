"""No bot can work out a deal from what it is given (rule S1: a game's deal follows from its seed alone).

:class:`~tests.fixtures.hostile_bots.DealFinderBot` gets its ``seed`` and its opening racks, as every bot
does, and knows the tournament file's names: it tries the game seeds below 10**5 against its seed and
every master seed below 10**4 of the tournament's public tables against its racks, and writes the
deal it finds (its rivals' racks and draws) to its log.  With seeds made of public things alone it
finds them for a file like the quickstart's (master seed 2024); in a run keyed with its results
folder's deal key it never does; with ``public_deals = true`` it does again, as the option says.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.plan.config import load_config
from arena.play.referee import play_game
from arena.rules import GameSettings
from arena.rules.tiles import COLORS
from arena.tournament.run.runner import run_tournament

FIXTURES = Path(__file__).parents[1] / "fixtures"
HOSTILE = FIXTURES / "hostile_bots.py"
#: The finder's table, as the schedule keys it: the entrants' names joined by ``|``.
TABLE = "finder|greedy"
#: The master seed of the quickstart, a small number as every shipped tournament file has.
MASTER = 2024
SETTINGS = GameSettings.for_players(2)


def tournament(folder: Path, extra: str = "") -> Path:
    """Two entrants, one round of both seatings, played in the sandbox; the first turn has time to search."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "search.toml"
    path.write_text(
        f'name = "search"\nplayers = 2\ndeals = 1\nseed = {MASTER}\ntime_limit = 60\nrotate = true\n{extra}\n'
        f'[[entrants]]\nname = "finder"\nbot = "{HOSTILE}:DealFinderBot"\n'
        f'options = {{ tables = "{TABLE}", rounds = 1, seatings = 2 }}\n'
        '[[entrants]]\nname = "greedy"\nbot = "greedy"\n'
    )
    return path


def run(folder: Path, extra: str = "") -> tuple[list[dict], list[str]]:
    """The records of the run and the finder's log lines."""
    path = tournament(folder, extra)
    out = folder / "results"
    run_tournament(load_config(path), path.read_text(), out, workers=1, hide=(str(path),))
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    log = (out / "bots" / "finder.log").read_text().splitlines()
    return records, log


def found_piles(log: list[str]) -> dict[int, dict[str, str]]:
    """What the finder found, by deal: the piles of its rivals' colors, as tile texts."""
    piles: dict[int, dict[str, str]] = {}
    deal = None
    for line in log:
        words = line.split()
        if words[:3] == ["HOSTILE", "FOUND", "deal"]:
            deal = int(words[3])
            piles[deal] = {}
        elif words[:3] == ["HOSTILE", "FOUND", "pile"] and deal is not None:
            piles[deal][words[3]] = words[4]
    return piles


@pytest.mark.slow
def test_s1_no_bot_finds_the_deal_of_a_keyed_run(tmp_path):
    records, log = run(tmp_path)
    assert len(records) == 2
    assert sum(line.startswith("HOSTILE SEARCHED") for line in log) == 2  # it looked in both games
    assert not [line for line in log if "FOUND" in line], log
    # the deal key is the folder's own, its owner's alone; the file says nothing of it
    key = tmp_path / "results" / "deal.key"
    assert key.stat().st_mode & 0o777 == 0o600 and len(key.read_text().strip()) == 64


@pytest.mark.slow
def test_s1_with_public_deals_the_file_gives_every_deal_as_it_says(tmp_path):
    records, log = run(tmp_path, "public_deals = true")
    assert not (tmp_path / "results" / "deal.key").exists()
    piles = found_piles(log)
    assert set(piles) == {record["seed"] for record in records}
    assert any(f"by master seed {MASTER}" in line for line in log)
    for record in records:
        finder = next(p["seat"] for p in record["players"] if p["name"] == "finder")
        rivals = [COLORS[color] for seat, colors in enumerate(SETTINGS.seat_colors) if seat != finder
                  for color in colors]
        assert len(rivals) == 2  # two players: each seat has two colors (T2)
        assert piles[record["seed"]] == {color: ",".join(record["deal"][color]) for color in rivals}
    # arena play --seed 7: a single game's deal is public by choice too, and the bot's seed says which it is
    (tmp_path / "logs").mkdir()
    outcome = play_game([f"{HOSTILE}:DealFinderBot:masters=0", "greedy"], 7, logs=tmp_path / "logs",
                        time=60)
    played = "\n".join(p.read_text() for p in (tmp_path / "logs").iterdir())
    assert "HOSTILE FOUND deal 7 by bot seed" in played, played
    assert outcome.record["seed"] == 7
