"""Provides the wait for a quiet keyboard before start-up's background work begins.

Once the first page shows, start-up still has work to do that nothing on screen waits
for: the side index's first sync (importing the index costs ~50 ms on the event loop, then
its reads compete for the store and the CPU), the usage labels read from that index, and
the orphan check. A reader who starts paging at once would wait behind all of it: the first
page turns after start-up took 1.5–5× a later one in a real terminal. So that work waits
until no key has come for :data:`QUIET_S` (at most :data:`QUIET_MAX_S`, so a reader who
never stops still gets search and labels).

The side index's first build then runs a batch at a time: between batches it waits for the
same quiet (:meth:`QuietGate.settled`, at most :data:`BUILD_PAUSE_MAX_S`), so a reader paging
through a large store during that build is not turning pages against it (page turns took 50–220 ms in a real terminal
while a 1M store's first build ran, 25–30 ms without it; issue 29).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

#: Seconds without a key before the waiting work starts (0: right after the next refresh).
QUIET_S = 0.4
#: Seconds after which the work starts even while keys keep coming.
QUIET_MAX_S = 3.0
#: Longest a batch of the side index's first build waits for the keys to pause: a reader
#: paging without a 0.4 s pause for this long still sees the build go on, a batch at a time,
#: and it runs at full speed as soon as the keys pause.
BUILD_PAUSE_MAX_S = 3.0


class QuietGate:
    """Runs callbacks once the keyboard has been quiet for a while.

    ``schedule(delay, callback)`` is the screen's timer (``set_timer``); ``soon(callback)``
    runs a callback after the next refresh (``call_after_refresh``), used when the quiet
    time is 0. ``clock`` is ``time.monotonic``; a test may pass its own.
    """

    def __init__(
        self,
        schedule: Callable[[float, Callable[[], object]], object],
        soon: Callable[[Callable[[], object]], object],
        *,
        quiet: float | None = None,
        longest: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._schedule = schedule
        self._soon = soon
        self._quiet = QUIET_S if quiet is None else quiet
        self._longest = QUIET_MAX_S if longest is None else longest
        self._clock = clock
        #: When the last key came (or the gate was last asked to wait).
        self.last_activity = clock()
        #: Callbacks waiting for quiet.
        self.pending = 0
        #: Called at every key (the side index's first build stops at once).
        self.on_activity: Callable[[], object] | None = None

    def activity(self) -> None:
        """A key came: waiting work waits :data:`QUIET_S` from now."""
        self.last_activity = self._clock()
        if self.on_activity is not None:
            self.on_activity()

    def run(self, callback: Callable[[], object]) -> None:
        """Run ``callback`` once no key has come for the quiet time (counted from now at least)."""
        if self._quiet <= 0:
            self._soon(callback)
            return
        asked = self._clock()
        deadline = asked + self._longest
        self.pending += 1

        def check() -> None:
            now = self._clock()
            wait = max(self.last_activity, asked) + self._quiet - now
            if wait > 0 and now < deadline:
                self._schedule(min(wait, deadline - now), check)
                return
            self.pending -= 1
            callback()

        self._schedule(self._quiet, check)

    async def settled(self, quiet: float | None = None, longest: float | None = None) -> None:
        """Return once no key has come for ``quiet`` seconds (default :data:`QUIET_S`), or
        after ``longest`` (default :data:`QUIET_MAX_S`) at most: background work goes on
        between a reader's keys, never starved by one who keeps typing."""
        quiet = self._quiet if quiet is None else quiet
        deadline = self._clock() + (self._longest if longest is None else longest)
        while True:
            now = self._clock()
            wait = self.last_activity + quiet - now
            if wait <= 0 or now >= deadline:
                return
            await asyncio.sleep(min(wait, deadline - now))
