"""The command line declares the store argument and ``--index-dir`` once, in ``cli/args.py``:
every command takes them through :func:`add_store` and :func:`add_index_dir`, with one help text."""

from __future__ import annotations

import re
from pathlib import Path

import zett_browser

PACKAGE = Path(zett_browser.__file__).parent
COMMANDS = [PACKAGE / "__main__.py", *sorted((PACKAGE / "cli").glob("*.py"))]
DECLARED = re.compile(r"add_argument\(\s*[\"'](store|--index-dir)[\"']")


def test_only_the_shared_helpers_declare_the_store_and_the_index_directory() -> None:
    declaring = {path.relative_to(PACKAGE).as_posix() for path in COMMANDS if DECLARED.search(path.read_text())}
    assert declaring == {"cli/args.py"}


def test_every_command_taking_a_store_uses_the_helper() -> None:
    for name in ("cli/browse.py", "cli/index.py", "cli/export.py", "cli/context.py", "cli/usage.py", "cli/serve.py"):
        assert "add_store(parser)" in (PACKAGE / name).read_text(), name
    for name in ("cli/browse.py", "cli/index.py", "cli/usage.py", "cli/serve.py"):
        assert "add_index_dir(parser)" in (PACKAGE / name).read_text(), name
