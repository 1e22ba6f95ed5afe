"""Provides the key help: every row of the key map, grouped by where the keys apply."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from ..keymap import help_rows

#: The help's sections, in order, and the key map's ``where`` values each holds.
SECTIONS = (("Tree", ("tree",)), ("Raw Log", ("Raw Log",)), ("Anywhere", ("anywhere",)), ("Live demo", ("live demo",)))


def help_text() -> Text:
    """The help's body, built from the key map (plain strings, no markup)."""
    rows = help_rows()
    text = Text()
    for title, wheres in SECTIONS:
        text.append(f"\n{title}\n", style="bold underline")
        for label, where, what in rows:
            if where in wheres:
                text.append(f"  {label:<18}", style="bold cyan")
                text.append(f"{what}\n")
    return text


class HelpScreen(ModalScreen[None]):
    """Every key binding."""

    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        yield Static(help_text(), id="help-body")
        yield Footer()
