"""The collusion example (examples/collusion) as the how-to runs it: its tournament, and the test of
arena.stats.collusion flags the team, both ways, and nobody else."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from arena.cli import main
from arena.stats.collusion import FLAGGED, HELPED, HELPER, collusion_table

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "collusion"


@pytest.mark.slow
def test_the_example_flags_the_team(tmp_path: Path, cli) -> None:
    # the whole example: a round (60 games) is too few for a team to clear the captures margin (25%)
    for name in ("tournament.toml", "team_bot.py"):
        shutil.copy(EXAMPLE / name, tmp_path / name)
    done = cli.invoke(main, ["run", str(tmp_path / "tournament.toml"), "--out", str(tmp_path / "out"), "-j", "1"])
    assert done.exit_code == 0, done.output
    games = pd.read_csv(tmp_path / "out" / "games.csv")
    assert games["game_id"].nunique() == 240
    table = collusion_table(games)
    flagged = {(row[HELPER], row[HELPED]) for _, row in table[table[FLAGGED]].iterrows()}
    assert flagged == {("crow-1", "crow-2"), ("crow-2", "crow-1")}
