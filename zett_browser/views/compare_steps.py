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
(:meth:`~zett_browser.model.store.BrowsingStore.step_page`: only the columns a step needs):
memory holds one page and the tool calls still waiting for their result, whatever the
session's length.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ..model import AssistantMessage, ToolMessage, UserMessage
from ..model.outcomes import Outcome, tool_outcome
from ..model.steps import StepRow
from ..model.store import BrowsingStore
from ..text import one_line
from .compare_totals import RunTotals

#: Raw Log rows read per page, and in the first page (the first screen waits for it).
PAGE = 500
FIRST_PAGE = 80
#: Characters of a step's text kept for display.
PREVIEW = 120

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_TIME = re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?")
_CALL = re.compile(r"\b(?:call|toolu|srvtoolu)_[A-Za-z0-9_]+")
_CHILD = re.compile(r'"session_id"\s*:\s*"([0-9a-fA-F-]{36})"')


class StepKind(StrEnum):
    """What a step is."""

    USER = "user"
    MODEL = "model"
    TOOL = "tool"


def normalise(text: str) -> str:
    """``text`` with the ids no two runs share masked (UUIDs, call ids, timestamps).

    Each pattern runs only on text that can hold it (a substring test in C first): most
    text holds none, and a 100 KB tool output is then scanned once, not three times.
    """
    if text.count("-") >= 2:
        text = _UUID.sub("<id>", text)
        if ":" in text:
            text = _TIME.sub("<time>", text)
    if "_" in text and ("call_" in text or "toolu_" in text):
        text = _CALL.sub("<call>", text)
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
        key: The alignment key: kind, then the prompt's digest, the stop and reply's digest, or the
            tool and its arguments' digest (a tool's result is not in it: a changed result is a
            matched call that differs).
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
    duration_ns: int = 0
    compactions: tuple[int, ...] = ()
    child: str | None = None

    @property
    def context(self) -> int:
        """The model step's context size: its measured input tokens."""
        return self.tokens[0]


def _tokens(record: StepRow) -> tuple[int, int, int, int, int]:
    values = (
        record.input_tokens,
        record.output_tokens,
        record.cache_read_tokens,
        record.cache_write_tokens,
        record.reasoning_tokens,
    )
    return tuple(value if isinstance(value, int) and value >= 0 else 0 for value in values)  # type: ignore[return-value]


def _duration(record: StepRow) -> int:
    return record.duration_ns if isinstance(record.duration_ns, int) and record.duration_ns >= 0 else 0


def _model_step(
    record: StepRow, message: AssistantMessage, index: int, sequence: int, compactions: tuple[int, ...]
) -> Step:
    stop = None if message.stop is None or message.stop.ok else message.stop.reason.value
    tokens = _tokens(record)
    reply = digest((message.reasoning or "") + "\x00" + message.content)
    return Step(
        StepKind.MODEL,
        f"model:{stop or ''}:{reply}",  # same reply: an anchor; another one is paired by kind
        index,
        sequence,
        detail=reply,
        stop=stop,
        preview=one_line(message.content or message.reasoning or "", PREVIEW),
        tokens=tokens,
        duration_ns=_duration(record),
        compactions=compactions,
    )


@dataclass(slots=True)
class _Call:
    """A tool call waiting for its result (made a :class:`Step` once it has one, or never will)."""

    index: int
    sequence: int
    tool: str
    arguments: str
    preview: str
    detail: str = ""
    outcome: Outcome | None = None
    result: str = ""
    duration_ns: int = 0
    child: str | None = None

    def step(self) -> Step:
        key = f"tool:{self.tool}:{self.arguments}"
        return Step(
            StepKind.TOOL,
            key,
            self.index,
            self.sequence,
            tool=self.tool,
            arguments=self.arguments,
            detail=self.detail,
            outcome=self.outcome,
            preview=self.preview,
            result=self.result,
            duration_ns=self.duration_ns,
            child=self.child,
        )


class StepReader:
    """A session's steps, read a keyset page at a time (:meth:`pages`); :attr:`totals` as they go.

    The first page is small (``first_page`` rows), so the first screen of a comparison
    waits for little; the others are ``page`` rows.
    """

    def __init__(
        self, store: BrowsingStore, session_id: str, *, page: int = PAGE, first_page: int = FIRST_PAGE
    ) -> None:
        self.store = store
        self.session_id = session_id
        self.page = page
        self.first_page = min(first_page, page)
        self.totals = RunTotals()
        #: Compaction boundaries (sequence, version) not yet passed, highest first.
        self._boundaries: list[tuple[int, int]] = []
        self._queue: list[Step | _Call] = []  # steps in order; calls may wait for their result
        self._waiting: dict[str, _Call] = {}  # tool call id -> its call
        self._count = 0

    def _next_index(self) -> int:
        self._count += 1
        return self._count - 1

    def _passed(self, sequence: int) -> tuple[int, ...]:
        """Versions whose boundary lies before ``sequence`` (each handed out once)."""
        if not self._boundaries or self._boundaries[-1][0] >= sequence:
            return ()
        passed = []
        while self._boundaries and self._boundaries[-1][0] < sequence:
            passed.append(self._boundaries.pop()[1])
        return tuple(passed)

    def _add(self, record: StepRow) -> None:
        message = record.message
        sequence = record.sequence if record.sequence is not None else 0  # a damaged row still takes its place
        if isinstance(message, ToolMessage):
            self._result(record, message)
        elif isinstance(message, UserMessage):
            self._waiting.clear()  # a new turn: the calls still waiting will get no result
            text = message.text
            self._queue.append(
                Step(
                    StepKind.USER,
                    f"user:{digest(text)}",
                    self._next_index(),
                    sequence,
                    preview=one_line(text, PREVIEW),
                    duration_ns=_duration(record),
                    compactions=self._passed(sequence),
                )
            )
        elif isinstance(message, AssistantMessage):
            self._waiting.clear()
            step = _model_step(record, message, self._next_index(), sequence, self._passed(sequence))
            self.totals.charge(message.provider, message.model, step.tokens, record.started_at)
            self._queue.append(step)
            for call in message.tool_calls:
                shown = arguments_text(call.arguments)
                waiting = _Call(
                    self._next_index(),
                    sequence,
                    call.name,
                    digest(shown),
                    one_line(f"{call.name}({shown})", PREVIEW),
                )
                self._waiting[call.id] = waiting
                self._queue.append(waiting)

    def _result(self, record: StepRow, message: ToolMessage) -> None:
        waiting = self._waiting.pop(message.tool_call_id, None)
        if waiting is None:
            return  # a result no call of this run waits for (another runtime, a damaged row)
        outcome = tool_outcome(message.success, message.content)
        text = message.text
        child = _CHILD.search(text) if '"session_id"' in text else None
        waiting.detail = digest(f"{outcome.value}\x00{text}")
        waiting.outcome = outcome
        waiting.result = one_line(text, PREVIEW)
        waiting.duration_ns = _duration(record)
        waiting.child = child.group(1) if child else None

    def _ready(self, *, final: bool) -> list[Step]:
        """The steps at the queue's head that can no longer change."""
        if final:
            self._waiting.clear()
        waiting = set(map(id, self._waiting.values()))
        ready: list[Step] = []
        for item in self._queue:
            if id(item) in waiting:
                break
            step = item.step() if isinstance(item, _Call) else item
            self.totals.add(step)
            ready.append(step)
        del self._queue[: len(ready)]
        return ready

    async def pages(self) -> AsyncIterator[list[Step]]:
        """The run's steps, in order, a page at a time (a page may be empty while calls wait)."""
        versions = await self.store.all_snapshot_versions(self.session_id)
        self._boundaries = sorted(((meta.compacted_through_sequence, meta.version) for meta in versions), reverse=True)
        after_id: str | None = None
        size = self.first_page
        while True:
            rows = await self.store.step_page(self.session_id, after_id=after_id, limit=size)
            for record in rows:
                self.totals.messages += 1
                self.totals.duration_ns += _duration(record)
                self._add(record)
            last = len(rows) < size
            steps = self._ready(final=last)
            if last:
                self.totals.compactions += len(self._boundaries)  # boundaries after the last step
                self._boundaries.clear()
                yield steps
                return
            yield steps
            after_id = rows[-1].id
            size = self.page


__all__ = ["FIRST_PAGE", "PAGE", "Step", "StepKind", "StepReader", "arguments_text", "digest", "normalise"]
