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


def test_a_frame_is_taken_by_the_output_thread_before_the_loop_goes_on() -> None:
    """Textual's real output thread, writing to a pipe: once ``let_output_through`` returns,
    the queued frames are out of the queue (the thread had the GIL to take them)."""
    import os
    import threading
    from types import SimpleNamespace

    from textual.drivers._writer_thread import WriterThread

    read_end, write_end = os.pipe()
    out = os.fdopen(write_end, "w")
    writer = WriterThread(out)
    writer.start()
    drained = bytearray()

    def drain() -> None:
        while chunk := os.read(read_end, 65536):
            drained.extend(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        app: object = SimpleNamespace(_driver=SimpleNamespace(_writer_thread=writer))
        for frame in range(20):
            writer.write(f"frame {frame} " + "x" * 8000)
            textual_compat.let_output_through(app, budget=5.0)  # type: ignore[arg-type]
            assert writer._queue.qsize() == 0  # noqa: SLF001
    finally:
        writer.stop()
        out.close()
        reader.join(5)
        os.close(read_end)
    assert drained.count(b"frame ") == 20


def test_without_an_output_thread_nothing_waits() -> None:
    from types import SimpleNamespace

    for driver in (None, SimpleNamespace(), SimpleNamespace(_writer_thread=None)):
        textual_compat.let_output_through(SimpleNamespace(_driver=driver), budget=5.0)  # type: ignore[arg-type]


def _instance(path: str) -> object:
    """An instance of the Textual class at ``path`` (built inside a running loop, which a
    driver needs)."""
    import asyncio
    import importlib
    import io

    from textual.app import App

    module_name, _, class_name = path.rpartition(".")
    cls = getattr(importlib.import_module(module_name), class_name)

    async def build() -> object:
        if class_name.endswith("Driver"):
            return cls(App())
        if class_name == "WriterThread":
            return cls(io.StringIO())
        return cls()

    return asyncio.run(build())


def test_every_private_instance_attribute_still_exists() -> None:
    missing = [
        f"{path}().{name}" for path, name in textual_compat.PRIVATE_INSTANCE_NAMES if not hasattr(_instance(path), name)
    ]
    assert not missing, f"Textual changed: {missing}; update zett_browser/widgets/textual_compat.py"


def test_every_private_module_still_imports() -> None:
    import importlib

    for name in textual_compat.PRIVATE_MODULES:
        importlib.import_module(name)


def _private_accesses() -> tuple[set[str], set[str]]:
    """The private attribute names read or called in zett_browser's Textual compatibility
    module, and the private Textual modules any zett_browser module imports (read with ast)."""
    import ast
    from pathlib import Path

    package = Path(textual_compat.__file__).parents[1]
    tree = ast.parse(Path(textual_compat.__file__).read_text(encoding="utf-8"))
    own = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}
    own |= {
        target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        for statement in node.body
        if isinstance(statement, ast.AnnAssign | ast.Assign)
        for target in (statement.targets if isinstance(statement, ast.Assign) else [statement.target])
        if isinstance(target, ast.Name)
    }
    names = {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
    }
    for node in ast.walk(tree):  # getattr(x, "_name", ...)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr":
            if len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and str(node.args[1].value)[:1] == "_":
                names.add(str(node.args[1].value))
    modules: set[str] = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            imported = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            modules.update(
                name
                for name in imported
                if name.startswith("textual.") and any(part.startswith("_") for part in name.split("."))
            )
    return names - own, modules


def test_the_guard_lists_every_private_name_the_code_uses() -> None:
    """A private Textual name read in the compatibility module (or a private Textual module
    imported anywhere) that the lists above do not name would escape the guard."""
    names, modules = _private_accesses()
    listed = {name for _, name in textual_compat.PRIVATE_NAMES} | {
        name for _, name in textual_compat.PRIVATE_INSTANCE_NAMES
    }
    assert {"_batch_count", "_dirty_widgets", "_writer_thread", "_queue"} <= names, "the scan reads the module"
    assert names <= listed, f"not guarded: {sorted(names - listed)}"
    assert "textual.widgets._footer" in modules
    assert modules <= set(textual_compat.PRIVATE_MODULES), f"not guarded: {sorted(modules)}"


def test_the_serve_server_s_textual_serve_internals_still_exist() -> None:
    """``zett_browser/cli/serve_server.py`` overrides textual-serve's private methods and sets the
    attributes its base class reads; a textual-serve upgrade that renames them must fail here."""
    import inspect

    import pytest

    app_service = pytest.importorskip("textual_serve.app_service")
    server = pytest.importorskip("textual_serve.server")
    for cls, name in (
        (app_service.AppService, "_open_app_process"),
        (server.Server, "_make_app"),
        (server.Server, "_process_messages"),
    ):
        assert callable(getattr(cls, name, None)), f"textual-serve changed: {cls.__name__}.{name}"
    init = inspect.getsource(app_service.AppService.__init__)
    for name in ("_process", "_stdin", "_task"):
        assert f"self.{name}" in init, f"textual-serve changed: AppService().{name}"
