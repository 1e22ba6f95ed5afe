"""``--redact``: common secrets replaced in every format, counted; everything else kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.export.helpers import export_text
from zett_browser.export.redact import MARK, Redactor
from zett_browser.export.restore import restore
from zett_browser.storage import AssistantMessage, SQLiteSessionStorage, ToolCall, ToolMessage, UserMessage

PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7x\nabc+/def==\n-----END RSA PRIVATE KEY-----"
CASES = [
    ("key sk-proj-abcdefghijklmnopqrstuvwx1234 here", "key [REDACTED] here"),
    ("sk-ant-api03-AbCdEfGhIjKlMnOpQrSt_uv-wx", "[REDACTED]"),
    ("aws AKIAIOSFODNN7EXAMPLE.", "aws [REDACTED]."),
    ("token ghp_0123456789abcdefghijABCDEFGHIJ012345", "token [REDACTED]"),
    ("github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "[REDACTED]"),
    ("Authorization: Bearer eyJhbGciOi.JIUzI1NiJ9.e30", "Authorization: Bearer [REDACTED]"),
    ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [REDACTED]"),
    ("postgresql://reader:s3cr3t@db.example:5432/x", "postgresql://reader:[REDACTED]@db.example:5432/x"),
    ("https://api.example/v1?user=a&api_key=XYZ123&x=1", "https://api.example/v1?user=a&api_key=[REDACTED]&x=1"),
    ("xoxb-1234567890-abcdefghij", "[REDACTED]"),
    (f"key:\n{PEM}\nend", "key:\n[REDACTED]\nend"),
]
KEPT = [
    "plain text with sk- and a skeleton",
    "https://example.com/path?q=1",
    "ssh://host/path",
    "the word bearer alone",
    "AKIA too short",
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_each_kind_of_secret_is_replaced_and_counted(text: str, expected: str) -> None:
    redactor = Redactor()
    assert redactor(text) == expected
    assert redactor.count == 1


@pytest.mark.parametrize("text", KEPT)
def test_ordinary_text_is_kept(text: str) -> None:
    redactor = Redactor()
    assert redactor(text) == text and redactor.count == 0


def test_a_disabled_redactor_changes_nothing() -> None:
    assert Redactor(enabled=False)(CASES[0][0]) == CASES[0][0]


async def _secret_store(path: Path) -> Path:
    storage = SQLiteSessionStorage(path)
    try:
        await storage.create_session(session_id="s", title="deploy")
        await storage.append("s", "r", UserMessage(content="use\nsk-proj-abcdefghijklmnopqrstuvwx1234 and\n" + PEM))
        call = ToolCall("c1", "http", {"url": "https://u:hunter22@example.com/"})
        await storage.append("s", "r", AssistantMessage(content="", tool_calls=(call,)))
        await storage.append("s", "r", ToolMessage(tool_call_id="c1", name="http", content="Bearer abcdefghijklmnop"))
    finally:
        await storage.close()
    return path


@pytest.mark.parametrize("fmt", ["md", "html", "json"])
async def test_every_format_is_redacted_and_counts_the_same(tmp_path: Path, fmt: str) -> None:
    store = await _secret_store(tmp_path / "s.sqlite3")
    text, report = await export_text(store, "s", format=fmt, redact=True)
    assert report.redacted == 4
    for secret in ("sk-proj-abcdef", "MIIEowIBAAKCAQEA7x", "hunter22", "abcdefghijklmnop"):
        assert secret not in text
    assert MARK in text
    plain, report = await export_text(store, "s", format=fmt)
    assert report.redacted == 0 and "hunter22" in plain


async def test_a_redacted_json_export_is_valid_and_restores(tmp_path: Path) -> None:
    store = await _secret_store(tmp_path / "s.sqlite3")
    text, _ = await export_text(store, "s", format="json", redact=True)
    document = json.loads(text)
    assert document["redacted"] == 4
    assert await restore(document, str(tmp_path / "restored.sqlite3")) == 1


def test_json_text_stays_valid_and_keys_after_escapes_are_found() -> None:
    """In stored JSON a line break is ``\\n``; a PEM block never spans two JSON strings."""
    import json as json_module

    text = json_module.dumps(
        {
            "a": "x\nsk-proj-abcdefghijklmnopqrstuvwx1234\tghp_0123456789abcdefghijABCDEFGHIJ012345",
            "b": "-----BEGIN RSA PRIVATE KEY-----",
            "c": "-----END RSA PRIVATE KEY-----",
            "d": PEM,
        }
    )
    redactor = Redactor()
    out = redactor(text)
    assert redactor.count == 3
    assert json_module.loads(out) == {
        "a": "x\n[REDACTED]\t[REDACTED]",
        "b": "-----BEGIN RSA PRIVATE KEY-----",
        "c": "-----END RSA PRIVATE KEY-----",
        "d": "[REDACTED]",
    }
