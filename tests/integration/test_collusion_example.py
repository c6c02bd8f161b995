"""The collusion example (examples/collusion) in miniature: a round of its tournament, and the test
of arena.stats.collusion flags the team, both ways, and nobody else."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from arena.cli import main
from arena.stats.collusion import FLAGGED, HELPED, HELPER, collusion_table

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "collusion"


@pytest.mark.slow
def test_one_round_of_the_example_flags_the_team(tmp_path: Path, cli) -> None:
    for name in ("tournament.toml", "team_bot.py"):
        shutil.copy(EXAMPLE / name, tmp_path / name)
    toml = tmp_path / "tournament.toml"
    toml.write_text(toml.read_text().replace("deals = 4 ", "deals = 1 "), encoding="utf-8")
    done = cli.invoke(main, ["run", str(toml), "--out", str(tmp_path / "out"), "-j", "1"])
    assert done.exit_code == 0, done.output
    games = pd.read_csv(tmp_path / "out" / "games.csv")
    assert games["game_id"].nunique() == 60
    table = collusion_table(games)
    flagged = {(row[HELPER], row[HELPED]) for _, row in table[table[FLAGGED]].iterrows()}
    assert flagged == {("crow-1", "crow-2"), ("crow-2", "crow-1")}
