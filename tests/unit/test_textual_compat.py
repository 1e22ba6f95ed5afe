"""Fails loudly when Textual renames or removes an internal the app relies on."""

from __future__ import annotations

import inspect

from textual.scroll_view import ScrollView
from textual.widgets import Tree

from zett_browser.widgets import textual_compat


def test_every_private_name_still_exists() -> None:
    missing = [f"{cls.__name__}.{name}" for cls, name in textual_compat.PRIVATE_NAMES if not hasattr(cls, name)]
    assert not missing, f"Textual changed: {missing}; update zett_browser/widgets/textual_compat.py"


def test_the_private_methods_keep_their_signatures() -> None:
    assert list(inspect.signature(Tree._toggle_node).parameters) == ["self", "node"]
    assert list(inspect.signature(ScrollView._scroll_update).parameters) == ["self", "virtual_size"]
