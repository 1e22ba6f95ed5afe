"""The test tree's own shape: shared code lives in helper modules, never in another test module.

Pure: the test files are parsed with :mod:`ast`, nothing is imported or run (except the
standalone fixture scenario, loaded by path to compare its ids with ``tests/support.py``).
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

from tests import support

TESTS = Path(support.__file__).parent


def imported_modules(tree: ast.Module) -> list[str]:
    """Every module an ``import`` or ``from ... import`` names, at any depth (also inside functions)."""
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.append(node.module)
            # ``from tests.ui import test_app`` imports a test module too.
            found.extend(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def imports_of_test_modules(source: str) -> list[str]:
    """The test modules (``test_*``) that a module's source imports."""
    return sorted({name for name in imported_modules(ast.parse(source)) if name.rsplit(".", 1)[-1].startswith("test_")})


def test_the_check_sees_test_module_imports_in_every_form() -> None:
    source = (
        "from tests.ui.test_app import CHILD\n"
        "import tests.compat.test_zett_agent_compat as compat\n"
        "from tests.ui import test_snapshots\n"
        "def f():\n    from test_large_content import MAIN\n"
        "from tests.ui.helpers import settle\nimport pytest\n"
    )
    assert imports_of_test_modules(source) == [
        "test_large_content",
        "tests.compat.test_zett_agent_compat",
        "tests.ui.test_app",
        "tests.ui.test_snapshots",
    ]


def test_no_module_under_tests_imports_a_test_module() -> None:
    offenders = {
        str(path.relative_to(TESTS)): found
        for path in sorted(TESTS.rglob("*.py"))
        if (found := imports_of_test_modules(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}, "move what is shared into a helper module (tests/support.py, tests/ui/helpers.py, ...)"


def test_every_directory_with_tests_is_a_package() -> None:
    """mypy and pytest need ``__init__.py`` to name the modules ``tests.<dir>.<module>``
    (without it two ``test_read_only.py`` would both be the top-level ``test_read_only``)."""
    directories = {path.parent for path in TESTS.rglob("test_*.py")} | {TESTS}
    missing = sorted(str(d.relative_to(TESTS)) for d in directories if not (d / "__init__.py").is_file())
    assert missing == []


def test_no_two_test_files_share_a_name() -> None:
    """``-k``, ``--durations`` and a failure's short summary name a file by its base name too;
    two ``test_read_only.py`` (storage and adversarial) were told apart only by their folder."""
    folders: dict[str, list[str]] = {}
    for path in sorted(TESTS.rglob("test_*.py")):
        folders.setdefault(path.name, []).append(str(path.parent.relative_to(TESTS)))
    assert {name: where for name, where in folders.items() if len(where) > 1} == {}


def test_the_fixture_writers_ids_are_the_support_ids() -> None:
    """``scenario.py`` runs inside the zett-agent venv and keeps its own ids; they must agree."""
    spec = importlib.util.spec_from_file_location("layout_scenario", TESTS / "compat" / "scenario.py")
    assert spec is not None and spec.loader is not None
    scenario = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scenario)
    written = [scenario.sid(n) for n in range(1, 10)]
    assert written == [
        support.KITCHEN_SINK,
        support.CHECKPOINTED,
        support.DELEGATING_PARENT,
        support.CHILD,
        support.GRANDCHILD,
        support.ORPHAN,
        support.NIGHTLY,
        support.EMPTY,
        support.PAGINATION,
    ]
    writer = (TESTS / "fixtures" / "_write_stores.py").read_text(encoding="utf-8")
    assert f'PARENT_SESSION_ID = "{support.AGENT_RUN_ROOT}"' in writer
