"""Seeded tournaments (round-robin or gauntlet) and matches, played.

* :mod:`.run` plays the games in worker processes or on a Dask cluster (:mod:`.run.codec`: what a worker
  answers; :mod:`.run.chunks`: how many games it is handed at once) and appends the results;
* :mod:`.match` plays 2-5 bots at one table to a fixed count or a sequential test's verdict.

What a tournament is and which games it holds is :mod:`arena.plan`'s; the results folder, its files
and what is stored in it :mod:`arena.results`'; the tables :mod:`arena.report`'s.
"""
