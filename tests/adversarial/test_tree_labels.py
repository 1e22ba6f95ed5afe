"""Adversarial: the session tree's labels on damaged copies of a zett-agent-written store.

Ids, task arguments and prompts are untrusted strings: an OSC in an id must not retitle the
terminal (checked in a real tmux), a bad row must not hide its siblings, and browsing leaves
the store's bytes and its directory as they were.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.support import AGENT_RUN_CHILD, AGENT_RUN_ROOT, FIXTURES, listing
from tests.ui.helpers import frozen_clock, settle
from zett_browser.app import make_app
from zett_browser.model import SessionNode
from zett_browser.widgets.session_tree import SessionTree

ROOT = AGENT_RUN_ROOT
CHILD = AGENT_RUN_CHILD
#: Short enough to be shown whole (ids are cut after 8 characters).
OSC_ID = "\x1b]0;pw\x07"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def damaged_store(directory: Path) -> Path:
    """agent_run with four more children of the root: an OSC id (and no prompt), a hostile task
    description, a prompt that is not UTF-8, and a prompt of control characters."""
    path = directory / "sessions.sqlite3"
    shutil.copyfile(FIXTURES / "agent_run.sqlite3", path)
    with contextlib.closing(sqlite3.connect(path)) as connection, connection:
        for index, new_id in enumerate([OSC_ID, "c-hostile", "c-bad-utf8", "c-controls"], start=1):
            connection.execute(
                "insert into agent_sessions select ?, parent_session_id, session_type, title, agent_name,"
                " datetime(created_at, ?), datetime(updated_at, ?) from agent_sessions where id = ?",
                (new_id, f"+{index} seconds", f"+{index} seconds", CHILD),
            )
            connection.execute(
                "insert into raw_messages select id || ?, ?, request_id, sequence, role, content, tool_name,"
                " message_json, metadata_json, tags_json, started_at, completed_at, duration_ns,"
                " reasoning_started_at, reasoning_completed_at, reasoning_duration_ns, content_started_at,"
                " content_completed_at, content_duration_ns, input_tokens, output_tokens, cache_read_tokens,"
                " cache_write_tokens, reasoning_tokens, created_at, updated_at from raw_messages"
                " where session_id = ?",
                (f"-{index}", new_id, CHILD),
            )
        # The real task call now asks, in its description, for a terminal title change.
        row = connection.execute(
            "select message_json from raw_messages where session_id = ? and sequence = 7", (ROOT,)
        ).fetchone()
        envelope = json.loads(row[0])
        envelope[0]["data"]["tool_calls"][0]["arguments"]["description"] = "\x1b]0;owned\x07Verify\x1b[2J"
        connection.execute(
            "update raw_messages set message_json = ? where session_id = ? and sequence = 7",
            (json.dumps(envelope), ROOT),
        )
        connection.execute(
            "update raw_messages set content = cast(? as text) where session_id = 'c-bad-utf8' and role = 2",
            (b"bad \xff\xfe utf-8 \x1b[31m",),
        )
        # Nothing to label the OSC id's session by: the tree shows its id.
        connection.execute("delete from raw_messages where session_id = ? and role = 2", (OSC_ID,))
        connection.execute(
            "update raw_messages set content = ? where session_id = 'c-controls' and role = 2",
            ("\x1b[2J\x9b31m\u202eevil\n\x00prompt",),
        )
    finish(path)
    return path


def finish(path: Path) -> None:
    """Fold the damage into the main file and close (``with connect`` only commits)."""
    connection = sqlite3.connect(path)
    connection.execute("pragma wal_checkpoint(TRUNCATE)")
    connection.close()


async def test_every_child_is_listed_with_clean_labels_and_the_store_is_untouched(tmp_path: Path) -> None:
    path = damaged_store(tmp_path)
    before, files = sha256(path), listing(tmp_path)
    app = make_app(str(path), clock=frozen_clock, poll_interval=0)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(SessionTree)
        root = tree.find(ROOT)
        assert root is not None
        root.expand()
        await settle(pilot)
        children = {
            node.data.session_id: str(node.label) for node in root.children if isinstance(node.data, SessionNode)
        }
        assert set(children) == {CHILD, OSC_ID, "c-hostile", "c-bad-utf8", "c-controls"}, "no row hides another"
        for label in children.values():
            assert not any(ch in label for ch in "\x1b\x07\x00\x9b\u202e\n"), repr(label)
        assert children[CHILD].startswith("researcher: ␛]0;owned␇Verify␛[2J · ")
        assert children[OSC_ID].startswith("␛]0;pw␇ · "), "a whole id, cleaned, no ellipsis"
    assert sha256(path) == before
    assert listing(tmp_path) == files


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_an_osc_in_an_id_never_retitles_a_real_terminal(tmp_path: Path) -> None:
    path = damaged_store(tmp_path)
    # The OSC id becomes a root, so it is on screen at start.
    with contextlib.closing(sqlite3.connect(path)) as connection, connection:
        connection.execute("update agent_sessions set parent_session_id = null where id = ?", (OSC_ID,))
    finish(path)
    before = sha256(path)
    socket = f"zett-adv-{uuid.uuid4().hex[:12]}"  # its own tmux server, whatever else runs
    command = f"{sys.executable} -m zett_browser {path}"
    tmux = ["tmux", "-L", socket]
    subprocess.run([*tmux, "new-session", "-d", "-s", "t", "-x", "120", "-y", "30", command], check=True)
    try:
        screen = ""
        for _ in range(100):
            time.sleep(0.1)
            screen = subprocess.run([*tmux, "capture-pane", "-p", "-t", "t"], capture_output=True, text=True).stdout
            if "␛]0;pw␇ · 5 msg" in screen:  # the tree's row (the breadcrumb shows it too)
                break
        assert "␛]0;pw␇ · 5 msg" in screen, screen
        title = subprocess.run(
            [*tmux, "display-message", "-p", "-t", "t", "#{pane_title}"], capture_output=True, text=True
        ).stdout
        assert title.strip() not in ("pw", "owned"), title
        subprocess.run([*tmux, "send-keys", "-t", "t", "q"], check=True)
        for _ in range(50):
            time.sleep(0.1)
            if subprocess.run([*tmux, "has-session", "-t", "t"], capture_output=True).returncode:
                break
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)
    assert sha256(path) == before
