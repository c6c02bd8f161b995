"""``arena run FILE``: play a tournament file's round-robin and print the standings."""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from arena.commands.options import (
    clock_options,
    deal_key_option,
    overwrite_option,
    plots_option,
    with_options,
    workers_option,
)
from arena.commands.telling import show_played, teller

if TYPE_CHECKING:
    from arena.plan.config import TournamentConfig
    from arena.serve.server import Beside


_options = with_options(
    click.argument("file", metavar="FILE"),
    workers_option("Worker processes playing games, at most one per game left to play; every game is played "
                   "in a worker, also with 1 (default: the CPUs this process may use)."),
    click.option("--out", "out", metavar="DIR", default=None,
                 help="Results folder (default: results/NAME, NAME the file's name key, else its file name)."),
    click.option("--resume", is_flag=True, help="Continue an interrupted run: play only the games not stored yet."),
    click.option("--update", is_flag=True,
                 help="Resume, taking the edited FILE as the folder's tournament (a league: entrants added, "
                      "removed or changed, more deals): keep the stored games it still plays with unchanged entrants, "
                      "drop the others to DIR/retired.jsonl, play the new ones; says which before it starts."),
    overwrite_option,
    click.option("--allow-changed-bots", is_flag=True,
                 help="With --resume: go on when an entrant's bot (its code, version or options) is not the one "
                      "that played the stored games."),
    click.option("--compress/--no-compress", default=True, show_default=True,
                 help="Write the game records gzipped (records.jsonl.gz, one gzip member per chunk of games), "
                      "or as plain JSON lines (records.jsonl).  A resume keeps the kind the folder holds."),
    click.option("--start-method", type=click.Choice(["fork", "spawn", "forkserver"]), default=None,
                 help="How worker processes are started (default: the platform's)."),
    click.option("--isolation", type=click.Choice(["process", "none"]), default=None,
                 help="process: every bot a program in the sandbox; none: Python bots in the workers, trusted code "
                      "(default: the file's isolation key, else process)."),
    clock_options(" (in place of the file's clock and overage keys)."),
    click.option("--public-deals", is_flag=True,
                 help="Deal every game from the file alone, without the results folder's secret deal key, so anyone "
                      "with the file can deal them (research runs; bots can then find the deals); as public_deals = true."),
    deal_key_option("Deal with this deal key (64 hex digits, from a folder's deal.key) instead of a new one: to play "
                    "or check a published tournament's games again elsewhere."),
    click.option("--cluster", metavar="ADDRESS", default=None,
                 help="Play the games on a Dask cluster: a scheduler's address (tcp://HOST:8786), or local[:N] for a "
                      "local cluster of N worker processes (needs the dask extra; not with --workers)."),
    click.option("--report-every", type=click.IntRange(min=1), default=None, metavar="N",
                 help="Write the tables and report.html after every N games stored, so a long run can be followed "
                      "in a browser (they are written at the end in any case)."),
    plots_option,
    click.option("--serve", "serve", is_flag=True,
                 help="Show the run as a web page while it plays (arena serve DIR beside it, on 127.0.0.1; needs the "
                      "serve extra): its address is printed at the start."),
    click.option("--quiet", "-q", is_flag=True,
                 help="No progress bar and no messages on standard error; the standings are still printed."),
)


@click.command(name="run")
@_options
def command(
    file: str, workers: int | None, out: str | None, resume: bool, update: bool, overwrite: bool,
    allow_changed_bots: bool, compress: bool, start_method: str | None, isolation: str | None, clock: str | None,
    overage: float | None, public_deals: bool, deal_key: str | None, cluster: str | None, report_every: int | None,
    plots: bool, serve: bool, quiet: bool,
) -> None:
    """Run the tournament described by FILE (TOML, see docs/reference/tournament-file.md).

    Every game is seeded from the file's master seed and the results folder's
    secret deal key (made with the folder, kept in DIR/deal.key), so a run or
    its resume gives the same games on any machine with any number of workers,
    and no bot can work out a deal; or, with deals = "FILE", from the seeds
    of a deals file, the same tiles in every run. Results are appended to
    the results folder (results/NAME/, or --out DIR) as each game finishes;
    after an interruption, run the same command with --resume to play only
    the missing games.  Relative paths in FILE are read from FILE's folder.
    A progress bar is shown on standard error when it is a terminal, with the
    standings so far above it (arena report DIR --watch shows them from
    another terminal).
    """
    from arena.isolation.cpus import usable_cpus
    from arena.plan.config import load_run_config
    from arena.plan.schedule import Schedule
    from arena.report.publish import publish_played
    from arena.results.folder import ResultsFolder
    from arena.tournament.run import showing
    from arena.tournament.run.runner import Interrupted, RunOptions, run_tournament

    _refuse_together(update, overwrite, allow_changed_bots, cluster, workers)
    _refuse_missing_tutorial_file(Path(file))
    config, text = load_run_config(Path(file), isolation=isolation, clock=clock, overage=overage,
                                   public_deals=public_deals, deal_key=deal_key)
    folder = Path(out) if out is not None else Path("results") / config.name
    say = teller(quiet)
    options = RunOptions(
        workers=workers or usable_cpus(), start_method=start_method, resume=resume, overwrite=overwrite,
        compress=compress, progress=not quiet and sys.stderr.isatty(), hide=(file, *_deals_path(config, file)), notify=say,
        allow_changed_bots=allow_changed_bots, cluster=cluster, update=update, source=file, report_every=report_every)
    # A folder that would be refused is refused before any bot program starts; nothing is checked twice.
    preflight = ResultsFolder(folder).check(config, options.opening())
    options = replace(options, preflight=preflight)
    where = f"Dask cluster {cluster}" if cluster is not None else f"{options.workers} worker(s)"
    for line in showing.start_lines(Schedule(config), where, folder, preflight.walls):
        say(line)
    beside = _serve_beside(folder) if serve else None
    try:
        summary = run_tournament(config, text, folder, options)
    except Interrupted as exc:
        again = f"arena run {file} --resume" + (f" --out {out}" if out else "") + (" --public-deals" if public_deals else "")
        click.echo(f"\ninterrupted: {exc.stored} of {exc.total} games stored in {folder}; continue with: {again}",
                   err=True)
        sys.exit(130)
    finally:
        if beside is not None:
            beside.close()
    published = publish_played(folder, summary.found, config.name, None, plots=plots, log_file=summary.log)
    show_played(summary, config.name, say, published.paths, notes=published.problems)


def _deals_path(config: TournamentConfig, file: str) -> tuple[str, ...]:
    """The deals file the tournament file names, as a path (it gives every deal: the bots must not see it)."""
    if config.deals_file is None:
        return ()
    return (os.path.join(os.path.dirname(os.path.abspath(file)), config.deals_file),)


def _serve_beside(folder: Path) -> Beside:
    """``arena serve`` of ``folder`` beside the run (:class:`~arena.serve.server.Beside`), its address printed."""
    from arena.serve.server import Beside

    folder.mkdir(parents=True, exist_ok=True)  # the page waits for its files
    beside = Beside(folder)
    click.echo(f"Watch it at {beside.url} (while it runs; arena serve {folder} shows it afterwards)", err=True)
    return beside


def _refuse_missing_tutorial_file(path: Path) -> None:
    """A tutorial's tournament file asked for in a folder without it: say that arena init copies it here."""
    from arena.tutorial_files import files

    if not path.exists() and not path.is_absolute() and path in files():
        raise click.ClickException(f"{path}: no such file here; arena init copies the files the tutorials use "
                                   "(tournaments/ and examples/) into this folder")


def _refuse_together(update: bool, overwrite: bool, allow_changed_bots: bool, cluster: str | None,
                     workers: int | None) -> None:
    """Options that exclude each other, refused before anything is read."""
    if update and overwrite:
        raise click.UsageError("--update keeps the stored games it can, --overwrite deletes them all: choose one")
    if update and allow_changed_bots:
        raise click.UsageError("--update plays a changed entrant's games again, --allow-changed-bots keeps them: "
                               "choose one")
    if cluster is not None:
        from arena.tournament.run.cluster import parse_cluster

        if workers is not None:
            raise click.UsageError("--cluster and --workers cannot be used together: the cluster's workers play the games")
        parse_cluster(cluster)
