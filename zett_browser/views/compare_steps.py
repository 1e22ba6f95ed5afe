"""Provides the steps two runs are compared by, read from a session's Raw Log a page at a time.

A run is a sequence of :class:`Step`: a user turn, a model step (one assistant message) and
each tool call it made (name + normalised arguments, with a digest of its result and how it
ended, :func:`~zett_browser.model.outcomes.tool_outcome`). What aligns two steps is their
:attr:`Step.key`; what tells a matched pair apart is :attr:`Step.detail` (a tool's result,
a model step's reply). System rows (stored again with every request), agent notices (they
arrive when a background task happens to end) and the results themselves are not steps.

A delegated child is compared by the brief it was given: a ``task``/``task_start`` call's
arguments are its brief, so two fan-outs align call by call on what each child was asked.
A compacted stretch stays the span its summary replaced: the Raw Log keeps every original
row, so the steps are the same with or without compaction; a step records the snapshot
versions whose boundary lies just before it (:attr:`Step.compactions`).

Ids in arguments and results (UUIDs, ``call_…`` ids, ISO timestamps) are masked before
hashing: two runs never share them, and they must not make equal work look different.

:class:`StepReader` reads a session with the storage's keyset pages
(:meth:`~zett_browser.model.store.BrowsingStore.raw_page`): memory holds one page and the
tool calls still waiting for their result, whatever the session's length.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from ..index.pricing import step_cost
from ..model import AssistantMessage, RawMessageRecord, ToolMessage, UserMessage
from ..model.outcomes import Outcome, tool_outcome
from ..model.store import BrowsingStore
from ..text import one_line

#: Raw Log rows read per page.
PAGE = 500
#: Characters of a step's text kept for display.
PREVIEW = 120

_MASKS = (
    (re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"), "<id>"),
    (re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?"), "<time>"),
    (re.compile(r"\b(?:call|toolu|srvtoolu)_[A-Za-z0-9_]+"), "<call>"),
)
_CHILD = re.compile(r'"session_id"\s*:\s*"([0-9a-fA-F-]{36})"')


class StepKind(StrEnum):
    """What a step is."""

    USER = "user"
    MODEL = "model"
    TOOL = "tool"


def normalise(text: str) -> str:
    """``text`` with the ids no two runs share masked (UUIDs, call ids, timestamps)."""
    for pattern, mask in _MASKS:
        text = pattern.sub(mask, text)
    return text


def digest(text: str) -> str:
    """A short stable hash of ``text`` after :func:`normalise`."""
    return hashlib.blake2b(normalise(text).encode("utf-8", "replace"), digest_size=8).hexdigest()


def arguments_text(arguments: Any) -> str:
    """A tool call's arguments as canonical JSON (sorted keys), for hashing."""
    try:
        return json.dumps(arguments, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError, RecursionError):
        return repr(arguments)


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a run: what aligns it (``key``), what tells a matched pair apart (``detail``).

    Attributes:
        kind: User turn, model step or tool call.
        key: The alignment key (kind, then the prompt's digest, the stop, or tool + arguments' digest).
        index: The step's number in its run (0-based).
        sequence: The Raw Log sequence of its row (a tool call: its assistant message's).
        tool: A tool call's name.
        arguments: A tool call's normalised arguments digest.
        detail: A tool result's or a model reply's digest ("" when there is none).
        outcome: How a tool call ended (None: no result stored).
        stop: A model step's stop reason when it did not end normally.
        preview: One cleaned line for display (prompt, reply, or ``name(arguments)``).
        result: A tool result's first line, cleaned.
        tokens: A model step's input, output, cache-read, cache-write and reasoning tokens.
        cost: Its cost in picodollars (None: unpriced or not a model step).
        duration_ns: Measured time of its rows (a tool call: its result's).
        compactions: Snapshot versions whose boundary lies just before this step.
        child: The delegated session a ``task``/``task_start`` result names.
    """

    kind: StepKind
    key: str
    index: int
    sequence: int
    tool: str | None = None
    arguments: str = ""
    detail: str = ""
    outcome: Outcome | None = None
    stop: str | None = None
    preview: str = ""
    result: str = ""
    tokens: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)
    cost: int | None = None
    duration_ns: int = 0
    compactions: tuple[int, ...] = ()
    child: str | None = None

    @property
    def context(self) -> int:
        """The model step's context size: its measured input tokens."""
        return self.tokens[0]


@dataclass
class RunTotals:
    """What a run added up to: the deltas that decide which run was better."""

    steps: int = 0
    user_turns: int = 0
    tool_calls: int = 0
    failures: int = 0
    #: Tool calls that ended otherwise (skipped, cancelled, interrupted, aborted): not failures.
    other_outcomes: int = 0
    stops: int = 0
    tokens: list[int] = field(default_factory=lambda: [0, 0, 0, 0, 0])
    cost_picos: int = 0
    unpriced: int = 0
    duration_ns: int = 0
    compactions: int = 0
    messages: int = 0
    peak_context: int = 0

    def add(self, step: Step) -> None:
        """Count one finished step."""
        self.compactions += len(step.compactions)
        if step.kind is StepKind.USER:
            self.user_turns += 1
        elif step.kind is StepKind.MODEL:
            self.steps += 1
            self.stops += step.stop is not None
            self.tokens = [total + value for total, value in zip(self.tokens, step.tokens, strict=True)]
            self.peak_context = max(self.peak_context, step.context)
            if step.cost is not None:
                self.cost_picos += step.cost
            elif any(step.tokens[:4]):
                self.unpriced += 1
        else:
            self.tool_calls += 1
            if step.outcome is not None and step.outcome.is_failure:
                self.failures += 1
            elif step.outcome is not None and step.outcome is not Outcome.OK:
                self.other_outcomes += 1


def _tokens(record: RawMessageRecord) -> tuple[int, int, int, int, int]:
    values = (
        record.input_tokens,
        record.output_tokens,
        record.cache_read_tokens,
        record.cache_write_tokens,
        record.reasoning_tokens,
    )
    return tuple(value if isinstance(value, int) and value >= 0 else 0 for value in values)  # type: ignore[return-value]


def _duration(record: RawMessageRecord) -> int:
    return record.duration_ns if isinstance(record.duration_ns, int) and record.duration_ns >= 0 else 0


def _model_step(record: RawMessageRecord, message: AssistantMessage, index: int) -> Step:
    stop = None if message.stop is None or message.stop.ok else message.stop.reason.value
    tokens = _tokens(record)
    cost = None
    if any(tokens[:4]) and message.provider and message.model:
        cost = step_cost(message.provider, message.model, *tokens[:4], record.started_at)
    reply = (message.reasoning or "") + "\x00" + message.content
    return Step(
        StepKind.MODEL,
        f"model:{stop or ''}",
        index,
        record.sequence,
        detail=digest(reply),
        stop=stop,
        preview=one_line(message.content or message.reasoning or "", PREVIEW),
        tokens=tokens,
        cost=cost,
        duration_ns=_duration(record),
    )


class StepReader:
    """A session's steps, read a keyset page at a time (:meth:`pages`); :attr:`totals` as they go."""

    def __init__(self, store: BrowsingStore, session_id: str, *, page: int = PAGE) -> None:
        self.store = store
        self.session_id = session_id
        self.page = page
        self.totals = RunTotals()
        #: Compaction boundaries (sequence, version) not yet passed, highest first.
        self._boundaries: list[tuple[int, int]] = []
        self._queue: list[Step] = []  # steps in order; tool calls may wait for their result
        self._waiting: dict[str, int] = {}  # tool call id -> its place in the queue
        self._count = 0

    async def _load_boundaries(self) -> None:
        versions = await self.store.all_snapshot_versions(self.session_id)
        self._boundaries = sorted(((meta.compacted_through_sequence, meta.version) for meta in versions), reverse=True)

    def _next_index(self) -> int:
        self._count += 1
        return self._count - 1

    def _passed(self, sequence: int) -> tuple[int, ...]:
        """Versions whose boundary lies before ``sequence`` (each handed out once)."""
        passed = []
        while self._boundaries and self._boundaries[-1][0] < sequence:
            passed.append(self._boundaries.pop()[1])
        return tuple(passed)

    def _add(self, record: RawMessageRecord) -> None:
        message = record.message
        if isinstance(message, ToolMessage):
            self._result(record, message)
            return
        if isinstance(message, UserMessage):
            self._settle()
            text = message.text
            step = Step(
                StepKind.USER,
                f"user:{digest(text)}",
                self._next_index(),
                record.sequence,
                preview=one_line(text, PREVIEW),
                duration_ns=_duration(record),
            )
            self._queue.append(replace(step, compactions=self._passed(record.sequence)))
        elif isinstance(message, AssistantMessage):
            self._settle()
            step = _model_step(record, message, self._next_index())
            self._queue.append(replace(step, compactions=self._passed(record.sequence)))
            for call in message.tool_calls:
                arguments = digest(arguments_text(call.arguments))
                shown = one_line(f"{call.name}({arguments_text(call.arguments)})", PREVIEW)
                self._waiting[call.id] = len(self._queue)
                key = f"tool:{call.name}:{arguments}"
                index = self._next_index()
                self._queue.append(
                    Step(StepKind.TOOL, key, index, record.sequence, tool=call.name, arguments=arguments, preview=shown)
                )

    def _result(self, record: RawMessageRecord, message: ToolMessage) -> None:
        place = self._waiting.pop(message.tool_call_id, None)
        if place is None:
            return  # a result no call of this run waits for (another runtime, a damaged row)
        outcome = tool_outcome(message.success, message.content)
        text = message.text
        child = _CHILD.search(text)
        self._queue[place] = replace(
            self._queue[place],
            detail=digest(f"{outcome.value}\x00{text}"),
            outcome=outcome,
            result=one_line(text, PREVIEW),
            duration_ns=_duration(record),
            child=child.group(1) if child else None,
        )

    def _settle(self) -> None:
        """A new user turn or model step: the calls still waiting will get no result."""
        self._waiting.clear()

    def _ready(self, *, final: bool) -> list[Step]:
        if final:
            self._waiting.clear()
        first_waiting = min(self._waiting.values(), default=len(self._queue))
        ready, self._queue = self._queue[:first_waiting], self._queue[first_waiting:]
        self._waiting = {call: place - first_waiting for call, place in self._waiting.items()}
        for step in ready:
            self.totals.add(step)
        return ready

    async def pages(self) -> AsyncIterator[list[Step]]:
        """The run's steps, in order, a page at a time (a page may be empty while calls wait)."""
        await self._load_boundaries()
        after_sequence: int | None = None
        after_id: str | None = None
        while True:
            rows = await self.store.raw_page(
                self.session_id, after_sequence=after_sequence, after_id=after_id, limit=self.page
            )
            for record in rows:
                self.totals.messages += 1
                self.totals.duration_ns += _duration(record)
                self._add(record)
            last = len(rows) < self.page
            steps = self._ready(final=last)
            if last:
                self.totals.compactions += len(self._boundaries)  # boundaries past the last step
                self._boundaries.clear()
                yield steps
                return
            yield steps
            after_sequence, after_id = rows[-1].sequence, rows[-1].id


__all__ = ["PAGE", "RunTotals", "Step", "StepKind", "StepReader", "arguments_text", "digest", "normalise"]
