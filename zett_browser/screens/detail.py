"""Provides the screen over the main one that shows a whole message."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Footer, Static, TextArea

from ..widgets.safe import clean


class MessageDetail(ModalScreen[None]):
    """One record shown whole, in a read-only text area (fast for megabytes of text)."""

    BINDINGS = [Binding("escape,q", "dismiss", "Close")]

    def __init__(self, title: str, body: str) -> None:
        super().__init__()
        self.title_text = title
        self.body = clean(body)

    def compose(self) -> ComposeResult:
        yield Static(Text(clean(self.title_text), style="bold"), id="detail-title")
        yield TextArea(self.body, read_only=True, soft_wrap=True, id="detail-body")
        yield Footer()
