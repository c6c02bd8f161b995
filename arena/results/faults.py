"""The faults of a tournament's games, counted by entrant and kind, for the summary a run ends with."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arena.display.terminal import printable


@dataclass
class FaultCount:
    """How often one entrant faulted in one way, and the first time it did."""

    count: int
    first_game: str
    first_message: str


class FaultSummary:
    """Faults by ``(entrant, kind)``, in the order each was first seen."""

    def __init__(self) -> None:
        self.counts: dict[tuple[str, str], FaultCount] = {}

    def __len__(self) -> int:
        """The number of faults."""
        return sum(c.count for c in self.counts.values())

    def add(self, entrant: str, kind: str, message: str, game_id: str, count: int = 1) -> None:
        found = self.counts.get((entrant, kind))
        if found is None:
            self.counts[(entrant, kind)] = FaultCount(count, game_id, message)
        else:
            found.count += count

    def add_entry(self, entry: Mapping[str, Any]) -> None:
        """A fault as a worker hands it (:func:`~arena.tournament.run.codec.fault_entry`), or an entry of :meth:`entries`."""
        self.add(entry["entrant"], entry["kind"], entry["message"], entry["game_id"], int(entry.get("count", 1)))

    def entries(self) -> list[dict[str, Any]]:
        """The summary as plain entries (one per entrant and kind, with its count), for :meth:`add_entry`."""
        return [{"entrant": entrant, "kind": kind, "message": c.first_message, "game_id": c.first_game,
                 "count": c.count} for (entrant, kind), c in self.counts.items()]

    def add_record(self, record: Mapping[str, Any], game_id: str) -> None:
        """Every fault a (checked) record's ``faults`` key holds, under its seat's name."""
        names = [p["name"] for p in record["players"]]
        for fault in record.get("faults") or ():
            self.add(names[fault["seat"]], fault["kind"], fault["message"], game_id)

    def update(self, other: FaultSummary) -> None:
        for (entrant, kind), c in other.counts.items():
            found = self.counts.get((entrant, kind))
            if found is None:
                self.counts[(entrant, kind)] = FaultCount(c.count, c.first_game, c.first_message)
            else:
                found.count += c.count

    def lines(self, width: int = 100) -> list[str]:
        """The summary as aligned text lines: entrant, kind, count, the first message (cut to ``width``)."""
        if not self.counts:
            return []
        rows = sorted(self.counts.items(), key=lambda item: (item[0][0], -item[1].count, item[0][1]))
        name_w = max(len("entrant"), *(len(e) for (e, _), _ in rows))
        rows = [((entrant, printable(kind)), c) for (entrant, kind), c in rows]
        kind_w = max(len("kind"), *(len(k) for (_, k), _ in rows))
        count_w = max(len("count"), *(len(str(c.count)) for _, c in rows))
        out = [f"{'entrant':<{name_w}}  {'kind':<{kind_w}}  {'count':>{count_w}}  first (game, message)"]
        for (entrant, kind), c in rows:
            first = printable(f"{c.first_game}: {c.first_message}")  # a bot's words: escaped
            if len(first) > width:
                first = first[: width - 3] + "..."
            out.append(f"{entrant:<{name_w}}  {kind:<{kind_w}}  {c.count:>{count_w}}  {first}")
        return out
