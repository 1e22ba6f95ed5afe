"""No import cycles between zett_browser's modules, read with ast.

Every import counts: module-level, type-only (``if TYPE_CHECKING:``) and those inside
functions (a deferred import still ties two modules together, only later), and modules
loaded by name through ``importlib.import_module`` (the ``__main__`` subcommand table, the
lazy index import): in a module that calls it, every string naming a zett_browser module
(``"zett_browser.x"``, or ``".x"`` relative to the module's package) is an import.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).parents[2] / "zett_browser"


def _imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement, wherever it is (top level, under ``if``/``try``, in functions)."""
    return [node for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)]


def _imports_by_name(tree: ast.Module) -> bool:
    """Whether the module calls ``importlib.import_module`` (or ``import_module``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name == "import_module":
                return True
    return False


def _named_modules(tree: ast.Module, package: str, modules: dict[str, Path]) -> set[str]:
    """The zett_browser modules named by string constants (absolute, or relative to ``package``)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
            if text.startswith("."):
                level = len(text) - len(text.lstrip("."))
                base = package.split(".")
                text = ".".join([*base[: len(base) - (level - 1)], text[level:]])
            if text in modules:
                found.add(text)
    return found


def module_graph() -> dict[str, set[str]]:
    """Each module and the zett_browser modules it imports (anywhere in it, or by name)."""
    modules: dict[str, Path] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in _imports(tree):
            if isinstance(node, ast.ImportFrom):
                base = package.split(".")
                if node.level:
                    base = base[: len(base) - (node.level - 1)]
                    target = ".".join([*base, *([node.module] if node.module else [])])
                else:
                    target = node.module or ""
                for alias in node.names:
                    candidate = f"{target}.{alias.name}"
                    if candidate in modules:
                        graph[name].add(candidate)
                    elif target in modules:
                        graph[name].add(target)
            else:
                graph[name].update(alias.name for alias in node.names if alias.name in modules)
        if _imports_by_name(tree):
            graph[name] |= _named_modules(tree, package, modules) - {name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph[node]):
            if target == node:
                continue
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state and (cycle := visit(target)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_the_check_finds_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_graph_follows_deferred_and_by_name_imports() -> None:
    graph = module_graph()
    assert "zett_browser.screens.main" in graph and graph["zett_browser.app"], "the graph was read"
    assert "zett_browser.startup.lazysearch" in graph["zett_browser.app"], "an import inside a function"
    assert {"zett_browser.cli.index", "zett_browser.cli.serve"} <= graph["zett_browser.__main__"], "subcommands"
    assert "zett_browser.index.search_service" in graph["zett_browser.startup.lazysearch"], "importlib by name"


def test_zett_browser_has_no_import_cycle() -> None:
    graph = module_graph()
    assert find_cycle(graph) is None
