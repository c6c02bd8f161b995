"""Seeded tournaments (round-robin or gauntlet) and matches: planned, played, stored.

* :mod:`.plan` reads and checks a tournament file and says which entrants play which deal from which seats;
* :mod:`.run` plays the games in worker processes or on a Dask cluster (:mod:`.run.codec`: what a worker
  answers; :mod:`.run.chunks`: how many games it is handed at once) and appends the results;
* :mod:`.folder` is the results folder: its files, the rows of ``games.csv``, the entrants' identities,
  checking and recovering what is stored;
* :mod:`.match` plays 2-5 bots at one table to a fixed count or a sequential test's verdict.

The tables are :mod:`arena.report`'s.
"""
