"""One module per ``arena`` command; see :mod:`arena.cli`."""
