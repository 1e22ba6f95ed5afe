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


async def test_the_build_waits_between_batches_for_a_pause_of_the_keys() -> None:
    """Issue 29: the side index's first build ran its batches under a reader's page turns
    (50–220 ms in tmux against 25–30 ms without it). Between batches it now waits until the
    keys pause, and never longer than the longest wait for a reader who keeps typing."""
    import asyncio
    import time

    real = QuietGate(lambda delay, callback: None, lambda callback: None, quiet=0.15, longest=0.6)
    started = time.monotonic()
    await real.settled()  # no key since the gate was made ~0 s ago: waits out the quiet time
    assert 0.12 <= time.monotonic() - started < 0.5

    real.last_activity = time.monotonic() - 1.0  # the keys paused long ago: no wait at all
    started = time.monotonic()
    await real.settled()
    assert time.monotonic() - started < 0.05

    async def typing() -> None:  # a key every 50 ms for a second
        for _ in range(20):
            real.activity()
            await asyncio.sleep(0.05)

    keys = asyncio.ensure_future(typing())
    await asyncio.sleep(0.01)
    started = time.monotonic()
    await real.settled()
    waited = time.monotonic() - started
    await keys
    assert 0.55 <= waited < 0.9, waited  # the longest wait, though the keys went on


async def test_index_sync_awaits_the_pause_between_steps_not_after_the_last() -> None:
    from zett_browser.screens.indexing import IndexSync

    class Step:
        def __init__(self, done: int, finished: bool) -> None:
            self.done, self.total, self.rate, self.eta, self.finished = done, 3, 1.0, None, finished

    class Service:
        async def steps(self):  # type: ignore[no-untyped-def]
            for number in range(1, 4):
                events.append(f"step {number}")
                yield Step(number, number == 3)

    events: list[str] = []

    async def settle() -> None:
        events.append("pause")

    sync = IndexSync(
        Service(),  # type: ignore[arg-type]
        None,  # type: ignore[arg-type]
        None,  # type: ignore[arg-type]
        None,  # type: ignore[arg-type]
        lambda delay, callback: None,
        lambda: None,
        settle,
    )
    await sync._steps(Service())  # type: ignore[arg-type]
    assert events == ["step 1", "pause", "step 2", "pause", "step 3"]
    assert sync.state.built


async def test_index_sync_pauses_only_in_its_first_build_and_closes_the_sync_when_cancelled() -> None:
    """Review cases: later syncs (following a live store) must not wait for the keys, and a
    sync cancelled while it waits (the app quitting) closes the index's sync at once."""
    import asyncio

    from zett_browser.screens.indexing import IndexSync

    class Step:
        def __init__(self, done: int, finished: bool) -> None:
            self.done, self.total, self.rate, self.eta, self.finished = done, 2, 1.0, None, finished

    events: list[str] = []

    class Service:
        async def steps(self):  # type: ignore[no-untyped-def]
            try:
                for number in (1, 2):
                    events.append(f"step {number}")
                    yield Step(number, number == 2)
            finally:
                events.append("closed")

    async def settle() -> None:
        events.append("pause")

    sync = IndexSync(Service(), None, None, None, lambda d, c: None, lambda: None, settle)  # type: ignore[arg-type]
    sync.state.built = True  # a later sync: no pause
    await sync._steps(Service())  # type: ignore[arg-type]
    assert events == ["step 1", "step 2", "closed"]

    events.clear()
    waiting = asyncio.Event()

    async def forever() -> None:
        events.append("pause")
        waiting.set()
        await asyncio.sleep(60)

    first = IndexSync(Service(), None, None, None, lambda d, c: None, lambda: None, forever)  # type: ignore[arg-type]
    task = asyncio.ensure_future(first._steps(Service()))  # type: ignore[arg-type]
    await waiting.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert events == ["step 1", "pause", "closed"], "the sync was closed when cancelled, not left to the GC"
