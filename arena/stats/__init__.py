"""Statistics of a comparison: intervals, sequential tests (SPRT) and ratings with error bars.

Pure functions on plain Python and numpy/pandas data: no files, no clocks, and
randomness only from generators seeded by the caller.
"""
