"""``python -m arena``: the ``arena`` command."""

from arena.cli import main

main()
