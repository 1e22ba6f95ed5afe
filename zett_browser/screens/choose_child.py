"""Provides the choice ``o`` offers when a message names several delegated sessions.

A message that starts several background tasks (or a ``task_list`` result) leads to more
than one child: a small keyboard-driven list (↑/↓, enter, a digit, escape) picks which one
to open. Labels are cleaned store text.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from ..widgets.safe import one_line
from .calls import Child


class ChildChooser(ModalScreen[str | None]):
    """Pick one of several delegated sessions; dismisses with its id (None: escape)."""

    BINDINGS = [Binding("escape,q", "dismiss_none", "Close")]

    def __init__(self, children: Sequence[Child]) -> None:
        super().__init__()
        self.children_shown = list(children)

    def compose(self) -> ComposeResult:
        with Vertical(id="choose-child"):
            yield Label(Text(f"{len(self.children_shown)} delegated sessions — open which? (enter, 1-9, escape)"))
            options = [
                Option(Text(f"{number}. ").append(one_line(child.label, 150)), id=child.session_id)
                for number, child in enumerate(self.children_shown, 1)
            ]
            yield OptionList(*options, id="choose-child-list")

    def on_mount(self) -> None:
        choices = self.query_one(OptionList)
        choices.highlighted = 0
        choices.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def on_key(self, event: events.Key) -> None:
        key = event.key
        if key.isdigit() and 1 <= int(key) <= min(9, len(self.children_shown)):
            event.stop()
            self.dismiss(self.children_shown[int(key) - 1].session_id)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
