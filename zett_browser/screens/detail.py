"""Provides the screens over the main one: a whole message, and the key help."""

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


HELP = [
    ("Tree", ""),
    ("↑ ↓ / enter", "move; open the session (or load more…)"),
    ("→ ← / space", "expand or collapse delegated sessions"),
    ("Raw Log", ""),
    ("j k / ↑ ↓", "previous / next message"),
    ("n p", "next / previous page"),
    ("g G", "first / last page"),
    (":", "jump to a sequence number (enter jumps, escape cancels)"),
    ("r", "show or hide the reasoning of the message"),
    ("enter", "show the whole message (huge ones too)"),
    ("c", "jump between a tool call and its result"),
    ("o", "open the delegated session this message names"),
    ("b", "back to the parent session (breadcrumb)"),
    ("f", "follow the newest message while the store grows"),
    ("Views", ""),
    ("i", "toggle the snapshot inspector"),
    ("m", "toggle Raw Log / model view (summary + tail)"),
    ("t", "toggle the session tree"),
    ("[ ]", "narrower / wider tree"),
    ("tab", "move focus between panes"),
    ("ctrl+p", "command palette: every action"),
    ("?", "this help"),
    ("q", "quit"),
]


class HelpScreen(ModalScreen[None]):
    """Every key binding."""

    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        text = Text()
        for key, what in HELP:
            if not what:
                text.append(f"\n{key}\n", style="bold underline")
            else:
                text.append(f"  {key:<14}", style="bold cyan")
                text.append(f"{what}\n")
        yield Static(text, id="help-body")
        yield Footer()
