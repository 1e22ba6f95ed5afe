"""Provides the spans of a session, built as the export's walk reads its rows.

:class:`SpanBuilder` is a :class:`.walk.Writer`: the walk hands it each stored row in
order (a keyset page at a time) and it hands each finished :class:`.otlp_model.SpanData` to
its sink at once, so memory holds the open sessions' frames and the calls waiting for their
results, never a session's rows. The spans follow the OpenTelemetry GenAI semantic
conventions, with the OpenInference attributes beside them (Arize Phoenix reads those):

- ``invoke_agent {agent}`` per session (``gen_ai.conversation.id``, ``gen_ai.agent.name``;
  ``openinference.span.kind`` AGENT), from its first row's start to its last row's end (a
  delegated session's included), finished when the session's walk ends;
- ``chat {model}`` per assistant row, under its session: provider, request and response
  model, token usage, finish reasons and ``gen_ai.conversation.compacted`` when a snapshot
  was in force for the step (decided by time, as the context view decides it:
  docs/compaction.md);
- ``execute_tool {name}`` per tool call, under its session, timed by the tool result's row
  (a call that has no result is a span of no length at the end of its step);
- a delegated session's ``invoke_agent`` span lies under the ``execute_tool`` span of the
  ``task`` / ``task_start`` call that created it (an agent as a tool), or under its parent
  session's span when no call links to it.

Message content (text, reasoning, tool arguments and results) is left out unless asked for;
every text taken from the store passes the redactor first.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..model.kinds import MessageKind
from ..model.messages import AgentMessage, AssistantMessage, ToolMessage, UserMessage
from ..model.outcomes import Outcome, tool_outcome
from .otlp_model import AttrValue, SpanData, SpanKind, nanoseconds, span_id, trace_id
from .otlp_rows import Compactions, Step, usage
from .redact import Redactor
from .walk import SessionHead

#: The tools whose calls create a delegated session (see :mod:`.plan`).
DELEGATING = frozenset({"task", "task_start"})
#: zett-agent's stop reasons as GenAI finish reasons (the others are kept as they are).
FINISH = {"end_turn": "stop", "tool_use": "tool_call", "max_output": "length", "refusal": "content_filter"}
#: Who ran a session when the store does not name its agent (zett-agent 0.2.1 never does).
DEFAULT_AGENT = "zett-agent"

Sink = Callable[[SpanData], None]
#: Rows that make spans; the prompts (user, agent) only matter for the content.
_SPANS = frozenset({MessageKind.ASSISTANT, MessageKind.TOOL})
_PROMPTS = frozenset({MessageKind.USER, MessageKind.AGENT})


@dataclass(slots=True)
class _Call:
    """A tool call waiting for its result."""

    span: bytes
    name: str
    at: int
    arguments: str | None


@dataclass(slots=True)
class _Frame:
    """An open session: its span's ids and extent and what its rows left pending."""

    session: str
    span: bytes
    parent: bytes | None
    start: int | None
    end: int | None
    snapshots: Compactions
    calls: dict[str, _Call] = field(default_factory=dict)
    #: Delegating calls (``task``, ``task_start``) by id: where a child's span goes.
    delegations: dict[str, bytes] = field(default_factory=dict)
    #: Content only: the messages since the last step, the first prompt, the last answer.
    inputs: list[dict[str, Any]] = field(default_factory=list)
    first_input: str | None = None
    last_output: str | None = None

    def extend(self, start: int | None, end: int | None) -> None:
        if start is not None and (self.start is None or start < self.start):
            self.start = start
        if end is not None and (self.end is None or end > self.end):
            self.end = end


def _parts(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "content": text}]


class SpanBuilder:
    """Builds the spans of one export (see the module docstring) and hands them to ``sink``."""

    def __init__(self, sink: Sink, redactor: Redactor, *, content: bool = False) -> None:
        self.sink = sink
        self.redact = redactor
        self.content = content
        self.trace = b""
        #: The exported session's id: every span's ``session.id`` (a Phoenix session per export).
        self.root = ""
        self.frames: list[_Frame] = []
        self.spans = 0

    def _emit(self, span: SpanData) -> None:
        self.spans += 1
        self.sink(span)

    def _text(self, value: object) -> str:
        return self.redact(str(value))

    def _json(self, value: object) -> str:
        # Redacting JSON text keeps it valid JSON (the patterns stop at quotes and backslashes).
        return self.redact(json.dumps(value, ensure_ascii=False, default=str))

    def _base(self, frame: _Frame, operation: str, kind: str) -> list[tuple[str, AttrValue]]:
        return [
            ("gen_ai.operation.name", operation),
            ("gen_ai.conversation.id", self._text(frame.session)),
            ("openinference.span.kind", kind),
            ("session.id", self.root),
        ]

    # -- the walk's calls ------------------------------------------------------------------

    def start_session(self, head: SessionHead) -> None:
        session = str(head.row["id"])
        parent: bytes | None = None
        if not self.frames:
            self.trace = trace_id(session)
            self.root = self._text(session)
        else:
            above = self.frames[-1]
            linked = above.delegations.get(head.call_id) if head.call_id is not None else None
            parent = linked if linked is not None else above.span
        created = nanoseconds(head.row.get("created_at"))
        self.frames.append(
            _Frame(session, span_id(session, 0, "session"), parent, created, created, Compactions.of(head))
        )

    def message(self, row: Mapping[str, Any], head: SessionHead) -> None:
        frame = self.frames[-1]
        start, end = nanoseconds(row.get("started_at")), nanoseconds(row.get("completed_at"))
        frame.extend(start, end)
        role = row.get("role")
        if role not in _SPANS and not (self.content and role in _PROMPTS):
            return
        step = Step.of(row, start, end)
        message = step.message
        if isinstance(message, AssistantMessage):
            self._chat(frame, step, message)
        elif isinstance(message, ToolMessage):
            self._result(frame, step, message)
        elif isinstance(message, (UserMessage, AgentMessage)) and self.content and message.include_in_messages:
            text = message.text if isinstance(message, UserMessage) else message.content
            frame.inputs.append({"role": "user", "parts": _parts(text)})  # an agent notice goes to the model as user
            if frame.first_input is None and isinstance(message, UserMessage):
                frame.first_input = self._text(text)

    def end_session(self, head: SessionHead) -> None:
        frame = self.frames.pop()
        for call_id, call in frame.calls.items():  # calls that never got a result
            self._tool(frame, call_id, call, call.at, call.at, None, None)
        start = frame.start if frame.start is not None else 0
        end = frame.end if frame.end is not None else start
        agent = head.row.get("agent_name")
        name = self._text(agent) if isinstance(agent, str) and agent else DEFAULT_AGENT
        attributes = self._base(frame, "invoke_agent", "AGENT")
        attributes += [("gen_ai.agent.name", name), ("gen_ai.agent.id", self._text(frame.session))]
        attributes.append(("agent.name", name))
        title = head.row.get("title")
        if isinstance(title, str) and title:
            attributes.append(("zett.session.title", self._text(title)))
        if head.label:
            attributes.append(("zett.session.label", self._text(head.label)))
        parent = head.row.get("parent_session_id")
        if isinstance(parent, str) and parent:
            attributes.append(("zett.session.parent_id", self._text(parent)))
        if frame.snapshots.times:
            attributes.append(("zett.compaction.versions", len(frame.snapshots.times)))
        if self.content and frame.first_input is not None:
            attributes += [("input.value", frame.first_input), ("input.mime_type", "text/plain")]
        if self.content and frame.last_output is not None:
            attributes += [("output.value", frame.last_output), ("output.mime_type", "text/plain")]
        self._emit(
            SpanData(
                self.trace, frame.span, frame.parent, f"invoke_agent {name}", SpanKind.INTERNAL, start, end, attributes
            )
        )
        if self.frames:
            self.frames[-1].extend(frame.start, frame.end)

    # -- rows ------------------------------------------------------------------------------

    def _chat(self, frame: _Frame, step: Step, message: AssistantMessage) -> None:
        sequence, start, end = step.sequence, step.start, step.end
        began = start if start is not None else frame.end or 0
        finished = end if end is not None else began
        model = self._text(message.model) if message.model else None
        attributes = self._base(frame, "chat", "LLM")
        if message.provider:
            provider = self._text(message.provider)
            attributes += [("gen_ai.provider.name", provider), ("llm.provider", provider)]
        if model is not None:
            attributes += [("gen_ai.request.model", model), ("gen_ai.response.model", model), ("llm.model_name", model)]
        attributes += usage(step.tokens)
        reason = message.stop.reason.value if message.stop is not None else ("tool_use" if message.tool_calls else None)
        if reason is not None:
            attributes.append(("gen_ai.response.finish_reasons", [FINISH.get(reason, reason)]))
        version = frame.snapshots.in_force(start, sequence if isinstance(sequence, int) else None)
        attributes.append(("gen_ai.conversation.compacted", version is not None))
        if version is not None:
            attributes.append(("zett.compaction.version", version))
        if isinstance(sequence, int):
            attributes.append(("zett.sequence", sequence))
        attributes.append(("zett.request_id", self._text(step.request_id)))
        for number, call in enumerate(message.tool_calls):
            own = span_id(frame.session, sequence, f"call {number}")
            arguments = self._json(call.arguments) if self.content else None
            earlier = frame.calls.pop(call.id, None)
            if earlier is not None:  # the id again before a result: the earlier call got none
                self._tool(frame, call.id, earlier, earlier.at, earlier.at, None, None)
            frame.calls[call.id] = _Call(own, call.name, finished, arguments)
            if call.name in DELEGATING:
                frame.delegations[call.id] = own
        if self.content:
            attributes += self._chat_content(frame, message)
        error = message.stop.describe() if message.stop is not None and not message.stop.ok else None
        name = f"chat {model}" if model else "chat"
        own_span = span_id(frame.session, sequence, "chat")
        self._emit(
            SpanData(self.trace, own_span, frame.span, name, SpanKind.CLIENT, began, finished, attributes, error)
        )

    def _chat_content(self, frame: _Frame, message: AssistantMessage) -> list[tuple[str, AttrValue]]:
        parts: list[dict[str, Any]] = []
        if message.reasoning:
            parts.append({"type": "reasoning", "content": message.reasoning})
        if message.content:
            parts += _parts(message.content)
        for call in message.tool_calls:
            parts.append({"type": "tool_call", "id": call.id, "name": call.name, "arguments": call.arguments})
        inputs, frame.inputs = frame.inputs, []
        output = [{"role": "assistant", "parts": parts}]
        found: list[tuple[str, AttrValue]] = [
            ("gen_ai.input.messages", self._json(inputs)),
            ("gen_ai.output.messages", self._json(output)),
            ("input.value", self._json(inputs)),
            ("input.mime_type", "application/json"),
            ("output.value", self._text(message.content)),
            ("output.mime_type", "text/plain"),
        ]
        if message.content:
            frame.last_output = self._text(message.content)
        return found

    def _result(self, frame: _Frame, step: Step, message: ToolMessage) -> None:
        start, end = step.start, step.end
        call = frame.calls.pop(message.tool_call_id, None)
        if call is None:  # a result no call of this session asked for: its own span
            call = _Call(span_id(frame.session, step.sequence, "result"), message.name, start or 0, None)
        began = start if start is not None else call.at
        outcome = tool_outcome(message.success, message.content)
        if self.content:
            frame.inputs.append(
                {
                    "role": "tool",
                    "parts": [{"type": "tool_call_response", "id": message.tool_call_id, "response": message.text}],
                }
            )
        result = self._text(message.text) if self.content else None
        self._tool(frame, message.tool_call_id, call, began, end if end is not None else began, outcome, result)

    def _tool(
        self,
        frame: _Frame,
        call_id: str,
        call: _Call,
        start: int,
        end: int,
        outcome: Outcome | None,
        result: str | None,
    ) -> None:
        name = self._text(call.name)
        attributes = self._base(frame, "execute_tool", "TOOL")
        attributes += [
            ("gen_ai.tool.name", name),
            ("gen_ai.tool.call.id", self._text(call_id)),
            ("gen_ai.tool.type", "function"),
            ("tool.name", name),
            ("zett.tool.outcome", outcome.value if outcome is not None else "no result"),
        ]
        if call.arguments is not None:
            attributes += [("gen_ai.tool.call.arguments", call.arguments), ("input.value", call.arguments)]
            attributes.append(("input.mime_type", "application/json"))
        if result is not None:
            attributes += [("gen_ai.tool.call.result", result), ("output.value", result)]
        error = "tool failed" if outcome is not None and outcome.is_failure else None
        span = SpanData(
            self.trace, call.span, frame.span, f"execute_tool {name}", SpanKind.INTERNAL, start, end, attributes
        )
        span.error = error
        self._emit(span)


__all__ = ["DEFAULT_AGENT", "DELEGATING", "SpanBuilder"]
