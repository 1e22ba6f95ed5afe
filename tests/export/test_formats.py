"""Each format on the demo store and the stores real zett-agent 0.2.1 wrote: every message
is in the document once, in order, subtrees nest where the task call delegated, and the
store is unchanged."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from tests.adversarial.damage import sha256
from tests.export.helpers import copy_fixture, export_text
from tests.support import AGENT_RUN_CHILD, AGENT_RUN_ROOT, CHECKPOINTED, CHILD, DELEGATING_PARENT, GRANDCHILD, KITCHEN
from zett_browser.demo.store import build_demo_store
from zett_browser.export import ExportError
from zett_browser.storage import open_store


class Articles(HTMLParser):
    """Counts <article> elements and collects <section> nesting."""

    def __init__(self) -> None:
        super().__init__()
        self.articles = 0
        self.depth = 0
        self.max_depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "article":
            self.articles += 1
        if tag == "section":
            self.depth += 1
            self.max_depth = max(self.max_depth, self.depth)

    def handle_endtag(self, tag: str) -> None:
        if tag == "section":
            self.depth -= 1


def _json_sequences(session: dict[str, Any], found: list[tuple[str, int]]) -> None:
    for item in session["messages"]:
        if "session" in item:
            found.append((item["session"]["row"]["id"], 0))
            _json_sequences(item["session"], found)
        else:
            found.append((item["session_id"], item["sequence"]))


@pytest.mark.parametrize(("name", "session"), [("agent_run", AGENT_RUN_ROOT), ("storage_api", KITCHEN)])
@pytest.mark.parametrize("fmt", ["md", "html", "json"])
async def test_every_message_once_and_the_store_unchanged(tmp_path: Path, name: str, session: str, fmt: str) -> None:
    store = copy_fixture(name, tmp_path)
    before = sha256(store), sorted(p.name for p in tmp_path.iterdir())
    text, report = await export_text(store, session, format=fmt, subtree=True)
    assert report.messages > 0
    if fmt == "md":
        assert len(re.findall(r"^#{3,6} \\#\d+ · ", text, re.MULTILINE)) == report.messages
    elif fmt == "html":
        parser = Articles()
        parser.feed(text)
        assert parser.articles == report.messages and parser.depth == 0
    else:
        found: list[tuple[str, int]] = []
        _json_sequences(json.loads(text)["session"], found)
        assert len([f for f in found if f[1]]) == report.messages
    assert (sha256(store), sorted(p.name for p in tmp_path.iterdir())) == before


@pytest.mark.parametrize("fmt", ["md", "html", "json"])
async def test_every_demo_session_exports(tmp_path: Path, fmt: str) -> None:
    store = await build_demo_store(tmp_path / "demo.sqlite3")
    storage = open_store(store)
    try:
        roots = (await storage.list_roots(limit=100)).items
    finally:
        await storage.close()
    total = 0
    for node in roots:
        text, report = await export_text(store, node.session_id, format=fmt, subtree=True)
        assert text and report.sessions >= 1
        total += report.messages
    assert total > 50


async def test_subtree_nests_children_after_the_task_call_in_order(tmp_path: Path) -> None:
    store = copy_fixture("storage_api", tmp_path)
    text, report = await export_text(store, DELEGATING_PARENT, format="json", subtree=True)
    found: list[tuple[str, int]] = []
    _json_sequences(json.loads(text)["session"], found)
    # #2 holds the task call; the child (and its grandchild) come right after it, then #3 (the result).
    assert found == [
        (DELEGATING_PARENT, 1),
        (DELEGATING_PARENT, 2),
        (CHILD, 0),
        (CHILD, 1),
        (CHILD, 2),
        (GRANDCHILD, 0),
        (GRANDCHILD, 1),
        (GRANDCHILD, 2),
        (DELEGATING_PARENT, 3),
    ]
    item = json.loads(text)["session"]["messages"][2]
    assert item["delegated_by"] == "call_task"
    markdown, _ = await export_text(store, DELEGATING_PARENT, format="md", subtree=True)
    order = [markdown.index(mark) for mark in ("### \\#2 ·", "## ↳ Find trains", "### ↳ ↳ ", "### \\#3 ·")]
    assert order == sorted(order)


async def test_agent_run_child_follows_its_task_call(tmp_path: Path) -> None:
    store = copy_fixture("agent_run", tmp_path)
    text, _ = await export_text(store, AGENT_RUN_ROOT, format="json", subtree=True)
    messages = json.loads(text)["session"]["messages"]
    index = next(i for i, item in enumerate(messages) if "session" in item)
    assert messages[index]["session"]["row"]["id"] == AGENT_RUN_CHILD
    call_ids = [call["id"] for call in json.loads(messages[index - 1]["message_json"])[0]["data"]["tool_calls"]]
    assert messages[index]["delegated_by"] in call_ids
    without, _ = await export_text(store, AGENT_RUN_ROOT, format="json")
    assert not any("session" in item for item in json.loads(without)["session"]["messages"])


async def test_json_keeps_the_stored_envelopes_byte_for_byte(tmp_path: Path) -> None:
    import sqlite3

    store = copy_fixture("storage_api", tmp_path)
    text, _ = await export_text(store, CHECKPOINTED, format="json")
    session = json.loads(text)["session"]
    connection = sqlite3.connect(store)
    stored = connection.execute(
        "select message_json, metadata_json, tags_json from raw_messages where session_id = ? order by sequence",
        (CHECKPOINTED,),
    ).fetchall()
    snapshots = connection.execute(
        "select message_json from session_snapshots where session_id = ? order by version", (CHECKPOINTED,)
    ).fetchall()
    connection.close()
    assert [(m["message_json"], m["metadata_json"], m["tags_json"]) for m in session["messages"]] == stored
    assert [(s["message_json"],) for s in session["snapshots"]] == snapshots


async def test_parts_left_out_on_request(tmp_path: Path) -> None:
    store = copy_fixture("storage_api", tmp_path)
    full, _ = await export_text(store, KITCHEN, format="md")
    lean, _ = await export_text(store, KITCHEN, format="md", reasoning=False, tool_results=False, usage=False)
    assert "<summary>reasoning</summary>" in full and "reasoning" not in lean.lower().replace("agent reasoning", "")
    assert "(output left out)" in lean
    assert " · in " in full and " · in " not in lean


async def test_unknown_session_and_json_with_parts_left_out_are_errors(tmp_path: Path) -> None:
    store = copy_fixture("storage_api", tmp_path)
    with pytest.raises(ExportError, match="no session"):
        await export_text(store, "nope", format="md")
    with pytest.raises(ExportError, match="JSON keeps the stored rows unchanged"):
        await export_text(store, KITCHEN, format="json", reasoning=False)
