"""The build's fast path reads exactly what the codec reads, and leaves anything odd to it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.index.helpers import copy_fixture
from zett_browser.index import extract
from zett_browser.index.extract import Doc, doc_from_row
from zett_browser.storage import SQLSessionStorage, scan


def _slow(row: Mapping[str, Any], monkeypatch: pytest.MonkeyPatch) -> Doc:
    """The document as the codec alone makes it."""
    with monkeypatch.context() as patch:
        patch.setattr(extract, "_fast_texts", lambda payload, doc: None)
        return doc_from_row(row)


async def _rows(store: Path) -> list[Mapping[str, Any]]:
    storage = SQLSessionStorage.open_for_browsing(store)
    try:
        return await scan.raw_scan(storage.reader, None, 100_000)
    finally:
        await storage.close()


@pytest.mark.parametrize("fixture", ["agent_run", "storage_api"])
async def test_every_fixture_row_gives_the_codec_document(
    fixture: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = await _rows(copy_fixture(fixture, tmp_path))
    assert len(rows) > 10
    fast = [row for row in rows if extract._fast_texts(row["message_json"], Doc("s", 1, "k", "")) is not None]
    assert len(fast) > len(rows) // 2  # the comparison covers the fast path, not only the fallback
    for row in rows:
        assert doc_from_row(row) == _slow(row, monkeypatch), (row["session_id"], row["sequence"])


def _row(item: object) -> dict[str, Any]:
    return {
        "session_id": "s",
        "sequence": 1,
        "role": 3,
        "message_json": json.dumps([item]),
        "metadata_json": "{}",
        "tags_json": "{}",
        "started_at": datetime(2026, 1, 1, tzinfo=UTC),
        "duration_ns": 5,
        "input_tokens": 1,
        "output_tokens": 2,
    }


_CALL = {"id": "c1", "name": "read_file", "arguments": {"path": "src/flow.py", "n": [1, {"k": None}]}, "error": None}
_ASSISTANT = {"content": "hi", "reasoning": "think", "tool_calls": [_CALL], "model": "m", "replay_blocks": []}
ODD = [
    {"kind": 3, "data": _ASSISTANT},
    {"kind": 3, "data": {**_ASSISTANT, "persist": 1}},  # an int where a bool belongs
    {"kind": 3, "data": {**_ASSISTANT, "newer_field": "x"}},  # an unknown field
    {"kind": 3, "data": {**_ASSISTANT, "tool_calls": [{**_CALL, "error": "boom"}]}},
    {"kind": 3, "data": {**_ASSISTANT, "tool_calls": [{"name": "no id"}]}},
    {"kind": 3, "data": {**_ASSISTANT, "tool_calls": ["not a call"]}},
    {"kind": 3, "data": {**_ASSISTANT, "stop": {"reason": "refusal", "message": "declined"}}},
    {"kind": 3, "data": {**_ASSISTANT, "content": 7}},
    {"kind": 3, "data": {**_ASSISTANT, "replay_blocks": [1]}},
    {"kind": 4, "data": {"tool_call_id": "c1", "name": "grep", "content": "found", "success": False}},
    {"kind": 4, "data": {"tool_call_id": "c1", "name": "grep", "content": [{"text": "part"}]}},
    {"kind": 4, "data": {"name": "grep", "content": "no call id"}},
    {"kind": 2, "data": {"content": "plain"}},
    {"kind": 2, "data": {}},
    {"kind": 2, "data": {"content": "bytes", "attributes": {"b": {"__kcs_bytes__": "aGk="}}}},
    {"kind": 1, "data": {"content": "system", "persist": True}},
    {"kind": 6, "data": {"content": "agent"}},
    {"kind": 5, "data": {"content": "a checkpoint kind in the Raw Log"}},
    {"kind": 9, "data": {"content": "newer kind"}},
    {"kind": True, "data": {"content": "bool kind"}},
    {"kind": 2, "data": {"content": "extra key"}, "other": 1},
    "not an object",
]


@pytest.mark.parametrize("item", ODD, ids=range(len(ODD)))
def test_odd_envelopes_give_the_codec_document(item: object, monkeypatch: pytest.MonkeyPatch) -> None:
    row = _row(item)
    assert doc_from_row(row) == _slow(row, monkeypatch)


def test_bad_json_and_non_text_payloads_are_problems(monkeypatch: pytest.MonkeyPatch) -> None:
    for payload in ["{not json", b"bytes", None, "[]", json.dumps([{"kind": 2, "data": {}}] * 2)]:
        row = {**_row({}), "message_json": payload}
        doc = doc_from_row(row)
        assert doc.problem, payload
        assert doc == _slow(row, monkeypatch)
