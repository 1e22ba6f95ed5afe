"""``zett-browser context``'s stdlib fast path (issue 29): the same bytes as the full path.

Every session of stores real zett-agent 0.2.1 wrote (its Agent step by step with compaction,
the runtime's cases, the checked-in fixtures) is printed at several N, as text and ``--json``,
once as shipped and once with the fast path switched off; the outputs, errors and exit
statuses must be identical, and the fast path must have answered the healthy ones itself.
Hostile text is compared the same way; damaged rows, another schema, a missing file, a
prefix naming several sessions and a bad N fall back to the full path, which words the error.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.realstore.stores import RealStores
from zett_browser.cli import context as cli
from zett_browser.storage import contextgen

FIXTURES = Path(__file__).parents[1] / "fixtures"
HOSTILE = (
    "[red]x[/red] \x1b[2J\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\ \x07 \u202eevil\u202c"
    " [link=http://e]y[/link] \x85"
)


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main_context(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _both(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[tuple[int, str, str], tuple[int, str, str]]:
    """(as shipped, full path only) for one command line."""
    shipped = _run(argv, capsys)
    with monkeypatch.context() as patch:
        patch.setattr(cli, "_fast", lambda *_: None)
        full = _run(argv, capsys)
    return shipped, full


def _sessions(store: Path) -> dict[str, int]:
    """Each session's last sequence (0 without rows), read-only."""
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        return {
            str(session): int(last or 0)
            for session, last in db.execute(
                "SELECT id, (SELECT max(sequence) FROM raw_messages WHERE session_id = agent_sessions.id)"
                " FROM agent_sessions"
            )
        }
    finally:
        db.close()


def _compare_store(store: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    """Compare every session at N = 1, the middle, the last, one past it; (cases, answered fast)."""
    cases = fast = 0
    for session, last in _sessions(store).items():
        for at in sorted({1, max(1, last // 2), max(1, last), last + 1}):
            for flags in ([], ["--json"]):
                argv = [str(store), "--session", session, "--at", str(at), *flags]
                shipped, full = _both(argv, capsys, monkeypatch)
                assert shipped == full, (session, at, flags)
                cases += 1
                fast += cli._fast(store.absolute(), session, at, bool(flags)) is not None
    return cases, fast


def _copy(source: Path, tmp_path: Path, name: str = "store.sqlite3") -> Path:
    target = tmp_path / name
    shutil.copy(source, target)
    return target


def _sidecars(store: Path) -> list[str]:
    return sorted(path.name for path in store.parent.glob(f"{store.name}-*"))


def test_real_agent_store_with_compaction_is_the_same_and_fast(
    agent_run: tuple[Path, dict[str, Any]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = _copy(agent_run[0], tmp_path)
    db = sqlite3.connect(store)
    assert db.execute("SELECT count(*) FROM session_snapshots").fetchone()[0] > 0  # compacted
    db.close()
    cases, fast = _compare_store(store, capsys, monkeypatch)
    assert cases >= 8 and fast == cases


def test_real_runtime_stores_are_the_same(
    real_stores: RealStores, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, source in (("main.sqlite3", real_stores.main), ("children.sqlite3", real_stores.children)):
        store = _copy(source, tmp_path, name)
        cases, fast = _compare_store(store, capsys, monkeypatch)
        assert cases > 20 and fast > cases * 0.9, (name, cases, fast)
    compacted = real_stores.session("compaction")
    assert cli._fast(tmp_path / "main.sqlite3", compacted, None, False) is not None


@pytest.mark.parametrize("fixture", ["agent_run", "storage_api"])
def test_checked_in_fixtures_are_the_same(
    fixture: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _copy(FIXTURES / f"{fixture}.sqlite3", tmp_path)
    cases, fast = _compare_store(store, capsys, monkeypatch)
    assert cases and fast >= cases - 2  # storage_api holds a row the fast decoder declines


def test_hostile_text_is_the_same_and_cleaned(
    agent_run: tuple[Path, dict[str, Any]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = _copy(agent_run[0], tmp_path)
    session = agent_run[1]["session_id"]
    db = sqlite3.connect(store)
    with db:
        rows = db.execute("SELECT id, message_json FROM raw_messages WHERE session_id = ?", (session,)).fetchall()
        for row_id, stored in rows:
            items = json.loads(stored)
            data = items[0]["data"]
            if isinstance(data.get("content"), str):
                data["content"] = HOSTILE + data["content"]
            db.execute("UPDATE raw_messages SET message_json = ? WHERE id = ?", (json.dumps(items), row_id))
        db.execute("UPDATE agent_sessions SET title = ?", (HOSTILE,))
    db.close()
    for flags in ([], ["--json"]):
        shipped, full = _both([str(store), "--session", session, *flags], capsys, monkeypatch)
        assert shipped == full and shipped[0] == 0
        assert "\x1b" not in shipped[1] and "\x07" not in shipped[1] and "\u202e" not in shipped[1]
        assert cli._fast(store, session, None, bool(flags)) is not None


def _damage_a_row(store: Path, session: str) -> None:
    db = sqlite3.connect(store)
    with db:
        db.execute(
            'UPDATE raw_messages SET message_json = \'[{"kind": 99, "data": {}}]\' WHERE session_id = ?'
            " AND sequence = (SELECT max(sequence) FROM raw_messages WHERE session_id = ?)",
            (session, session),
        )
    db.close()


def test_doubts_fall_back_to_the_full_path_and_its_words(
    agent_run: tuple[Path, dict[str, Any]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = _copy(agent_run[0], tmp_path)
    session = agent_run[1]["session_id"]
    last = _sessions(store)[session]
    prefix = session[:4]
    assert sum(other.startswith(prefix) for other in _sessions(store)) == 1
    cases: list[list[str]] = [
        [str(store), "--session", session, "--at", str(last + 2)],  # N beyond the log: the full path's error
        [str(store), "--session", "0" * 8],  # no such session
        [str(store), "--session", ""],  # an empty prefix
        [str(tmp_path / "missing.sqlite3"), "--session", session],
        [str(FIXTURES / "legacy_no_session_type.sqlite3"), "--session", session],  # another schema
        ["sqlite+aiosqlite:///" + str(store), "--session", session],  # a URL: the storage parses it
    ]
    for argv in cases:
        shipped, full = _both(argv, capsys, monkeypatch)
        assert shipped == full, argv
    assert cli._fast(store, session, last + 2, False) is None
    assert cli._fast(tmp_path / "missing.sqlite3", session, None, False) is None
    assert cli._fast(FIXTURES / "legacy_no_session_type.sqlite3", session, None, False) is None
    assert cli._fast(store, prefix, None, False) is not None  # a prefix naming one session is fine
    _damage_a_row(store, session)
    assert cli._fast(store, session, None, False) is None
    for flags in ([], ["--json"]):
        shipped, full = _both([str(store), "--session", session, *flags], capsys, monkeypatch)
        assert shipped == full
    assert not (tmp_path / "missing.sqlite3").exists()


def test_several_sessions_under_a_prefix_fall_back(
    real_stores: RealStores, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _copy(real_stores.main, tmp_path)
    sessions = sorted(_sessions(store))
    shared = os.path.commonprefix(sessions[:2])
    assert len(shared) < len(sessions[0])
    assert cli._fast(store, shared, None, False) is None
    shipped, full = _both([str(store), "--session", shared], capsys, monkeypatch)
    assert shipped == full and shipped[0] == 2 and shipped[2].count("\n") == 1


PROBE = textwrap.dedent(
    """
    import sys
    from zett_browser.__main__ import main
    code = main(sys.argv[1:])
    loaded = [name for name in ("sqlalchemy", "aiosqlite", "pydantic", "asyncio") if name in sys.modules]
    print("LOADED " + ",".join(loaded), file=sys.stderr)
    raise SystemExit(code)
    """
)


def test_the_fast_path_loads_no_sql_storage_and_leaves_no_sidecars(
    agent_run: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    store = _copy(agent_run[0], tmp_path)
    session = agent_run[1]["session_id"]
    before = _sidecars(store)
    for flags in ([], ["--json"]):
        result = subprocess.run(
            [sys.executable, "-c", PROBE, "context", str(store), "--session", session, *flags],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
            timeout=120,
        )
        assert result.returncode == 0, result.stderr
        assert result.stderr.strip().splitlines()[-1] == "LOADED", result.stderr
        assert result.stdout.strip()
    assert _sidecars(store) == before


def test_the_generated_statements_are_the_storage_s() -> None:
    """contextsql.py is what the generator writes from the storage's queries today."""
    assert contextgen.TARGET.read_text(encoding="utf-8") == contextgen.render()
