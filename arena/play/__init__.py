"""One game: the referee's loop, its seats, the in-process guard, prepared bots, outcomes and the human seat."""
