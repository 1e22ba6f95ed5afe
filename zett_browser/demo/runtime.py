"""Provides the writer of the demo's runtime sessions: rows shaped exactly as zett-agent 0.2.1 writes them.

:class:`RuntimeConversation` is the demo's :class:`~zett_browser.demo.conversation.Conversation` plus
the conventions of the real runtime's extensions, as ``tests/realstore/CENSUS.md`` records them:
untitled sessions with no agent name, the system prompt and its ``# Tool snippets`` /
``# Tool guidelines`` row appended again at every request (``attributes.tool_guidelines``), a
``model_request_trace`` on every assistant row of an agent that traces its requests, Anthropic
replay blocks (thinking with a signature, server tools, text, tool use; keys sorted as the real
adapter stored them), and the fixed JSON results of the background-task, ask-user, plan-mode
and todo tools. The runtime's own texts and tool schemas come from ``runtime_shapes.json``,
extracted from a store the real runtime wrote (``tests/realstore/demo_shapes.py``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from ..model import AgentMessage, SystemMessage, ToolCall
from .conversation import SYSTEM_PROMPT, Conversation

SHAPES_PATH = Path(__file__).with_name("runtime_shapes.json")
#: The working directory the demo's subagents report in their filesystem row.
WORKDIR = "/home/dana/src/shop-api"
#: What the default subagent profiles run with: an explore agent has the read-only file tools.
EXPLORE_TOOLS = ("read_file", "view_image", "glob", "grep")
#: zett-agent's fixed texts (``_agent/turns.py``, ``resume.py``, the async-subagent extension).
SUPERSEDED = "Superseded by a steering message"
CANCELLED = "Request cancelled before tool completion"
RESUME_CONTINUE = (
    "Your previous response was cut off at the output limit. Continue exactly where it stopped, "
    "without repeating what you already wrote."
)
RUNNING_NOTE = "Still running; call task_output with wait_seconds to wait, or check back later."
FINISHED_NOTE = "Finished; call task_output to read the report."
FAILED_NOTE = "The task failed and produced no report."


@cache
def shapes() -> dict[str, Any]:
    """The runtime's texts and tool schemas (read once; about 25 KB)."""
    loaded: dict[str, Any] = json.loads(SHAPES_PATH.read_text(encoding="utf-8"))
    return loaded


def guidelines_text(tools: tuple[str, ...]) -> str:
    """The ``# Tool snippets`` / ``# Tool guidelines`` text the runtime writes for ``tools``."""
    known = shapes()
    snippets = [known["snippets"][name] for name in tools if name in known["snippets"]]
    sections = "\n\n".join(known["guidelines"][name] for name in tools if name in known["guidelines"])
    guidelines = f"# Tool guidelines\n{sections}"
    return f"# Tool snippets\n{chr(10).join(snippets)}\n\n{guidelines}" if snippets else guidelines


def plan_mode_prompt(tools: tuple[str, ...]) -> str:
    """The system row that replaces the normal prompt while plan mode is active."""
    return f"{shapes()['prompts']['plan_mode']}\n\n{guidelines_text(tools)}"


def tool_id(seed: str) -> str:
    """A deterministic Anthropic-style tool-use id (``toolu_01`` + 22 characters)."""
    digest = hashlib.sha256(seed.encode()).hexdigest()
    return "toolu_01" + "".join(chr(65 + int(digest[i : i + 2], 16) % 26) for i in range(0, 44, 2))


def signature(seed: str) -> str:
    """A deterministic stand-in for a thinking block's opaque signature."""
    return "Eq" + hashlib.sha256(seed.encode()).hexdigest()[:46]


def task_info(
    task_id: str,
    subagent_type: str,
    description: str,
    status: str,
    session_id: str,
    elapsed: float,
    *,
    content: str | None = None,
    error: str | None = None,
    note: str | None = None,
) -> dict[str, Any]:
    """One ``SubAgentTaskInfo``, in the runtime's key order."""
    return {
        "task_id": task_id,
        "subagent_type": subagent_type,
        "description": description,
        "status": status,
        "session_id": session_id,
        "elapsed_seconds": elapsed,
        "content": content,
        "stop": None,
        "error": error,
        "note": note,
    }


def todo_result(todos: list[dict[str, str]]) -> str:
    """The ``todo_write`` result for a valid list, in the runtime's key order."""
    index = next((i for i, todo in enumerate(todos) if todo["status"] == "in_progress"), None)
    return json.dumps(
        {
            "todos": todos,
            "in_progress_index": index,
            "in_progress": todos[index] if index is not None else None,
            "completed": all(todo["status"] == "completed" for todo in todos),
        }
    )


def todos(items: tuple[str, ...], done: int) -> list[dict[str, str]]:
    """``items`` with the first ``done`` completed, the next in progress, the rest pending."""
    states = ["completed"] * done + ["in_progress"] + ["pending"] * len(items)
    return [{"content": item, "status": states[i]} for i, item in enumerate(items)]


@dataclass
class RuntimeConversation(Conversation):
    """A session written the way zett-agent 0.2.1's agent loop and extensions write it."""

    #: The agent's tools, in registration order (their trace entries come from the shapes file).
    tools: tuple[str, ...] = ()
    #: Tool trace entries of tools the shapes file does not hold (MCP tools), by name.
    extra_tools: dict[str, dict[str, Any]] = field(default_factory=dict)
    server_tools: list[dict[str, Any]] = field(default_factory=list)
    #: Extra system rows after the prompt (``# MCP servers``, ``# Filesystem environment``).
    extra_system: tuple[str, ...] = ()
    #: Whether the agent runs ``ModelRequestTraceExtension`` (the default profiles' children do not).
    traced: bool = True
    system_prompt: str = SYSTEM_PROMPT
    requests: int = 0

    def trace(self, tools: tuple[str, ...] | None = None) -> dict[str, Any]:
        """The ``model_request_trace`` attribute for a step offered ``tools``."""
        offered = self.tools if tools is None else tools
        known = shapes()["tools"]
        entries = [self.extra_tools[name] if name in self.extra_tools else known[name] for name in offered]
        return {"schema_version": 1, "tools": entries, "server_tools": self.server_tools}

    async def request(self) -> None:
        """Start a request (a new request id) with the system rows every request appends."""
        self.requests += 1
        self.request_id = f"{self.session_id[:19]}{0x9000 + self.requests:04x}-{self.session_id[-12:]}"
        await self.system(self.system_prompt)
        for text in self.extra_system:
            await self._append(SystemMessage(content=text))
        if any(name in shapes()["guidelines"] for name in self.tools):
            await self._append(SystemMessage(content=guidelines_text(self.tools), attributes={"tool_guidelines": True}))

    def call(self, name: str, **arguments: Any) -> ToolCall:
        """A tool call with a deterministic Anthropic-style id."""
        return ToolCall(tool_id(f"{self.session_id}/{self.clock.isoformat()}/{name}/{arguments}"), name, arguments)

    async def step(
        self,
        text: str = "",
        *,
        reasoning: str | None = None,
        calls: tuple[ToolCall, ...] = (),
        blocks: tuple[dict[str, Any], ...] | None = None,
        offered: tuple[str, ...] | None = None,
        **options: Any,
    ) -> int:
        """One model step: an assistant row with its trace and its Anthropic replay blocks."""
        if blocks is None:
            blocks = self.blocks(text, reasoning=reasoning, calls=calls)
        attributes = {"model_request_trace": self.trace(offered)} if self.traced else {}
        return await self.assistant(
            text, reasoning=reasoning, calls=calls, attributes=attributes, replay_blocks=blocks, **options
        )

    def blocks(
        self,
        text: str,
        *,
        reasoning: str | None = None,
        calls: tuple[ToolCall, ...] = (),
        middle: tuple[dict[str, Any], ...] = (),
    ) -> tuple[dict[str, Any], ...]:
        """The replay blocks Anthropic's adapter stores: thinking, server tools, text, tool use."""
        found: list[dict[str, Any]] = []
        if reasoning:
            found.append({"signature": signature(reasoning), "thinking": reasoning, "type": "thinking"})
        found.extend(middle)
        if text:
            found.append({"text": text, "type": "text"})
        found.extend({"id": c.id, "input": c.arguments, "name": c.name, "type": "tool_use"} for c in calls)
        return tuple(found)

    async def result(self, call: ToolCall, content: Any, *, success: bool = True, seconds: float = 0.05) -> int:
        """A tool row; ``content`` that is not a string is stored as its JSON text, as tools return it."""
        text = content if isinstance(content, str) else json.dumps(content)
        return await self.tool(call, text, success=success, seconds=seconds)

    async def notice(self, text: str, **attributes: Any) -> int:
        """An agent row (kind 6) the runtime or an extension wrote."""
        return await self._append(AgentMessage(content=text, attributes=attributes))
