"""Provides a key footer that re-lays itself out only when the keys it shows change.

Textual's ``Footer`` rebuilds all of its key widgets whenever focus moves, because
the active bindings may have changed. Moving focus between the jump prompt and the
Raw Log changes no key worth showing, yet the rebuild (and the relayout it causes) cost
more than the page the jump loads. This footer compares what it would show with what it
shows, and rebuilds only on a difference. While a text field has focus it keeps the keys
it showed (they apply again the moment typing ends), instead of rebuilding twice.
"""

from __future__ import annotations

import re

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer, Input

from .textual_compat import footer_ready, settle_footer_key


class KeyFooter(Footer):
    """A ``Footer`` that skips rebuilding when the shown keys are unchanged."""

    def __init__(self) -> None:
        super().__init__()
        self._shown: tuple[tuple[str, str, bool], ...] | None = None

    def _signature(self, screen: Screen[object]) -> tuple[tuple[str, str, bool], ...]:
        return tuple(
            (binding.key, binding.description, enabled)
            for (_, binding, enabled, _tooltip) in screen.active_bindings.values()
            if binding.show or binding.action == "command_palette"
        )

    def bindings_changed(self, screen: Screen[object]) -> None:
        if footer_ready(self) and isinstance(screen.focused, Input):
            return
        signature = self._signature(screen)
        if footer_ready(self) and signature == self._shown:
            return
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            self._shown = signature  # what the rebuild below will show
        super().bindings_changed(screen)

    def compose(self) -> ComposeResult:
        # Each key gets a class naming it (``-key-colon``), so app.tcss can leave keys out
        # on a narrow terminal and keep ``?`` and ``q`` on screen.
        # (Textual's FooterKey is private: its public ``key`` attribute is all this reads.)
        for widget in super().compose():
            key = getattr(widget, "key", None)
            if isinstance(key, str):
                widget.add_class("-key-" + re.sub(r"[^A-Za-z0-9_-]", "_", key), update=False)
            settle_footer_key(widget, self.compact)
            yield widget
