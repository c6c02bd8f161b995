"""Running a tournament: the runner, the local worker processes and the Dask cluster."""
