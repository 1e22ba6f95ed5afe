"""The runtime texts and tool schemas the demo reuses are what real zett-agent 0.2.1 writes today."""

from __future__ import annotations

import json
import sqlite3

from tests.realstore.demo_shapes import PLAN_MODE_MARK, RUNTIME_TOOLS, SHAPES_FILE, extract, split_guidelines
from tests.realstore.stores import RealStores
from zett_browser.demo.runtime import guidelines_text, plan_mode_prompt, shapes


def test_the_demo_shapes_file_equals_what_the_runtime_writes(real_stores: RealStores) -> None:
    """Regenerate with ``python -m tests.realstore.demo_shapes DIR`` when zett-agent changes."""
    assert json.loads(SHAPES_FILE.read_text(encoding="utf-8")) == extract(real_stores.main, real_stores.children)
    assert shapes() == extract(real_stores.main, real_stores.children)


def test_the_demo_composes_the_runtimes_system_rows_exactly(real_stores: RealStores) -> None:
    checked = 0
    for store in (real_stores.main, real_stores.children):
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as connection:
            payloads = [row[0] for row in connection.execute("SELECT message_json FROM raw_messages WHERE role = 1")]
        for payload in payloads:
            data = json.loads(payload)[0]["data"]
            content = data["content"]
            plan = content.startswith(PLAN_MODE_MARK)
            if not (data["attributes"].get("tool_guidelines") or plan):
                continue
            names = tuple(split_guidelines(content)[1])
            if not set(names) <= set(RUNTIME_TOOLS):
                continue  # the generator's scripted test tools
            assert (plan_mode_prompt(names) if plan else guidelines_text(names)) == content
            checked += 1
    assert checked >= 10
