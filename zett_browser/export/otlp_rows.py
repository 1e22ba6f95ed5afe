"""Provides what the spans read from stored rows: a step's columns, the snapshots in force, token usage.

A :class:`Step` is one Raw Log row as a span needs it, read from the row as stored (only the
columns a span takes; the export reads every row, so not through the Raw Log's full record).
:class:`Compactions` answers which snapshot version was in force when a step began, as the
context view decides it (docs/compaction.md): by time. :func:`usage` names a step's token
counts in both vocabularies, the GenAI conventions' and OpenInference's.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..model.in_force import may_be_in_force, passed_over
from ..model.messages import AnyMessage, UnreadableMessage
from ..storage import decode_message_leniently
from ..storage.export_rows import snapshot_of
from .otlp_model import AttrValue, nanoseconds
from .walk import SessionHead

#: Token columns of a step, in :func:`usage`'s order.
TOKENS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens")


@dataclass(slots=True)
class Step:
    """What a span takes from one stored row: its place, times, message and token columns.

    Read from the row as stored (only the columns a span needs; a system row is not decoded
    at all), not through the Raw Log's full record: the export reads every row.
    """

    #: The stored ``sequence`` (an int unless the row is damaged).
    sequence: int | str
    request_id: str
    message: AnyMessage | UnreadableMessage
    start: int | None
    end: int | None
    tokens: tuple[int | None, ...]

    @classmethod
    def of(cls, row: Mapping[str, Any], start: int | None, end: int | None) -> Step:
        tokens = tuple(_count(row.get(name)) for name in TOKENS)
        message = decode_message_leniently(row.get("message_json"))
        sequence = row.get("sequence")
        place = sequence if isinstance(sequence, int) and not isinstance(sequence, bool) else str(sequence)
        return cls(place, str(row.get("request_id")), message, start, end, tokens)


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


#: The boundary of a snapshot whose stored boundary is not a number: past every message.
UNREACHABLE = 2**63


@dataclass(frozen=True, slots=True)
class Compactions:
    """A session's readable snapshots by time: which version was in force when a step began.

    ``times`` sorted, ``versions[i]`` the highest version among the first ``i + 1``: one
    binary search per step (a long session has thousands of versions and as many steps).
    ``made`` holds each ``(time, version, boundary)`` in the same order: a version whose
    boundary reaches the step's message was made after it (:mod:`zett_browser.model.in_force`).
    """

    times: tuple[int, ...] = ()
    versions: tuple[int, ...] = ()
    made: tuple[tuple[int, int, int], ...] = ()

    @classmethod
    def of(cls, head: SessionHead) -> Compactions:
        made = []
        for row in head.snapshots:
            info = snapshot_of(row)
            at = nanoseconds(info.created_at)
            if at is not None and not passed_over(info.problems, None):
                # A boundary stored as text sorts after every number in SQL: never before a step.
                boundary = UNREACHABLE if passed_over(info.problems, 0) else info.compacted_through_sequence
                made.append((at, info.version, boundary))
        made.sort()
        highest: list[int] = []
        for _at, version, _boundary in made:
            highest.append(max(version, highest[-1]) if highest else version)
        return cls(tuple(at for at, _version, _boundary in made), tuple(highest), tuple(made))

    def in_force(self, at: int | None, sequence: int | None = None) -> int | None:
        """The highest version among the snapshots made before ``at`` that summarise only
        rows before message ``sequence`` (None: none, or no time)."""
        if at is None:
            return None
        before = bisect_left(self.times, at)
        if not before:
            return None
        best = self.versions[before - 1]
        if sequence is None or not self.made or may_be_in_force(self._boundary(best, before), sequence):
            return best  # a store zett-agent wrote: the newest made before the step summarises rows before it
        possible = [version for _at, version, boundary in self.made[:before] if may_be_in_force(boundary, sequence)]
        return max(possible, default=None)

    def _boundary(self, version: int, before: int) -> int:
        """The boundary of ``version``, the highest of the first ``before`` made (mostly the last)."""
        for index in range(before - 1, -1, -1):
            _at, made, boundary = self.made[index]
            if made == version:
                return boundary
        raise LookupError(version)  # versions[before - 1] is one of them


#: Each token column's attribute in the GenAI conventions and in OpenInference.
_USAGE = (
    ("gen_ai.usage.input_tokens", "llm.token_count.prompt"),
    ("gen_ai.usage.output_tokens", "llm.token_count.completion"),
    ("gen_ai.usage.cache_read.input_tokens", "llm.token_count.prompt_details.cache_read"),
    ("gen_ai.usage.cache_creation.input_tokens", "llm.token_count.prompt_details.cache_write"),
    ("gen_ai.usage.reasoning.output_tokens", "llm.token_count.completion_details.reasoning"),
)


def usage(tokens: tuple[int | None, ...]) -> list[tuple[str, AttrValue]]:
    """The step's token usage in both vocabularies (only what was recorded)."""
    found: list[tuple[str, AttrValue]] = []
    for value, (name, inference) in zip(tokens, _USAGE, strict=True):
        if value is not None:
            found += [(name, value), (inference, value)]
    if tokens[0] is not None and tokens[1] is not None:
        found.append(("llm.token_count.total", tokens[0] + tokens[1]))
    return found


__all__ = ["TOKENS", "Compactions", "Step", "usage"]
