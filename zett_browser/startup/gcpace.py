"""Provides :class:`CollectionPacer`: the app's full garbage collections run between its
steps, never inside one.

CPython starts a full collection from whatever allocation happens to cross its threshold:
in a running app that is nearly always inside the busiest step, a frame being composed
or a poll's re-read, which allocate the most. A full collection walks every object the
app holds (~50,000 after start-up's are frozen; 11-17 ms here), so it landed on top of
a 10-15 ms frame: the longest UI blocks of the busy follow run were exactly those.

The pacer turns CPython's automatic *full* collections off (young ones stay automatic:
they take about a millisecond) and runs one from a timer of its own once as many young
collections have happened as CPython would wait for (its default threshold: ten).
Memory stays bounded as before; a full collection just waits for the next check.

What a full collection found alive is then frozen (``gc.freeze``: moved to the permanent
generation), so the next one walks only what was made since. A followed session keeps its
page's wrapped lines (Textual strips, eight small caches each: ~90,000 tracked objects on
the 10k store), and walking them all every few seconds was the longest UI stall while
following (33-54 ms on this machine; 17 ms with the survivors frozen). An object frozen
while alive that later becomes garbage *in a reference cycle* (a closed screen's widgets)
is found only once thawed: every :data:`THAW_S` seconds the due collection unfreezes
everything first and walks it all (about as long as an unpaced one: ~100 ms, once in ten
minutes), so such garbage is bounded.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

#: Young (generation 1) collections since the last full one after which a full one is due.
FULL_AFTER = 10
#: Seconds between two checks.
PACE_S = 1.0
#: Seconds between two full collections that thaw what earlier ones froze.
THAW_S = 600.0
#: A generation 2 threshold automatic collection never reaches.
_NEVER = 1 << 30


class CollectionPacer:
    """Holds CPython's automatic full collections off and runs them when asked to."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._saved: tuple[int, int, int] | None = None
        self._clock = clock
        self._last_thaw = clock()
        #: Full collections this pacer ran, and how many of them thawed the frozen objects first.
        self.collections = 0
        self.thaws = 0

    @property
    def active(self) -> bool:
        return self._saved is not None

    def start(self) -> None:
        """Turn automatic full collections off (until :meth:`stop`)."""
        if self._saved is None:
            self._saved = gc.get_threshold()
            young, middle, _ = self._saved
            gc.set_threshold(young, middle, _NEVER)

    def collect_if_due(self) -> bool:
        """Run a full collection if one is due (never while the collector is held off)."""
        if self._saved is None or not gc.isenabled() or gc.get_count()[2] < FULL_AFTER:
            return False
        now = self._clock()
        if now - self._last_thaw >= THAW_S:
            self._last_thaw = now
            self.thaws += 1
            gc.unfreeze()  # cyclic garbage among what earlier collections froze is found now
        gc.collect(2)
        gc.freeze()  # what is alive now is not walked again until the next thaw
        self.collections += 1
        return True

    def stop(self) -> None:
        """Give CPython its own thresholds back, and (after collections of its own) every frozen
        object to its collections: the process goes on without the app."""
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None
            if self.collections:
                gc.unfreeze()


__all__ = ["FULL_AFTER", "PACE_S", "THAW_S", "CollectionPacer"]
