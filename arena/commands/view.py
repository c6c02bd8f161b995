"""``arena view``: write a game's replay as one self-contained HTML page."""

from __future__ import annotations

import difflib
import gzip
import json
import zlib
from pathlib import Path

import click

from arena.commands.replay import NoSuchGame, _is_lines_file, _load, _replayed
from arena.display.terminal import printable
from arena.results.finding import records_in


def _lines_file(path: Path) -> Path | None:
    """The JSON-lines file of records that ``path`` names (itself, or in a results folder)."""
    if path.is_dir():
        return records_in(path)
    return path if _is_lines_file(path) and path.is_file() else None


def game_ids(path: Path) -> list[str]:
    """Every readable game id in the JSON-lines file ``path``, in file order."""
    opener = gzip.open if path.name.endswith(".gz") else open
    ids = []
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace") as lines:  # type: ignore[operator]
            for line in lines:
                try:
                    value = json.loads(line)
                except ValueError:
                    continue
                if isinstance(value, dict) and "game_id" in value:
                    ids.append(str(value["game_id"]))
    except (OSError, EOFError, zlib.error):
        pass
    return ids


def nearest_ids(path: Path, game_id: str, count: int = 3) -> list[str]:
    """The ids in ``path`` closest to ``game_id`` (difflib), best first."""
    return difflib.get_close_matches(game_id, game_ids(path), n=count, cutoff=0.0)


def default_output(file: Path, game_id: str | None) -> Path:
    """``ID.html`` for a game of a folder, else the record's name with ``.html`` beside it."""
    if game_id is not None:
        return Path("".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in game_id) + ".html")
    name = file.name
    for suffix in (".json.gz", ".gz", ".json"):
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
            break
    return file.with_name(name + ".html")


def write_page(out: Path, text: str) -> None:
    """Write ``text`` to ``out``; a :class:`~arena.results.files.RunError` (one line) if it cannot be written."""
    from arena.results.files import write_atomically

    # Through a temporary file: a failed write leaves no half page.
    write_atomically(out, lambda tmp: tmp.write_text(text, encoding="utf-8"))


@click.command("view")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--game", "game_id", metavar="ID",
              help="With a tournament results folder or a .jsonl(.gz) file of records: the game to show.")
@click.option("-o", "--out", "out", type=click.Path(path_type=Path), metavar="OUT.html",
              help="Where to write the page (default: FILE's name with .html beside it, or ID.html with --game).")
def command(file: Path, game_id: str | None, out: Path | None) -> None:
    """Write the replay of the game record FILE as one HTML page that opens offline.

    The page shows the board with its coordinates and a legend, every color's
    rack and pile, the move list and the result, with controls (the deal, back,
    play/pause, forward, the final position, a slider and the arrow keys) to
    step through the game.  It opens on the final position; PAGE.html#40 opens
    after move 40, and the address follows the move shown.  FILE may be a record
    (.json or .json.gz) or a tournament results folder (or its records.jsonl)
    with --game ID.  The record is checked move by move first, as by
    arena replay --verify; a record that fails writes nothing.
    """
    from arena.display.html import replay_page

    try:
        record = _load(file, game_id)
    except NoSuchGame as exc:
        lines = _lines_file(file)
        near = [] if game_id is None or lines is None else nearest_ids(lines, game_id)
        if near:
            raise NoSuchGame(f"{exc}; nearest: " + ", ".join(printable(n) for n in near)) from None
        raise
    game = _replayed(record, file, game_id)
    target = out if out is not None else default_output(file, game_id)
    title = f"{game_id}" if game_id is not None else file.name
    write_page(target, replay_page(game, f"Uptown replay: {title}"))
    click.echo(str(target), err=True)
