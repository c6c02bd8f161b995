"""``arena match A B [C ...]``: play a match to a fixed count or until a sequential test decides."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path
from typing import Any

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
from arena.ranges import DEFAULT_TIME_LIMIT
from arena.results.files import MATCH_FILE
from arena.tournament.match.plan import DEFAULT_MAX_GAMES

_options = with_options(
    click.argument("bots", metavar="A B [C ...]", nargs=-1),
    click.option("--games", type=int, default=None,
                 help="Play this many games (rounded up to whole deals), then stop."),
    click.option("--sprt", metavar="elo0=E0,elo1=E1[,alpha=A,beta=B,model=M]", default=None,
                 help="Play until the sequential test decides: H1 (A is at least elo1 Elo better), H0 (at most elo0). "
                      "alpha and beta default to 0.05; model is normalized (fastchess's) or logistic with two bots, "
                      "logistic with 3-5."),
    click.option("--max-games", type=int, default=DEFAULT_MAX_GAMES, show_default=True,
                 help="With --sprt: stop here with the verdict inconclusive."),
    workers_option("Worker processes playing games; every game is played in a worker, also with 1 "
                   "(default: the CPUs this process may use)."),
    click.option("--out", "out", metavar="DIR", default=None,
                 help="Results folder (default: results/match-A-vs-B...)."),
    click.option("--seed", type=click.IntRange(min=0), default=None,
                 help="Master seed (default: the seed of the match stored in the results folder, else a random one; "
                      "printed and stored)."),
    click.option("--time-limit", type=float, default=DEFAULT_TIME_LIMIT, show_default=True,
                 help="Seconds a bot may think per move."),
    clock_options(" (a resumed match keeps its own)."),
    click.option("--scoring", type=click.Choice(["uptown", "blockers"]), default="uptown", show_default=True,
                 help="The scoring that decides wins."),
    click.option("--isolation", type=click.Choice(["process", "none"]), default="process", show_default=True,
                 help="process: every bot a program in the sandbox; none: Python bots in the workers, trusted code."),
    click.option("--duplicate", is_flag=True,
                 help="The duplicate format: every seating of a round plays one shared deal (trusted bots only: a bot "
                      "that leaves itself a note anywhere on the machine learns its rivals' tiles in the other seatings)."),
    click.option("--public-deals", is_flag=True,
                 help="Deal from the master seed alone, without the results folder's secret deal key (research; bots "
                      "can then work the deals out)."),
    deal_key_option("Deal with this deal key (64 hex digits, a folder's deal.key) instead of a new one."),
    click.option("--deals", "deals_file", metavar="FILE", default=None,
                 help="Play the deals of FILE, a deals file (one game seed a line, # comments): round d plays its d-th "
                      "seed, so two matches on different days meet the same tiles.  It must hold every deal the match "
                      "may play (--games, or --max-games with --sprt)."),
    click.option("--resume", is_flag=True,
                 help="Continue an interrupted match: count the stored games in deal order and go on."),
    overwrite_option,
    plots_option,
    click.option("--quiet", "-q", is_flag=True,
                 help="No progress bar and no messages on standard error; the verdict is still printed."),
)


@click.command(name="match")
@_options
def command(
    bots: tuple[str, ...], games: int | None, sprt: str | None, max_games: int, workers: int | None,
    out: str | None, seed: int | None, time_limit: float, clock: str | None, overage: float | None, scoring: str,
    isolation: str, duplicate: bool, public_deals: bool, deal_key: str | None, deals_file: str | None, resume: bool,
    overwrite: bool, plots: bool, quiet: bool,
) -> None:
    """Play bot A against bot B (or against the field B, C, ... at one table of 3-5), seats balanced.

    Every round is played from every seat (two bots) or in the 6, 12 or 20
    seatings of the balanced design (3, 4, 5 bots), each game with a deal of
    its own (--duplicate: one deal for the round).  Rounds are counted in
    order once all their games are stored, so the verdict and the number of
    games do not depend on --workers.  The results folder is a tournament's
    (arena report reads it) with match.json: the test, the counts, the LLR
    after every deal and the verdict.

    A match is one table: with 3-5 bots every game seats all of them, and
    the test is about A alone.  A round robin (N entrants, every k of them at
    a table of k seats, each ranked against all) is a tournament: write a
    tournament file with players = k and one [[entrants]] table per bot, and
    play it with arena run FILE (see "Your first tournament" in the docs).
    """
    from arena.isolation.cpus import usable_cpus
    from arena.plan.config import ConfigError
    from arena.plan.deals import read_deals
    from arena.report.match import summary_lines
    from arena.tournament.match.feed import check_match, run_match, start_lines
    from arena.tournament.match.folder import seeded
    from arena.tournament.match.plan import MatchPlan, check_bot_count, match_time, parse_sprt
    from arena.tournament.run.runner import Interrupted, RunOptions

    check_bot_count(bots)
    deal_seeds = read_deals(deals_file) if deals_file is not None else ()
    probe = MatchPlan(tuple(bots), 0, games=games, sprt=parse_sprt(sprt, len(bots)) if sprt is not None else None,
                      max_games=max_games, scoring=scoring, time=match_time(time_limit, clock, overage),
                      isolation=isolation, duplicate=duplicate, public_deals=public_deals, deal_key=deal_key,
                      deal_seeds=deal_seeds, deals_file=deals_file)
    folder = Path(out) if out is not None else Path("results") / probe.name
    plan, seed_note = seeded(probe, seed, folder, overwrite)
    try:
        preflight = check_match(plan, folder, resume=resume, overwrite=overwrite)
    except ConfigError as exc:  # a bot's check: named by its argument, not its entrant
        raise click.ClickException(_bot_error(str(exc), bots)) from None
    workers = workers or usable_cpus()
    say = teller(quiet)
    for line in start_lines(plan, workers, folder, seed_note, preflight.folder.walls):
        say(line)
    try:
        options = RunOptions(workers=workers, resume=resume, overwrite=overwrite,
                             progress=not quiet and sys.stderr.isatty(), notify=say)
        result = run_match(plan, folder, options, preflight=preflight, plots=plots)
    except Interrupted as exc:
        again = _again(click.get_current_context().params, plan.seed)
        click.echo(f"\ninterrupted: {exc.stored} games stored in {folder}; continue with: {again}", err=True)
        sys.exit(130)
    removed = [f"{result.removed} game(s) of deals after the last one counted were removed from {folder}"]
    show_played(result.summary, plan.name, say, result.plots, notes=removed if result.removed else [],
                verdict=summary_lines(result.match), first=(MATCH_FILE,))


def _again(given: dict[str, Any], seed: int) -> str:
    """The command that goes on with a match interrupted (``given``: the command's parameters; ``seed``: the
    match's, also when it was drawn)."""
    games, out, deals_file = given["games"], given["out"], given["deals_file"]
    end = ["--games", str(games)] if games is not None else ["--sprt", str(given["sprt"]),
                                                             "--max-games", str(given["max_games"])]
    return shlex.join(["arena", "match", *given["bots"], *end, *(["--deals", deals_file] if deals_file else []),
                       "--seed", str(seed), *(["--duplicate"] if given["duplicate"] else []),
                       *(["--public-deals"] if given["public_deals"] else []), "--resume",
                       *(["--out", out] if out else [])])


def _bot_error(message: str, bots: tuple[str, ...]) -> str:
    """A bot check's error (``arena match: entrants[i].bot: ...``) naming the argument instead of the entrant."""
    found = re.match(r"arena match: entrants\[(\d+)\]\.\w+: (.*)", message)
    if found is None:
        return message.removeprefix("arena match: ")
    index = int(found.group(1))
    which = "A" if index == 0 else f"bot {index + 1}"
    return f"{which} ({bots[index]!r}): {found.group(2)}"
