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
"""

from __future__ import annotations

import gc

#: Young (generation 1) collections since the last full one after which a full one is due.
FULL_AFTER = 10
#: Seconds between two checks.
PACE_S = 1.0
#: A generation 2 threshold automatic collection never reaches.
_NEVER = 1 << 30


class CollectionPacer:
    """Holds CPython's automatic full collections off and runs them when asked to."""

    def __init__(self) -> None:
        self._saved: tuple[int, int, int] | None = None
        #: Full collections this pacer ran.
        self.collections = 0

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
        gc.collect(2)
        self.collections += 1
        return True

    def stop(self) -> None:
        """Give CPython its own thresholds back."""
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None


__all__ = ["FULL_AFTER", "PACE_S", "CollectionPacer"]
