"""Running a tournament: the runner, the local worker processes, the Dask cluster, the answers they send back and the size of the chunks they are handed."""
