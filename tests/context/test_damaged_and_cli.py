"""Snapshots out of boundary order, unreadable rows, hostile text, and ``zett-browser context``.

The store is the one real zett-agent 0.2.1 wrote in ``drive_agent.py``; the damage is done
with the stdlib ``sqlite3`` on a copy (zett-agent refuses to write such snapshots itself),
and what zett-agent's ``load()`` makes of the damaged copy is asked of zett-agent itself
(``load_now.py`` in its venv).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from zett_browser.cli.context import main_context
from zett_browser.storage import SQLSessionStorage
from zett_browser.views import time_travel as context

LOAD_NOW = Path(__file__).parent / "load_now.py"
HOSTILE = "[red]x[/red] \x1b[2J\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\ \x07 [link=http://e]y[/link]"


def _copy(store: Path, tmp_path: Path) -> Path:
    target = tmp_path / "agent.sqlite3"
    shutil.copy(store, target)
    return target


def _add_snapshot(path: Path, session_id: str, version: int, through: int, created: str, summary: str) -> None:
    envelope = json.dumps(
        [{"kind": 5, "data": {"attributes": {}, "persist": True, "include_in_messages": True, "content": summary}}],
        ensure_ascii=False,
    )
    connection = sqlite3.connect(path)
    with connection:
        connection.execute(
            "INSERT INTO session_snapshots (id, session_id, version, compacted_through_sequence, message_json,"
            " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (f"ffff0000-0000-7000-8000-{version:012d}", session_id, version, through, envelope, created, created),
        )
    connection.close()


def _real_load(zett_agent_py: Path, path: Path, session_id: str) -> list[Any]:
    result = subprocess.run(
        [str(zett_agent_py), str(LOAD_NOW), str(path), session_id], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr[-2000:]
    items: list[Any] = json.loads(result.stdout)
    return items


async def _export(path: Path, session_id: str, at: int | None) -> tuple[context.ContextPoint, list[Any]]:
    storage = SQLSessionStorage.open_for_browsing(path)
    try:
        point = await context.locate(storage, session_id, at)
        return point, json.loads(await context.export_json(storage, point))
    finally:
        await storage.close()


async def test_snapshot_with_an_earlier_boundary_wins_by_version(
    agent_run: tuple[Path, dict[str, Any]], zett_agent_py: Path, tmp_path: Path
) -> None:
    """A v6 whose boundary (#5) lies behind v5's (#25): load() takes the highest version
    anyway, and so does the context after the last message; every step keeps what it had."""
    store, record = agent_run
    session = record["session_id"]
    path = _copy(store, tmp_path)
    _add_snapshot(path, session, 6, 5, "2099-01-01 00:00:00.000000", "v6 summary " + HOSTILE)
    point, exported = await _export(path, session, None)
    assert point.snapshot is not None and point.snapshot.version == 6 and point.floor == 5
    assert exported == _real_load(zett_agent_py, path, session)
    assert exported[0]["data"]["content"].endswith(HOSTILE)  # stored text, unchanged
    for step in record["records"]:
        if step["at"] <= point.last:  # one past the last: v6 exists now, as shown above
            assert (await _export(path, session, step["at"]))[1] == step["messages"]


async def test_a_snapshot_without_a_time_counts_only_now(
    agent_run: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    store, record = agent_run
    session = record["session_id"]
    path = _copy(store, tmp_path)
    step = record["records"][5]
    _add_snapshot(path, session, 6, 29, "not a time", "undated")
    point, _ = await _export(path, session, None)
    assert point.snapshot is not None and point.snapshot.version == 6
    point, exported = await _export(path, session, step["at"])
    assert exported == step["messages"] and point.undated == 0, "it summarises #29: it was made after the step"
    _add_snapshot(path, session, 7, step["at"] - 1, "not a time either", "undated too")
    point, exported = await _export(path, session, step["at"])
    assert exported == step["messages"] and point.undated == 1, "this one may have existed: left out, counted"


async def test_an_unreadable_row_in_the_context_is_a_clear_error(
    agent_run: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    """zett-agent's load() fails on such a row; the export says which row, the estimate counts it."""
    store, record = agent_run
    session = record["session_id"]
    path = _copy(store, tmp_path)
    connection = sqlite3.connect(path)
    with connection:
        connection.execute("UPDATE raw_messages SET message_json = '[{\"kind\": 2, ' WHERE sequence = 27")
    connection.close()
    storage = SQLSessionStorage.open_for_browsing(path)
    try:
        point = await context.locate(storage, session, None)
        size = await context.estimate(storage, point)
        assert size.unreadable == 1
        # The row is no message zett-agent could restore: not in the context's rows.
        rows = [row.record.sequence async for page in context.context_pages(storage, point) for row in page]
        assert 27 not in rows and rows
        with pytest.raises(context.ContextError, match="message #27 is unreadable"):
            await context.export_json(storage, point)
        # Before #27 the context is whole.
        before = await context.locate(storage, session, 27)
        assert json.loads(await context.export_json(storage, before))
    finally:
        await storage.close()


# ---------------------------------------------------------------- the CLI


def test_cli_text(agent_run: tuple[Path, dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store, record = agent_run
    path = _copy(store, tmp_path)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    assert main_context([str(path), "--session", record["session_id"], "--at", "16"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("Context of #16 (user, ")
    assert lines[1].startswith("Snapshot v1 in force") and "#1–#9" in lines[1]
    assert "2 not replayed (include_in_messages false)" in lines[2]
    assert any(line.split()[:2] == ["summary", "1"] for line in lines)
    assert [line.split()[0] for line in lines if line.startswith("#")] == ["#11", "#12", "#13", "#14"]
    assert "\x1b" not in out and "\x07" not in out
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def test_cli_measured_tokens_of_an_assistant_step(
    agent_run: tuple[Path, dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store, record = agent_run
    path = _copy(store, tmp_path)
    connection = sqlite3.connect(path)
    tokens = connection.execute("SELECT input_tokens FROM raw_messages WHERE sequence = 17").fetchone()[0]
    connection.close()
    assert main_context([str(path), "--session", record["session_id"], "--at", "17"]) == 0
    assert f"Measured input_tokens of #17: {tokens:,} = " in capsys.readouterr().out


def test_cli_json_is_the_stored_envelopes(
    agent_run: tuple[Path, dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store, record = agent_run
    path = _copy(store, tmp_path)
    for step in (record["records"][3], record["records"][-1]):
        assert main_context([str(path), "--session", record["session_id"], "--at", str(step["at"]), "--json"]) == 0
        out = capsys.readouterr().out
        assert json.loads(out) == step["messages"] and "\x1b" not in out
    assert main_context([str(path), "--session", record["session_id"], "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == record["records"][-1]["messages"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--session", "nope\x1b[31m"], "zett-browser: no session 'nope\\x1b[31m'"),
        (["--session", "S", "--at", "0"], "must be 1 or more"),
        (["--session", "S", "--at", "999"], "--at must be from 1 to 31"),
        (["--session", "S", "--at", "x"], "expected a whole number"),
        ([], "the following arguments are required: --session"),
    ],
)
def test_cli_errors_are_one_line(
    agent_run: tuple[Path, dict[str, Any]], tmp_path: Path, args: list[str], message: str
) -> None:
    store, record = agent_run
    path = _copy(store, tmp_path)
    argv = [str(path), *[record["session_id"] if arg == "S" else arg for arg in args]]
    result = subprocess.run(
        [sys.executable, "-m", "zett_browser", "context", *argv], capture_output=True, text=True, check=False
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and message in result.stderr
    assert "\x1b" not in result.stderr


def test_cli_json_refuses_a_context_with_an_unreadable_row(
    agent_run: tuple[Path, dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store, record = agent_run
    path = _copy(store, tmp_path)
    connection = sqlite3.connect(path)
    with connection:
        connection.execute("UPDATE raw_messages SET message_json = 'garbage \x1b[31m' WHERE sequence = 29")
    connection.close()
    assert main_context([str(path), "--session", record["session_id"], "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "message #29 is unreadable" in captured.err and "\x1b" not in captured.err
    assert main_context([str(path), "--session", record["session_id"]]) == 0
    assert "1 unreadable (load() would fail)" in capsys.readouterr().out


def test_cli_missing_store(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "zett_browser", "context", str(tmp_path / "none.sqlite3"), "--session", "x"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1 and "does not exist" in result.stderr
    assert not (tmp_path / "none.sqlite3").exists()
