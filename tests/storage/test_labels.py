"""Labels of untitled delegated sessions, on stores zett-agent 0.2.1 wrote (and damaged copies)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from tests.backends import Backend
from tests.support import AGENT_RUN_CHILD, AGENT_RUN_ROOT, FIXTURES, ROOT
from zett_browser.storage import open_store

AGENT_ROOT = AGENT_RUN_ROOT
AGENT_CHILD = AGENT_RUN_CHILD


def _agent_copy(tmp_path: Path) -> Path:
    path = tmp_path / "agent_run.sqlite3"
    shutil.copy(FIXTURES / "agent_run.sqlite3", path)
    return path


async def test_a_child_is_labelled_by_the_task_call_that_delegated_it(backend: Backend) -> None:
    storage = backend.load_fixture("agent_run")
    try:
        children = (await storage.list_children(AGENT_ROOT)).items
        assert [node.session_id for node in children] == [AGENT_CHILD]
        assert children[0].title is None
        labels = await storage.child_labels(AGENT_ROOT, children)
        assert labels == {AGENT_CHILD: "researcher: Verify the word count"}
    finally:
        await storage.close()


async def test_titled_sessions_get_no_label_and_untitled_roots_their_first_prompt(backend: Backend) -> None:
    storage = backend.load_fixture("storage_api")
    try:
        children = (await storage.list_children(ROOT + "3")).items
        assert children and await storage.child_labels(ROOT + "3", children) == {}
        roots = (await storage.list_roots(limit=100)).items
        untitled = [node for node in roots if not node.title]
        assert len(untitled) == 1
        labels = await storage.child_labels(None, roots)
        assert set(labels) == {untitled[0].session_id}
        assert labels[untitled[0].session_id].strip()
        assert "\n" not in labels[untitled[0].session_id]
    finally:
        await storage.close()


async def test_without_the_task_result_the_childs_first_prompt_is_the_label(tmp_path: Path) -> None:
    path = _agent_copy(tmp_path)
    with sqlite3.connect(path) as connection:
        connection.execute("delete from raw_messages where session_id = ? and tool_name = 'task'", (AGENT_ROOT,))
    storage = open_store(path)
    try:
        children = (await storage.list_children(AGENT_ROOT)).items
        labels = await storage.child_labels(AGENT_ROOT, children)
        assert labels == {AGENT_CHILD: "Count the words in 'the quick brown fox' with count_words and report."}
    finally:
        await storage.close()


async def test_a_call_without_a_description_gives_the_result_type_beside_the_prompt(tmp_path: Path) -> None:
    path = _agent_copy(tmp_path)
    with sqlite3.connect(path) as connection:
        connection.execute(
            "update raw_messages set message_json = replace(message_json, '\"description\"', '\"x\"')"
            " where session_id = ? and sequence = 7",
            (AGENT_ROOT,),
        )
    storage = open_store(path)
    try:
        children = (await storage.list_children(AGENT_ROOT)).items
        labels = await storage.child_labels(AGENT_ROOT, children)
        assert labels == {
            AGENT_CHILD: "researcher: Count the words in 'the quick brown fox' with count_words and report."
        }
    finally:
        await storage.close()


async def test_hostile_and_broken_rows_give_clean_labels_or_none(tmp_path: Path) -> None:
    path = _agent_copy(tmp_path)
    with sqlite3.connect(path) as connection:
        row = connection.execute(
            "select message_json from raw_messages where session_id = ? and sequence = 7", (AGENT_ROOT,)
        ).fetchone()
        envelope = json.loads(row[0])
        envelope[0]["data"]["tool_calls"][0]["arguments"]["description"] = "\x1b]0;pwned\x07Verify\nthe count"
        connection.execute(
            "update raw_messages set message_json = ? where session_id = ? and sequence = 7",
            (json.dumps(envelope), AGENT_ROOT),
        )
    storage = open_store(path)
    try:
        children = (await storage.list_children(AGENT_ROOT)).items
        label = (await storage.child_labels(AGENT_ROOT, children))[AGENT_CHILD]
        assert "\x1b" not in label and "\x07" not in label and "\n" not in label
        assert "Verify" in label and "the count" in label
    finally:
        await storage.close()
    # The result row is not JSON and the child's prompt is gone: no label, no error.
    with sqlite3.connect(path) as connection:
        connection.execute(
            "update raw_messages set message_json = '{not json' where session_id = ? and tool_name = 'task'",
            (AGENT_ROOT,),
        )
        connection.execute("delete from raw_messages where session_id = ? and role = 2", (AGENT_CHILD,))
    storage = open_store(path)
    try:
        children = (await storage.list_children(AGENT_ROOT)).items
        assert await storage.child_labels(AGENT_ROOT, children) == {}
    finally:
        await storage.close()
