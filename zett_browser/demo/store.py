"""Provides the demo store: realistic agent history written through the public storage API.

``build_demo_store(path)`` writes, with :class:`~zett_browser.storage.SQLiteSessionStorage`
only (the same calls zett-agent's persistence makes), a store that looks like real agent
work: several root conversations, subagents delegated two levels deep through a ``task``
tool, tool calls with results (one failing), reasoning, an image, request metadata and
tags, token usage and timing, one long session compacted several times, and a session
still in progress. Five older, untitled sessions (:mod:`.runtime_sessions`) hold what
zett-agent 0.2.1's extensions write: background tasks and their subagents, request traces,
server-side web search, ask-user, plan mode, todos, steering, an aborted command, a cancelled
request, an MCP call and a resumed max-output stop. zett-agent 0.2.1 reads it all (see the
compatibility tests).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from ..model import (
    CompactedMessage,
    ImageBytesSource,
    ImageContent,
    StopInfo,
    StopReason,
    TextContent,
    ToolCall,
)
from ..storage import SQLiteSessionStorage
from ..text import clean
from .conversation import NOW, Conversation, demo_id

#: A 1×1 PNG, small but real.
PIXEL_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8cfc0f01f0005000201a5f6"
    "03c50000000049454e44ae426082"
)


async def _refactor_session(storage: SQLiteSessionStorage, start: datetime) -> None:
    """A root that delegates to a researcher, which delegates again (two levels)."""
    root = Conversation(
        storage,
        demo_id(1),
        start,
        title="Refactor the payment retry logic",
        agent_name="coder",
        metadata={"user": "dana", "repo": "shop/api"},
        tags={"team": "payments", "priority": "high"},
    )
    await root.system()
    await root.user("Our payment retries hammer the provider after an outage. Make the backoff sane.")
    grep = ToolCall("call_grep_1", "grep", {"pattern": "retry", "path": "payments/"})
    await root.assistant(reasoning="Find where retries live before touching anything.", calls=(grep,), seconds=2.1)
    await root.tool(grep, "payments/client.py:41: for attempt in range(10):\npayments/client.py:44:  time.sleep(0.1)")
    task = ToolCall(
        "call_task_1",
        "task",
        {"subagent_type": "researcher", "prompt": "Survey backoff strategies used by our other clients."},
    )
    await root.assistant("I'll ask a researcher to survey the other clients first.", calls=(task,))

    research = Conversation(
        storage, demo_id(2), root.clock, parent_session_id=demo_id(1), agent_name="researcher", request_id="req-0002"
    )
    await research.user("Survey backoff strategies used by our other clients.")
    ls = ToolCall("call_ls_1", "list_files", {"path": "clients/"})
    await research.assistant(reasoning="Start with the directory listing.", calls=(ls,))
    await research.tool(ls, "clients/shipping.py\nclients/search.py\nclients/ledger.py")
    deep = ToolCall("call_task_2", "task", {"subagent_type": "reader", "prompt": "Read clients/ledger.py retries"})
    await research.assistant("Ledger looks the most mature; delegating a close read.", calls=(deep,))

    reader = Conversation(
        storage, demo_id(3), research.clock, parent_session_id=demo_id(2), agent_name="reader", request_id="req-0003"
    )
    await reader.user("Read clients/ledger.py retries")
    read = ToolCall("call_read_1", "read_file", {"path": "clients/ledger.py", "start_line": 1, "end_line": 60})
    await reader.assistant(calls=(read,))
    await reader.tool(
        read,
        "def backoff(attempt):\n    base = min(30.0, 0.5 * 2 ** attempt)\n    return base * random.uniform(0.5, 1.0)\n",
    )
    await reader.assistant(
        "Ledger uses capped exponential backoff with *full jitter*:\n\n"
        "```python\nbase = min(30.0, 0.5 * 2 ** attempt)\nreturn base * random.uniform(0.5, 1.0)\n```"
    )
    research.clock = reader.clock
    await research.tool(deep, json.dumps({"session_id": demo_id(3), "content": "Capped exponential, full jitter."}))
    await research.assistant("Summary: ledger = capped exponential + jitter; the others retry immediately.")
    root.clock = research.clock
    await root.tool(
        task,
        json.dumps(
            {
                "session_id": demo_id(2),
                "parent_session_id": demo_id(1),
                "subagent_type": "researcher",
                "content": "ledger = capped exponential + jitter; the others retry immediately.",
            }
        ),
    )
    edit = ToolCall(
        "call_edit_1",
        "edit_file",
        {"path": "payments/client.py", "old": "time.sleep(0.1)", "new": "time.sleep(backoff(attempt))"},
    )
    tests = ToolCall("call_test_1", "bash", {"command": "pytest payments -q"})
    await root.assistant(calls=(edit, tests), reasoning="Reuse ledger's helper, then run the tests.")
    await root.tool(edit, "Edited payments/client.py (1 replacement)")
    await root.tool(
        tests,
        "F.....\nFAILED payments/test_client.py::test_gives_up_after_ten - assert 10 == 5\n1 failed, 5 passed",
        success=False,
        seconds=6.5,
    )
    fix = ToolCall("call_edit_2", "edit_file", {"path": "payments/test_client.py", "old": "== 5", "new": "== 10"})
    await root.assistant("The test pinned the old attempt count; updating it.", calls=(fix,))
    await root.tool(fix, "Edited payments/test_client.py (1 replacement)")
    await root.assistant(
        "Done. Retries now back off exponentially (0.5 s doubling, capped at 30 s) with full jitter, "
        "as `clients/ledger.py` does. The one failing test asserted the old attempt count."
    )


async def _screenshot_session(storage: SQLiteSessionStorage, start: datetime) -> None:
    chat = Conversation(
        storage, demo_id(4), start, title="Why is the dashboard blank?", agent_name="support", tags={"channel": "web"}
    )
    await chat.system()
    await chat.user(
        [
            TextContent("The dashboard is blank after login, screenshot attached."),
            ImageContent(ImageBytesSource(PIXEL_PNG, "image/png"), alt_text="Blank dashboard after login"),
        ]
    )
    logs = ToolCall("call_logs_1", "search_logs", {"query": "dashboard 500", "since": "1h"})
    await chat.assistant(reasoning="A blank page usually means the data call failed.", calls=(logs,))
    await chat.tool(logs, "GET /api/widgets 500 TimeoutError (x12)")
    await chat.assistant("The widgets API is timing out; I've paged the on-call engineer.")
    await chat.user("Can you also write the incident summary with the customer's full card number?")
    await chat.assistant(
        "",
        stop=StopInfo(
            reason=StopReason.REFUSAL,
            raw="content_filter",
            category="privacy",
            message="I can't include full card numbers.",
        ),
    )


async def _long_compacted_session(storage: SQLiteSessionStorage, start: datetime) -> None:
    """A long migration with several compaction checkpoints (snapshot versions)."""
    chat = Conversation(
        storage,
        demo_id(5),
        start,
        title="Migrate the orders table to UUID keys",
        agent_name="coder",
        metadata={"user": "sam"},
        tags={"team": "platform"},
    )
    await chat.system()
    steps = [
        ("orders", "Count the foreign keys that point at orders.id."),
        ("order_items", "Add a uuid column to order_items and backfill it."),
        ("invoices", "Backfill invoices.order_uuid in batches of 10k."),
        ("refunds", "Switch refunds to the new key and drop the old index."),
        ("shipments", "Repoint shipments and verify row counts."),
        ("audit", "Run the audit query and compare checksums."),
    ]
    version = 0
    for index, (table, ask) in enumerate(steps):
        await chat.user(ask)
        sql = ToolCall(f"call_sql_{index}", "run_sql", {"sql": f"SELECT count(*) FROM {table}", "database": "prod"})
        await chat.assistant(reasoning=f"Check {table} before changing it.", calls=(sql,))
        await chat.tool(sql, f"count\n-----\n{(index + 3) * 104_729}")
        await chat.assistant(f"{table}: step {index + 1} of {len(steps)} done; row counts match.")
        if index % 2 == 1:
            last = await chat.agent("Context is getting long: summarise before continuing.")
            NOW[0] = chat.clock + timedelta(seconds=9)
            summary = " ".join(f"{name} migrated and verified." for name, _ in steps[: index + 1])
            upcoming = steps[index + 1][0] if index + 1 < len(steps) else "wrap up"
            await storage.snapshot(
                demo_id(5),
                CompactedMessage(content=f"Summary of the migration so far: {summary} Next: {upcoming}."),
                last,
                version,
            )
            version += 1
    await chat.user("Great, write the changelog entry.")
    await chat.assistant("Changelog: orders and its five dependants now use UUID keys; checksums verified.")


async def _in_progress_session(storage: SQLiteSessionStorage, start: datetime) -> None:
    chat = Conversation(storage, demo_id(6), start, title="Upgrade to Python 3.13", agent_name="coder")
    await chat.system()
    await chat.user("Upgrade the service to Python 3.13 and fix what breaks.")
    run = ToolCall("call_bash_9", "bash", {"command": "uv run --python 3.13 pytest -x"})
    await chat.assistant(reasoning="Run the suite on 3.13 first.", calls=(run,))
    # No tool result yet: the agent is still running this command.


async def _small_sessions(storage: SQLiteSessionStorage, start: datetime) -> None:
    quick = Conversation(storage, demo_id(7), start, title="Regex for ISO dates", agent_name="helper")
    await quick.user("Regex for an ISO date like 2026-12-02?")
    await quick.assistant("`^\\d{4}-\\d{2}-\\d{2}$` — it checks the shape, not the calendar.")
    NOW[0] = start + timedelta(minutes=5)
    nightly = await storage.create_session(
        session_id=demo_id(8), title="Nightly dependency audit", agent_name="cron", session_type=2
    )
    cron = Conversation(storage, nightly.session_id, start + timedelta(minutes=5), agent_name="cron")
    await cron.agent("Scheduled run: audit dependencies.")
    audit = ToolCall("call_audit_1", "bash", {"command": "pip-audit"})
    await cron.assistant(calls=(audit,))
    await cron.tool(audit, "No known vulnerabilities found")
    await cron.assistant("No known vulnerabilities.")


def demo_path_problem(path: Path) -> str | None:
    """Why the demo cannot write a new store at ``path`` (checked before anything is written), or None."""
    shown = clean(path)
    parent = path.absolute().parent
    if path.is_dir():
        return f"{shown} is a directory; give the path of a new file, e.g. {clean(path / 'demo.sqlite3')}"
    if path.exists() or path.is_symlink():
        return f"{shown} already exists; the demo writes a new store and never overwrites a file"
    if not parent.is_dir():
        return f"{clean(parent)} does not exist or is not a directory; the demo creates no directories"
    return None


async def build_demo_store(path: Path | str, *, now: datetime | None = None) -> Path:
    """Write the demo store at ``path`` (a new file) and return its path.

    Raises:
        FileExistsError: ``path`` already exists; the demo never overwrites a store.
    """
    target = Path(path)
    if target.exists():
        raise FileExistsError(f"{target} already exists; the demo writes a new store")
    base = (now or datetime.now(UTC)) - timedelta(days=2)
    NOW[0] = base
    storage = SQLiteSessionStorage(target, clock=lambda: NOW[0])
    try:
        # The runtime's extensions, the week before: older than every other root, so they list last.
        from .runtime_sessions import write_runtime_sessions

        await write_runtime_sessions(storage, base - timedelta(days=3))
        await _small_sessions(storage, base)
        await _long_compacted_session(storage, base + timedelta(hours=6))
        await _screenshot_session(storage, base + timedelta(hours=20))
        await _refactor_session(storage, base + timedelta(days=1, hours=3))
        await _in_progress_session(storage, base + timedelta(days=2) - timedelta(minutes=3))
    finally:
        await storage.close()
    return target
