"""The native-versus-pure benchmark scripts run, check that the engines agree, and take full bot specs.

Not timed: tiny runs that check what the scripts print and refuse, never how fast anything is.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

from arena.rules import engine as native

ROOT = Path(__file__).resolve().parents[2]
needs_native = pytest.mark.skipif(native.ENGINE != "native", reason=f"native engine not in use: {native.WHY}")


def script(name: str) -> ModuleType:
    """A benchmarks/ script as a module (benchmarks/ is not a package)."""
    path = ROOT / "benchmarks" / f"{name}.py"
    sys.path.insert(0, str(path.parent))
    try:
        spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # the worker processes find its functions by name
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    return module


@needs_native
def test_engine_both_side_by_side_with_playouts(capsys: pytest.CaptureFixture[str]) -> None:
    script("engine").main(["--games", "3", "--rounds", "2", "--playouts", "--playout-games", "3"])
    out = capsys.readouterr().out
    assert re.search(r"per-move loop, native/pure: [0-9.]+x by CPU time", out)
    assert re.search(r"whole random playouts \(native\) / per-move loop \(pure\): [0-9.]+x", out)
    assert re.search(r"whole greedy playouts, native/pure: [0-9.]+x", out)
    lines = out.strip().splitlines()
    # The last-line convention benchmarks/tournament.py reads.
    assert re.fullmatch(r"[0-9.]+ games/s", lines[-1])
    assert lines[-2].startswith("cpu:") and "(native, per-move loop)" in lines[-2]


@needs_native
def test_engine_floor_plays_the_same_games_as_the_native_engine(capsys: pytest.CaptureFixture[str]) -> None:
    engine = script("engine")
    engine.main(["--engine", "native", "--games", "2", "--rounds", "2", "--playouts", "--playout-games", "5",
                 "--floor"])
    out = capsys.readouterr().out
    if "floor: skipped" in out:
        assert engine.shutil.which("cc") is None, out
        return
    # The floor's hash of the games equals the engine's, else the script stops with an AssertionError.
    assert re.search(r"whole random playouts, native / floor: [0-9.]+x by CPU time", out)


@needs_native
def test_mcts_gaps_prints_the_gaps_and_what_common_random_numbers_would_save(capsys: pytest.CaptureFixture[str]) -> None:
    script("mcts_gaps").main(["--deals", "1", "--iterations", "300", "--players", "4", "--samples", "12"])
    lines = capsys.readouterr().out.strip().splitlines()
    assert [line.split(":")[0] for line in lines[:3]] == ["deal 1 turn 10", "deal 1 turn 40", "deal 1 turn 70"]
    assert re.match(r"median gap to the 2nd [0-9.]+, to the 6th [0-9.]+; [0-3] of 3 positions under 0.01", lines[3])
    assert re.search(r"common random numbers would save -?[0-9]+% of the playouts$", lines[4])


@needs_native
def test_engine_floor_is_skipped_saying_why_without_a_compiler(capsys: pytest.CaptureFixture[str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    engine = script("engine")
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("CC", raising=False)
    engine.main(["--engine", "native", "--games", "1", "--rounds", "1", "--playouts", "--playout-games", "2",
                 "--floor"])
    assert "floor: skipped (no C compiler (cc) on the PATH)" in capsys.readouterr().out


def test_engine_pure_alone(capsys: pytest.CaptureFixture[str]) -> None:
    script("engine").main(["--engine", "pure", "--games", "2", "--rounds", "1"])
    out = capsys.readouterr().out
    assert "per-move loop, pure" in out and "native" not in out.split("\n", 1)[1]


@needs_native
def test_engine_stops_when_the_engines_disagree(monkeypatch: pytest.MonkeyPatch) -> None:
    engine = script("engine")
    real = engine.play

    def off_by_one(settings, deals, rng, cls):  # noqa: ANN001, ANN202
        return real(settings, deals, rng, cls) + (cls is native.GameState)

    monkeypatch.setattr(engine, "play", off_by_one)
    with pytest.raises(AssertionError, match="different numbers of turns"):
        engine.main(["--games", "2", "--rounds", "1"])


@needs_native
def test_mcts_speed_side_by_side_same_move(capsys: pytest.CaptureFixture[str]) -> None:
    script("mcts_speed").main(["--iterations", "30", "--repeat", "2"])
    out = capsys.readouterr().out
    assert out.count("the same move in every repeat") == 2
    assert re.search(r"4 players, mid-game \(turn 48 of 96\), pure  : +[0-9]+ playouts/s", out)
    assert re.fullmatch(r"[0-9]+ playouts/s", out.strip().splitlines()[-1])


@pytest.mark.slow
def test_strength_counts_iterations_of_a_search_bot() -> None:
    strength = script("strength")
    game = strength.play((["mcts:iterations=7,engine=pure", "greedy"], 1, "uptown", 60.0))
    total, searched = game["iterations"][0]
    assert searched > 0 and total == 7 * searched
    assert game["iterations"][1] == (0, 0)


@pytest.mark.slow
def test_strength_pair_of_full_specs_and_its_table(capsys: pytest.CaptureFixture[str]) -> None:
    strength = script("strength")
    strength.main(["--deals", "1", "--four", "", "--workers", "1",
                   "--pair", "mcts:iterations=5,engine=pure", "greedy"])
    out = capsys.readouterr().out
    assert "Two players, mcts:iterations=5,engine=pure vs greedy: 2 games" in out
    assert "iterations/move" in out and "95% interval" in out
    row = next(line for line in out.splitlines() if line.startswith("| mcts:iterations=5,engine=pure |"))
    assert row.rstrip().endswith("| 5 |")
    assert "greedy-random" not in out  # --pair replaces the default pairings


@pytest.mark.parametrize(("args", "message"), [
    (["--pair", "greedy", "greedy"], "two different bots"),
    (["--pair", "mcts:nosuch=1", "greedy"], "takes no option 'nosuch'"),
    (["--pair", "greedy", "random", "--pair", "random", "greedy"], "given twice"),
])
def test_strength_bad_pairs_are_one_line(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        script("strength").main(["--four", "", *args])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
