"""Provides the Raw Log's lazy finishing: the rest of a page wrapped after its first frame.

A page is shown with only what the screen needs wrapped (:mod:`.pagelayout`).
:class:`PageFinisher` wraps the rest a few records a step, the records below the first
screen first, then those above it, with the event loop idle between steps so a key or a
frame never waits for the whole page. A newer layout (another page, a new width, a
toggled record) makes the steps of the older one do nothing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from functools import partial

from .pagelayout import PageLayout

#: Records wrapped per step when the rest of a page is laid out after its first frame.
FINISH_CHUNK = 8
#: Seconds one such step may take: a step holds the loop, and a key pressed meanwhile
#: waits for it (8 records with long tool calls took 20-70 ms on a busy machine).
FINISH_STEP_S = 0.004
#: Seconds between such steps with the loop idle. The loop releases the GIL only for an
#: instant between callbacks, too short for another thread to take it, so back-to-back
#: steps starved Textual's input and output threads: a key came 10-15 ms late and a frame
#: reached the terminal only after the last step. Idle for this long, the loop sleeps in
#: ``select`` and they run.
FINISH_GAP_S = 0.0005


class PageFinisher:
    """Wraps what a page's first frame left unwrapped, in short steps.

    Args:
        layout: The page's layout (the view's).
        render_head: Wraps the records from a position up to the layout's head and keeps
            what the reader sees in place (the view scrolls by the lines that moved).
        later: Runs a callable through the view's message queue (``call_later``).
        done: Called once the whole page is wrapped.
    """

    def __init__(
        self,
        layout: PageLayout,
        *,
        render_head: Callable[[int], None],
        later: Callable[[Callable[[], None]], object],
        done: Callable[[], None],
    ) -> None:
        self._layout = layout
        self._render_head = render_head
        self._later = later
        self._done = done
        #: The layout's generation: a step of an older layout does nothing.
        self.generation = 0

    def restart(self) -> int:
        """A new layout, or another page was asked for: the older steps stop. Returns the
        new generation (for :meth:`step`)."""
        self.generation += 1
        return self.generation

    def step(self, generation: int, *, chunk: int | None = FINISH_CHUNK) -> None:
        """Wrap up to ``chunk`` records (None: all) for ``generation``, then schedule the next step."""
        layout = self._layout
        if generation != self.generation or not layout.pending:
            return
        if chunk is None:
            layout.render_through(layout.count - 1)
            self._render_head(0)
        elif layout.next < layout.count:
            last = min(layout.count - 1, layout.next + chunk - 1)
            deadline = time.perf_counter() + FINISH_STEP_S
            layout.render_through(layout.next)  # at least one record a step
            while layout.next <= last and time.perf_counter() < deadline:
                layout.render_through(layout.next)
        else:
            deadline = time.perf_counter() + FINISH_STEP_S
            first = layout.head - 1  # at least one record a step
            while first > max(0, layout.head - chunk) and time.perf_counter() < deadline:
                layout.wrap(first - 1)  # wrapped now (the view caches it) to measure the step
                first -= 1
            self._render_head(first)
        if layout.pending:
            # Through the event loop, not straight into the view's queue: a widget handles
            # its queued messages without yielding, so a key that came meanwhile (it reaches
            # the view through the app) would wait for the whole page.
            asyncio.get_running_loop().call_later(FINISH_GAP_S, self._later, partial(self.step, generation))
            return
        self._done()

    def now(self) -> None:
        """Wrap the whole rest of the page at once."""
        if self._layout.pending:
            self.step(self.generation, chunk=None)

    def resume(self) -> None:
        """Go on wrapping the current layout (steps were held for a page that did not come)."""
        if self._layout.pending:
            self._later(partial(self.step, self.generation))
