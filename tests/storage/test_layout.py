"""The storage's layers: every public name kept, a reader below the queries, no cycles.

The storage is a :class:`~zett_browser.storage.reader.Reader` (connections, schema facts,
runs with retries), query modules that take it, and thin facade classes with zett-agent's
documented API. These tests read the sources with ``ast`` (every import, also those inside
functions and under ``if TYPE_CHECKING:``) and hold the layers to their rules.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable, Iterator
from pathlib import Path

import zett_browser.storage as storage
import zett_browser.storage.sql as sql
from zett_browser import model
from zett_browser.storage import api, codec, compaction, context, labels, prefix, rawlog, timing
from zett_browser.storage.tree import SessionTree
from zett_browser.storage.writes import SessionWriter

STORAGE = Path(storage.__file__).parent
PACKAGE = "zett_browser.storage"

#: The reader and what it stands on: they import no query module and no facade.
BOTTOM = {"reader", "columns", "engine", "inflight", "schema", "rows", "convert", "keyset", "sidecars", "handout"}
#: Query modules that take a reader: they import the reader, never a facade module.
QUERIES = {
    "scan",
    "export_rows",
    "rawpages",
    "sessions",
    "labels",
    "prefix",
    "rawlog",
    "compaction",
    "timing",
    "context",
    "tree",
    "api",
    "writes",
}
#: The facade: the storage classes and their slices of the API (methods over ``self.reader``).
FACADE = {"core", "sql", "browse", "facade", "documented"}
#: Never imported by the storage, at any depth of a function: the UI, and the layers above
#: it (start-up and the command line use the storage, never the other way round).
FORBIDDEN = (
    "textual",
    "rich",
    "zett_browser.widgets",
    "zett_browser.screens",
    "zett_browser.app",
    "zett_browser.startup",
    "zett_browser.cli",
    "zett_browser.__main__",
)

#: The documented API and the browser's queries, on the facade.
METHODS = (
    "list_sessions",
    "get_session",
    "count_messages",
    "list_raw_messages",
    "load",
    "create_session",
    "update_session",
    "delete_session",
    "append",
    "snapshot",
    "open_for_browsing",
    "sync",
    "release_loop",
    "close",
    "display_name",
    "warm_up",
    "list_roots",
    "list_children",
    "list_orphans",
    "tree_refresh",
    "get_node",
    "ancestors",
    "child_labels",
    "sessions_with_prefix",
    "list_snapshots",
    "snapshot_mark",
    "raw_page",
    "raw_page_before",
    "raw_bounds",
    "session_totals",
    "text_size",
    "change_token",
    "snapshot_versions",
    "all_snapshot_versions",
    "snapshot_version",
    "ledger_facts",
    "input_curve",
    "range_text",
    "context_page",
    "snapshot_envelope",
    "timing_page",
    "child_spans",
)


def modules() -> dict[str, ast.Module]:
    return {path.stem: ast.parse(path.read_text(encoding="utf-8")) for path in sorted(STORAGE.glob("*.py"))}


def imports(tree: ast.Module, name: str) -> Iterator[tuple[str, str | None]]:
    """Every import of a module, anywhere in it: (absolute module, imported name or None)."""
    package = PACKAGE.split(".")
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, None
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            for alias in node.names:
                yield target, alias.name


def storage_edges(name: str, tree: ast.Module, known: set[str]) -> set[str]:
    """The storage modules ``name`` imports (``from . import x`` names module ``x``)."""
    found = set()
    for target, imported in imports(tree, name):
        if target == PACKAGE and imported in known:
            found.add(imported)
        elif target.startswith(PACKAGE + "."):
            module = target.removeprefix(PACKAGE + ".").split(".")[0]
            if module in known:
                found.add(module)
    found.discard(name)
    return found


def test_every_public_name_still_imports() -> None:
    for name in storage.__all__:
        assert getattr(storage, name) is not None, name
    for name in ("RAW_COLUMNS", "SNAPSHOT_COLUMNS", "SessionStorageCore", "encode_context", "raw_t", "sessions_t"):
        assert getattr(sql, name) is not None, name
    for method in METHODS:
        assert hasattr(storage.SQLSessionStorage, method), method
        assert hasattr(storage.SQLiteSessionStorage, method), method


def _parameters(call: Callable[..., object], skip: int) -> list[tuple[str, object, object]]:
    found = list(inspect.signature(call).parameters.values())[skip:]
    return [(p.name, p.kind, p.default) for p in found]


def test_the_facade_passes_every_argument_on() -> None:
    """Each facade method takes exactly what the query it calls takes (names, kinds, defaults)."""
    storage_class = storage.SQLSessionStorage
    pairs = 0
    for module in (api, compaction, context, labels, prefix, rawlog, timing):
        for name in module.__all__:
            query = getattr(module, name)
            if not inspect.iscoroutinefunction(query) or not hasattr(storage_class, name):
                continue
            assert _parameters(getattr(storage_class, name), 1) == _parameters(query, 1), name
            pairs += 1
    for holder in (SessionTree, SessionWriter):
        for name, method in vars(holder).items():
            if inspect.iscoroutinefunction(method) and not name.startswith("_"):
                assert _parameters(getattr(storage_class, name), 1) == _parameters(method, 1), name
                pairs += 1
    assert pairs >= 35


def test_message_kinds_are_the_models_and_re_exported() -> None:
    assert storage.MessageKind is model.MessageKind is codec.MessageKind
    assert storage.MESSAGE_TYPES is model.MESSAGE_TYPES
    assert model.kind_of(model.UserMessage(content="x")) == model.MessageKind.USER
    assert int(model.MessageKind.USER) == 2
    assert model.kind_label(4) == "tool" and model.kind_label(9) == "kind 9"


def test_the_layers_are_kept() -> None:
    found = modules()
    known = set(found) - {"__init__"}
    assert BOTTOM | QUERIES | FACADE <= known, "a layer names a module that is gone"
    for name, tree in found.items():
        for target, _imported in imports(tree, name):
            assert not target.startswith(FORBIDDEN), f"{name} imports {target}"
        edges = storage_edges(name, tree, known)
        if name in BOTTOM:
            assert not edges & (QUERIES | FACADE), f"{name} (below the reader) imports {edges & (QUERIES | FACADE)}"
        if name in QUERIES:
            assert not edges & FACADE, f"query module {name} imports the facade: {edges & FACADE}"
            assert "reader" in edges, f"query module {name} does not take the reader"


def _defined_private_names(found: dict[str, ast.Module]) -> set[str]:
    """``_names`` the storage itself defines: functions, methods, classes, attributes of self."""
    names: set[str] = set()
    for tree in found.values():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
                names.add(node.attr)
    return {name for name in names if name.startswith("_") and not name.startswith("__")}


def test_no_module_reaches_into_another_modules_private_names() -> None:
    """No ``from .x import _name``, and no ``something._name`` of the storage's own on anything
    but ``self``/``cls`` (the free query modules once called the facade's ``_read`` 19 times)."""
    found = modules()
    private = _defined_private_names(found)
    for name, tree in found.items():
        for target, imported in imports(tree, name):
            if target.startswith(PACKAGE) and imported is not None:
                assert not (imported.startswith("_") and not imported.startswith("__")), f"{name}: {imported}"
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in private:
                owner = node.value
                assert isinstance(owner, ast.Name) and owner.id in ("self", "cls"), (
                    f"{name}:{node.lineno} reaches {ast.unparse(node)}"
                )


def test_storage_imports_are_acyclic() -> None:
    """No cycle among the storage's modules, counting imports inside functions and type-only ones."""
    found = modules()
    known = set(found) - {"__init__"}
    graph = {name: storage_edges(name, tree, known) for name, tree in found.items() if name != "__init__"}
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> None:
        if name in path:
            raise AssertionError("import cycle: " + " -> ".join([*path[path.index(name) :], name]))
        if name in done:
            return
        for target in sorted(graph[name]):
            visit(target, [*path, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])


def test_no_module_over_400_lines() -> None:
    for path in STORAGE.glob("*.py"):
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 400, path.name
