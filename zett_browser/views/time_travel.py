"""Provides time travel: the model's context when it produced message N.

zett-agent 0.2.1 restores a session with ``load()``: the LATEST snapshot (highest
version) plus every Raw Log row with a sequence above its boundary, in sequence order;
``SessionView.messages`` then drops each message whose ``include_in_messages`` is false
(the checkpoint included). At a past step the latest snapshot is the one that existed
then, so :func:`in_force` picks the highest version among the snapshots created at or
before the step began (message N's ``started_at``) that summarise only rows before N
(one whose boundary is N or later was made after N was written, whatever its clock
says: :mod:`zett_browser.model.in_force`); the tail is cut just before N. With N one
past the last message (no step yet) every snapshot counts: that is exactly what
``load()`` returns now, what the next step gets.

No toolkit and no storage: the screen and the CLI hand in a :class:`BrowsingStore`.
Pages are read on demand (:func:`context_pages`); nothing holds a whole context.
"""

from __future__ import annotations

import json
import math
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ..model import (
    AgentMessage,
    AssistantMessage,
    ImageContent,
    SnapshotInfo,
    SystemMessage,
    TextContent,
    ToolMessage,
    UnreadableMessage,
    UserMessage,
)
from ..model.context import ContextRow
from ..model.in_force import may_be_in_force, passed_over
from ..model.record import field, record
from .offered import Offered, offered_from

if TYPE_CHECKING:
    from ..model.store import BrowsingStore

#: The estimate's categories, in the order the table shows them. The first two are not
#: messages: the request's system rows and the tools offered (``views/offered.py``).
PROMPT, TOOLS = "system prompt", "tools offered"
CATEGORIES = (PROMPT, TOOLS, "system", "summary", "user", "agent", "assistant", "tool results", "reasoning")
#: Characters per estimated token: the usual rule of thumb for English text and code.
CHARS_PER_TOKEN = 4
#: Tokens counted for one image, as zett-agent's own compaction estimate counts it.
IMAGE_TOKENS = 1_100
#: Rows read per page when the whole context is walked (estimate, export).
WALK_PAGE = 500


class ContextError(ValueError):
    """The context cannot be assembled as asked (a bad N, an unreadable envelope)."""


@record(frozen=True)
class ContextPoint:
    """Where a context is taken: session, N, the snapshot in force and the measured input."""

    session_id: str
    at: int
    last: int
    when: datetime | None
    snapshot: SnapshotInfo | None
    #: Row N when it exists (its kind and recorded ``input_tokens`` are the measured check).
    row_kind: str | None = None
    input_tokens: int | None = None
    #: Snapshots left out because their creation time is unknown.
    undated: int = 0
    #: The step's system prompt rows and offered tools (None: not read, no row).
    offered: Offered | None = None

    @property
    def floor(self) -> int:
        """The boundary of the snapshot in force: rows up to it are summarised."""
        return self.snapshot.compacted_through_sequence if self.snapshot is not None else 0

    @property
    def is_next_step(self) -> bool:
        """Whether N is past the last message: what ``load()`` gives the next step."""
        return self.at > self.last


class Version(Protocol):
    """What choosing the snapshot in force needs: a decoded version or its metadata."""

    @property
    def version(self) -> int: ...

    @property
    def created_at(self) -> datetime | None: ...

    @property
    def compacted_through_sequence(self) -> int: ...

    @property
    def problems(self) -> tuple[str, ...]: ...


V = TypeVar("V", bound=Version)


def in_force(snapshots: Sequence[V], when: datetime | None, before_sequence: int | None = None) -> V | None:
    """The snapshot ``load()`` returned at ``when`` (None: now, every snapshot counts), the
    step of message ``before_sequence``, by :mod:`zett_browser.model.in_force`'s rule (an
    undated snapshot counts only now: nobody can say it existed at a past step)."""
    best: V | None = None
    for snapshot in snapshots:
        if passed_over(snapshot.problems, before_sequence if when is not None else None):
            continue  # a damaged row: left out as the storage's SQL leaves it out
        if when is not None and (
            snapshot.created_at is None
            or snapshot.created_at > when
            or not may_be_in_force(snapshot.compacted_through_sequence, before_sequence)
        ):
            continue
        if best is None or snapshot.version > best.version:
            best = snapshot
    return best


async def locate(store: BrowsingStore, session_id: str, at: int | None = None) -> ContextPoint:
    """The context point of message ``at`` (default: one past the last message), from one
    read of the store (:meth:`BrowsingStore.point_rows`: only the summary in force is decoded).

    Raises:
        ContextError: ``at`` is outside 1 … last + 1.
    """
    rows = await store.point_rows(session_id, at)
    last = rows.last_sequence
    if not rows.in_range:
        raise ContextError(f"--at must be from 1 to {last + 1} (one past the last message #{last}), got {rows.at}")
    row = rows.row  # row N, or (a gap in a damaged store) the first row after it: either began later
    exact = row if row is not None and row.sequence == rows.at else None
    return ContextPoint(
        session_id,
        rows.at,
        last,
        row.started_at if row is not None else None,
        rows.snapshot,
        _kind(exact.message) if exact is not None else None,
        exact.input_tokens if exact is not None else None,
        rows.undated,
        offered_from(rows.step, rows.system, next_step=rows.at > last),
    )


def _kind(message: object) -> str:
    for cls, name in (
        (UnreadableMessage, "unreadable"),
        (SystemMessage, "system"),
        (AssistantMessage, "assistant"),
        (ToolMessage, "tool"),
        (AgentMessage, "agent"),
        (UserMessage, "user"),
    ):
        if isinstance(message, cls):
            return name
    return "unknown"


def sent(row: ContextRow) -> bool:
    """Whether ``load()`` keeps this row (``include_in_messages``; an unreadable row: no)."""
    return bool(getattr(row.record.message, "include_in_messages", False))


async def range_pages(
    store: BrowsingStore,
    point: ContextPoint,
    *,
    page: int = WALK_PAGE,
    start_after: int | None = None,
    start_after_id: str | None = None,
) -> AsyncIterator[list[ContextRow]]:
    """Every Raw Log row after the boundary and before N (sent or not), a page at a time;
    ``start_after`` (and ``start_after_id``) resume after that row."""
    after = point.floor if start_after is None else max(point.floor, start_after)
    after_id = start_after_id if start_after is not None and start_after >= point.floor else None
    while True:
        rows = await store.context_page(
            point.session_id, after_sequence=after, after_id=after_id, before_sequence=point.at, limit=page
        )
        if rows:
            yield rows
        if len(rows) < page:
            return
        after, after_id = rows[-1].record.sequence, rows[-1].record.id


async def context_pages(
    store: BrowsingStore,
    point: ContextPoint,
    *,
    page: int = WALK_PAGE,
    start_after: int | None = None,
    start_after_id: str | None = None,
) -> AsyncIterator[list[ContextRow]]:
    """The context's Raw Log rows (after the boundary, before N, only the ones ``load()``
    keeps), a page of the range at a time."""
    async for rows in range_pages(store, point, page=page, start_after=start_after, start_after_id=start_after_id):
        kept = [row for row in rows if sent(row)]
        if kept:
            yield kept


# ---------------------------------------------------------------- the estimate


@record()
class Estimate:
    """Characters and messages per category; tokens are estimated from them."""

    chars: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CATEGORIES, 0))
    messages: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CATEGORIES, 0))
    images: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CATEGORIES, 0))
    #: Rows of the range whose envelope could not be read (zett-agent's load() would fail).
    unreadable: int = 0
    #: Rows of the range with ``include_in_messages`` false: recorded, never sent again.
    skipped: int = 0
    #: Messages of the context (the summary included).
    rows: int = 0

    def tokens(self, category: str) -> int:
        """Estimated tokens: characters / 4, rounded up, plus 1,100 per image."""
        return math.ceil(self.chars[category] / CHARS_PER_TOKEN) + IMAGE_TOKENS * self.images[category]

    @property
    def total_chars(self) -> int:
        """Characters over every category."""
        return sum(self.chars.values())

    @property
    def total_tokens(self) -> int:
        """Estimated tokens over every category."""
        return sum(self.tokens(category) for category in CATEGORIES)

    def add(self, category: str, text: str, *, images: int = 0, message: bool = True) -> None:
        """Count one text (and its images) in a category."""
        self.chars[category] += len(text)
        self.images[category] += images
        if message:
            self.messages[category] += 1

    def add_message(self, message: object) -> None:
        """Count one message of the context in its categories."""
        self.rows += 1
        if isinstance(message, SystemMessage):
            self.add("system", message.content)
        elif isinstance(message, AgentMessage):
            self.add("agent", message.content)
        elif isinstance(message, AssistantMessage):
            calls = [{"name": call.name, "arguments": call.arguments} for call in message.tool_calls]
            text = message.content + (json.dumps(calls, ensure_ascii=False, default=repr) if calls else "")
            self.add("assistant", text)
            if message.reasoning:
                self.add("reasoning", message.reasoning)
        elif isinstance(message, ToolMessage):
            text, images = _parts(message.content)
            self.add("tool results", text, images=images)
        elif isinstance(message, UserMessage):
            text, images = _parts(message.content)
            self.add("user", text, images=images)


def _parts(content: Any) -> tuple[str, int]:
    """A body's text (parts joined) and its number of images."""
    if isinstance(content, str):
        return content, 0
    texts = [part.text for part in content if isinstance(part, TextContent)]
    return "\n".join(texts), sum(1 for part in content if isinstance(part, ImageContent))


def add_offered(estimate: Estimate, offered: Offered | None) -> None:
    """Count the step's system prompt rows and offered tools (not messages: ``rows`` stays)."""
    if offered is None:
        return
    for _sequence, text in offered.system:
        estimate.add(PROMPT, text)
    for tool in offered.tools:
        estimate.chars[TOOLS] += tool.chars
        estimate.messages[TOOLS] += 1


def summary_estimate(snapshot: SnapshotInfo | None) -> Estimate:
    """An estimate holding only the summary (the rest is added as rows are read)."""
    estimate = Estimate()
    if snapshot is not None and snapshot.message.include_in_messages:
        estimate.add("summary", snapshot.summary_text)
        estimate.rows += 1
    return estimate


async def estimate(
    store: BrowsingStore,
    point: ContextPoint,
    progress: Callable[[int], None] | None = None,
    *,
    page: int = WALK_PAGE,
) -> Estimate:
    """The per-category size of the whole context, reading its range a page at a time.

    Rows of the range that ``load()`` leaves out are counted apart (``skipped``), and
    rows that cannot be decoded (``unreadable``: zett-agent's ``load()`` would fail).
    """
    result = summary_estimate(point.snapshot)
    add_offered(result, point.offered)
    async for rows in range_pages(store, point, page=page):
        for row in rows:
            message = row.record.message
            if isinstance(message, UnreadableMessage):
                result.unreadable += 1
            elif sent(row):
                result.add_message(message)
            else:
                result.skipped += 1
        if progress is not None:
            progress(result.rows + result.skipped + result.unreadable)
    return result


# ---------------------------------------------------------------- the export


def _envelope_items(text: str | None, what: str) -> list[Any]:
    try:
        items = json.loads(text) if text is not None else None
    except ValueError as error:
        raise ContextError(f"{what} holds no valid JSON envelope: {error}") from None
    if not isinstance(items, list) or len(items) != 1:
        raise ContextError(f"{what} does not hold exactly one message envelope")
    return items


async def envelopes(store: BrowsingStore, point: ContextPoint, *, page: int = WALK_PAGE) -> AsyncIterator[Any]:
    """The context as zett-agent message envelopes (``{"kind", "data"}``), exactly as stored.

    Raises:
        ContextError: The snapshot in force or a row cannot be read (zett-agent's own
            ``load()`` would fail there too).
    """
    snapshot = point.snapshot
    if snapshot is not None:
        if isinstance(snapshot.message, UnreadableMessage):
            raise ContextError(f"snapshot v{snapshot.version} is unreadable: {snapshot.message.error}")
        if snapshot.message.include_in_messages:
            stored = await store.snapshot_envelope(point.session_id, snapshot.version)
            for item in _envelope_items(stored, f"snapshot v{snapshot.version}"):
                yield item
    async for rows in range_pages(store, point, page=page):
        for row in rows:
            message = row.record.message
            if isinstance(message, UnreadableMessage):
                raise ContextError(f"message #{row.record.sequence} is unreadable: {message.error}")
            if sent(row):
                for item in _envelope_items(row.envelope, f"message #{row.record.sequence}"):
                    yield item


async def export_json(store: BrowsingStore, point: ContextPoint) -> str:
    """The whole context as one JSON list of envelopes (what a developer would replay)."""
    return dump([item async for item in envelopes(store, point)])


def dump(items: list[Any]) -> str:
    """Envelopes as the export writes them: one JSON list, UTF-8 text, one key per line."""
    return json.dumps(items, ensure_ascii=False, indent=1)


__all__ = [
    "CATEGORIES",
    "CHARS_PER_TOKEN",
    "ContextError",
    "ContextPoint",
    "Estimate",
    "add_offered",
    "context_pages",
    "range_pages",
    "envelopes",
    "dump",
    "estimate",
    "export_json",
    "in_force",
    "locate",
    "sent",
    "summary_estimate",
]
