"""Provides :class:`Tick` and :class:`Choice`: a checkbox and a radio button whose state shows
without colour.

Textual's checkbox draws the same ``X`` checked and unchecked, and its radio button the same
``●`` chosen or not: only the colour changes, invisible in some themes. Its focus border on a
one-line checkbox also hid the box and its label. A tick shows ``✓`` when checked, a choice
``●`` when chosen, and both an empty box otherwise; a tick is compact: the focused one shows
its label in the cursor's colours, no border.
"""

from __future__ import annotations

from textual.widgets import Checkbox, RadioButton


class Tick(Checkbox):
    """A compact checkbox: ``✓`` checked, an empty box unchecked."""

    def __init__(self, label: str, value: bool = False, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(label, value, id=id, compact=True)
        self.BUTTON_INNER = "✓" if value else " "

    def watch_value(self) -> None:
        self.BUTTON_INNER = "✓" if self.value else " "
        super().watch_value()  # the ``-on`` class and the Changed message
        self.refresh()


class Choice(RadioButton):
    """A radio button: ``●`` chosen, an empty box otherwise."""

    def __init__(self, label: str, value: bool = False, *, name: str | None = None) -> None:
        super().__init__(label, value, name=name)
        self.BUTTON_INNER = "●" if value else " "

    def watch_value(self) -> None:
        self.BUTTON_INNER = "●" if self.value else " "
        super().watch_value()  # the ``-on`` class and the Changed message
        self.refresh()
