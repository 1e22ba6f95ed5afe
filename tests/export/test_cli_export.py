"""``zett-browser export`` in a subprocess: stdout, --output with and without --force, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.adversarial.damage import sha256
from tests.export.helpers import copy_fixture
from tests.support import DELEGATING_PARENT, KITCHEN


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zett_browser", "export", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_stdout_and_a_file(tmp_path: Path) -> None:
    store = copy_fixture("storage_api", tmp_path)
    before = sha256(store)
    result = run(str(store), "--session", DELEGATING_PARENT, "--subtree", "--format", "json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["session"]["row"]["id"] == DELEGATING_PARENT
    out = tmp_path / "out" / "k.html"
    out.parent.mkdir()
    result = run(str(store), "--session", KITCHEN, "--output", str(out))
    assert result.returncode == 0 and out.read_text().startswith("<!DOCTYPE html>")  # format from the suffix
    assert "exported 16 messages" in result.stderr
    assert [p.name for p in out.parent.iterdir()] == ["k.html"]  # no temporary file left
    assert sha256(store) == before


def test_an_existing_file_is_kept_unless_force(tmp_path: Path) -> None:
    store = copy_fixture("storage_api", tmp_path)
    out = tmp_path / "k.md"
    out.write_text("mine")
    result = run(str(store), "--session", KITCHEN, "--output", str(out))
    assert result.returncode == 2 and out.read_text() == "mine"
    assert result.stderr.count("\n") == 1 and "exists" in result.stderr and "--force" in result.stderr
    result = run(str(store), "--session", KITCHEN, "--output", str(out), "--force")
    assert result.returncode == 0 and out.read_text().startswith("# ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.md", "storage_api.sqlite3"]


def test_errors_are_one_line_and_create_nothing(tmp_path: Path) -> None:
    store = copy_fixture("storage_api", tmp_path)
    cases = [
        ([str(store), "--session", "nope", "--output", str(tmp_path / "a.md")], "no session"),
        ([str(store), "--session", KITCHEN, "--format", "json", "--no-reasoning"], "JSON keeps"),
        ([str(store), "--session", KITCHEN, "--format", "pdf"], "invalid choice"),
        ([str(tmp_path / "missing.sqlite3"), "--session", KITCHEN], ""),
        ([str(store)], "--session"),
        ([str(store), "--session", KITCHEN, "--output", str(tmp_path / "no" / "dir.md")], "no directory"),
    ]
    for args, words in cases:
        result = run(*args)
        assert result.returncode == 2, args
        assert result.stderr.count("\n") == 1 and words in result.stderr, result.stderr
        assert result.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["storage_api.sqlite3"]


def test_redact_reports_the_count_on_stderr(tmp_path: Path) -> None:
    store = copy_fixture("storage_api", tmp_path)
    result = run(str(store), "--session", KITCHEN, "--redact")
    assert result.returncode == 0
    assert result.stderr.startswith("redacted ") and "secret" in result.stderr
