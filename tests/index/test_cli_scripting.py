"""The subcommands in scripts and pipes: ``| head`` is quiet, no hits is status 1, mistakes are one line.

Real processes over a real store; each case was a review finding (issue 25, CLI).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.index.helpers import S1, copy_fixture, sha256
from tests.support import listing

COMMAND = [sys.executable, "-m", "zett_browser"]


def run(*args: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, ZETT_BROWSER_INDEX_DIR=str(tmp_path / "idx"), HOME=str(tmp_path / "home"))
    return subprocess.run(
        [*COMMAND, *args], cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False, env=env
    )


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return copy_fixture("storage_api", tmp_path / "store")


@pytest.mark.parametrize(
    "command",
    [
        ["search", "{store}", "red OR the OR a", "--limit", "500"],
        ["export", "{store}", "--session", S1, "--format", "md"],
        ["usage", "{store}", "--by", "session"],
    ],
    ids=["search", "export", "usage"],
)
def test_a_reader_that_stops_early_is_not_an_error(tmp_path: Path, store: Path, command: list[str]) -> None:
    """``zett-browser … | head``: the pipe closes under us; we end quietly with status 0.

    The reader (``true``) leaves before the command's first write (a Python start-up takes
    far longer), so the write always meets a closed pipe, whatever the output's size.
    """
    args = [part.replace("{store}", str(store)) for part in command]
    env = dict(os.environ, ZETT_BROWSER_INDEX_DIR=str(tmp_path / "idx"), HOME=str(tmp_path / "home"))
    assert run("index", str(store), tmp_path=tmp_path).returncode == 0
    command_line = " ".join(map(_quote, [*COMMAND, *args]))
    shell = f"{command_line} 2>{tmp_path / 'err'} | true; echo ${{PIPESTATUS[0]}}"
    done = subprocess.run(["bash", "-c", shell], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=120)
    stderr = (tmp_path / "err").read_text()
    assert "Broken pipe" not in stderr and "Errno" not in stderr and "Exception ignored" not in stderr, stderr
    assert done.stdout.strip() == "0", (done.stdout, stderr)


def _quote(part: str) -> str:
    return "'" + part.replace("'", "'\\''") + "'"


def test_no_hits_says_so_on_stderr_and_exits_1_like_grep(tmp_path: Path, store: Path) -> None:
    found = run("search", str(store), "red", tmp_path=tmp_path)
    assert found.returncode == 0 and found.stdout
    nothing = run("search", str(store), "zyzzyvaqq", tmp_path=tmp_path)
    assert (nothing.returncode, nothing.stdout, nothing.stderr.strip()) == (1, "", "zett-browser: 0 hits")


def test_a_store_without_a_query_is_a_mistake_not_a_search_of_the_default_store(tmp_path: Path, store: Path) -> None:
    digest, files = sha256(store), listing(store.parent)
    done = run("search", str(store), tmp_path=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == f"zett-browser: {store} is a store: give a query after it (search STORE QUERY)"
    url = run("search", "postgresql://u@localhost/db", tmp_path=tmp_path)
    assert url.returncode == 2 and "is a store" in url.stderr
    assert not (tmp_path / "home").exists() and sha256(store) == digest and listing(store.parent) == files
    # A word that is no store is still a query (of the default store, absent here).
    word = run("search", "README", tmp_path=tmp_path)
    assert "is a store" not in word.stderr


def test_context_at_0_names_the_limit_a_person_can_use(tmp_path: Path, store: Path) -> None:
    done = run("context", str(store), "--session", "s1", "--at", "0", tmp_path=tmp_path)
    assert done.returncode == 2
    assert "must be 1 or more, got 0" in done.stderr and "4611686018427387904" not in done.stderr


def test_help_names_every_command(tmp_path: Path) -> None:
    text = " ".join(run("--help", tmp_path=tmp_path).stdout.split())
    for name in ("demo", "index", "search", "export", "context", "usage", "serve"):
        assert f"`zett-browser {name}" in text, name
