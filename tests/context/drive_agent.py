# mypy: disable-error-code="untyped-decorator,misc"
# (zett-agent is installed only in its side venv: its classes are Any to mypy here)
"""Drive a REAL zett-agent 0.2.1 Agent step by step and record what ``load()`` returns.

Run inside the zett-agent venv (``tests/zett_agent_env.py``), never with the project's
interpreter; everything goes through zett-agent's public API::

    <zett-agent venv>/bin/python drive_agent.py STORE.sqlite3 RECORD.json

The Agent has an offline scripted model, a real tool, ``SQLiteSessionExtension`` for
persistence and ``CompactionExtension`` with a tiny budget (an injected four-characters-
a-token counter: the default needs tiktoken tables from the network), so it compacts
several times. A recording extension, registered last, stores ``load()`` (as
``encode_messages(view.messages)``) together with the sequence the next Raw Log row will
get, in ``before_model`` (after compaction ran: the context of the reply about to be
written) and in ``after_model``; once more at the end. Two kinds of rows the model never
gets back: a user message sent with ``include_in_messages=False`` and an extension's
note added with it (the recorded system prompt is a third).
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from zett_agent.agent import Agent, AgentRunConfig, AgentRunContext
from zett_agent.extensions.base import AgentExtension
from zett_agent.extensions.compaction import CompactionExtension
from zett_agent.extensions.sqlite import SQLiteSessionExtension
from zett_agent.messages import AgentMessage, AnyMessage, AssistantMessage, ToolCall, ToolMessage, UserMessage
from zett_agent.model import ModelEvent, ModelRequest, ModelResponse, ModelUsage, RetryOptions, ToolCallDelta
from zett_agent.storage import encode_messages
from zett_agent.tools import tool

SESSION_ID = "0193a5c0-0000-7000-8000-0000000c0de1"


def count_tokens(messages: Sequence[AnyMessage]) -> int:
    """About four characters a token (offline; zett-agent's default needs tiktoken data)."""
    total = 0
    for message in messages:
        if isinstance(message, AssistantMessage):
            text = message.content + (message.reasoning or "") + json.dumps([c.arguments for c in message.tool_calls])
        elif isinstance(message, (UserMessage, ToolMessage)):
            text = message.text
        else:
            text = message.content
        total += len(text) // 4 + 1
    return total


@tool
def shout(text: str) -> str:
    """Return the text in capitals.

    Args:
        text: Text to shout.

    Snippet:
        shout(text="hello")

    Guidelines:
        - Use it whenever the user asks to shout.
    """
    return text.upper()


class Model:
    """Offline model: a tool call for questions that say 'shout', else an answer.

    Reports input tokens (the request's characters / 4) like a provider would, so the
    Raw Log has measured usage to compare an estimate with.
    """

    retry = RetryOptions(max_retries=0)
    name = "scripted"

    def __init__(self) -> None:
        self.calls = 0

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        self.calls += 1
        last = request.messages[-1]
        size = sum(len(json.dumps(getattr(m, "content", ""), default=str)) for m in request.messages)
        usage = ModelUsage(input_tokens=size // 4 + 1, output_tokens=12)
        if isinstance(last, (UserMessage, AgentMessage)) and "shout" in getattr(last, "text", last.content):
            call = ToolCall(f"call_{self.calls}", "shout", {"text": f"step {self.calls}"})
            yield ModelEvent.tool_call(
                ToolCallDelta(
                    index=0, id_delta=call.id, name_delta=call.name, arguments_delta=json.dumps(call.arguments)
                )
            )
            message = AssistantMessage(content="", reasoning=f"Shouting, step {self.calls}.", tool_calls=(call,))
            yield ModelEvent.completed(ModelResponse(message=message, finish_reason="tool_calls", usage=usage))
            return
        text = f"Answer {self.calls}: done with <b>[bold]{self.calls}[/bold]</b> \x1b[31mred\x1b[0m."
        yield ModelEvent.text(text)
        yield ModelEvent.completed(
            ModelResponse(message=AssistantMessage(content=text, provider="scripted", model="m-1"), usage=usage)
        )


class Summarizer:
    """Offline summarizer for CompactionExtension."""

    retry = RetryOptions(max_retries=0)
    name = "summary"

    def __init__(self) -> None:
        self.calls = 0

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        self.calls += 1
        text = f"Checkpoint {self.calls}: {len(request.messages)} messages summarised; path /tmp/x{self.calls}."
        yield ModelEvent.text(text)
        yield ModelEvent.completed(
            ModelResponse(message=AssistantMessage(content=text), usage=ModelUsage(input_tokens=50, output_tokens=9))
        )


class NoteOnce(AgentExtension):
    """Before the third model call, add a note the model gets now but never again."""

    def __init__(self) -> None:
        self.calls = 0

    async def before_model(self, context: AgentRunContext, request: ModelRequest) -> None:
        self.calls += 1
        if self.calls == 3:
            context.add_message(AgentMessage(content="UI note: not replayed", include_in_messages=False))


class Recorder(AgentExtension):
    """Store ``load()`` and the next row's sequence at every model step."""

    def __init__(self, persistence: SQLiteSessionExtension, path: Path) -> None:
        self.persistence = persistence
        self.path = path
        self.records: list[dict[str, Any]] = []

    async def record(self, phase: str) -> None:
        view = await self.persistence.storage.load(SESSION_ID)
        connection = sqlite3.connect(self.path)
        try:
            last = connection.execute(
                "SELECT coalesce(max(sequence), 0) FROM raw_messages WHERE session_id = ?", (SESSION_ID,)
            ).fetchone()[0]
        finally:
            connection.close()
        self.records.append(
            {
                "phase": phase,
                "at": last + 1,
                "snapshot_version": view.snapshot.version if view.snapshot else 0,
                "messages": json.loads(encode_messages(view.messages)),
            }
        )

    async def before_model(self, context: AgentRunContext, request: ModelRequest) -> None:
        await self.record("before_model")

    async def after_model(self, context: AgentRunContext, response: ModelResponse) -> None:
        await self.record("after_model")


async def main(store: Path, output: Path) -> None:
    persistence = SQLiteSessionExtension(store)
    compaction = CompactionExtension(Summarizer(), max_tokens=60, keep_recent_tokens=1, count_tokens=count_tokens)
    recorder = Recorder(persistence, store)
    agent = await Agent.create(
        Model(),
        config=AgentRunConfig(session_id=SESSION_ID),
        system_prompt="You are a test agent.",
        tools=[shout],
        extensions=[persistence, compaction, NoteOnce(), recorder],
        max_iterations=4,
    )
    try:
        for turn, prompt in enumerate(
            [
                "Please shout hello [red]x[/red] \x1b]8;;http://e\x1b\\link",
                "What is two plus two? Answer at length, please.",
                "Please shout again, this time about compaction.",
                "This question is recorded but never replayed.",
                "Please shout a third time.",
                "Summarise what happened so far in one line.",
                "Please shout for the last time.",
            ]
        ):
            message = UserMessage(content=prompt, include_in_messages=turn != 3)
            await agent.run(message)
        await recorder.record("end")
    finally:
        await persistence.close()
    connection = sqlite3.connect(store)
    snapshots = connection.execute("SELECT count(*) FROM session_snapshots").fetchone()[0]
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    assert snapshots >= 3, f"expected several compactions, got {snapshots}"
    output.write_text(json.dumps({"session_id": SESSION_ID, "records": recorder.records}, ensure_ascii=False))


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2])))
