"""``arena run FILE``: play a tournament file's round-robin and print the standings."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from arena.commands.play import clock_options

if TYPE_CHECKING:
    from arena.tournament.run.runner import RunSummary


@click.command(name="run")
@click.argument("file", metavar="FILE")
@click.option("--workers", "-j", type=click.IntRange(min=1), default=None,
              help="Worker processes playing games, at most one per game left to play; every game is played "
                   "in a worker, also with 1 (default: the CPUs this process may use).")
@click.option("--out", "out", metavar="DIR", default=None,
              help="Results folder (default: results/NAME, NAME the file's name key, else its file name).")
@click.option("--resume", is_flag=True, help="Continue an interrupted run: play only the games not stored yet.")
@click.option("--update", is_flag=True,
              help="With --resume: take the edited FILE as the folder's tournament (a league: entrants added, "
                   "removed or changed, more deals): keep the stored games it still plays with unchanged entrants, "
                   "drop the others to DIR/retired.jsonl, play the new ones; says which before it starts.")
@click.option("--overwrite", is_flag=True, help="Delete this folder's earlier results and start again.")
@click.option("--allow-changed-bots", is_flag=True,
              help="With --resume: go on when an entrant's bot (its code, version or options) is not the one "
                   "that played the stored games.")
@click.option("--compress/--no-compress", default=True, show_default=True,
              help="Write the game records gzipped (records.jsonl.gz, one gzip member per chunk of games), "
                   "or as plain JSON lines (records.jsonl).  A resume keeps the kind the folder holds.")
@click.option("--start-method", type=click.Choice(["fork", "spawn", "forkserver"]), default=None,
              help="How worker processes are started (default: the platform's).")
@click.option("--isolation", type=click.Choice(["process", "none"]), default=None,
              help="process: every bot a program in the sandbox; none: Python bots in the workers, trusted code "
                   "(default: the file's isolation key, else process).")
@clock_options(" (in place of the file's clock and overage keys).")
@click.option("--public-deals", is_flag=True,
              help="Deal every game from the file alone, without the results folder's secret deal key, so anyone "
                   "with the file can deal them (research runs; bots can then find the deals); as public_deals = true.")
@click.option("--deal-key", metavar="HEX", default=None,
              help="Deal with this deal key (64 hex digits, from a folder's deal.key) instead of a new one: to play "
                   "or check a published tournament's games again elsewhere.")
@click.option("--cluster", metavar="ADDRESS", default=None,
              help="Play the games on a Dask cluster: a scheduler's address (tcp://HOST:8786), or local[:N] for a "
                   "local cluster of N worker processes (needs the dask extra; not with --workers).")
@click.option("--report-every", type=click.IntRange(min=1), default=None, metavar="N",
              help="Write the tables and report.html after every N games stored, so a long run can be followed "
                   "in a browser (they are written at the end in any case).")
@click.option("--quiet", "-q", is_flag=True,
              help="No progress bar and no messages on standard error; the standings are still printed.")
def command(
    file: str, workers: int | None, out: str | None, resume: bool, update: bool, overwrite: bool,
    allow_changed_bots: bool, compress: bool, start_method: str | None, isolation: str | None, clock: str | None,
    overage: float | None, public_deals: bool, deal_key: str | None, cluster: str | None, report_every: int | None,
    quiet: bool,
) -> None:
    """Run the tournament described by FILE (TOML, see docs/reference/tournament-file.md).

    Every game is seeded from the file's master seed and the results folder's
    secret deal key (made with the folder, kept in DIR/deal.key), so a run or
    its resume gives the same games on any machine with any number of workers,
    and no bot can work out a deal. Results are appended to
    the results folder (results/NAME/, or --out DIR) as each game finishes;
    after an interruption, run the same command with --resume to play only
    the missing games.  Relative paths in FILE are read from FILE's folder.
    A progress bar is shown on standard error when it is a terminal, with the
    standings so far above it (arena report DIR --watch shows them from
    another terminal).
    """
    from arena.plan.config import (
        ConfigError,
        load_config,
        parse_config,
        with_clock_text,
        with_deals,
        with_isolation,
        with_public_deals_text,
    )
    from arena.plan.schedule import count_games, tournament_tables
    from arena.results.identity import check_bots
    from arena.results.store import FolderLock, check_folder
    from arena.results.update import check_update
    from arena.tournament.run.runner import Interrupted, RunError, run_tournament

    path = Path(file)
    if update and overwrite:
        raise click.UsageError("--update keeps the stored games it can, --overwrite deletes them all: choose one")
    if update and allow_changed_bots:
        raise click.UsageError("--update plays a changed entrant's games again, --allow-changed-bots keeps them: "
                               "choose one")
    if cluster is not None:
        from arena.tournament.run.cluster import parse_cluster

        if workers is not None:
            raise click.UsageError("--cluster and --workers cannot be used together: the cluster's workers play the games")
        try:
            parse_cluster(cluster)
        except RunError as exc:
            raise click.ClickException(str(exc)) from None
    try:
        config = load_config(path)
        text = path.read_text(encoding="utf-8")
        if clock is not None or overage is not None:
            # The folder keeps the file as played: with the clock given here.
            text = with_clock_text(text, clock, overage)
            config = parse_config(text, str(path), default_name=path.stem, base=path.absolute().parent)
        if public_deals and not config.public_deals:
            text = with_public_deals_text(text)  # the folder keeps the file as played: with public deals
        config = with_deals(with_isolation(config, isolation), public_deals=public_deals, deal_key=deal_key)
        folder = Path(out) if out is not None else Path("results") / config.name
        FolderLock.check(folder)
        # A folder that would be refused is refused before any bot program starts.
        if update:
            check_update(config, folder, str(path))
        else:
            check_folder(config, folder, resume=resume, overwrite=overwrite)
        walls = check_bots(config, str(path))
    except (ConfigError, RunError) as exc:
        raise click.ClickException(str(exc)) from None
    if workers is None:
        workers = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    total = count_games(config)
    if not quiet:
        n_tables = len(tournament_tables(config))
        click.echo(
            f"{config.name}: {total} games ({len(config.entrants)} entrants, {config.players} players, "
            f"{n_tables} table(s) x {config.deals} deal(s), seating {config.seating}), "
            f"{f'Dask cluster {cluster}' if cluster is not None else f'{workers} worker(s)'} -> {folder}",
            err=True,
        )
        for line in sorted(set(walls.values())):
            click.echo(f"bots run in {line}", err=True)
        if config.clock:
            click.echo(f"every bot seat has a {config.clock}", err=True)
        if config.public_deals:
            click.echo("public deals: the file alone gives every game's deal (bots can work them out too)", err=True)
        elif config.duplicate:
            click.echo("duplicate deals: a round's seatings share one deal (trusted bots only)", err=True)
        if config.isolation == "none":
            click.echo("Python bots run inside the workers (isolation none: trusted code only)", err=True)
    def notify(line: str) -> None:
        if not quiet:
            click.echo(line, err=True)

    try:
        summary = run_tournament(
            config, text, folder, workers=workers, start_method=start_method, resume=resume,
            overwrite=overwrite, compress=compress, progress=not quiet and sys.stderr.isatty(), hide=(str(path),),
            notify=notify,
            allow_changed_bots=allow_changed_bots, cluster=cluster, update=update, source=str(path),
            report_every=report_every,
        )
    except RunError as exc:
        raise click.ClickException(str(exc)) from None
    except Interrupted as exc:
        click.echo(
            f"\ninterrupted: {exc.stored} of {exc.total} games stored in {folder}; "
            f"continue with: arena run {file} --resume" + (f" --out {out}" if out else "")
            + (" --public-deals" if public_deals else ""),
            err=True,
        )
        sys.exit(130)

    from arena.display.terminal import output_width
    from arena.report.html import write_report
    from arena.report.plots import try_write_plots
    from arena.report.text import format_tables
    from arena.results.files import PLOT_FILES, REPORT_FILE

    drawn = [folder / name for name in PLOT_FILES if (folder / name).is_file()]
    if summary.reused and (folder / REPORT_FILE).is_file():  # the tables are unchanged: so are their pictures
        plots = [*drawn, folder / REPORT_FILE]
    else:
        # The tables are on disk already: a picture that fails costs one line, never the results.
        plots, problem = try_write_plots(folder, summary.tables, log_file=summary.log)
        if problem is not None:
            click.echo(problem, err=True)
        try:  # like the plots: a page that cannot be written costs one line
            report = write_report(folder, summary.tables, config.name)
            plots = [*plots, report]
        except RunError as exc:
            click.echo(f"cannot write the HTML report: {exc}", err=True)
    for line in summary.changed:
        click.echo(line, err=True)
    if not quiet:
        rate = summary.played / summary.seconds if summary.seconds > 0 else 0.0
        already = f", {summary.already} were stored already" if summary.already else ""
        click.echo(f"played {summary.played} games in {summary.seconds:.1f} s ({rate:.1f} games/s){already}", err=True)
    click.echo(format_tables(summary.tables, "text", title=config.name, only_standings=True, width=output_width()),
               nl=False)
    if not quiet:
        click.echo(
            f"\nResults in {folder}/: games.csv, {summary.records.name}, standings.csv, head_to_head.csv, "
            f"seats.csv, order.csv, {''.join(p.name + ', ' for p in plots)}arena.log, bots/ (the bots' logs).  "
            f"More tables: arena report {folder}",
            err=True,
        )
        _echo_faults(summary)


def _echo_faults(summary: RunSummary) -> None:
    """The run's last words: its faults by entrant and kind, and where each is logged."""
    faults = summary.faults
    if not len(faults):
        click.echo(f"\nNo bot faulted.  Log: {summary.log}", err=True)
        return
    click.echo(f"\n{len(faults)} fault(s) in {summary.total} games (faulted seats play on with random legal moves "
               f"and rank last):", err=True)
    for line in faults.lines():
        click.echo("  " + line, err=True)
    click.echo(f"Every fault is in {summary.log}, with the bot's log to look in for its traceback.", err=True)
