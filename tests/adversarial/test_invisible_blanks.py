"""Blank and invisible characters outside Unicode's format category are shown, not passed through.

``clean()`` made Cf characters (bidi, zero-width) visible as ``\\uXXXX`` but let through the
soft hyphen U+00AD, the combining grapheme joiner U+034F, the Hangul fillers U+115F, U+1160,
U+3164, U+FFA0 and the blank Braille pattern U+2800 (and the Khmer inherent vowels
U+17B4/U+17B5): a title, tool name or id made of them looks empty or like another one.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.adversarial import damage as d
from tests.adversarial.cli_run import cli
from tests.ui.helpers import frozen_clock, settle
from zett_browser.app import make_app
from zett_browser.text import clean, one_line
from zett_browser.widgets.rawlog import RawLogView
from zett_browser.widgets.session_tree import SessionTree

BLANKS = ["\u00ad", "\u034f", "\u115f", "\u1160", "\u17b4", "\u17b5", "\u2800", "\u3164", "\uffa0"]
TITLE = "pay\u3164roll \u2800 x\u00ady"
CONTENT = "rm\u115f -rf\u1160 /tmp\uffa0/x co\u034fde \u17b4\u17b5 end"


@pytest.mark.parametrize("char", BLANKS)
def test_clean_shows_each_blank_as_its_code(char: str) -> None:
    escape = f"\\u{ord(char):04x}"
    assert clean(f"a{char}b") == f"a{escape}b"
    assert one_line(f"name{char}") == f"name{escape}"
    assert clean(char * 3) == escape * 3


def test_real_text_around_them_is_unchanged() -> None:
    text = "한국어 텍스트 ᄀ ⠁⠃⠉ 👨\u200d👩\u200d👧 café co-op"  # Hangul, a jamo, Braille with dots, emoji
    assert clean(text) == text


def _store(directory: Path) -> Path:
    path = d.copy_fixture("agent_run", directory)
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=DELETE")
        db.execute("update agent_sessions set title = ? where id = ?", (TITLE, d.AGENT_RUN_ROOT))
        raw = db.execute(
            "select message_json from raw_messages where session_id = ? and sequence = 2", (d.AGENT_RUN_ROOT,)
        ).fetchone()[0]
        envelope = json.loads(raw)
        envelope[0]["data"]["content"] = CONTENT
        db.execute(
            "update raw_messages set message_json = ? where session_id = ? and sequence = 2",
            (json.dumps(envelope), d.AGENT_RUN_ROOT),
        )
    finally:
        db.close()
    return path


async def test_the_app_shows_them_in_the_tree_and_the_raw_log(tmp_path: Path) -> None:
    app = make_app(str(_store(tmp_path)), session=d.AGENT_RUN_ROOT, clock=frozen_clock, index=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        view = app.screen.query_one(RawLogView)
        lines = "\n".join(strip.text for strip in view.rendered_lines())
        tree = app.screen.query_one(SessionTree)
        labels = "\n".join(str(node.label) for node in tree.root.children)
        screenshot = app.export_screenshot()
    assert "rm\\u115f -rf\\u1160 /tmp\\uffa0/x co\\u034fde \\u17b4\\u17b5 end" in lines
    assert "pay\\u3164roll \\u2800 x\\u00ady" in labels
    for char in BLANKS:
        assert char not in lines and char not in labels and char not in screenshot, repr(char)


def test_cli_export_markdown_shows_them(tmp_path: Path) -> None:
    store = _store(tmp_path)
    result = cli("export", str(store), "--session", d.AGENT_RUN_ROOT, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    printed = result.stdout.decode("utf-8")
    assert "\\u3164" in printed and "\\u115f" in printed
    for char in BLANKS:
        assert char not in printed, repr(char)
