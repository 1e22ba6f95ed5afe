"""The storage split by concern keeps every public name, and message kinds live in the model."""

from __future__ import annotations

import ast
from pathlib import Path

import zett_browser.storage as storage
import zett_browser.storage.sql as sql
from zett_browser import model
from zett_browser.storage import codec

STORAGE = Path(storage.__file__).parent


def test_every_public_name_still_imports() -> None:
    for name in storage.__all__:
        assert getattr(storage, name) is not None, name
    for name in ("RAW_COLUMNS", "SNAPSHOT_COLUMNS", "SessionStorageCore", "encode_context", "raw_t", "sessions_t"):
        assert getattr(sql, name) is not None, name
    for method in (
        "list_roots",
        "list_children",
        "list_orphans",
        "get_node",
        "ancestors",
        "list_snapshots",
        "raw_page",
        "raw_page_before",
        "raw_bounds",
        "session_totals",
        "text_size",
        "change_token",
        "display_name",
        "close",
    ):
        assert hasattr(storage.SQLSessionStorage, method), method


def test_message_kinds_are_the_models_and_re_exported() -> None:
    assert storage.MessageKind is model.MessageKind is codec.MessageKind
    assert storage.MESSAGE_TYPES is model.MESSAGE_TYPES
    assert model.kind_of(model.UserMessage(content="x")) == model.MessageKind.USER
    assert int(model.MessageKind.USER) == 2
    assert model.kind_label(4) == "tool" and model.kind_label(9) == "kind 9"


def test_storage_modules_and_functions_stay_small() -> None:
    for path in STORAGE.glob("*.py"):
        if path.name == "engine.py":  # owned by the read-only work, sized there
            continue
        text = path.read_text()
        assert len(text.splitlines()) <= 400, path.name
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                assert node.end_lineno is not None
                assert node.end_lineno - node.lineno < 60, f"{path.name}: {node.name}"
