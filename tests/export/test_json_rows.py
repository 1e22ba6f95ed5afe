"""The JSON export's fast row path (one C encoder call per row) writes byte for byte what the
per-value path writes (each value through ``stored()`` and the redactor), on stores real
zett-agent wrote, on hostile strings and on damaged rows; redaction still applies."""

from __future__ import annotations

import io
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.adversarial import damage
from tests.adversarial.damage import DAMAGES
from tests.export.helpers import copy_fixture, export_text
from tests.export.hostile_helpers import SESSION as HOSTILE
from tests.export.hostile_helpers import hostile_store
from tests.realstore.stores import RealStores
from tests.support import DELEGATING_PARENT, KITCHEN
from zett_browser.export.jsondoc import JsonWriter
from zett_browser.export.redact import Redactor
from zett_browser.export.walk import Walk
from zett_browser.storage import open_store


class PerValue(JsonWriter):
    """The JSON writer with every row written one value at a time (the path before the fast one)."""

    def _row(self, row: Mapping[str, Any]) -> str:
        return self._row_by_value(row)


async def _per_value(store: Path, session: str, *, subtree: bool) -> str:
    storage = open_store(store)
    out = io.StringIO()
    try:
        writer = PerValue(out, Redactor(enabled=False))
        await Walk(storage, writer, subtree=subtree).run(session)
        writer.finish()
    finally:
        await storage.close()
    return out.getvalue()


async def _same(store: Path, session: str, *, subtree: bool = True) -> str:
    fast, _ = await export_text(store, session, format="json", subtree=subtree)
    assert fast == await _per_value(store, session, subtree=subtree)
    return fast


def _sessions(store: Path) -> list[str]:
    connection = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        return [row[0] for row in connection.execute("select id from agent_sessions order by id")]
    finally:
        connection.close()


@pytest.mark.parametrize("name", ["storage_api", "agent_run"])
async def test_fixture_stores_are_written_as_before(tmp_path: Path, name: str) -> None:
    store = copy_fixture(name, tmp_path)
    sessions = _sessions(store)
    assert sessions
    for session in sessions:
        await _same(store, session)


async def test_real_runtime_stores_are_written_as_before(real_stores: RealStores) -> None:
    """Every session of both stores the zett-agent 0.2.1 runtime wrote (compactions, delegations, failures)."""
    written = 0
    for store in (real_stores.main, real_stores.children):
        for session in _sessions(store):
            text = await _same(store, session)
            written += text.count('"message_json": ')
    assert written > 20


async def test_hostile_strings_are_written_as_before(tmp_path: Path) -> None:
    text = await _same(await hostile_store(tmp_path / "hostile.sqlite3"), HOSTILE)
    assert "\x1b" not in text and "<script>" in text  # escaped for terminals, kept as data
    assert text.isascii()


@pytest.mark.parametrize("case", sorted(DAMAGES))
async def test_damaged_rows_are_written_as_before(tmp_path: Path, case: str) -> None:
    session, harm = DAMAGES[case]
    store = damage.copy_fixture("storage_api", tmp_path)
    harm(store)
    await _same(store, session)


async def test_values_json_has_no_form_for_and_odd_numbers(tmp_path: Path) -> None:
    """A BLOB (``$base64``), infinite and huge numbers, invalid UTF-8 and C1 controls in one row."""
    store = damage.copy_fixture("storage_api", tmp_path)
    damage.bad_message_value(store, KITCHEN, 1, "content", b"\x00\xffblob")
    damage.bad_message_value(store, KITCHEN, 2, "duration_ns", float("inf"))
    damage.bad_message_value(store, KITCHEN, 3, "input_tokens", 2**62)
    damage.bad_message_value(store, KITCHEN, 4, "tool_name", "\x9b31m\u202e\U0001f600")
    damage.bad_text(store, "raw_messages", "metadata_json", damage.raw_id(store, KITCHEN, 5))
    text = await _same(store, KITCHEN)
    assert '"content": {"$base64": "AP9ibG9i"}' in text
    assert "Infinity" in text and str(2**62) in text and "\\u009b" in text and "\\ud83d\\ude00" in text


async def test_redaction_still_applies(tmp_path: Path) -> None:
    store = damage.copy_fixture("storage_api", tmp_path)
    secret = "sk-ant-" + "A1b2C3d4E5f6G7h8I9j0"
    damage.bad_message_value(store, DELEGATING_PARENT, 1, "content", f"key {secret}")  # a copy: not counted
    damage.bad_message_value(store, DELEGATING_PARENT, 2, "metadata_json", f'{{"key": "{secret}"}}')
    plain, _ = await export_text(store, DELEGATING_PARENT, format="json")
    redacted, report = await export_text(store, DELEGATING_PARENT, format="json", redact=True)
    assert secret in plain and secret not in redacted and "[REDACTED]" in redacted
    assert redacted.count("[REDACTED]") == 2 and report.redacted == 1
