"""``arena run FILE``: play a tournament file's round-robin and print the standings."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click


@click.command(name="run")
@click.argument("file", metavar="FILE")
@click.option("--workers", "-j", type=click.IntRange(min=1), default=None,
              help="Worker processes playing games (default: the CPUs this process may use).")
@click.option("--out", "out", metavar="DIR", default=None,
              help="Results folder (default: results/NAME, NAME from the file).")
@click.option("--resume", is_flag=True, help="Continue an interrupted run: play only the games not stored yet.")
@click.option("--overwrite", is_flag=True, help="Delete this folder's earlier results and start again.")
@click.option("--compress", is_flag=True, help="Write the game records gzipped (records.jsonl.gz).")
@click.option("--start-method", type=click.Choice(["fork", "spawn", "forkserver"]), default=None,
              help="How worker processes are started (default: the platform's).")
@click.option("--isolation", type=click.Choice(["process", "none"]), default=None,
              help="process: every bot a program in the sandbox; none: Python bots in the workers, trusted code "
                   "(default: the file's isolation key, else process).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no messages; still print the standings.")
def command(
    file: str, workers: int | None, out: str | None, resume: bool, overwrite: bool, compress: bool,
    start_method: str | None, isolation: str | None, quiet: bool,
) -> None:
    """Run the tournament described by FILE (TOML, see tournaments/README.md).

    Every game is seeded from the file's master seed, so a run gives the same
    games on any machine with any number of workers. Results are appended to
    results/NAME/ as each game finishes; after an interruption, run the same
    command with --resume to play only the missing games.
    """
    from ..tournament.config import ConfigError, check_bots, load_config, with_isolation
    from ..tournament.runner import Interrupted, RunError, run_tournament
    from ..tournament.schedule import count_games, tables
    from ..tournament.store import FolderLock

    path = Path(file)
    try:
        config = with_isolation(load_config(path), isolation)
        folder = Path(out) if out is not None else Path("results") / config.name
        FolderLock.check(folder)
        walls = check_bots(config, str(path))
    except (ConfigError, RunError) as exc:
        raise click.ClickException(str(exc)) from None
    text = path.read_text(encoding="utf-8")
    if workers is None:
        workers = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    total = count_games(config)
    if not quiet:
        n_tables = len(tables(len(config.entrants), config.players))
        click.echo(
            f"{config.name}: {total} games ({len(config.entrants)} entrants, {config.players} players, "
            f"{n_tables} table(s) x {config.deals} deal(s){', seats rotated' if config.rotate else ''}), "
            f"{workers} worker(s) -> {folder}",
            err=True,
        )
        for line in sorted(set(walls.values())):
            click.echo(f"bots run in {line}", err=True)
        if config.isolation == "none":
            click.echo("Python bots run inside the workers (isolation none: trusted code only)", err=True)
    try:
        summary = run_tournament(
            config, text, folder, workers=workers, start_method=start_method, resume=resume,
            overwrite=overwrite, compress=compress, progress=not quiet and sys.stderr.isatty(), hide=(str(path),),
        )
    except RunError as exc:
        raise click.ClickException(str(exc)) from None
    except Interrupted as exc:
        click.echo(
            f"\ninterrupted: {exc.stored} of {exc.total} games stored in {folder}; "
            f"continue with: arena run {file} --resume" + (f" --out {out}" if out else ""),
            err=True,
        )
        sys.exit(130)

    from ..terminal import output_width
    from ..tournament.results import build_tables, format_tables, load_games, write_tables

    games = load_games(folder / "games.csv", config.players)
    result = build_tables(games, config.scoring, config.seed, config.names)
    write_tables(folder, result)
    if not quiet:
        rate = summary.played / summary.seconds if summary.seconds > 0 else 0.0
        already = f", {summary.already} were stored already" if summary.already else ""
        click.echo(f"played {summary.played} games in {summary.seconds:.1f} s ({rate:.1f} games/s){already}", err=True)
    click.echo(format_tables(result, "text", title=config.name, only_standings=True, width=output_width()), nl=False)
    if not quiet:
        click.echo(
            f"\nResults in {folder}/: games.csv, {summary.records.name}, standings.csv, head_to_head.csv, "
            f"seats.csv, arena.log, bots/ (the bots' logs).  More tables: arena report {folder}",
            err=True,
        )
