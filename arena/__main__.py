"""``python -m arena``: the ``arena`` command."""

from .cli import main

main()
