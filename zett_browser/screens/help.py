"""Provides the key help: every row of the key map, grouped by where the keys apply."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from ..keymap import help_rows

#: The help's sections, in order, and the key map's ``where`` values each holds.
SECTIONS = (
    ("Tree", ("tree",)),
    ("Raw Log", ("Raw Log",)),
    ("Anywhere", ("anywhere",)),
    ("Inspector", ("inspector",)),
    ("Ledger and diff", ("ledger, diff",)),
    ("Detail view", ("detail view",)),
    ("Search view", ("search view",)),
    ("Context view", ("context view",)),
    ("Timing, usage", ("timing view", "timing view, usage details", "usage details")),
    ("Compare view", ("compare view",)),
    ("Live demo", ("live demo",)),
)


def help_text(syntax: str | None = None) -> Table:
    """The help's body, built from the key map (plain strings, no markup).

    Two columns, so a long description wraps under itself, not under the keys.
    ``syntax``: the search query language, shown last when search is on.
    """
    rows = help_rows()
    table = Table.grid(padding=(0, 2))
    table.add_column(no_wrap=True, style="bold cyan")
    table.add_column(ratio=1)
    for number, (title, wheres) in enumerate(SECTIONS):
        if number:
            table.add_row("", "")
        table.add_row(Text(title, style="bold underline"), "")
        for label, where, what in rows:
            if where in wheres:
                table.add_row(Text(label), Text(what))
    if syntax:
        table.add_row("", "")
        table.add_row(Text("Search syntax", style="bold underline"), "")
        table.add_row(Text("/"), Text(syntax))
    return table


class HelpScreen(ModalScreen[None]):
    """Every key binding."""

    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]

    def __init__(self, syntax: str | None = None) -> None:
        super().__init__()
        self.syntax = syntax

    def compose(self) -> ComposeResult:
        # A scrolling body: at 80x24 the help is taller than the screen.
        with VerticalScroll(id="help-body"):
            yield Static(help_text(self.syntax))
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#help-body").focus()
