"""``--redact`` on long runs: linear-time patterns with the same results, run off the app's loop.

Two patterns were quadratic: a URL's scheme was tried from every letter of a run of
letters and digits (each try scanning the run to its end: 1 MB did not finish in 60 s),
and a PEM block was tried again from every BEGIN line inside a stretch with no END. The
time target is in ``benchmarks/redact_bench.py``; here: the results equal the old
patterns' on generated text, and the app's export dialog redacts on a worker thread
(the export ran on the UI loop, freezing the screen for seconds).
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from textual.widgets import Checkbox, Input

from tests.adversarial import damage as d
from tests.adversarial.cli_run import cli
from tests.ui.helpers import frozen_clock, settle
from zett_browser.app import make_app
from zett_browser.export import redact
from zett_browser.export.redact import MARK, Redactor
from zett_browser.screens.export import ExportDialog

_OLD_START = r"(?:(?<![A-Za-z0-9_])|(?<=\\[nrtbf]))"
#: The patterns before this change (quadratic on long runs), as the reference for results.
REFERENCE = [
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r'-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:[^"\\]|\\.)*?-----END [A-Z0-9 ]*PRIVATE KEY-----', MARK),
        (_OLD_START + r"sk-(?:ant-|proj-)?[A-Za-z0-9_\-]{16,}", MARK),
        (_OLD_START + r"(?:AKIA|ASIA)[0-9A-Z]{16}\b", MARK),
        (_OLD_START + r"gh[pousr]_[A-Za-z0-9]{30,}", MARK),
        (_OLD_START + r"github_pat_[A-Za-z0-9_]{20,}", MARK),
        (_OLD_START + r"xox[abprs]-[A-Za-z0-9\-]{10,}", MARK),
        (_OLD_START + r"AIza[0-9A-Za-z_\-]{35}", MARK),
        ("(?i)" + _OLD_START + r"(bearer\s+)[A-Za-z0-9._~+/\-]{8,}=*", r"\1" + MARK),
        ("(?i)" + _OLD_START + r"(basic\s+)[A-Za-z0-9+/]{12,}={0,2}", r"\1" + MARK),
        (r"([A-Za-z][A-Za-z0-9+.\-]*://[^\s:/@\"\\]*:)[^\s/@\"\\]+(@)", r"\1" + MARK + r"\2"),
        (
            r"(?i)([?&](?:password|passwd|pwd|pass|token|access_token|refresh_token|api_key|apikey|secret|"
            r"client_secret|key|auth)=)[^&\s\"'#\\]+",
            r"\1" + MARK,
        ),
    )
]
#: Pieces that make secrets, near-misses and the characters the patterns stop at.
ATOMS = [
    *"aZ19+.-:/@\"\\ \n?&=_",
    "//", "://", "\\n", "\\\\", "\\\"", "token=", "password=", "sk-", "sk-ant-", "AKIA", "ASIA", "ghp_",
    "github_pat_", "xoxb-", "AIza", "Bearer ", "basic ", "http", "x://u:p@h", "1a://", "-----",
    "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----", "-----BEGIN PRIVATE KEY-----",
    "-----END PRIVATE KEY-----", "PRIVATE KEY-----", "abcdefghijklmnop", "ABCDEFGHIJKLMNOP0123",
]  # fmt: skip


def reference(text: str) -> tuple[str, int]:
    total = 0
    for pattern, replacement in REFERENCE:
        text, found = pattern.subn(replacement, text)
        total += found
    return text, total


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(ATOMS), max_size=30).map("".join))
def test_results_equal_the_old_patterns(text: str) -> None:
    redactor = Redactor()
    assert (redactor(text), redactor.count) == reference(text)


@pytest.mark.parametrize(
    "text",
    [
        "a" * 5000 + "://user:pw@host",
        "1-2.3+" + "b" * 3000 + "://u:p@h x",
        ("-----BEGIN PRIVATE KEY-----" + "x" * 50) * 40 + "-----END PRIVATE KEY-----",
        '"-----BEGIN PRIVATE KEY-----abc" -----BEGIN PRIVATE KEY-----\\nk\\n-----END PRIVATE KEY-----',
        "-----BEGIN PRIVATE KEY-----BEGIN PRIVATE KEY----- x -----END PRIVATE KEY-----",
    ],
)
def test_long_runs_and_repeated_begins_equal_the_old_patterns(text: str) -> None:
    redactor = Redactor()
    assert (redactor(text), redactor.count) == reference(text)


def _store_with_secrets(directory: Path) -> Path:
    path = d.copy_fixture("agent_run", directory)
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=DELETE")
        raw = db.execute(
            "select message_json from raw_messages where session_id = ? and sequence = 2", (d.AGENT_RUN_ROOT,)
        ).fetchone()[0]
        envelope = json.loads(raw)
        envelope[0]["data"]["content"] = (
            "key sk-proj-abcdefghijklmnopqrstuvwx1234 and postgresql://reader:s3cr3t@db.example/x "
            + "0123456789abcdef" * 20_000
        )
        db.execute(
            "update raw_messages set message_json = ? where session_id = ? and sequence = 2",
            (json.dumps(envelope), d.AGENT_RUN_ROOT),
        )
    finally:
        db.close()
    return path


async def test_the_app_redacts_off_its_loop_and_writes_what_the_cli_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _store_with_secrets(tmp_path)
    cli_result = cli("export", str(store), "--session", d.AGENT_RUN_ROOT, "--subtree", "--redact", cwd=tmp_path)
    assert cli_result.returncode == 0, cli_result.stderr
    threads: list[bool] = []
    original = Redactor.__call__

    def watched(self: Redactor, text: str, **kwargs: Any) -> str:
        threads.append(threading.current_thread() is threading.main_thread())
        return original(self, text, **kwargs)

    monkeypatch.setattr(redact.Redactor, "__call__", watched)
    monkeypatch.chdir(tmp_path)
    written = tmp_path / "out.md"
    app = make_app(str(store), session=d.AGENT_RUN_ROOT, clock=frozen_clock, poll_interval=0, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ExportDialog)
        dialog.query_one("#export-path", Input).value = str(written)
        dialog.query_one("#export-redact", Checkbox).value = True
        await pilot.click("#export-go")
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert not isinstance(app.screen, ExportDialog)
    assert threads and not any(threads), "the redactor ran on the app's (main) thread"
    text = written.read_text(encoding="utf-8")
    assert "s3cr3t" not in text and "sk-proj-" not in text and f"reader:{MARK}@" in text
    assert text == cli_result.stdout.decode("utf-8")
