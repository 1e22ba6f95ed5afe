"""Layer boundaries: storage never imports textual; the shared model and the view logic load
neither layer; the subcommands import no Textual at import time."""

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


def test_screens_see_the_store_and_the_index_only_through_protocols() -> None:
    """Screens and widgets get a BrowsingStore, a SearchService and a NotesService; they import
    neither the storage, the side index, the notes file nor the services that wrap them (the app
    and CLI wire them)."""
    for folder in ("screens", "widgets"):
        for source in sorted((ROOT / "zett_browser" / folder).rglob("*.py")):
            text = source.read_text()
            for forbidden in (
                "..storage",
                "..index",
                "zett_browser.index",
                "sqlalchemy",
                "..notes",
                "zett_browser.notes",
            ):
                assert forbidden not in text, f"{folder}/{source.name} imports {forbidden}"


def test_formatting_and_text_load_no_toolkit() -> None:
    assert _loaded("zett_browser.views.formatting", ("textual", "rich", "sqlalchemy", "aiosqlite")) == []


def _modules_of(package: str) -> list[str]:
    folder = ROOT.joinpath(*package.split("."))
    return [f"{package}.{source.stem}" for source in sorted(folder.glob("*.py")) if source.stem != "__init__"]


def test_views_are_toolkit_free() -> None:
    """``views/`` is the view logic as pure functions: no UI toolkit, no database."""
    modules = _modules_of("zett_browser.views")
    assert "zett_browser.views.formatting" in modules, "the check sees the modules"
    assert _loaded(", ".join(modules), ("textual", "rich", "sqlalchemy", "aiosqlite")) == []


def test_subcommands_import_no_textual() -> None:
    """The subcommands (``cli/``) import Textual only when they run the app."""
    modules = _modules_of("zett_browser.cli")
    assert "zett_browser.cli.index" in modules, "the check sees the modules"
    assert _loaded(", ".join(modules), ("textual",)) == []


def test_notes_are_toolkit_free() -> None:
    """``notes/`` (the notes file, its service, the qualifiers' look-up) loads no UI toolkit."""
    modules = _modules_of("zett_browser.notes")
    assert "zett_browser.notes.db" in modules, "the check sees the modules"
    assert _loaded(", ".join(modules), ("textual", "rich")) == []
