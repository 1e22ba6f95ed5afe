"""A delegation card's long line wraps under its own bar (review at 80×24: the error and the
"open it with" command of a background task's card lost their ``┃`` on the second line)."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from zett_browser.widgets.cards import BAR, elsewhere_lines
from zett_browser.widgets.pagelayout import card_strips


def test_every_wrapped_line_of_a_card_keeps_its_bar() -> None:
    console = Console(width=60, color_system=None)
    lines = elsewhere_lines("01a2472a-c47b-7287-99de-3519b2555795", "~/.zett-agent/sessions.sqlite3")
    error = Text(BAR).append("error: RuntimeError: scripted child failure: the index is corrupt and more")
    strips = [strip for text in [*lines, error] for strip in card_strips(text, console, 50)]
    texts = ["".join(segment.text for segment in strip) for strip in strips]
    assert len(texts) > len(lines) + 1  # something did wrap
    assert all(text.startswith(BAR) for text in texts), texts
    assert all(len(text) <= 50 for text in texts)
    joined = " ".join(text[len(BAR) :].strip() for text in texts)
    assert "--session 01a2472a-c47b-7287-99de-3519b2555795" in joined


def test_a_line_without_a_bar_wraps_as_it_is() -> None:
    console = Console(width=60, color_system=None)
    strips = card_strips(Text("x " * 40), console, 30)
    assert len(strips) > 1
