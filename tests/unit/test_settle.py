"""The wait for a frozen bot to stop (``Sandboxed._settle``), on a clock the test moves: a bot is killed for
running on after :data:`~arena.isolation.sandbox.FREEZE_SECONDS` of the wait, never for the machine's own
delays (a referee that got no CPU, a virtual machine paused by its host), and always by the cap."""

from __future__ import annotations

import pytest

from arena.isolation import sandbox


class Clock:
    """``time`` for the sandbox module: ``monotonic`` as the test sets it; each ``sleep`` moves it by the
    pause asked for plus ``late`` (how long the referee waited beyond it, for the CPU or a paused machine)."""

    def __init__(self, late: float = 0.0, stall_at: float | None = None, stall: float = 0.0) -> None:
        self.now, self.late, self.stall_at, self.stall = 100.0, late, stall_at, stall

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds + self.late
        if self.stall_at is not None and self.now >= self.stall_at:
            self.now += self.stall  # the whole machine stopped once, for ``stall`` seconds
            self.stall_at = None


def waited(monkeypatch: pytest.MonkeyPatch, clock: Clock, stops_after: float) -> tuple[bool, float]:
    """Freeze a bot that stops ``stops_after`` seconds of the clock after its freezing and settle it:
    whether it was killed, and how long the wait took on the clock."""
    monkeypatch.setattr(sandbox, "time", clock)
    killed: list[int] = []
    monkeypatch.setattr(sandbox.os, "kill", lambda pid, sig: killed.append(pid))
    box = object.__new__(sandbox.Sandboxed)
    box._dead, box._frozen, box._state, box.unstoppable = False, True, 0, False
    box.process = type("Process", (), {"pid": 4242})()
    since = clock.now
    monkeypatch.setattr(box, "_stopped", lambda: clock.now - since >= stops_after)
    box._settle(since)
    assert box.unstoppable == bool(killed)
    return box.unstoppable, clock.now - since


def test_a_bot_that_runs_on_past_the_bound_is_killed_then(monkeypatch):
    killed, took = waited(monkeypatch, Clock(), stops_after=60)
    assert killed and sandbox.FREEZE_SECONDS <= took < sandbox.FREEZE_SECONDS + 0.01


def test_a_bot_that_stops_within_the_bound_is_not_killed(monkeypatch):
    assert waited(monkeypatch, Clock(), stops_after=0.9 * sandbox.FREEZE_SECONDS) == (
        False, pytest.approx(0.9 * sandbox.FREEZE_SECONDS, abs=0.01))


def test_a_pause_of_the_whole_machine_is_not_counted_against_the_bot(monkeypatch):
    # Frozen, then the machine stops for 3 s: the bot stops 0.2 s after it runs again.
    clock = Clock(stall_at=100.1, stall=3.0)
    assert waited(monkeypatch, clock, stops_after=3.3) == (False, pytest.approx(3.3, abs=0.01))


def test_a_referee_short_of_cpu_counts_only_the_steps_it_had(monkeypatch):
    # Every sleep of the referee ends 50 ms late: the bot, which stops after 2 s of the clock, is waited for.
    assert waited(monkeypatch, Clock(late=0.05), stops_after=2.0)[0] is False


def test_however_late_the_referee_a_bot_not_stopped_at_the_cap_is_killed(monkeypatch):
    killed, took = waited(monkeypatch, Clock(late=0.5), stops_after=60)
    assert killed and took == pytest.approx(sandbox._FREEZE_CAP, abs=0.6)
