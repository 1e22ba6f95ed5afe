# mypy: disable-error-code="import-not-found,untyped-decorator,misc,no-any-return"
# (zett-agent is installed only in its side venv: its classes are Any to mypy here)
"""Write stores with the REAL zett-agent 0.2.1 runtime and its extensions, offline (issue 24).

Run inside the zett-agent venv (``tests/zett_agent_env.py``), never with the project's
interpreter::

    <zett-agent venv>/bin/python drive_runtime.py OUT_DIR

Writes ``OUT_DIR/main.sqlite3`` and ``OUT_DIR/children.sqlite3`` (the sessions of the
default subagent profiles, which zett-agent writes to ``~/.zett-agent/sessions.sqlite3``
whatever store the parent uses: HOME is pointed at ``OUT_DIR/home`` before zett-agent is
imported, and that file is moved to ``children.sqlite3`` at the end), plus
``OUT_DIR/report.json`` (``{"cases": {name: {"session_id", "ok", "error"}}, ...}``) and
``OUT_DIR/loads.json`` (zett-agent's ``load()`` of every session of both stores, encoded with
its ``encode_messages``: ``{"main"|"children": {session_id: [envelope, ...]}}``).

Every row is written by the runtime, its extensions and ``SQLiteSessionExtension``: the
models are scripted (``ScriptedModel`` below replays a list of steps; the server-tool and
refusal cases use zett-agent's real ``AnthropicProvider`` reading scripted Messages API
events from an ``httpx.MockTransport``, so no network), the MCP server is a
real stdio process (``mcp_server.py``), the killed process is a real child process that
SIGKILLs itself inside a tool. Session ids of the cases are fixed (``CASES``); child
sessions get the runtime's own random UUIDv7 ids; timestamps are wall-clock.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import traceback
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

OUT = Path(sys.argv[-1]).resolve()
HOME = OUT / "home"
# zett-agent's default subagent profiles resolve ~ when they are built: never the real home.
os.environ["HOME"] = str(HOME)

from zett_agent.agent import Agent, AgentRunConfig  # noqa: E402
from zett_agent.events import AgentEventType  # noqa: E402
from zett_agent.extensions.ask_user import AskUserExtension  # noqa: E402
from zett_agent.extensions.async_subagent import AsyncSubAgentExtension  # noqa: E402
from zett_agent.extensions.base import AgentExtension  # noqa: E402
from zett_agent.extensions.bash import BashExtension  # noqa: E402
from zett_agent.extensions.compaction import CompactionExtension  # noqa: E402
from zett_agent.extensions.events import InternalMessageEvent  # noqa: E402
from zett_agent.extensions.external import ExternalEvent  # noqa: E402
from zett_agent.extensions.goal import GOAL_MODE_EVENT_NAME, GoalExtension  # noqa: E402
from zett_agent.extensions.internal_message import INTERNAL_MESSAGE_EVENT_NAME  # noqa: E402
from zett_agent.extensions.mcp import McpExtension, McpStdioServer  # noqa: E402
from zett_agent.extensions.model_request_trace import ModelRequestTraceExtension  # noqa: E402
from zett_agent.extensions.plan_mode import PlanModeExtension  # noqa: E402
from zett_agent.extensions.server_tools.anthropic import AnthropicServerToolExtension  # noqa: E402
from zett_agent.extensions.shell_approval import ShellApprovalExtension  # noqa: E402
from zett_agent.extensions.sqlite import SQLiteSessionExtension  # noqa: E402
from zett_agent.extensions.steering import STEERING_MESSAGE_EVENT_NAME  # noqa: E402
from zett_agent.extensions.subagent import SubAgentDefinition, SubAgentExtension  # noqa: E402
from zett_agent.extensions.todo import TodoWriteExtension  # noqa: E402
from zett_agent.extensions.tool_guidelines import ToolGuidelinesExtension  # noqa: E402
from zett_agent.messages import (  # noqa: E402
    AgentMessage,
    AssistantMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from zett_agent.model import ModelEvent, ModelRequest, ModelResponse, ModelUsage, RetryOptions, ToolCallDelta  # noqa: E402
from zett_agent.providers.anthropic import AnthropicProvider  # noqa: E402
from zett_agent.stop import StopInfo, StopReason  # noqa: E402
from zett_agent.storage import SQLiteSessionStorage, encode_messages  # noqa: E402
from zett_agent.tools import tool  # noqa: E402

MAIN = OUT / "main.sqlite3"
CHILDREN = OUT / "children.sqlite3"
DEFAULT_CHILD_STORE = HOME / ".zett-agent" / "sessions.sqlite3"
HERE = Path(__file__).resolve().parent


def sid(n: int) -> str:
    """Fixed, UUIDv7-shaped session ids for the cases (``...-0000000e00NN``)."""
    return f"0193a5c0-0000-7000-8000-0000000e{n:04d}"


#: case name -> (session id, title). One session per case, so the census can name it.
CASES: dict[str, tuple[str, str]] = {
    "async_tasks": (sid(1), "Async subagent tasks + foreground task"),
    "server_tools": (sid(2), "Provider server-tool blocks (web search)"),
    "compaction": (sid(3), "Compaction in-request and by Agent.compact()"),
    "ask_user": (sid(4), "ask_user with text and image answers"),
    "plan_mode": (sid(5), "Plan mode declined and approved"),
    "todo": (sid(6), "todo_write progression"),
    "steering": (sid(7), "Steering supersedes queued calls; internal messages"),
    "goal": (sid(8), "Goal mode with evaluator children"),
    "refusal": (sid(9), "Refusal with withheld tool calls"),
    "max_output": (sid(10), "Max-output stop, then resumed"),
    "interrupted": (sid(11), "Interrupted stop, then resumed"),
    "killed": (sid(12), "Process killed during a tool, then resumed"),
    "cancelled": (sid(13), "Request cancelled during a tool"),
    "mcp": (sid(14), "MCP tools over a real stdio server"),
    "shell_abort": (sid(15), "Shell approval aborted by the user"),
}

SYSTEM_PROMPT = "You are the zett-browser store generator's scripted agent."


# ---------------------------------------------------------------------------- scripted models


@dataclass
class Step:
    """One scripted model reply."""

    text: str = ""
    calls: tuple[tuple[str, dict[str, Any]], ...] = ()
    reasoning: str | None = None
    finish: str | None = None
    stop: StopInfo | None = None
    blocks: tuple[dict[str, Any], ...] = ()
    provider: str = "scripted"
    model: str = "scripted-1"
    delay: float = 0.0
    error: str | None = None


ChildReply = Callable[[ModelRequest], "Step | None"]


@dataclass
class ScriptedModel:
    """Offline model: replays ``steps`` in order; ``child`` answers requests of child agents.

    A child agent of the default subagent profiles runs on its parent's model, so such
    requests (recognised by ``child``, which returns a Step or None) never consume a step.
    """

    tag: str
    steps: list[Step]
    child: ChildReply | None = None
    retry: RetryOptions = field(default_factory=lambda: RetryOptions(max_retries=0))
    name: str = "scripted"
    calls: int = 0

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        step = self.child(request) if self.child is not None else None
        if step is None:
            if not self.steps:
                raise RuntimeError(f"model {self.tag}: script exhausted")
            step = self.steps.pop(0)
        self.calls += 1
        if step.delay:
            await asyncio.sleep(step.delay)
        if step.error:
            raise RuntimeError(step.error)
        calls = tuple(
            ToolCall(f"call_{self.tag}_{self.calls}_{index}", name, arguments)
            for index, (name, arguments) in enumerate(step.calls)
        )
        for index, call in enumerate(calls):
            yield ModelEvent.tool_call(
                ToolCallDelta(
                    index=index, id_delta=call.id, name_delta=call.name, arguments_delta=json.dumps(call.arguments)
                )
            )
        if step.text:
            yield ModelEvent.text(step.text)
        size = sum(len(str(getattr(message, "content", ""))) for message in request.messages)
        message = AssistantMessage(
            content=step.text,
            reasoning=step.reasoning,
            tool_calls=calls,
            provider=step.provider,
            model=step.model,
            replay_blocks=step.blocks,
        )
        usage = ModelUsage(input_tokens=size // 4 + 1, output_tokens=len(step.text) // 4 + 5)
        yield ModelEvent.completed(
            ModelResponse(message=message, finish_reason=step.finish, usage=usage, stop=step.stop)
        )


def first_system(request: ModelRequest) -> str:
    return next((m.content for m in request.messages if isinstance(m, SystemMessage)), "")


def last_user_text(request: ModelRequest) -> str:
    for message in reversed(request.messages):
        if isinstance(message, UserMessage):
            return message.text
    return ""


def default_profile_child(request: ModelRequest) -> Step | None:
    """Answer a child of zett-agent's default ``reasoning``/``explore`` profiles."""
    system = first_system(request)
    if not system.startswith(("You are a reasoning subagent", "You are a read-only code exploration subagent")):
        return None
    prompt = last_user_text(request)
    if "[fail]" in prompt:
        return Step(error="scripted child failure: the index is corrupt", delay=0.3)
    delay = 60.0 if "[slow]" in prompt else 4.0 if "[medium]" in prompt else 1.0 if "[brief]" in prompt else 0.0
    return Step(
        text=f"Report: {prompt.splitlines()[0][:80]} -> 3 findings in src/app.py:12, src/db.py:40.", delay=delay
    )


# ---------------------------------------------------------------------------- agent plumbing


async def make_agent(
    case: str,
    model: Any,
    *,
    tools: tuple[Any, ...] = (),
    extensions: tuple[Any, ...] = (),
    **options: Any,
) -> tuple[Any, Any]:
    """An Agent on the case's session with persistence to MAIN, the trace and tool guidelines."""
    persistence = SQLiteSessionExtension(MAIN)
    agent = await Agent.create(
        model,
        config=AgentRunConfig(session_id=CASES[case][0]),
        system_prompt=SYSTEM_PROMPT,
        tools=tools,
        extensions=[persistence, *extensions, ModelRequestTraceExtension(), ToolGuidelinesExtension()],
        **options,
    )
    return agent, persistence


async def finish(case: str, persistence: Any) -> None:
    await persistence.storage.update_session(CASES[case][0], title=CASES[case][1], agent_name="realstore")
    await persistence.close()


Answer = Callable[[str, dict[str, Any]], dict[str, Any]]


async def drive(
    agent: Any,
    case: str,
    message: UserMessage | str | None,
    *,
    answer: Answer | None = None,
    parallel: bool | None = None,
    request_id: str | None = None,
) -> Any:
    """Run one request (or a resume when ``message`` is None), answering CUSTOM questions."""
    config = AgentRunConfig(session_id=CASES[case][0], request_id=request_id)
    if message is None:
        stream = agent.stream_resume(config=config)
    else:
        stream = agent.stream(message, config=config, parallel_tool_call=parallel)
    final = None
    async with aclosing(stream) as events:
        async for event in events:
            if event.type is AgentEventType.CUSTOM and answer is not None:
                payload = event.payload or {}
                response_event = payload.get("response_event")
                if response_event:
                    reply = answer(event.name, payload)
                    accepted = agent.emit_external_event(ExternalEvent(response_event, reply), config=config)
                    assert accepted, f"{case}: nobody accepted {response_event}"
            if event.type is AgentEventType.RUN_COMPLETED:
                final = event.message
    return final


# ---------------------------------------------------------------------------- the cases


async def case_async_tasks() -> None:
    """Parallel task_start; status/list/output/cancel; an unread completion notice; foreground task."""
    start = "task_start"
    steps = [
        Step(
            reasoning="Three independent investigations: run them in parallel.",
            calls=(
                (
                    start,
                    {
                        "description": "Audit auth",
                        "prompt": "[brief] List auth entry points.",
                        "subagent_type": "explore",
                    },
                ),
                (
                    start,
                    {"description": "Slow survey", "prompt": "[slow] Survey every module.", "subagent_type": "explore"},
                ),
                (
                    start,
                    {
                        "description": "Weigh caching",
                        "prompt": "[medium] Compare caches.",
                        "subagent_type": "reasoning",
                    },
                ),
                (
                    start,
                    {"description": "Check index", "prompt": "[fail] Check the index.", "subagent_type": "reasoning"},
                ),
            ),
        ),
        # Deterministic order: task-4 fails after 0.3 s (after the second model call started),
        # task-1 reports after 1 s, task-3 after 4 s, task-2 would take 60 s. The failure notice
        # of task-4 lands before the third model call, the one of task-3 in the next request.
        Step(calls=(("task_output", {"task_id": "task-1", "wait_seconds": 30}),)),
        Step(calls=(("task_status", {"task_id": "task-3"}),)),
        Step(calls=(("task_cancel", {"task_id": "task-2"}),)),
        Step(calls=(("task_list", {}),)),
        Step(text="Auth audit is done; the survey was cancelled; the index check failed; caching is still running."),
        # request 2: the notice of task-3 arrives before the model is called; it is never read.
        Step(text="Noted: the caching comparison finished; I will read it when needed."),
        # request 3: a foreground task
        Step(
            calls=(
                (
                    "task",
                    {"description": "Trace config", "prompt": "Trace config loading.", "subagent_type": "reasoning"},
                ),
            )
        ),
        Step(text="The config trace found 3 findings."),
        # request 4: an unknown task id fails
        Step(calls=(("task_output", {"task_id": "task-9"}),)),
        Step(text="There is no task-9."),
    ]
    model = ScriptedModel("tasks", steps, child=default_profile_child)
    # Parallel children of the default profiles each open ~/.zett-agent/sessions.sqlite3; on a
    # fresh file their concurrent CREATE TABLE races ("table agent_sessions already exists", a
    # failed task). A user's default store normally exists, so create its schema first,
    # through zett-agent's own storage (no rows).
    prepared = SQLiteSessionStorage(DEFAULT_CHILD_STORE)
    await prepared.list_sessions(limit=1)
    await prepared.close()
    background = AsyncSubAgentExtension()
    agent, persistence = await make_agent(
        "async_tasks", model, extensions=(background, SubAgentExtension()), max_iterations=8
    )
    try:
        await drive(
            agent, "async_tasks", "Investigate auth, survey modules, weigh caching and check the index, in parallel."
        )
        for task in background.tasks(CASES["async_tasks"][0]):
            if task.description == "Weigh caching":
                await background.wait(task, 30)
        await drive(agent, "async_tasks", "Anything new?")
        await drive(agent, "async_tasks", "Now trace the config loading in the foreground.")
        await drive(agent, "async_tasks", "Show me task-9.")
    finally:
        await background.close()
        await finish("async_tasks", persistence)


# ---------------------------------------------------------------------------- Anthropic over a fake wire
#
# Server-tool blocks and the refusal come from zett-agent's REAL Anthropic adapter
# (AnthropicProvider) reading Messages API server-sent events from an httpx MockTransport:
# no network, and the replay_blocks / stop are exactly what the adapter stores.


def sse(*events: dict[str, Any]) -> bytes:
    return b"".join(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode() for event in events)


def message_start(input_tokens: int = 1200) -> dict[str, Any]:
    message: dict[str, Any] = {
        "id": "msg_scripted",
        "type": "message",
        "role": "assistant",
        "model": "claude-scripted",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": 1, "cache_read_input_tokens": 800},
    }
    return {"type": "message_start", "message": message}


def block(index: int, content_block: dict[str, Any], *deltas: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"type": "content_block_start", "index": index, "content_block": content_block},
        *({"type": "content_block_delta", "index": index, "delta": delta} for delta in deltas),
        {"type": "content_block_stop", "index": index},
    ]


def message_end(reason: str, output_tokens: int, details: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    delta: dict[str, Any] = {"stop_reason": reason, "stop_sequence": None}
    if details is not None:
        delta["stop_details"] = details
    usage = {"output_tokens": output_tokens, "server_tool_use": {"web_search_requests": 1}}
    return [{"type": "message_delta", "delta": delta, "usage": usage}, {"type": "message_stop"}]


SEARCH_RESULTS = [
    {
        "type": "web_search_result",
        "url": "https://docs.python.org/3/library/sqlite3.html",
        "title": "sqlite3 — DB-API 2.0 interface for SQLite databases",
        "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1hZTBkLTQ2",
        "page_age": "2 days ago",
    },
    {
        "type": "web_search_result",
        "url": "https://sqlite.org/wal.html",
        "title": "Write-Ahead Logging",
        "encrypted_content": "EpgDCioIARgBIiRjNWJlMDNmNy1lNjQ5LTQ0",
        "page_age": None,
    },
]


def search_turn() -> bytes:
    """Thinking, a web search with its results, a cited answer, then a web fetch that failed."""
    citation = {
        "type": "web_search_result_location",
        "url": "https://sqlite.org/wal.html",
        "title": "Write-Ahead Logging",
        "cited_text": "WAL provides more concurrency as readers do not block writers",
        "encrypted_index": "Eo8BCioIARgBIiQ",
    }
    return sse(
        message_start(),
        *block(
            0,
            {"type": "thinking", "thinking": "", "signature": ""},
            {"type": "thinking_delta", "thinking": "I should search the SQLite docs."},
            {"type": "signature_delta", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxsig"},
        ),
        *block(
            1,
            {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {}},
            {"type": "input_json_delta", "partial_json": '{"query": "sqlite wal mode"}'},
        ),
        *block(2, {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": SEARCH_RESULTS}),
        *block(
            3,
            {"type": "text", "text": ""},
            {"type": "text_delta", "text": "WAL lets readers and a writer work at once"},
            {"type": "citations_delta", "citation": citation},
            {"type": "text_delta", "text": "."},
        ),
        *block(
            4,
            {"type": "server_tool_use", "id": "srvtoolu_02", "name": "web_fetch", "input": {}},
            {"type": "input_json_delta", "partial_json": '{"url": "https://example.invalid/wal"}'},
        ),
        *block(
            5,
            {
                "type": "web_fetch_tool_result",
                "tool_use_id": "srvtoolu_02",
                "content": {"type": "web_fetch_tool_result_error", "error_code": "url_not_accessible"},
            },
        ),
        *message_end("pause_turn", 90),
    )


def continued_turn() -> bytes:
    """The turn the runtime sends again after ``pause_turn``: the final answer."""
    return sse(
        message_start(1500),
        *block(0, {"type": "text", "text": ""}, {"type": "text_delta", "text": " Checkpoints move WAL pages back."}),
        *message_end("end_turn", 12),
    )


def refusal_turn() -> bytes:
    """A tool_use streamed in full, then a refusal: the adapter and the runtime withhold it."""
    return sse(
        message_start(300),
        *block(0, {"type": "text", "text": ""}, {"type": "text_delta", "text": "I will start by wiping"}),
        *block(
            1,
            {"type": "tool_use", "id": "toolu_01", "name": "delete_everything", "input": {}},
            {"type": "input_json_delta", "partial_json": '{"path": "/"}'},
        ),
        *message_end(
            "refusal",
            20,
            {"type": "refusal", "category": "cyber", "explanation": "This request could damage systems."},
        ),
    )


def fake_anthropic(turns: list[bytes]) -> Any:
    """zett-agent's AnthropicProvider whose HTTP requests are answered from ``turns``, in order."""

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.path.endswith("/v1/messages"), request.url
        if not turns:
            return httpx.Response(500, json={"type": "error", "error": {"type": "api_error", "message": "script over"}})
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=turns.pop(0))

    return AnthropicProvider(
        model="claude-scripted",
        api_key="offline-test-key",
        base_url="http://anthropic.invalid",
        transport=httpx.MockTransport(handler),
        retry=RetryOptions(max_retries=0),
    )


async def case_server_tools() -> None:
    model = fake_anthropic([search_turn(), continued_turn()])
    agent, persistence = await make_agent("server_tools", model, extensions=(AnthropicServerToolExtension(),))
    try:
        await drive(agent, "server_tools", "How does SQLite WAL mode work? Search the web.")
    finally:
        await finish("server_tools", persistence)
        await model.aclose()


async def case_refusal() -> None:
    model = fake_anthropic([refusal_turn()])
    agent, persistence = await make_agent("refusal", model, tools=(delete_everything,))
    try:
        await drive(agent, "refusal", "Wipe the server's disk.")
    finally:
        await finish("refusal", persistence)
        await model.aclose()


def count_tokens(messages: Any) -> int:
    """About four characters a token (offline; zett-agent's default needs tiktoken data)."""
    total = 0
    for message in messages:
        text = getattr(message, "text", None) if isinstance(message, (UserMessage, ToolMessage)) else None
        if text is None:
            text = str(getattr(message, "content", "")) + str(getattr(message, "reasoning", "") or "")
        total += len(text) // 4 + 1
    return total


@dataclass
class Summarizer:
    retry: RetryOptions = field(default_factory=lambda: RetryOptions(max_retries=0))
    name: str = "summary"
    calls: int = 0

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        self.calls += 1
        text = f"Checkpoint {self.calls}: {len(request.messages)} messages summarised (the user asked about shouting)."
        yield ModelEvent.text(text)
        yield ModelEvent.completed(
            ModelResponse(message=AssistantMessage(content=text), usage=ModelUsage(input_tokens=80, output_tokens=12))
        )


@tool
def shout(text: str) -> str:
    """Return the text in capitals.

    Args:
        text: Text to shout.


    Guidelines:

        - Scripted test tool of the store generator.
    """
    return text.upper()


async def case_compaction() -> None:
    long = "Explain, at length, why the sky is blue; repeat the question twice. " * 3
    steps = [Step(calls=(("shout", {"text": "first"}),)), Step(text="FIRST shouted. " * 8)]
    steps += [Step(text=f"Answer {n}: " + "blue light scatters more. " * 6) for n in range(3)]
    model = ScriptedModel("compact", steps)
    later = [
        Step(text=f"Short answer {n}: " + "the sky is blue because of Rayleigh scattering. " * 4) for n in range(2)
    ]
    later += [Step(text="After the manual compaction: still blue.")]
    compaction = CompactionExtension(Summarizer(), max_tokens=120, keep_recent_tokens=20, count_tokens=count_tokens)
    agent, persistence = await make_agent("compaction", model, tools=(shout,), extensions=(compaction,))
    try:
        await drive(agent, "compaction", "Please shout 'first'.")
        for _ in range(3):
            await drive(agent, "compaction", long)
    finally:
        await persistence.close()
    # Agent.compact() on demand: a second Agent on the session whose budget is never reached.
    manual = CompactionExtension(Summarizer(), max_tokens=100_000, keep_recent_tokens=20, count_tokens=count_tokens)
    agent, persistence = await make_agent(
        "compaction", ScriptedModel("compact2", later), tools=(shout,), extensions=(manual,)
    )
    try:
        await drive(agent, "compaction", "Why is the sky blue, briefly?")
        await drive(agent, "compaction", "And at sunset?")
        async with aclosing(agent.compact(config=AgentRunConfig(session_id=CASES["compaction"][0]))) as events:
            async for _event in events:
                pass
        await drive(agent, "compaction", "One more question after the manual compaction.")
    finally:
        await finish("compaction", persistence)


PNG_1X1 = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)


async def case_ask_user() -> None:
    steps = [
        Step(calls=(("ask_user", {"question": "Which format?", "options": ["Markdown", "Plain text"]}),)),
        Step(text="Markdown it is."),
        Step(calls=(("ask_user", {"question": "Please attach a screenshot of the error."}),)),
        Step(text="Thanks, the screenshot shows a red pixel."),
    ]

    def answer(name: str, payload: dict[str, Any]) -> dict[str, Any]:
        if payload["question"] == "Which format?":
            return {"tool_call_id": payload["tool_call_id"], "answer": "Markdown"}
        url = "data:image/png;base64," + base64.b64encode(PNG_1X1).decode()
        parts = [
            {"type": "text", "text": "Here is the screenshot:"},
            {"type": "image", "name": "error.png", "mime_type": "image/png", "content_url": url},
        ]
        return {"tool_call_id": payload["tool_call_id"], "parts": parts}

    agent, persistence = await make_agent("ask_user", ScriptedModel("ask", steps), extensions=(AskUserExtension(),))
    try:
        await drive(agent, "ask_user", "Write the report; ask me for the format.", answer=answer)
        await drive(agent, "ask_user", "Something is broken; ask me for a screenshot.", answer=answer)
    finally:
        await finish("ask_user", persistence)


async def case_plan_mode() -> None:
    plan = "# Plan\n\n1. Update storage.\n2. Add tests.\n3. Ship."
    steps = [
        Step(calls=(("enter_plan_mode", {"reason": "The change spans storage and UI."}),)),
        Step(text="Understood, no plan mode; proceeding directly."),
        Step(calls=(("enter_plan_mode", {"reason": "Now it really needs a plan."}),)),
        Step(calls=(("exit_plan_mode", {"plan": plan + "\n(draft)"}),)),
        Step(calls=(("exit_plan_mode", {"plan": plan}),)),
        Step(text="Plan approved; implementing."),
    ]
    decisions = iter([False, True, False, True])

    def answer(name: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {
            "session_id": payload["session_id"],
            "tool_call_id": payload["tool_call_id"],
            "approved": next(decisions),
        }

    agent, persistence = await make_agent("plan_mode", ScriptedModel("plan", steps), extensions=(PlanModeExtension(),))
    try:
        await drive(agent, "plan_mode", "Refactor the storage layer.", answer=answer)
        await drive(agent, "plan_mode", "Please plan it first after all.", answer=answer)
    finally:
        await finish("plan_mode", persistence)


async def case_todo() -> None:
    items = ["Read the code", "Write the fix", "Run the tests"]

    def todos(done: int) -> dict[str, Any]:
        states = [
            "completed" if index < done else "in_progress" if index == done else "pending"
            for index in range(len(items))
        ]
        return {"todos": [{"content": text, "status": state} for text, state in zip(items, states, strict=True)]}

    steps = [Step(calls=(("todo_write", todos(n)),)) for n in range(4)]
    steps += [Step(calls=(("todo_write", {"todos": [{"content": "Changed", "status": "pending"}]}),))]
    steps += [Step(text="All three tasks are done.")]
    agent, persistence = await make_agent("todo", ScriptedModel("todo", steps), extensions=(TodoWriteExtension(),))
    try:
        await drive(agent, "todo", "Fix the bug, tracking your progress.")
    finally:
        await finish("todo", persistence)


async def case_steering() -> None:
    session = CASES["steering"][0]
    holder: dict[str, Any] = {}

    @tool
    async def step_one(path: str) -> str:
        """Inspect one file; the user steers while it runs.

        Args:
            path: File to inspect.


        Guidelines:

            - Scripted test tool of the store generator.
        """
        holder["agent"].emit_external_event(
            ExternalEvent(STEERING_MESSAGE_EVENT_NAME, {"content": "Stop editing; explain what you found first."}),
            config=AgentRunConfig(session_id=session),
        )
        return f"{path}: 120 lines"

    @tool
    async def queue_note(note: str) -> str:
        """Queue an internal message for the running request.

        Args:
            note: What the internal message says.


        Guidelines:

            - Scripted test tool of the store generator.
        """
        accepted = holder["agent"].emit_external_event(
            ExternalEvent(INTERNAL_MESSAGE_EVENT_NAME, {"content": note}), config=AgentRunConfig(session_id=session)
        )
        return f"queued={bool(accepted)}"

    steps = [
        Step(calls=(("step_one", {"path": "a.py"}), ("step_one", {"path": "b.py"}), ("step_one", {"path": "c.py"}))),
        Step(text="I found a.py has 120 lines; I stopped editing as asked."),
        Step(text="Sizes: a.py is 4 KB."),
        Step(calls=(("queue_note", {"note": "Reminder from the host: run the linter before answering."}),)),
        Step(text="Queued."),
        Step(text="Linter run: clean."),
    ]
    model = ScriptedModel("steer", steps)
    agent, persistence = await make_agent("steering", model, tools=(step_one, queue_note), extensions=(Publisher(),))
    holder["agent"] = agent
    try:
        await drive(agent, "steering", "Edit a.py, b.py and c.py.", parallel=False)
        await drive(agent, "steering", "Queue a note for yourself.")
    finally:
        await finish("steering", persistence)


class Publisher(AgentExtension):
    """Publish one InternalMessageEvent from an extension hook (the extension route)."""

    name = "publisher"

    def __init__(self) -> None:
        self.done = False

    async def after_model(self, context: Any, response: ModelResponse) -> None:
        if not self.done and response.message.content.startswith("I found"):
            self.done = True
            await context.publish(InternalMessageEvent(AgentMessage(content="Internal: also list the file sizes.")))


async def case_goal() -> None:
    evaluator_steps = [
        Step(
            calls=(
                (
                    "report_goal_evaluation",
                    {
                        "achieved": False,
                        "summary": "Tests were not run.",
                        "remaining_work": ["Run the test suite"],
                        "next_instruction": "Run pytest and report the result.",
                    },
                ),
            )
        ),
        Step(text="Decision reported."),
        Step(
            calls=(
                (
                    "report_goal_evaluation",
                    {"achieved": True, "summary": "Tests pass.", "remaining_work": [], "next_instruction": None},
                ),
            )
        ),
        Step(text="Decision reported."),
    ]
    evaluator = SubAgentDefinition(
        name="goal",
        description="verify the result against the goal",
        system_prompt="You are the scripted goal evaluator. Call report_goal_evaluation once.",
        model=ScriptedModel("evaluator", evaluator_steps),
        extensions=(SQLiteSessionExtension(MAIN), ToolGuidelinesExtension()),
    )
    steps = [Step(text="I implemented the feature."), Step(text="I ran the tests: 12 passed.")]
    agent, persistence = await make_agent("goal", ScriptedModel("goal", steps), extensions=(GoalExtension(evaluator),))
    try:
        config = AgentRunConfig(session_id=CASES["goal"][0])
        assert agent.emit_external_event(ExternalEvent(GOAL_MODE_EVENT_NAME, {}), config=config)
        await drive(agent, "goal", "Implement the feature and make the tests pass.")
    finally:
        await finish("goal", persistence)
        for extension in evaluator.extensions:
            if isinstance(extension, SQLiteSessionExtension):
                await extension.close()


@tool
def delete_everything(path: str) -> str:
    """Delete a directory tree.

    Args:
        path: Directory to delete.


    Guidelines:

        - Scripted test tool of the store generator.
    """
    return f"deleted {path}"


async def case_max_output() -> None:
    steps = [
        Step(text="The list of primes begins 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 4", finish="max_tokens"),
        Step(text="3, 47, 53, 59. That is the end of the list."),
    ]
    agent, persistence = await make_agent("max_output", ScriptedModel("maxout", steps))
    try:
        await drive(agent, "max_output", "List the primes below 60.")
        assert (await agent.resume_point()) is not None
        await drive(agent, "max_output", None)
    finally:
        await finish("max_output", persistence)


async def case_interrupted() -> None:
    cut = StopInfo(
        StopReason.INTERRUPTED, raw="error", message="Connection reset by peer", detail={"error": {"message": "reset"}}
    )
    steps = [
        Step(text="Here is the first half of the ans", stop=cut, calls=(("shout", {"text": "half"}),)),
        Step(text="Here is the whole answer, started again."),
    ]
    agent, persistence = await make_agent("interrupted", ScriptedModel("interrupt", steps), tools=(shout,))
    try:
        await drive(agent, "interrupted", "Give me the answer.")
        await drive(agent, "interrupted", None)
    finally:
        await finish("interrupted", persistence)


@tool
def migrate_database(name: str) -> str:
    """Migrate one database; the killed process dies inside it.

    Args:
        name: Database name.


    Guidelines:

        - Scripted test tool of the store generator.
    """
    if os.environ.get("REALSTORE_KILL_IN_TOOL") == "1":
        os.kill(os.getpid(), signal.SIGKILL)
    return f"migrated {name}"


async def killed_child() -> None:
    """Run in a child process: the tool call is persisted, then the process is SIGKILLed in the tool."""
    steps = [
        Step(reasoning="Run the migration.", calls=(("migrate_database", {"name": "orders"}), ("shout", {"text": "x"})))
    ]
    agent, _persistence = await make_agent("killed", ScriptedModel("killed", steps), tools=(migrate_database, shout))
    await drive(agent, "killed", "Migrate the orders database.", parallel=False)
    raise AssertionError("the process should have been killed inside the tool")


async def case_killed() -> None:
    env = {**os.environ, "REALSTORE_KILL_IN_TOOL": "1"}
    result = subprocess.run(
        [sys.executable, __file__, "--killed-child", str(OUT)], env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode == -signal.SIGKILL, (result.returncode, result.stderr[-2000:])
    steps = [Step(text="The migration may or may not have run; I checked: it did not. Re-running it is safe.")]
    agent, persistence = await make_agent("killed", ScriptedModel("resumed", steps), tools=(migrate_database, shout))
    try:
        point = await agent.resume_point()
        assert point is not None and point.kind.value == "recover_tools", point
        await drive(agent, "killed", None)
    finally:
        await finish("killed", persistence)


async def case_cancelled() -> None:
    started = asyncio.Event()

    @tool
    async def long_build(target: str) -> str:
        """Build a target; takes a long time.

        Args:
            target: Build target.


        Guidelines:

            - Scripted test tool of the store generator.
        """
        started.set()
        await asyncio.sleep(120)
        return "never"

    steps = [
        Step(calls=(("long_build", {"target": "all"}), ("shout", {"text": "done?"}))),
        Step(text="The previous build was cancelled; nothing to report."),
    ]
    agent, persistence = await make_agent("cancelled", ScriptedModel("cancel", steps), tools=(long_build, shout))
    try:
        running = asyncio.create_task(drive(agent, "cancelled", "Build everything."))
        await asyncio.wait_for(started.wait(), 30)
        await asyncio.sleep(0.2)
        running.cancel()
        with suppress(asyncio.CancelledError):
            await running
        await drive(agent, "cancelled", "What happened to the build?")
    finally:
        await finish("cancelled", persistence)


async def case_mcp() -> None:
    server = McpStdioServer(
        "inventory", sys.executable, (str(HERE / "mcp_server.py"),), env={"HOME": str(HOME)}, cwd=str(OUT)
    )
    steps = [
        Step(calls=(("inventory__lookup", {"sku": "A-100"}), ("inventory__broken", {"sku": "B-200"}))),
        Step(text="A-100: 42 in stock; B-200 could not be checked."),
    ]
    agent, persistence = await make_agent(
        "mcp", ScriptedModel("mcp", steps), extensions=(McpExtension([server], connect_timeout=60.0),)
    )
    try:
        # one call after the other: parallel results are stored in completion order
        await drive(agent, "mcp", "How many A-100 and B-200 do we have?", parallel=False)
    finally:
        await finish("mcp", persistence)


async def case_shell_abort() -> None:
    steps = [
        Step(calls=(("bash", {"command": "rm -rf build/ && make release"}),)),
        Step(text="You aborted the command; nothing was deleted."),
    ]

    def answer(name: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"tool_call_id": payload["tool_call_id"], "decision": "abort"}

    agent, persistence = await make_agent(
        "shell_abort", ScriptedModel("shell", steps), extensions=(ShellApprovalExtension(), BashExtension())
    )
    try:
        await drive(agent, "shell_abort", "Clean and rebuild the release.", answer=answer)
    finally:
        await finish("shell_abort", persistence)


RUNNERS: dict[str, Callable[[], Any]] = {
    "async_tasks": case_async_tasks,
    "server_tools": case_server_tools,
    "compaction": case_compaction,
    "ask_user": case_ask_user,
    "plan_mode": case_plan_mode,
    "todo": case_todo,
    "steering": case_steering,
    "goal": case_goal,
    "refusal": case_refusal,
    "max_output": case_max_output,
    "interrupted": case_interrupted,
    "killed": case_killed,
    "cancelled": case_cancelled,
    "mcp": case_mcp,
    "shell_abort": case_shell_abort,
}


async def record_loads(path: Path) -> dict[str, Any]:
    """zett-agent's own ``load()`` of every session of a store: ``{session_id: envelopes}``."""
    storage = SQLiteSessionStorage(path)
    try:
        loads: dict[str, Any] = {}
        offset = 0
        while page := await storage.list_sessions(limit=100, offset=offset):
            for summary in page:
                view = await storage.load(summary.session_id)
                loads[summary.session_id] = json.loads(encode_messages(view.messages))
            offset += len(page)
        return loads
    finally:
        await storage.close()


def checkpoint(path: Path) -> None:
    connection = sqlite3.connect(path)
    try:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        connection.close()


async def main(only: list[str]) -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    HOME.mkdir(parents=True, exist_ok=True)
    os.chdir(OUT)  # the explore profile writes its working directory into a system row
    report: dict[str, Any] = {"cases": {}, "main": str(MAIN), "children": str(CHILDREN)}
    failed = 0
    for name, runner in RUNNERS.items():
        if only and name not in only:
            continue
        entry: dict[str, Any] = {"session_id": CASES[name][0], "title": CASES[name][1], "ok": True, "error": None}
        try:
            await asyncio.wait_for(runner(), 120)
        except BaseException as error:  # noqa: BLE001 - reported per case
            if isinstance(error, KeyboardInterrupt):
                raise
            failed += 1
            entry.update(ok=False, error="".join(traceback.format_exception(error))[-4000:])
            print(f"case {name} FAILED:\n{entry['error']}", file=sys.stderr)
        report["cases"][name] = entry
    checkpoint(MAIN)
    if DEFAULT_CHILD_STORE.exists():
        checkpoint(DEFAULT_CHILD_STORE)
        for suffix in ("", "-wal", "-shm"):
            source = Path(str(DEFAULT_CHILD_STORE) + suffix)
            if source.exists():
                shutil.move(source, Path(str(CHILDREN) + suffix))
    # What zett-agent's load() gives for each session now (the model's context), for the tests.
    loads = {"main": await record_loads(MAIN)}
    if CHILDREN.exists():
        loads["children"] = await record_loads(CHILDREN)
        checkpoint(CHILDREN)
    checkpoint(MAIN)
    (OUT / "loads.json").write_text(json.dumps(loads, ensure_ascii=False), encoding="utf-8")
    (OUT / "report.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 1 if failed else 0


if __name__ == "__main__":
    if "--killed-child" in sys.argv:
        asyncio.run(killed_child())
        sys.exit(3)
    selected = [arg for arg in sys.argv[1:-1] if not arg.startswith("-")]
    sys.exit(asyncio.run(main(selected)))
