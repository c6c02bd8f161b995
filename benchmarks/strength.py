"""Strength of the built-in bots: duplicate two-player matches and a four-player table.

    python benchmarks/strength.py --deals 100 --four-deals 25 --mcts iterations=600,seconds=1.0 --workers 2
    python benchmarks/strength.py --deals 100 --four '' --workers 2 \
        --pair 'mcts:iterations=0,seconds=0.1,engine=native' 'mcts:iterations=0,seconds=0.1,engine=pure'
    python benchmarks/strength.py --ladder --deals 8 --workers 2

``--ladder`` plays the strength ladder instead (benchmarks/ladder.py): every
built-in bot, the search bots at ``--controls`` seconds a move, in one
two-player round robin run by ``arena run``, rated on one Elo scale; it writes
the run's summary (``--summary``), docs/reference/strength-ladder.md and its
plot.  ``--ladder-page SUMMARY`` makes the page and the plot again from a summary.

Two-player pairings (``--pairs``, default ``greedy-random,mcts-greedy,lookahead-greedy``,
bot names; or ``--pair A B``, repeatable, two full bot specs with their
options, shown by their spec in the tables; with ``--pair`` the default
``--pairs`` is not played): every deal is played twice, A in seat 0 and B in seat 1, then swapped, so
both bots play the same tiles from both seats (``--deals 100`` = 200 games a
pairing).  Four-player table (``--four``, default ``random,greedy,lookahead,mcts``):
every deal is played once per seat rotation (``--four-deals 25`` = 100 games).

A win is rank 1 under the game's scoring (Uptown, C1, unless ``--scoring``);
a shared first place counts half a win in two-player games and ``1/k`` of a
win when ``k`` seats share it.  The tables show each bot's win share, mean
groups, mean captures, and its thinking time per move (mean and the slowest
move, wall clock, so they vary with the machine's load).  The win share's
95% interval is Wilson's on the effective number of deals
(:func:`arena.stats.intervals.win_share_interval`: a deal's games are not
independent trials).  ``iterations/move`` is the mean of a search bot's
``last_iterations`` over the moves it searched (moves with one candidate or
none are not searched); ``-`` for bots that do not search.  Games are played by
the referee (:func:`arena.play.referee.play_game`) in ``--workers`` processes; bots
are built inside the workers.  Deal seeds are ``--seed``, ``--seed + 1``, ...
for every pairing.  ``--mcts`` sets the options of every ``mcts`` entrant.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from multiprocessing import Pool
from pathlib import Path

from arena.play.prepared import prepare_bot
from arena.play.referee import play_game
from arena.plugins import BotError, parse_bot_spec
from arena.stats.intervals import win_share_interval

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ladder  # noqa: E402 - benchmarks/ is not a package


def counted(cls: type, sink: list) -> type:
    """``cls`` whose every move appends the bot's ``last_iterations`` (when it has one and searched) to ``sink``."""

    class Counted(cls):  # type: ignore[misc, valid-type]
        def choose(self, view):  # noqa: ANN001, ANN202 - the bot's own signature
            move = super().choose(view)
            iterations = getattr(self, "last_iterations", None)
            if iterations:
                sink.append(iterations)
            return move

    Counted.__name__ = Counted.__qualname__ = cls.__name__
    return Counted


def play(job: tuple[list[str], int, str, float]) -> dict:
    """Play one game; what each seat scored and how long its moves took."""
    specs, seed, scoring, time_limit = job
    last = [time.perf_counter()]
    slowest = [0.0] * len(specs)
    moves = [0] * len(specs)

    def on_move(state, move) -> None:
        now = time.perf_counter()
        if not move.is_pass:
            mover = state.settings.seat_of(move.color)
            slowest[mover] = max(slowest[mover], now - last[0])
            moves[mover] += 1
        last[0] = now

    # The built-in bots are trusted, and play the same in process as in processes of their own.
    iterations: list[list[int]] = [[] for _ in specs]
    bots = []
    for seat, text in enumerate(specs):
        prepared = prepare_bot(parse_bot_spec(text))
        bots.append(prepared._replace(cls=counted(prepared.cls, iterations[seat])) if prepared.cls else prepared)
    outcome = play_game(bots, seed, scoring=scoring, time=time_limit,
                        on_move=on_move, isolation="none")
    key = "uptown_rank" if scoring == "uptown" else "blockers_rank"
    ranks = [getattr(r, key) for r in outcome.result]
    firsts = ranks.count(1)
    return {
        "specs": specs,
        "seed": seed,
        "win": [1.0 / firsts if r == 1 else 0.0 for r in ranks],
        "groups": [r.groups for r in outcome.result],
        "captures": [r.captured_total for r in outcome.result],
        "seconds": list(outcome.seconds),
        "moves": moves,
        "slowest": slowest,
        "iterations": [(sum(it), len(it)) for it in iterations],
        "faults": len(outcome.faults),
    }


class Tally:
    """Per-entrant sums over the games of one table."""

    def __init__(self) -> None:
        self.games = defaultdict(int)
        self.win = defaultdict(float)
        self.groups = defaultdict(list)
        self.captures = defaultdict(list)
        self.seconds = defaultdict(float)
        self.moves = defaultdict(int)
        self.slowest = defaultdict(float)
        self.iterations = defaultdict(int)
        self.searched = defaultdict(int)
        #: Per entrant, per deal seed: [wins, games].
        self.deals: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0]))
        self.faults = 0
        self.count = 0

    def add(self, game: dict) -> None:
        self.count += 1
        self.faults += game["faults"]
        for seat, spec in enumerate(game["specs"]):
            self.games[spec] += 1
            self.win[spec] += game["win"][seat]
            self.groups[spec].append(game["groups"][seat])
            self.captures[spec].append(game["captures"][seat])
            self.seconds[spec] += game["seconds"][seat]
            self.moves[spec] += game["moves"][seat]
            self.slowest[spec] = max(self.slowest[spec], game["slowest"][seat])
            self.iterations[spec] += game["iterations"][seat][0]
            self.searched[spec] += game["iterations"][seat][1]
            deal = self.deals[spec][game["seed"]]
            deal[0] += game["win"][seat]
            deal[1] += 1

    def rows(self, entrants: list[str]) -> list[str]:
        out = []
        for spec in entrants:
            n = self.games[spec]
            deals = list(self.deals[spec].values())
            share, low, high = win_share_interval([d[0] for d in deals], [d[1] for d in deals])
            per_move = self.seconds[spec] / max(1, self.moves[spec])
            searched = self.searched[spec]
            iterations = f"{self.iterations[spec] / searched:,.0f}" if searched else "-"
            out.append(
                f"| {spec} | {n} | {100 * share:.1f}% | {100 * low:.1f}-{100 * high:.1f}% "
                f"| {statistics.mean(self.groups[spec]):.2f} | {statistics.mean(self.captures[spec]):.2f} "
                f"| {per_move:.3f} s | {self.slowest[spec]:.2f} s | {iterations} |"
            )
        return out


HEADER = [
    "| bot | games | win share | 95% interval | mean groups | mean captures | time/move | slowest move "
    "| iterations/move |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", default=None,
                        help="two-player pairings of bot names A-B, comma-separated ('' for none; default "
                             "greedy-random,mcts-greedy,lookahead-greedy unless --pair is given)")
    parser.add_argument("--pair", nargs=2, action="append", default=[], metavar=("A", "B"),
                        help="a two-player pairing of two full bot specs, e.g. 'mcts:seconds=1,engine=native' greedy "
                             "(repeatable)")
    parser.add_argument("--deals", type=int, default=100, help="deals per pairing; each is played twice (default 100)")
    parser.add_argument("--four", default="random,greedy,lookahead,mcts",
                        help="the four bots of the four-player table ('' for none)")
    parser.add_argument("--four-deals", type=int, default=25,
                        help="four-player deals, each played in 4 seat rotations (default 25)")
    parser.add_argument("--mcts", default="iterations=600,seconds=1.0", help="options of every mcts entrant (default iterations=600,seconds=1.0)")
    parser.add_argument("--scoring", choices=("uptown", "blockers"), default="uptown")
    parser.add_argument("--seed", type=int, default=1, help="first deal seed (default 1)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--time-limit", type=float, default=60.0, help="referee's per-move limit (default 60)")
    parser.add_argument("--ladder", action="store_true", help="play the strength ladder (benchmarks/ladder.py)")
    parser.add_argument("--controls", default=",".join(f"{c:g}" for c in ladder.CONTROLS),
                        help="with --ladder: the search bots' seconds a move, comma-separated (default 0.01,0.03,0.1)")
    parser.add_argument("--out", default="results/strength-ladder", help="with --ladder: the run's folder")
    parser.add_argument("--summary", default=str(ladder.SUMMARY), help="with --ladder: the summary to write")
    parser.add_argument("--ladder-page", metavar="SUMMARY", default=None,
                        help="make the ladder page and plot again from a summary, and play nothing")
    args = parser.parse_args(argv)
    if args.ladder_page:
        if not Path(args.ladder_page).is_file():
            parser.error(f"no summary file {args.ladder_page}")
        ladder.write_page(Path(args.ladder_page))
        print(f"wrote {ladder.PAGE} and {ladder.PLOT}")
        return
    if args.ladder:
        try:
            controls = tuple(sorted({float(c) for c in args.controls.split(",") if c}))
        except ValueError:
            parser.error(f"--controls takes seconds a move, comma-separated, not {args.controls!r}")
        if not controls or any(not 0 < c <= 10 for c in controls):
            parser.error("--controls needs seconds a move above 0 and at most 10")
        if args.deals < 1 or args.workers < 1:
            parser.error("--deals and --workers must be at least 1")
        data = ladder.run(args.deals, args.seed, args.workers, controls, Path(args.out), Path(args.summary),
                          ladder.command_line(sys.argv[1:] if argv is None else argv))
        ladder.write_page(Path(args.summary))
        print(f"{data['wall_seconds']:.0f} s; wrote {args.summary}, {ladder.PAGE} and {ladder.PLOT}")
        return

    def spec(name: str) -> str:
        text = f"{name}:{args.mcts}" if name == "mcts" and args.mcts else name
        try:
            parse_bot_spec(text)  # fail early on a bad bot or option
        except BotError as exc:
            parser.error(str(exc))
        return text

    if args.pairs is None:
        args.pairs = "" if args.pair else "greedy-random,mcts-greedy,lookahead-greedy"
    pairs = [tuple(spec(x) for x in p.split("-")) for p in args.pairs.split(",") if p]
    pairs += [(spec(a), spec(b)) for a, b in args.pair]
    for a, b in pairs:
        if a == b:
            parser.error(f"a pairing needs two different bots, not {a!r} twice")
    if len(set(pairs)) != len(pairs) or len({tuple(sorted(p)) for p in pairs}) != len(pairs):
        parser.error("a pairing is given twice")
    four = [spec(x) for x in args.four.split(",") if x]
    if four and len(four) != 4:
        parser.error("--four needs exactly four bots")
    jobs = []
    for a, b in pairs:
        for i in range(args.deals):
            jobs.append(([a, b], args.seed + i, args.scoring, args.time_limit))
            jobs.append(([b, a], args.seed + i, args.scoring, args.time_limit))
    if four:
        for i in range(args.four_deals):
            for r in range(4):
                jobs.append((four[r:] + four[:r], args.seed + i, args.scoring, args.time_limit))
    # The slow games (search bots) first, so the workers finish together.
    jobs.sort(key=lambda job: -sum("mcts" in s for s in job[0]))

    tallies: dict[tuple[str, ...], Tally] = defaultdict(Tally)
    start = time.perf_counter()
    with Pool(args.workers) as pool:
        for done, game in enumerate(pool.imap_unordered(play, jobs), 1):
            key = tuple(sorted(game["specs"]))
            tallies[key].add(game)
            if done % 10 == 0 or done == len(jobs):
                print(f"{done}/{len(jobs)} games, {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)

    print(f"Scoring {args.scoring}; seeds {args.seed}..{args.seed + max(args.deals if pairs else 0, args.four_deals if four else 0) - 1}; "
          f"a shared first place counts as a share of a win (half in two-player games).")
    for a, b in pairs:
        tally = tallies[tuple(sorted((a, b)))]
        print(f"\nTwo players, {a} vs {b}: {tally.count} games ({args.deals} deals, both seats), faults {tally.faults}\n")
        print("\n".join(HEADER + tally.rows([a, b])))
    if four:
        tally = tallies[tuple(sorted(four))]
        print(f"\nFour players: {tally.count} games ({args.four_deals} deals, 4 seat rotations), "
              f"faults {tally.faults}\n")
        print("\n".join(HEADER + tally.rows(four)))
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
