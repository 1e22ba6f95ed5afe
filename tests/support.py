"""Small helpers and fixture ids shared by the tests (the one test-support module).

The session ids are the ones ``tests/compat/scenario.py`` (``sid(n)``) and
``tests/fixtures/_write_stores.py`` wrote into the committed fixture stores; see
tests/fixtures/README.md. Those two scripts also run inside the zett-agent venv, where this
package is not importable, so they keep their own copies; ``tests/unit/test_test_layout.py``
checks that the copies agree with these.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"

#: Prefix of the ``storage_api.sqlite3`` session ids: ``ROOT + "1"`` ... ``ROOT + "9"``.
ROOT = "0193a5c0-0000-7000-8000-00000000000"
#: Session ids of ``tests/fixtures/storage_api.sqlite3``.
KITCHEN_SINK = ROOT + "1"  # every message kind
CHECKPOINTED = ROOT + "2"  # three snapshot versions
DELEGATING_PARENT = ROOT + "3"  # parent of CHILD
CHILD = ROOT + "4"  # parent of GRANDCHILD
GRANDCHILD = ROOT + "5"
ORPHAN = ROOT + "6"  # its parent ...000000000099 does not exist
NIGHTLY = ROOT + "7"  # session_type=3
EMPTY = ROOT + "8"  # no messages
PAGINATION = ROOT + "9"  # 120 messages
#: Shorter names the UI tests use for the same sessions.
KITCHEN, LONG, PARENT = KITCHEN_SINK, CHECKPOINTED, DELEGATING_PARENT

#: Root session of ``tests/fixtures/agent_run.sqlite3`` (21 raw rows; its child has a UUIDv7 id).
AGENT_RUN_ROOT = "0193a5c0-0000-7000-8000-00000000a9e1"
#: Its delegated child (the researcher subagent, 5 rows; a UUIDv7 zett-agent made at run time).
AGENT_RUN_CHILD = "01a2380a-8411-7587-9925-7a4bf47e62e0"


def private_fixture(name: str) -> Path:
    """A copy of fixture ``name`` for this test process (made once, removed at exit).

    A module that opens a fixture for a whole module uses it: opening the checked-in file
    itself (a WAL store) leaves ``-wal``/``-shm`` beside it, and two test workers opening it
    at once each took the other's side files for the user's.
    """
    import atexit
    import shutil
    import tempfile

    global _PRIVATE  # noqa: PLW0603 - one directory per process
    if _PRIVATE is None:
        _PRIVATE = Path(tempfile.mkdtemp(prefix="zett-browser-fixtures-"))
        atexit.register(shutil.rmtree, _PRIVATE, True)
    copy = _PRIVATE / name
    if not copy.exists():
        shutil.copyfile(FIXTURES / name, copy)
    return copy


_PRIVATE: Path | None = None


def listing(directory: Path) -> dict[str, int]:
    """Names and sizes of the files in a directory."""
    return {entry.name: entry.stat().st_size for entry in directory.iterdir()}


def running_as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def run_cli(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m zett_browser ARGS`` in ``cwd``, its output captured."""
    return subprocess.run(
        [sys.executable, "-m", "zett_browser", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
    )


def bad_store(tmp_path: Path, case: str) -> str:
    """A STORE argument that cannot be browsed, made in ``tmp_path`` (``case`` names how)."""
    if case == "missing":
        return str(tmp_path / "nope" / "sessions.sqlite3")
    if case == "directory":
        (tmp_path / "adir").mkdir()
        return str(tmp_path / "adir")
    if case == "not sqlite":
        (tmp_path / "notes.txt").write_text("some notes that are not a database\n")
        return str(tmp_path / "notes.txt")
    if case == "no tables":
        with sqlite3.connect(tmp_path / "other.db") as connection:
            connection.execute("create table notes (body text)")
        return str(tmp_path / "other.db")
    if case == "malformed url":
        return "not a url://x"
    raise AssertionError(case)
