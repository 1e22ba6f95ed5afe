"""``zett-browser index`` and ``zett-browser search``: real processes, one-line errors, exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.index.helpers import S1, copy_fixture, sha256
from tests.support import listing


def run(*args: str, index_dir: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, ZETT_BROWSER_INDEX_DIR=str(index_dir))
    return subprocess.run(
        [sys.executable, "-m", "zett_browser", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )


def test_index_then_search_prints_hits_and_json_lines(tmp_path: Path) -> None:
    store = copy_fixture("storage_api", tmp_path / "store")
    digest, files = sha256(store), listing(store.parent)
    built = run("index", str(store), index_dir=tmp_path / "idx", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    assert "rebuilt (first build)" in built.stdout and "10 sessions" in built.stdout
    assert "MB (store: " in built.stdout
    again = run(
        "index", str(store), "--index-dir", str(tmp_path / "idx"), index_dir=tmp_path / "elsewhere", cwd=tmp_path
    )
    assert again.returncode == 0 and "updated" in again.stdout and "+0 messages" in again.stdout
    found = run("search", str(store), "square kind:tool", "--json", index_dir=tmp_path / "idx", cwd=tmp_path)
    assert found.returncode == 0, found.stderr
    (line,) = found.stdout.splitlines()
    record = json.loads(line)
    assert (record["session_id"], record["sequence"], record["kind"]) == (S1, 5, "tool")
    assert [record["snippet"][a:b] for a, b in record["spans"]] == ["square"]
    assert record["time"].startswith("20")
    plain = run("search", str(store), "red", "--limit", "2", index_dir=tmp_path / "idx", cwd=tmp_path)
    assert plain.returncode == 0 and len(plain.stdout.splitlines()) == 2
    assert sha256(store) == digest and listing(store.parent) == files


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["search", "STORE", "kind:robot"], "kind:robot"),
        (["search", "STORE", '"unclosed'], "unclosed quote"),
        (["search", "STORE", "x", "--limit", "0"], "--limit"),
        (["search", "STORE", "a", "b"], "one argument"),
        (["index", "MISSING"], "MISSING"),
        (["search", "MISSING", "word"], "MISSING"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    store = copy_fixture("storage_api", tmp_path / "store")
    missing = tmp_path / "nope" / "MISSING.sqlite3"
    argv = [str(store) if a == "STORE" else str(missing) if a == "MISSING" else a for a in args]
    result = run(*argv, index_dir=tmp_path / "idx", cwd=tmp_path)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and message in result.stderr
    assert "Traceback" not in result.stderr
    assert not missing.parent.exists()


def test_an_unwritable_index_directory_is_one_line(tmp_path: Path) -> None:
    store = copy_fixture("storage_api", tmp_path / "store")
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the index directory should be")
    result = run("index", str(store), "--index-dir", str(blocker / "idx"), index_dir=tmp_path / "unused", cwd=tmp_path)
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr
