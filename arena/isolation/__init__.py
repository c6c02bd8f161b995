"""A bot as a program behind walls: the protocol, the referee's side of a bot process, the bot host, the sandbox."""
