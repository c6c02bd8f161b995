"""The games being played, move by move: one small file per worker in the results folder's ``live/``.

A local worker of ``arena run`` or ``arena match`` writes the game it plays into ``live/worker-N.txt``
(:class:`LivePublisher`), for ``arena serve`` to show while it is played.  The file holds one game:
it is emptied when the next game starts, so it stays a few hundred bytes whatever the run's length.
Its lines::

    {"game_id": "g000001", "names": [...], "seed": 7, "players": 4, "scoring": "uptown", "penalty": "color"}
    0 12 40        one line per move: color, tile, cell (a pass: -1 -1 -1)
    end            the game is over (its record is stored with its chunk)

Cheap by design: a game is published only when the last published one started at least
:data:`GAME_EVERY` ago (a run of quick games shows a couple a second; the others cost nothing), the
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
#: Seconds between the starts of two published games, at least: a page shows a quick run's games a couple a
#: second (making, writing and renaming a game's file costs a millisecond on a busy machine).
GAME_EVERY = 0.5
#: The longest live file read (a worker's file holds one game: a few kilobytes).
MAX_LIVE_BYTES = 256 * 1024
_END = "end"


def live_path(folder: Path, slot: int, last: bool = False) -> Path:
    """The live file of the worker in ``slot`` of the run writing ``folder``; with ``last``, the file of the
    last game it finished (kept until its next published game ends: its record is stored with its chunk)."""
    return folder / LIVE_FOLDER / f"worker-{int(slot)}{'.last' if last else ''}.txt"


class LivePublisher:
    """Writes the games one worker plays into its live files; see the module docstring.

    Both files are opened once and written in place (``pwrite``): a game costs a few small writes, no
    file made, renamed or removed.  The last game's file gets a finished game when the next published
    game takes its place in the live file.  A file that cannot be written costs the live view, never
    the game: the publisher then stops writing.
    """

    def __init__(self, path: Path, clock: Any = time.monotonic) -> None:
        self.path = Path(path)
        #: The file of the last game finished (``worker-N.last.txt`` beside ``worker-N.txt``).
        self.last = self.path.with_name(self.path.stem + ".last" + self.path.suffix)
        self._clock = clock
        self._fd: int | None = None
        self._last_fd: int | None = None
        #: The live file's text: the game's, kept to be copied to the last game's file.
        self._text = bytearray()
        self._header = 0
        #: The state of the game being written (a game played again is another).
        self._state: GameState | None = None
        self._written = 0
        self._due = 0.0
        self._next_game = 0.0
        self._publishing = False
        self._ended = False
        self._broken = False

    def start(self, game_id: str, names: Sequence[str], seed: int, players: int, scoring: str, penalty: str) -> bool:
        """A new game: whether it is published (the live file holds it from its header on).

        A game that starts sooner than :data:`GAME_EVERY` after the last published one started is not:
        of a run of quick games a page shows a couple a second, and the referee pays for those alone."""
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
                self._last_fd = os.open(self.last, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
            assert self._last_fd is not None
            if self._ended:  # the game the live file holds is over: it becomes the last game's
                os.ftruncate(self._last_fd, 0)
                os.pwrite(self._last_fd, self._text, 0)
            os.ftruncate(self._fd, 0)
            os.pwrite(self._fd, data, 0)
        except OSError:
            self._stop()
            return False
        self._text[:] = data
        self._header = len(data)
        self._state = None
        self._written = 0
        self._ended = False
        self._due = now + WRITE_EVERY
        self._next_game = now + GAME_EVERY
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
            self._ended = True

    def _write(self, state: GameState, end: bool) -> None:
        fd = self._fd
        if fd is None:
            return
        if state is not self._state:  # the game played again from its deal (the referee does that): its moves anew
            if self._state is not None:
                del self._text[self._header:]
                self._written = 0
                try:
                    os.ftruncate(fd, self._header)
                except OSError:
                    self._stop()
                    return
            self._state = state
        history = state.history
        lines = [f"{m[0]} {m[1]} {m[2]}\n" for m, _ in history[self._written:]]
        if end:
            lines.append(_END + "\n")
        data = "".join(lines).encode("ascii")
        try:
            os.pwrite(fd, data, len(self._text))
        except OSError:
            self._stop()
            return
        self._text += data
        self._written = len(history)
        self._due = self._clock() + WRITE_EVERY

    def _stop(self) -> None:
        self._broken = True
        self.close()

    def close(self) -> None:
        """Close the files and remove them: the worker plays no more games."""
        for fd in (self._fd, self._last_fd):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:  # closed already, by a bot playing in the worker's process
                    pass
        self._fd = self._last_fd = None
        for path in (self.path, self.last):
            try:
                path.unlink()
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
