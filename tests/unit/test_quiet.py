"""The quiet gate: start-up's background work waits for a pause in the keys (issue 16).

The gate is driven here by a hand-stepped clock and a list of scheduled timers, so each
case states exactly when the work runs; the app-level case is in ``tests/ui/test_first_keys.py``.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from zett_browser.screens.quiet import QuietGate


class Loop:
    """Timers of a hand-stepped clock: ``advance`` fires the ones that are due."""

    def __init__(self) -> None:
        self.now = 100.0
        self.timers: list[tuple[float, Callable[[], object]]] = []
        self.soon: list[Callable[[], object]] = []

    def schedule(self, delay: float, callback: Callable[[], object]) -> None:
        self.timers.append((self.now + delay, callback))

    def advance(self, seconds: float) -> None:
        end = self.now + seconds
        while True:
            due = sorted((at, i) for i, (at, _) in enumerate(self.timers) if at <= end)
            if not due:
                break
            at, index = due[0]
            _, callback = self.timers.pop(index)
            self.now = at
            callback()
        self.now = end


def gate(loop: Loop, quiet: float = 0.4, longest: float = 3.0) -> QuietGate:
    return QuietGate(loop.schedule, loop.soon.append, quiet=quiet, longest=longest, clock=lambda: loop.now)


def test_with_no_key_the_work_starts_after_the_quiet_time() -> None:
    loop = Loop()
    ran: list[float] = []
    quiet = gate(loop)
    quiet.run(lambda: ran.append(loop.now))
    loop.advance(0.39)
    assert ran == [] and quiet.pending == 1
    loop.advance(0.02)
    assert ran == [pytest.approx(100.4)] and quiet.pending == 0


def test_keys_pressed_back_to_back_push_the_work_past_the_last_one() -> None:
    loop = Loop()
    ran: list[float] = []
    quiet = gate(loop)
    quiet.run(lambda: ran.append(loop.now))
    for _ in range(10):  # a key every 0.1 s for a second
        loop.advance(0.1)
        quiet.activity()
    assert ran == []
    loop.advance(0.39)
    assert ran == []
    loop.advance(0.02)
    assert ran == [pytest.approx(101.4)], "0.4 s after the last key"


def test_a_reader_who_never_pauses_still_gets_the_work_at_the_longest_wait() -> None:
    loop = Loop()
    ran: list[float] = []
    quiet = gate(loop, longest=2.0)
    quiet.run(lambda: ran.append(loop.now))
    for _ in range(50):
        loop.advance(0.1)
        quiet.activity()
    assert ran == [pytest.approx(102.0)]


def test_no_quiet_time_runs_the_work_after_the_next_refresh() -> None:
    loop = Loop()
    ran: list[str] = []
    quiet = gate(loop, quiet=0)
    quiet.run(lambda: ran.append("work"))
    assert loop.timers == [] and len(loop.soon) == 1
    loop.soon[0]()
    assert ran == ["work"]
