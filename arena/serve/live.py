"""A game being played, as the replay page shows a game: made from a worker's live file.

The live file (:mod:`arena.results.live`) holds the game's seed, names and moves; the position after
each is the rules engine's, dealt from the seed and played again here (a move the engine refuses ends
the moves shown).  :func:`live_replay` makes of it the :class:`~arena.records.Replay` that
:func:`arena.display.html.game_data` turns into the page's steps.
"""

from __future__ import annotations

from pathlib import Path

from arena import records
from arena.results.live import LiveGame, live_files, live_path, read_live
from arena.rules import GameSettings, GameState, IllegalMove, deal


def live_replay(game: LiveGame) -> records.Replay | None:
    """The replay of the moves ``game`` shows so far, or None for settings the rules do not have."""
    try:
        settings = GameSettings.for_players(game.players, game.scoring, game.penalty)
        deals = {color: tuple(tiles) for color, tiles in deal(game.seed, settings).items()}
    except (ValueError, TypeError, OverflowError):
        return None
    state = GameState(settings, deals)
    moves = []
    seats = []
    for move in game.moves:
        if state.over:
            break
        try:
            state.check(move)
        except (IllegalMove, ValueError, TypeError):
            break
        seats.append(state.to_move)
        state.push(move)
        moves.append(move)
    return records.Replay({}, settings, tuple(game.names), game.seed, deals, tuple(moves), state, tuple(seats))


def worker_game(folder: Path, worker: int, last: bool = False) -> LiveGame | None:
    """The game in the live file of ``worker`` of ``folder`` (``last``: of the last game it finished), if any."""
    return read_live(live_path(folder, worker, last))


def ended_game(folder: Path, game_id: str) -> records.Replay | None:
    """The game ``game_id`` as a live file of ``folder`` holds it once it is over (its record not stored yet:
    it is, within a second or so of the game's end), or None.  Its moves and result are the game's; its faults and
    times come with its record."""
    for path in live_files(folder):
        game = read_live(path)
        if game is not None and game.game_id == game_id and game.over:
            replayed = live_replay(game)
            if replayed is not None and replayed.state.over:
                return replayed
    return None
