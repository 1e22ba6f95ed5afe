"""Provides the small input ``l`` (labels) and ``a`` (a note) open on a session or a message.

One line of text: ``enter`` saves it, ``escape`` leaves everything as it was; an empty
line removes the labels or the note. What it is about (a session's name, a message's
number) and the text already written are shown as plain, cleaned text, never markup.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from ..widgets.safe import clean, one_line


class ReviewInput(ModalScreen[str | None]):
    """Ask for labels or a note; dismisses with the text typed (None: escape).

    Args:
        title: What is asked (``Labels``, ``Note``).
        about: What it is written on (store text: cleaned here).
        value: The text written there now.
        hint: The field's placeholder.
    """

    BINDINGS = [Binding("escape", "dismiss_none", "Cancel")]

    def __init__(self, title: str, about: str, value: str, hint: str) -> None:
        super().__init__()
        self._title = title
        self._about = about
        # Shown and edited without its control characters (a pasted ESC must not reach the terminal).
        self._value = " ⏎ ".join(clean(value).splitlines())
        self._hint = hint

    def compose(self) -> ComposeResult:
        with Vertical(id="review-input"):
            yield Label(Text(self._title, style="bold").append("  ").append(one_line(self._about, 120), style="dim"))
            yield Input(value=self._value, placeholder=self._hint, id="review-text")
            yield Label(Text("enter saves · escape cancels · an empty line removes", style="dim"))

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.replace(" ⏎ ", "\n"))

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
