"""The built-in bots of the arena, registered through the ``arena.bots`` entry points like any plug-in."""
