"""Seeded tournaments (round-robin or gauntlet): the file format, the schedule, the runner and the tables.

* :mod:`.config` reads and checks a tournament file (TOML);
* :mod:`.schedule` says which entrants play which deal from which seats (:mod:`.seating`: in which seat orders);
* :mod:`.workers` plays them in worker processes, replacing one that a bot ends or blocks;
* :mod:`.runner` runs a tournament: the results folder, the progress bar, appending the results;
* :mod:`.results` turns ``games.csv`` into the standings, head-to-head, seat and order tables.
"""
