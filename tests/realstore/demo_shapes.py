"""Extract the runtime texts and tool schemas the demo store reuses, from a store real zett-agent wrote.

The demo's runtime sessions (``zett_browser/demo/runtime.py``) must look exactly like what
zett-agent 0.2.1 writes: the ``model_request_trace`` tool entries, the ``# Tool snippets`` /
``# Tool guidelines`` system rows and the fixed prompts of plan mode and the default subagent
profiles. They live in ``zett_browser/demo/runtime_shapes.json``, made by this module from the
generated real stores (``stores.py``); ``test_demo_runtime.py`` checks the file still equals
what the runtime writes. Regenerate it by hand::

    .venv/bin/python -m tests.realstore.stores /tmp/real
    .venv/bin/python -m tests.realstore.demo_shapes /tmp/real
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

SHAPES_FILE = Path(__file__).resolve().parents[2] / "zett_browser" / "demo" / "runtime_shapes.json"
PLAN_MODE_MARK = "You are in Plan Mode."
#: The runtime's own tools the demo offers (the generator's scripted test tools are left out).
RUNTIME_TOOLS = (
    "task_start", "task_list", "task_status", "task_output", "task_cancel", "task", "ask_user",
    "enter_plan_mode", "exit_plan_mode", "read_file", "view_image", "glob", "grep", "write_file",
    "edit", "delete_file", "bash", "todo_write",
)  # fmt: skip


def _rows(path: Path) -> list[tuple[int, dict[str, Any]]]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as connection:
        rows = connection.execute("SELECT role, message_json FROM raw_messages ORDER BY session_id, sequence")
        return [(role, json.loads(payload)[0]["data"]) for role, payload in rows]


def split_guidelines(text: str) -> tuple[dict[str, str], dict[str, str]]:
    """The per-tool snippet entries and guideline sections of one ``# Tool snippets`` text."""
    snippets: dict[str, str] = {}
    guidelines: dict[str, str] = {}
    body = text[text.index("# Tool ") :]
    if body.startswith("# Tool snippets\n"):
        snippet_part, _, body = body.removeprefix("# Tool snippets\n").partition("\n\n# Tool guidelines\n")
        name = ""
        for line in snippet_part.split("\n"):
            if line.startswith("- "):
                name = line[2:].split(":", 1)[0]
                snippets[name] = line
            else:
                snippets[name] += "\n" + line
    else:
        body = body.removeprefix("# Tool guidelines\n")
    for section in body.split("\n\n## "):
        name = section.removeprefix("## ").split("\n", 1)[0]
        guidelines[name] = "## " + section.removeprefix("## ")
    return snippets, guidelines


def extract(main: Path, children: Path) -> dict[str, Any]:
    """The shapes the demo reuses, read from the generated ``main`` and ``children`` stores."""
    tools: dict[str, Any] = {}
    snippets: dict[str, str] = {}
    guidelines: dict[str, str] = {}
    prompts: dict[str, str] = {}
    for role, data in _rows(main) + _rows(children):
        trace = data.get("attributes", {}).get("model_request_trace")
        for tool in (trace or {}).get("tools", ()):
            tools.setdefault(tool["name"], tool)
        content = data.get("content")
        if role != 1 or not isinstance(content, str):
            continue
        if data["attributes"].get("tool_guidelines") or content.startswith(PLAN_MODE_MARK):
            found_snippets, found_guidelines = split_guidelines(content)
            for name, line in found_snippets.items():
                snippets.setdefault(name, line)
            for name, section in found_guidelines.items():
                guidelines.setdefault(name, section)
        if content.startswith(PLAN_MODE_MARK):
            prompts["plan_mode"] = content[: content.index("\n\n# Tool ")]
        elif content.startswith("You are a read-only code exploration subagent."):
            prompts["explore"] = content
        elif content.startswith("You are a reasoning subagent."):
            prompts["reasoning"] = content
        elif content.startswith("# MCP servers\n"):
            prompts["mcp"] = content[: content.index("\n- ")]
    return {
        "tools": {name: tools[name] for name in RUNTIME_TOOLS},
        "snippets": {name: snippets[name] for name in RUNTIME_TOOLS if name in snippets},
        "guidelines": {name: guidelines[name] for name in RUNTIME_TOOLS},
        "prompts": prompts,
    }


if __name__ == "__main__":  # pragma: no cover - a manual helper, see the module docstring
    directory = Path(sys.argv[1])
    shapes = extract(directory / "main.sqlite3", directory / "children.sqlite3")
    SHAPES_FILE.write_text(json.dumps(shapes, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(SHAPES_FILE, {key: len(value) for key, value in shapes.items()})
