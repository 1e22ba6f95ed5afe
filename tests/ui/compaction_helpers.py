"""Stores for the compaction views' tests, written through the storage API with hand-set times.

``write_ledger_store`` writes one session of 10 messages compacted twice, with recorded
usage on the assistant steps, so the ledger, the curve and the diff can be checked
against values computed by hand in the tests (``LEDGER_TEXTS`` holds the messages' text).
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from tests.ui.helpers import FROZEN, HOSTILE
from zett_browser.storage import (
    AssistantMessage,
    CompactedMessage,
    MessageTiming,
    ModelUsage,
    SQLiteSessionStorage,
    ToolMessage,
    UserMessage,
)

LEDGER_SESSION = "0196d3e0-0000-7000-8000-00000000ledg"[:36]
#: (kind, text, (input_tokens, cache_read_tokens) or None), one per minute from FROZEN + 1 min.
LEDGER_TEXTS: list[tuple[str, str, tuple[int, int] | None]] = [
    ("user", "Fix src/app/main.py please", None),
    ("assistant", "Looking at main_loop in src/app/main.py", (1000, 0)),
    ("tool", "line 42: retry_count = 5", None),
    ("assistant", "Fixed the loop.", (1500, 900)),
    ("user", "Now the tests", None),
    ("assistant", "Running pytest", (700, 0)),
    ("tool", "3 passed", None),
    ("assistant", "All green.", (1100, 650)),
    ("user", "thanks", None),
    ("assistant", "ok", (800, 0)),
]
SUMMARY_V1 = "User asked to fix src/app/main.py; retry_count was 5.\nThe loop is fixed."
SUMMARY_V2 = "Fixed src/app/main.py and ran the tests: 3 passed.\nThe loop is fixed."
#: Snapshots are written 30 seconds after messages 4 and 8.
SNAPSHOT_AFTER = {4: SUMMARY_V1, 8: SUMMARY_V2}


async def write_ledger_store(path: Path, *, hostile: bool = False) -> None:
    """The ledger session (``hostile``: the two summaries are the hostile strings instead)."""
    now = [FROZEN]
    storage = SQLiteSessionStorage(path, clock=lambda: now[0])
    try:
        for number, (kind, text, usage) in enumerate(LEDGER_TEXTS, start=1):
            now[0] = FROZEN + timedelta(minutes=number)
            message: object
            if kind == "user":
                message = UserMessage(content=text)
            elif kind == "tool":
                message = ToolMessage(tool_call_id=f"call_{number}", name="bash", content=text)
            else:
                message = AssistantMessage(content=text)
            await storage.append(
                LEDGER_SESSION,
                f"req-{number // 4}",
                message,
                timing=MessageTiming(started_at=now[0], completed_at=now[0], duration_ns=0),
                title="Ledger session",
                usage=ModelUsage(input_tokens=usage[0], cache_read_tokens=usage[1], output_tokens=10)
                if usage
                else None,
            )
            if number in SNAPSHOT_AFTER:
                now[0] += timedelta(seconds=30)
                summary = SNAPSHOT_AFTER[number]
                if hostile:
                    summary = " ".join(HOSTILE) + (" first" if number == 4 else " second")
                version = 0 if number == 4 else 1
                await storage.snapshot(LEDGER_SESSION, CompactedMessage(content=summary), number, version)
    finally:
        await storage.close()
