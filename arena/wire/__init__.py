"""What crosses the pipes between the referee and a bot program: the ``uptown-bot/1`` protocol's messages and
the Python bot host that speaks it for a Python bot.  It needs the rules, the bot API and the faults, and
nothing of the sandbox that a program runs in (:mod:`arena.isolation`)."""
