"""Bytes that are not UTF-8 on the command line: one line on stderr and exit status 2.

Python decodes such argv bytes with ``surrogateescape``; an id, path or query holding the
lone surrogates that gives failed deep in a driver (``UnicodeEncodeError`` tracebacks) in
every subcommand. Each case runs the real command line with a raw ``b"\\xff"``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import AGENT_RUN_ROOT, FIXTURES

REPO = Path(__file__).resolve().parents[2]
BAD = b"\xff\xfe-not-utf8"


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "sessions.sqlite3"
    shutil.copy(FIXTURES / "agent_run.sqlite3", path)
    return path


def run(*argv: str | bytes) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            [sys.executable, "-m", "zett_browser", *argv],
            cwd=REPO,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=60,
            check=False,
        )
    except subprocess.TimeoutExpired as expired:
        raise AssertionError(f"the command did not end: {expired.stderr!r}") from None


def check_one_line(result: subprocess.CompletedProcess[bytes]) -> None:
    err = result.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err, err[-3000:]
    assert result.returncode == 2, (result.returncode, err[-2000:])
    assert len(err.strip().splitlines()) == 1, err
    assert "UTF-8" in err
    assert result.stdout == b""


CASES: dict[str, Callable[[Path, Path], list[str | bytes]]] = {
    "export --session": lambda store, index: ["export", str(store), "--session", BAD],
    "context --session": lambda store, index: ["context", str(store), "--session", BAD],
    "usage --session": lambda store, index: ["usage", "--index-dir", str(index), str(store), "--session", BAD],
    "search query": lambda store, index: ["search", "--index-dir", str(index), str(store), b"agent " + BAD],
    "browse --session": lambda store, index: [str(store), "--no-index", "--session", BAD],
    "browse --search": lambda store, index: [str(store), "--index-dir", str(index), "--search", BAD],
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_non_utf8_argument_is_one_line(store: Path, tmp_path: Path, case: str) -> None:
    index = tmp_path / "index"
    index.mkdir()
    result = run(*CASES[case](store, index))
    check_one_line(result)
    assert sorted(path.name for path in store.parent.iterdir()) == ["index", store.name]
    assert list(index.iterdir()) == []


@pytest.mark.parametrize("command", ["index", "usage", "context", "export", "browse"])
def test_a_store_path_that_is_not_utf8_is_one_line(tmp_path: Path, command: str) -> None:
    path = bytes(tmp_path) + b"/store-" + BAD + b".sqlite3"
    shutil.copy(os.fsencode(FIXTURES / "agent_run.sqlite3"), path)
    index = str(tmp_path / "index")
    argvs: dict[str, list[str | bytes]] = {
        "index": ["index", "--index-dir", index, path],
        "usage": ["usage", "--index-dir", index, path],
        "context": ["context", path, "--session", AGENT_RUN_ROOT],
        "export": ["export", path, "--session", AGENT_RUN_ROOT],
        "browse": [path, "--no-index", "--session", AGENT_RUN_ROOT],
    }
    result = run(*argvs[command])
    check_one_line(result)
    assert sorted(tmp_path.iterdir()) == [tmp_path / path.rsplit(b"/", 1)[1].decode("utf-8", "surrogateescape")]


def test_an_export_file_name_may_hold_any_bytes(store: Path, tmp_path: Path) -> None:
    """Only the file system sees ``--output``: a name that is not UTF-8 is still written."""
    out = bytes(tmp_path) + b"/" + BAD + b".md"
    result = run("export", str(store), "--session", AGENT_RUN_ROOT, "--output", out)
    assert result.returncode == 0, result.stderr
    assert Path(out.decode("utf-8", "surrogateescape")).stat().st_size > 0
