"""The games being played, move by move: one small file per worker in the results folder's ``live/``.

A local worker of ``arena run`` or ``arena match`` writes the game it plays into ``live/worker-N.txt``
(:class:`LivePublisher`), for ``arena serve`` to show while it is played.  The file holds one game:
it is emptied when the next game starts, so it stays a few hundred bytes whatever the run's length.
Its lines::

    {"game_id": "g000001", "names": [...], "seed": 7, "players": 4, "scoring": "uptown", "penalty": "color"}
    0 12 40        one line per move: color, tile, cell (a pass: -1 -1 -1)
    end            the game is over (its record is stored with its chunk)

Cheap by design: a game is published only when the last published one started at least
:data:`WRITE_EVERY` ago (a run of quick games shows a few a second; the others cost nothing), the
referee's ``on_move`` of a published game only compares the time with the next write's (none sooner
than :data:`WRITE_EVERY` after the last), and a write appends every move made since in one system
call.  A game whose moves take longer than that has each move written as it is made.

:func:`read_live` reads such a file as it is found, also half written: a cut header is no game,
a cut last line is not read, and a line that is not a move ends the moves.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.results.files import LIVE_FOLDER
from arena.rules import GameState, Move

#: Seconds between two writes of a game's moves, at least (its start and its end are written at once).
WRITE_EVERY = 0.1
#: The longest live file read (a worker's file holds one game: a few kilobytes).
MAX_LIVE_BYTES = 256 * 1024
_END = "end"


def live_path(folder: Path, slot: int) -> Path:
    """The live file of the worker in ``slot`` of the run writing ``folder``."""
    return folder / LIVE_FOLDER / f"worker-{int(slot)}.txt"


class LivePublisher:
    """Writes the games one worker plays into its live file; see the module docstring.

    A file that cannot be written costs the live view, never the game: the publisher then stops writing.
    """

    def __init__(self, path: Path, clock: Any = time.monotonic) -> None:
        self.path = Path(path)
        self._clock = clock
        self._fd: int | None = None
        self._offset = 0
        self._written = 0
        self._due = 0.0
        self._next_game = 0.0
        self._publishing = False
        self._broken = False

    def start(self, game_id: str, names: Sequence[str], seed: int, players: int, scoring: str, penalty: str) -> bool:
        """A new game: whether it is published (the file emptied and its header written).

        A game that starts sooner than :data:`WRITE_EVERY` after the last published one started is not:
        of a run of quick games a page shows a few a second, and the referee pays for those alone."""
        now = self._clock()
        if self._broken or now < self._next_game:
            self._publishing = False
            return False
        header = {"game_id": game_id, "names": list(names), "seed": seed, "players": players,
                  "scoring": scoring, "penalty": penalty}
        data = (json.dumps(header, separators=(",", ":")) + "\n").encode("utf-8")
        try:
            if self._fd is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
            os.ftruncate(self._fd, 0)
            os.pwrite(self._fd, data, 0)
        except OSError:
            self._stop()
            return False
        self._offset = len(data)
        self._written = 0
        self._due = now + WRITE_EVERY
        self._next_game = now + WRITE_EVERY
        self._publishing = True
        return True

    def on_move(self, state: GameState, move: Move) -> None:
        """The referee's ``on_move``: the moves made since the last write, written when it is time."""
        if self._clock() >= self._due:
            self._write(state, False)

    def end(self, state: GameState) -> None:
        """The game is over: a published game's last moves and ``end`` written."""
        if self._publishing:
            self._publishing = False
            self._write(state, True)

    def _write(self, state: GameState, end: bool) -> None:
        fd = self._fd
        if fd is None:
            return
        history = state.history
        lines = [f"{m[0]} {m[1]} {m[2]}\n" for m, _ in history[self._written:]]
        if end:
            lines.append(_END + "\n")
        data = "".join(lines).encode("ascii")
        try:
            os.pwrite(fd, data, self._offset)
        except OSError:
            self._stop()
            return
        self._offset += len(data)
        self._written = len(history)
        self._due = self._clock() + WRITE_EVERY

    def _stop(self) -> None:
        self._broken = True
        self.close()

    def close(self) -> None:
        """Close the file and remove it: the worker plays no more games."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)
            try:
                self.path.unlink()
            except OSError:
                pass


@dataclass
class LiveGame:
    """A game as its live file shows it: its header's fields, the moves so far, and whether it is over."""

    game_id: str
    names: list[str]
    seed: int
    players: int
    scoring: str
    penalty: str
    moves: list[Move] = field(default_factory=list)
    over: bool = False


def read_live(path: Path) -> LiveGame | None:
    """The game in the live file ``path``, or None when it holds none that can be read (see the module docstring)."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_LIVE_BYTES)
    except OSError:
        return None
    lines = data.decode("utf-8", errors="replace").split("\n")[:-1]  # a cut last line is no line
    if not lines:
        return None
    try:
        head = json.loads(lines[0])
        game = LiveGame(str(head["game_id"]), [str(n) for n in head["names"]], int(head["seed"]),
                        int(head["players"]), str(head["scoring"]), str(head["penalty"]))
    except (ValueError, KeyError, TypeError):
        return None
    if not 2 <= game.players <= 5 or len(game.names) != game.players:
        return None
    for line in lines[1:]:
        if line == _END:
            game.over = True
            break
        parts = line.split(" ")
        if len(parts) != 3 or not all(p.lstrip("-").isdigit() for p in parts):
            break
        game.moves.append(Move(*(int(p) for p in parts)))
    return game


def live_files(folder: Path) -> list[Path]:
    """The live files of ``folder``, by worker."""
    try:
        return sorted((p for p in (folder / LIVE_FOLDER).iterdir() if p.name.startswith("worker-")),
                      key=lambda p: p.name)
    except OSError:
        return []
