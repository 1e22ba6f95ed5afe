"""The MCP server's ``compare_sessions`` (issue 28: "compare (when it exists)") on pairs of runs the
real zett-agent 0.2.1 runtime wrote (tests/compare): what ``zett-browser compare --json`` says,
bounded; the two sessions may live in two of the served stores."""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from tests.compare.pairs import Pairs
from tests.mcp.helpers import call, connected, failure, fingerprint
from zett_browser.__main__ import run_command


async def cli_json(store: Path, a: str, b: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """``zett-browser compare STORE A B --json`` (on a thread: it runs its own event loop)."""
    assert await asyncio.to_thread(run_command, ["compare", str(store), a, b, "--json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


async def test_compare_is_what_the_compare_command_says(
    compare_pairs: Pairs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "stores" / "pairs.sqlite3"
    store.parent.mkdir()
    shutil.copy(compare_pairs.store, store)
    before = fingerprint(store.parent)
    a, b = compare_pairs.ids["result"]
    expected = await cli_json(store, a, b, capsys)
    async with connected(store, index_dir=tmp_path / "index") as client:
        got = await call(client, "compare_sessions", a=a, b=b, limit=3)
        assert got["first_divergence"] == expected["first_divergence"]
        assert got["first_divergence"]["reason"] == "different result"
        assert got["counts"] == expected["counts"] and got["rows_total"] == expected["rows_total"]
        assert got["totals"] == expected["totals"]
        # Bounded: three rows, from just before the first divergence.
        assert len(got["rows"]) == 3 and got["rows"][-1]["row"] <= got["first_divergence"]["row"] + 1
        assert got["rows_left_out"] == got["rows_total"] - 3
        assert got["a"]["session_id"] == a and got["b"]["store"] == 0
        assert "no session" in await failure(client, "compare_sessions", a="ffffffff-dead", b=b)
    assert fingerprint(store.parent) == before


async def test_the_two_sessions_may_be_in_two_stores(compare_pairs: Pairs, tmp_path: Path) -> None:
    a, b = compare_pairs.ids["fanout"]
    first, second = tmp_path / "a.sqlite3", tmp_path / "b.sqlite3"
    shutil.copy(compare_pairs.store, first)
    shutil.copy(compare_pairs.store, second)
    with closing(sqlite3.connect(first)) as db, db:  # each store keeps one run of the pair
        db.execute("DELETE FROM agent_sessions WHERE id = ?", (b,))
    with closing(sqlite3.connect(second)) as db, db:
        db.execute("DELETE FROM agent_sessions WHERE id = ?", (a,))
    for path in (first, second):
        with closing(sqlite3.connect(path)) as db:
            db.execute("PRAGMA journal_mode=DELETE")
    async with connected(first, second, index_dir=tmp_path / "index") as client:
        got = await call(client, "compare_sessions", a=a, b=b)
    assert (got["a"]["store"], got["b"]["store"]) == (0, 1)
    assert got["first_divergence"]["row"] == 4 and got["first_divergence"]["reason"] == "only in A"
    assert got["counts"] == {"same": 5, "changed": 0, "only A": 1, "only B": 0}
