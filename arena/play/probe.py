"""A probe game: one bot at seat 0 against ``random``, played as a tournament plays it, to tell whether it
is usable before a tournament finds out (``arena bots --probe``).

The bot is prepared by the referee (its program started and its handshake checked) and then plays one
two-player game under the same referee: its isolation, its time limit, its logs.  What the probe tells
is what a tournament's fault summary would: the turns the bot answered with a legal move, and its first
fault (an illegal move, a late answer, a crash ...), with the message a tournament logs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from arena.display.terminal import duration

if TYPE_CHECKING:
    from arena.play.prepared import PreparedBot
    from arena.play.referee import Referee

#: The probed bot's opponent.
OPPONENT = "random"


@dataclass(frozen=True)
class ProbeGame:
    """What the probe game showed of the bot at seat 0."""

    seed: int
    #: Turns the bot was asked, and of those the turns it answered with a legal move.
    asked: int
    answered: int
    #: Its thinking time in the game and its longest turn, in seconds.
    seconds: float
    longest: float
    #: Its first fault (``move``, ``kind``, ``message`` as the record holds it), or None.
    fault: dict[str, Any] | None
    #: Its log (its standard error), when the referee keeps logs.
    log: str | None

    @property
    def usable(self) -> bool:
        """Whether the bot played the game through without a fault."""
        return self.fault is None

    def summary(self) -> str:
        """The game in one line: the turns answered and the time, or the first fault as a tournament shows it."""
        turns = f"{self.answered} turn{'' if self.answered == 1 else 's'} answered"
        if self.fault is None:
            mean = self.seconds / self.asked if self.asked else 0.0
            return f"{turns}, no fault ({duration(mean)} a move on average, longest {duration(self.longest)})"
        return f"{turns}; first fault at move {self.fault['move']}: {self.fault['kind']}: {self.fault['message']}"


def probe_game(referee: Referee, bot: PreparedBot, seed: int) -> ProbeGame:
    """Play ``bot`` (prepared by ``referee``) at seat 0 against :data:`OPPONENT` in one game of ``seed``."""
    with referee:
        outcome = referee.play([bot, OPPONENT], seed, names=[bot.name or bot.text, OPPONENT])
    faults = [fault for fault in outcome.faults if fault["seat"] == 0]
    return ProbeGame(seed, outcome.asked[0], outcome.answered[0], outcome.seconds[0], outcome.longest[0],
                     faults[0] if faults else None, referee.log_path(bot))
