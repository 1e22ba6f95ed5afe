"""``export --format json`` to stdout: no raw C1 or bidi control reaches the terminal.

The JSON writer used ``ensure_ascii=False``: ``json.dumps`` escapes C0 controls only, so an
8-bit CSI (U+009B), NEL (U+0085) or a bidi override in a title or in the ``content`` column
went to the terminal raw. The document is ASCII now, escaped by the same helper as
``search --json`` (``text.safe_json``); a JSON reader still gets the exact stored text.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tests.adversarial import damage as d
from tests.adversarial.cli_run import cli
from tests.adversarial.hostile import PARENT, hostile_store

#: C1 controls (CSI, NEL, OSC as 8 bits), bidi overrides and isolates, an invisible separator.
RAW = "t \x9b31m red \x85 \x9d0;x\x9c \u202edesrever\u202c \u2066iso\u2069 \u2028 end"
FORBIDDEN = ["\x9b", "\x85", "\x9d", "\x9c", "\u202e", "\u202c", "\u2066", "\u2069", "\u2028", "\x1b"]


def _store(directory: Path, *, hostile: bool = True) -> Path:
    path = hostile_store(directory) if hostile else d.copy_fixture("agent_run", directory)
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=DELETE")
        db.execute("update agent_sessions set title = ? where id = ?", (RAW, PARENT))
        db.execute("update raw_messages set content = ? where session_id = ? and sequence = 2", (RAW, PARENT))
    finally:
        db.close()
    return path


def test_json_to_stdout_escapes_c1_and_bidi_and_keeps_the_text(tmp_path: Path) -> None:
    store = _store(tmp_path)
    result = cli("export", str(store), "--session", PARENT, "--subtree", "--format", "json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    printed = result.stdout.decode("utf-8")
    assert printed.isascii(), sorted({char for char in printed if not char.isascii()})
    for char in FORBIDDEN:
        assert char not in printed, repr(char)
    document = json.loads(printed)
    assert document["session"]["row"]["title"] == RAW
    contents = [row.get("content") for row in document["session"]["messages"] if "content" in row]
    assert RAW in contents


def test_search_json_uses_the_same_escaping(tmp_path: Path) -> None:
    store = _store(tmp_path, hostile=False)
    result = cli("search", str(store), "desrever", "--json", "--index-dir", str(tmp_path / "index"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    printed = result.stdout.decode("utf-8")
    assert printed.isascii() and all(char not in printed for char in FORBIDDEN)
    assert [json.loads(line)["session_id"] for line in printed.splitlines()] == [PARENT]
