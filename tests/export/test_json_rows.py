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
from tests.export.helpers import copy_fixture, export_text, long_session
from tests.export.hostile_helpers import SESSION as HOSTILE
from tests.export.hostile_helpers import hostile_store
from tests.realstore.stores import RealStores
from tests.support import DELEGATING_PARENT, KITCHEN
from zett_browser.export.jsondoc import JsonWriter
from zett_browser.export.redact import Redactor
from zett_browser.export.walk import Walk, WalkStats
from zett_browser.storage import open_store


class PerValue(JsonWriter):
    """The JSON writer with every row written one value at a time (the path before the fast one)."""

    def _row(self, row: Mapping[str, Any]) -> str:
        return self._row_by_value(row)


async def _walk(store: Path, session: str, *, subtree: bool, encoded: bool) -> tuple[str, WalkStats]:
    """The document, read through SQLAlchemy and written per value (``encoded`` False), or from
    SQLite's JSON text where exact."""
    storage = open_store(store)
    out = io.StringIO()
    try:
        writer = (JsonWriter if encoded else PerValue)(out, Redactor(enabled=False))
        stats = await Walk(storage, writer, subtree=subtree, quick=encoded, encoded=encoded).run(session)
        writer.finish()
    finally:
        await storage.close()
    return out.getvalue(), stats


async def _same(store: Path, session: str, *, subtree: bool = True) -> tuple[str, WalkStats]:
    """The export's document, checked against the per-value path; and the encoded walk's figures."""
    beside = sorted(store.parent.glob(f"{store.name}-*"))  # (``_sessions`` reads with mode=ro: it leaves them)
    exported, _ = await export_text(store, session, format="json", subtree=subtree)
    encoded, stats = await _walk(store, session, subtree=subtree, encoded=True)
    assert sorted(store.parent.glob(f"{store.name}-*")) == beside  # no -wal/-shm left by the stdlib reads
    per_value, _ = await _walk(store, session, subtree=subtree, encoded=False)
    assert exported == encoded == per_value
    return exported, stats


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
        _, stats = await _same(store, session)
        assert stats.encoded == stats.messages  # every row as the JSON text SQLite wrote


async def test_real_runtime_stores_are_written_as_before(real_stores: RealStores) -> None:
    """Every session of both stores the zett-agent 0.2.1 runtime wrote (compactions, delegations, failures)."""
    written = 0
    for store in (real_stores.main, real_stores.children):
        for session in _sessions(store):
            text, stats = await _same(store, session)
            written += text.count('"message_json": ')
            assert stats.encoded == stats.messages  # every row as the JSON text SQLite wrote
    assert written > 20


async def test_hostile_strings_are_written_as_before(tmp_path: Path) -> None:
    text, stats = await _same(await hostile_store(tmp_path / "hostile.sqlite3"), HOSTILE)
    assert stats.encoded == stats.messages
    assert "\x1b" not in text and "<script>" in text  # escaped for terminals, kept as data
    assert text.isascii()


#: Damages that leave no page SQLite's JSON writes exactly as Python's does (the page is
#: read the usual way): a schema letting ``sequence`` be NULL, text that is not UTF-8, a
#: text ``sequence`` (a position this reader does not bind).
_READ_AS_BEFORE = {"NULL sequence", "not UTF-8", "text sequence"}


@pytest.mark.parametrize("case", sorted(DAMAGES))
async def test_damaged_rows_are_written_as_before(tmp_path: Path, case: str) -> None:
    session, harm = DAMAGES[case]
    store = damage.copy_fixture("storage_api", tmp_path)
    harm(store)
    _, stats = await _same(store, session)
    assert stats.messages > 0
    assert stats.encoded == (0 if case in _READ_AS_BEFORE else stats.messages)


async def test_values_json_has_no_form_for_and_odd_numbers(tmp_path: Path) -> None:
    """A BLOB (``$base64``), infinite and huge numbers, invalid UTF-8 and C1 controls in one row."""
    store = damage.copy_fixture("storage_api", tmp_path)
    damage.bad_message_value(store, KITCHEN, 1, "content", b"\x00\xffblob")
    damage.bad_message_value(store, KITCHEN, 2, "duration_ns", float("inf"))
    damage.bad_message_value(store, KITCHEN, 3, "input_tokens", 2**62)
    damage.bad_message_value(store, KITCHEN, 4, "tool_name", "\x9b31m\u202e\U0001f600")
    damage.bad_text(store, "raw_messages", "metadata_json", damage.raw_id(store, KITCHEN, 5))
    text, stats = await _same(store, KITCHEN)
    assert stats.encoded == 0  # one page, with a REAL, a BLOB and bad UTF-8: read the usual way
    assert '"content": {"$base64": "AP9ibG9i"}' in text
    assert "Infinity" in text and str(2**62) in text and "\\u009b" in text and "\\ud83d\\ude00" in text


#: Every ASCII character (NUL and DEL too), C1 controls, Latin-1, line and bidi separators,
#: a BOM, the last BMP character and two beyond it (surrogate pairs in the JSON).
_CHARACTERS = "".join(map(chr, range(128))) + "\x80\x9b\xa0\xe9\xff\u2028\u202e\ufeff\uffff\U0001f600\U0010ffff"


async def test_sqlite_writes_every_character_as_python_does(tmp_path: Path) -> None:
    store = damage.copy_fixture("storage_api", tmp_path)
    damage.bad_message_value(store, KITCHEN, 1, "content", _CHARACTERS)
    damage.bad_message_value(store, KITCHEN, 2, "tool_name", _CHARACTERS[::-1])
    damage.bad_message_value(store, KITCHEN, 3, "metadata_json", f'{{"k": "{_CHARACTERS}"}}')
    damage.bad_message_value(store, KITCHEN, 4, "input_tokens", -(2**63))
    damage.bad_message_value(store, KITCHEN, 5, "output_tokens", 2**63 - 1)
    text, stats = await _same(store, KITCHEN)
    assert stats.encoded == stats.messages > 5
    assert '"content": "\\u0000\\u0001' in text and "~\\u007f\\u0080" in text and "\\udbff\\udfff" in text


async def test_a_page_sqlite_cannot_write_alike_is_read_the_usual_way(tmp_path: Path) -> None:
    """Pages of 200: the second holds a REAL (SQLite prints 15 digits), the third a BLOB; the
    first and the fourth are SQLite's JSON text, and the walk goes on exactly across them."""
    store = damage.copy_fixture("storage_api", tmp_path)
    long_session(store, KITCHEN, 650)
    damage.bad_message_value(store, KITCHEN, 333, "duration_ns", 1 / 3)
    damage.bad_message_value(store, KITCHEN, 555, "tool_name", b"\x00blob")
    text, stats = await _same(store, KITCHEN, subtree=False)
    assert stats.messages == 650 and stats.encoded == 250
    assert '"duration_ns": 0.3333333333333333' in text and '"tool_name": {"$base64": "AGJsb2I="}' in text


async def test_redaction_still_applies(tmp_path: Path) -> None:
    store = damage.copy_fixture("storage_api", tmp_path)
    secret = "sk-ant-" + "A1b2C3d4E5f6G7h8I9j0"
    damage.bad_message_value(store, DELEGATING_PARENT, 1, "content", f"key {secret}")  # a copy: not counted
    damage.bad_message_value(store, DELEGATING_PARENT, 2, "metadata_json", f'{{"key": "{secret}"}}')
    plain, _ = await export_text(store, DELEGATING_PARENT, format="json")
    redacted, report = await export_text(store, DELEGATING_PARENT, format="json", redact=True)
    assert secret in plain and secret not in redacted and "[REDACTED]" in redacted
    assert redacted.count("[REDACTED]") == 2 and report.redacted == 1
