"""Seeded round-robin tournaments: the file format, the schedule, the runner and the tables.

* :mod:`.config` reads and checks a tournament file (TOML);
* :mod:`.schedule` says which entrants play which deal from which seats;
* :mod:`.runner` plays the games in worker processes and appends the results;
* :mod:`.results` turns ``games.csv`` into the standings, head-to-head and seat tables.
"""
