"""A store our own writer makes for the label tests: three children given the same brief.

Like zett-agent's runtime it sets no title and no agent name: three untitled roots whose
first prompts differ only past what a narrow tree shows, and a parent that delegated the
same ``task`` brief three times in one message (UUIDv7-like ids sharing their first
eight characters, as children of one minute do).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

from tests.ui.helpers import FROZEN

BOSS = "01a237b7-0b55-7000-8000-000000000b55"
KIDS = (
    "01a237b7-1443-7aaa-8000-00000000000a",
    "01a237b7-1a01-7bbb-8000-00000000000b",
    "01a237b7-2f77-7ccc-8000-00000000000c",
)
ROOTS = tuple(f"01a237b6-{n:04x}-7000-8000-0000000000r{n}".replace("r", "0") for n in range(1, 4))
PROMPT = "Explain glossary term number 0 of conversation number {n} about write-ahead logging"
BRIEF = "Review the glossary entry"


def stepping_clock(start: datetime) -> Callable[[], datetime]:
    """A clock that moves one second at each reading (rows get distinct, fixed times)."""
    moment = [start]

    def now() -> datetime:
        moment[0] += timedelta(seconds=1)
        return moment[0]

    return now


async def write_brief_store(path: Path) -> Path:
    """Write the store at ``path`` through the project's writer; returns ``path``."""
    from zett_browser.storage import AssistantMessage, SQLiteSessionStorage, ToolCall, ToolMessage, UserMessage

    storage = SQLiteSessionStorage(path, clock=stepping_clock(FROZEN - timedelta(hours=2)))
    try:
        for n, root in enumerate(ROOTS, start=1):
            await storage.append(root, "r0", UserMessage(content=PROMPT.format(n=n)))
            await storage.append(root, "r0", AssistantMessage(content=f"Term {n} means …"))
        await storage.append(BOSS, "r1", UserMessage(content="Get the glossary reviewed three times"))
        calls = tuple(
            ToolCall(f"call-{n}", "task", {"description": BRIEF, "prompt": BRIEF + ".", "subagent_type": "reviewer"})
            for n in range(3)
        )
        await storage.append(BOSS, "r1", AssistantMessage(content="", tool_calls=calls))
        for n, kid in enumerate(KIDS):
            await storage.append(kid, f"k{n}", UserMessage(content=BRIEF + "."), parent_session_id=BOSS)
            await storage.append(kid, f"k{n}", AssistantMessage(content=f"Review {n}: fine."), parent_session_id=BOSS)
        for n, kid in enumerate(KIDS):
            result = json.dumps({"session_id": kid, "subagent_type": "reviewer", "content": f"Review {n}: fine."})
            await storage.append(BOSS, "r1", ToolMessage(tool_call_id=f"call-{n}", name="task", content=result))
        await storage.append(BOSS, "r1", AssistantMessage(content="All three reviews are in."))
    finally:
        await storage.close()
    return path
