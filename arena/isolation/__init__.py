"""The OS sandbox a bot program runs in: the jail, seccomp, cgroups, its root file system, staging, limits, the
fork server, and where the arena's processes run (CPU placement).  The protocol and the bot host are :mod:`arena.wire`."""
