"""Provides the main screen's usage glue: the timing view (``T``), tree sort (``S``), details (``u``).

The usage numbers come from :class:`~zett_browser.model.usage.UsageService` (the side
index) in the options; without it (``--no-index``) the tree looks as it always did, ``S``
and ``u`` say why they cannot help, and the timing view (which reads the store) works.
"""

from __future__ import annotations

from ..model.usage import UsageService
from .indexing import IndexingScreen
from .timing import Chosen, TimingScreen


class UsageScreen(IndexingScreen):
    """The usage actions of the main screen."""

    @property
    def usage_service(self) -> UsageService | None:
        """The side index's usage numbers, or None (``--no-index``)."""
        service: UsageService | None = getattr(self.options, "usage", None)
        return service

    def action_timing(self) -> None:
        """Open the timing view of the open session."""
        if self.open is None:
            self.notify("Open a session first", markup=False)
            return
        self.app.push_screen(TimingScreen(self.store, self.open.node, self.fetch), self._timing_closed)

    def _timing_closed(self, chosen: Chosen | None) -> None:
        if chosen is None:
            return
        if chosen.session_id is not None:
            self.show_hit(chosen.session_id, 1)
        elif chosen.sequence is not None:
            self.show_sequence(chosen.sequence)
