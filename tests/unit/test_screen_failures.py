"""One place a failure becomes a notice: no screen module catches ``Exception`` itself.

A screen or controller hands a read to :class:`zett_browser.screens.reads.ReadHelper`
(``fetch``: a notice; ``quietly``: a log line; ``attempt``: the view words it in place) or,
for work that is not a store read (a search of the side index, an export, the index sync,
formatting a whole message), to ``reads.attempt`` / ``reads.attempt_call``. This test
reads every module of ``zett_browser/screens`` with ``ast`` and fails on any handler that
catches ``Exception`` or ``BaseException`` (alone or in a tuple) or everything (a bare
``except:``), outside the allow-list below, each entry with its reason and count.
"""

from __future__ import annotations

import ast
from pathlib import Path

import zett_browser.screens

SCREENS = Path(zett_browser.screens.__file__).parent
BROAD = {"Exception", "BaseException"}

#: Module -> (handlers allowed, why).
ALLOWED: dict[str, tuple[int, str]] = {
    "reads.py": (
        4,
        "the one read helper: ReadHelper.fetch (a notice) and quietly (a log line), and the "
        "attempt/attempt_call shapes (the caller words the failure in place)",
    ),
}


def broad_handlers(tree: ast.Module) -> list[int]:
    """Line numbers of the handlers catching everything, ``Exception`` or ``BaseException``."""
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ExceptHandler):
            continue
        caught = node.type
        names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
        if caught is None or any(isinstance(name, ast.Name) and name.id in BROAD for name in names):
            lines.append(node.lineno)
    return lines


def test_no_screen_module_catches_exception_itself() -> None:
    found = {}
    for path in sorted(SCREENS.glob("*.py")):
        lines = broad_handlers(ast.parse(path.read_text(encoding="utf-8")))
        if lines:
            found[path.name] = lines
    for name, lines in found.items():
        allowed, _why = ALLOWED.get(name, (0, ""))
        assert len(lines) <= allowed, (
            f"screens/{name} catches Exception itself at lines {lines}: hand the call to screens/reads.py "
            "(ReadHelper.fetch / quietly / attempt, or reads.attempt / attempt_call), or add the module to "
            "ALLOWED with the reason"
        )
    assert set(ALLOWED) <= set(found), "an allowed module no longer catches Exception: drop it from ALLOWED"


def test_the_check_sees_a_broad_handler() -> None:
    source = "try:\n    x()\nexcept (ValueError, Exception):\n    pass\ntry:\n    y()\nexcept:\n    pass\n"
    assert broad_handlers(ast.parse(source)) == [3, 7]
    assert broad_handlers(ast.parse("try:\n    x()\nexcept ValueError:\n    pass\n")) == []
