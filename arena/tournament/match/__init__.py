"""Matches: 2-5 bots at one table, deal after deal in the duplicate format, to a fixed count or a test's verdict.

A match is a tournament of one table (``arena match A B [C ...]``): as many
players as bots, the first bot **A** (the challenger), every deal played in
every seating of its design — both seats with two players (``rotate``, which
is ``balanced`` for two), the ``balanced`` design of
:mod:`arena.plan.seating` with 3-5 (6, 12 or 20 games a deal).
Its ``tournament.toml`` is an ordinary tournament file (players, deals, seed,
scoring, time limit, seating, the bots as entrants, and a comment saying which
match it is), so the folder is an ordinary results folder that ``arena report``
reads.  It is played by the tournament runner
(:func:`arena.tournament.run.runner.run_tournament`: the same workers, sandbox,
records, resume check, folder lock and fault summary) through a
:class:`~.feed.MatchFeed`, which chooses the games handed out and says when to
stop.

* :mod:`.plan`: the match as given (its bots, its end, its settings) and the tournament file it plays;
* :mod:`.tally`: the games stored, counted deal by deal in deal order, A's scores and the test's state;
* :mod:`.folder`: ``match.json``, and a results folder that holds a match (its seed, its cap for a resume);
* :mod:`.feed`: the games handed out a few deals ahead of the count, and the run of a match to its end.

The text of a verdict is :mod:`arena.report.match`'s (from ``match.json``), the LLR plot
:func:`arena.report.plots.llr_plot`'s.
"""
