"""Layer boundaries: storage never imports textual; the shared model loads neither layer."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[1]


def _loaded(module: str, prefixes: tuple[str, ...]) -> list[str]:
    code = f"import sys, {module}; print(sorted(m for m in sys.modules if m.split('.')[0] in {set(prefixes)!r}))"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    loaded: list[str] = eval(result.stdout)  # noqa: S307 - our own subprocess prints a list literal
    return loaded


def test_storage_does_not_import_textual_or_rich() -> None:
    assert _loaded("zett_browser.storage", ("textual", "rich")) == []


def test_model_imports_neither_database_nor_ui() -> None:
    assert _loaded("zett_browser.model", ("textual", "rich", "sqlalchemy", "aiosqlite")) == []


def test_widgets_never_import_storage() -> None:
    widgets = ROOT / "zett_browser" / "widgets"
    sources = sorted(widgets.rglob("*.py")) if widgets.is_dir() else []
    for source in sources:
        text = source.read_text()
        for forbidden in ("zett_browser.storage", "..storage", "sqlalchemy", "aiosqlite"):
            assert forbidden not in text, f"{source.name} mentions {forbidden}"
