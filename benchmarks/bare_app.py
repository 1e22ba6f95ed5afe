"""The floor of the app benchmark: a bare Textual app that paints one static screen.

``benchmarks/app_bench.py`` measures its first paint (headless and in tmux) and peak RSS
next to zett-browser's, in the same run. Run it alone to see it: ``python benchmarks/bare_app.py``
(q quits). It imports Textual and nothing else, so it is what any Textual app pays.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Static

#: The text the benchmark waits for on screen.
MARKER = "bare Textual app: one static screen"


class BareApp(App[None]):
    """One Static with some text."""

    BINDINGS = [Binding("q", "quit", "Quit")]

    def compose(self) -> ComposeResult:
        yield Static(f"{MARKER}\n\nThe floor of zett-browser's first paint and peak RSS.", id="bare")


if __name__ == "__main__":
    BareApp().run()
