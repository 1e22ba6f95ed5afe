r"""Provides the Markdown export: reads well on GitHub, and store text stays text.

Every string from the store reaches the file in one of three forms, none of which GitHub
interprets:

- **literal text** (:func:`literal`): the characters that mean something anywhere in a
  line (`` \ ` * _ [ ] < > & | ~ $ ``: emphasis, links, raw HTML, entities, tables,
  strikethrough, GitHub's math) are backslash-escaped everywhere, and the block markers
  (``#``, ``+``, ``-``, ``=``, ``1.``, ``1)``) where they start a line; leading spaces
  become no-break spaces (no indented code block); lines end in a hard break, so the
  message keeps its lines;
- **fenced blocks** whose fence is longer than any backtick run in the content, so no
  line of the content can close it;
- **HTML-escaped** text inside the ``<summary>`` of a collapsed part (raw HTML there).

Tool calls and results and the reasoning are collapsed in ``<details>``; each message has
a heading with its sequence, kind, time and usage; delegated sessions follow the call that
delegated them, one heading level deeper.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from typing import Any, TextIO

from ..model.notes import Annotation
from ..model.records import RawMessageRecord
from ..storage.export_rows import record_of
from ..text import clean
from ..views.requests import RequestContext
from .plan import PlanNode
from .redact import Redactor
from .review import Review, lines, plan_ids, where
from .segments import ExportChoices, RecordContexts, Segment, render_record
from .story import OpenSummaries, SummaryNote, anchor, brief, session_name, totals_table
from .walk import SessionHead

#: Characters with a meaning anywhere in a line (GitHub Flavored Markdown, plus $ for math).
_INLINE = re.compile(r"([\\`*_\[\]<>&|~$])")
#: Block markers at the start of a line: headings, lists, setext underlines, ordered lists.
_LINE_START = re.compile(r"^([#+\-=])|^(\d+)([.)])", re.MULTILINE)
_BACKTICKS = re.compile(r"`+")
_LEADING = re.compile(r"^ +", re.MULTILINE)


def _line_start(match: re.Match[str]) -> str:
    if match.group(1):
        return "\\" + match.group(1)
    return match.group(2) + "\\" + match.group(3)


def literal(text: str) -> str:
    """Markdown that shows ``text`` exactly as it is (already cleaned), line by line."""
    escaped = _INLINE.sub(r"\\\1", text)
    escaped = _LINE_START.sub(_line_start, escaped)
    escaped = _LEADING.sub(lambda match: "&nbsp;" * len(match.group()), escaped)
    lines = escaped.split("\n")
    out = []
    for index, line in enumerate(lines):
        following = lines[index + 1] if index + 1 < len(lines) else ""
        # A hard break keeps the message's lines; not before a blank line (a paragraph ends).
        out.append(line + "\\" if line.strip() and following.strip() else line)
    return "\n".join(out)


def cell(text: str) -> str:
    """One line of the exporter's own words in a table cell or after a list item's link:
    the inline characters escaped (a cell starts no block), the line kept whole."""
    return _INLINE.sub(r"\\\1", " ".join(text.split()))


def fence(text: str, info: str = "text") -> str:
    """``text`` in a fenced block no line of it can close."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    marks = "`" * max(3, longest + 1)
    return f"{marks}{info}\n{text}\n{marks}"


def _summary(text: str) -> str:
    return html.escape(" ".join(text.split()), quote=True)


class MarkdownWriter:
    """Writes one Markdown document to ``out`` as the walk goes."""

    def __init__(self, out: TextIO, choices: ExportChoices, redactor: Redactor) -> None:
        self.out = out
        self.choices = choices
        self.redact = redactor
        self.contexts: RecordContexts[SessionHead] = RecordContexts()
        #: Per open session: its summaries not written yet.
        self.summaries = OpenSummaries()
        #: Pins, labels and notes to carry (``--notes``), or None.
        self.review: Review | None = None

    def _write(self, text: str) -> None:
        self.out.write(text)

    def _name(self, row: Mapping[str, Any], label: str | None) -> str:
        return literal(self.redact(session_name(row, label)))

    def start_session(self, head: SessionHead) -> None:
        row = head.row
        level = "#" * min(1 + head.depth, 5)
        arrow = "↳ " * head.depth
        mark = f' <a id="{head.anchor}"></a>' if head.anchor else ""  # the exporter's own ASCII (story.anchor)
        self._write(f"{level} {arrow}{self._name(row, head.label)}{mark}\n\n")
        facts = [f"session {row['id']}"]
        if row.get("agent_name"):
            facts.append(f"agent {row['agent_name']}")
        if row.get("session_type"):
            facts.append(f"type {row['session_type']}")
        if row.get("parent_session_id"):
            facts.append(f"delegated by {row['parent_session_id']}")
        if head.call_id:
            facts.append(f"task call {head.call_id}")
        facts.append(f"created {row['created_at']}")
        facts.append(f"updated {row['updated_at']}")
        self._write(literal(self.redact(clean(" · ".join(str(fact) for fact in facts)))) + "\n\n")
        if self.review is not None:
            self._review(head)
        if head.own is not None and head.depth == 0:
            self._totals(head)
        elif head.own is not None:
            self._write(cell(brief(head.own)) + "\n\n")
        if head.plan is not None and head.plan.children:
            self._write("**Contents**\n\n" + "\n".join(self._contents(head.plan, 0)) + "\n\n")
        for snapshot in head.snapshots:
            line = (
                f"snapshot v{snapshot['version']}: compacted through #{snapshot['compacted_through_sequence']}"
                f" at {snapshot['created_at']}"
            )
            self._write("- " + literal(clean(line)) + "\n")
        if head.snapshots:
            self._write("\n")
        self.summaries.open(str(row["id"]), head.notes)

    def _totals(self, head: SessionHead) -> None:
        assert head.own is not None
        rows = totals_table(head.own, head.subtree)
        columns = ["this session"] if head.subtree is None else ["this session", "with delegated sessions"]
        lines = ["**Totals**", "", "| | " + " | ".join(columns) + " |", "|---" + "|---:" * len(columns) + "|"]
        lines += ["| " + " | ".join(cell(text) for text in cells) + " |" for cells in rows]
        self._write("\n".join(lines) + "\n\n")

    def _contents(self, node: PlanNode, depth: int) -> list[str]:
        """The table of contents: a nested list of links, as the sessions nest."""
        text = f"{'  ' * depth}- [{self._name(node.row, node.label)}](#{anchor(node.session_id)})"
        lines = [text + (" · " + cell(brief(node.own_totals())) if self.choices.usage else "")]
        for child in node.children:
            lines.extend(self._contents(child, depth + 1))
        return lines

    def message(self, row: Mapping[str, Any], head: SessionHead) -> None:
        for record, context, owner in self.contexts.push(record_of(row), head):
            self._record(record, context, owner)

    def _record(self, record: RawMessageRecord, context: RequestContext, head: SessionHead) -> None:
        for note in self.summaries.before(record.session_id, record.sequence):
            self._summary(note)
        parts, segments = render_record(record, self.choices, head.compacted_through, self.redact, context)
        level = "#" * min(3 + head.depth, 6)
        self._write(f"{level} {literal(' · '.join(text for text, _role in parts))}\n\n")
        for segment in segments:
            self._write(self._segment(segment) + "\n\n")
        if self.review is not None and (item := self.review.of(record.session_id, record.sequence)) is not None:
            self._write(self._quote(item))

    def _review(self, head: SessionHead) -> None:
        """The Review section (the exported session) or the mark of a delegated session."""
        assert self.review is not None
        session_id = str(head.row["id"])
        if head.depth:
            item = self.review.of(session_id, None)
            if item is not None:
                self._write(self._quote(item))
            return
        items = self.review.within(plan_ids(head.plan, session_id))
        if items:
            entries = [f"- {literal(self.redact(' · '.join([where(item), *lines(item)])))}" for item in items]
            self._write("**Review**\n\n" + "\n".join(entries) + "\n\n")

    def _quote(self, item: Annotation) -> str:
        """A mark as a quote beside its message or session."""
        text = literal(self.redact("\n".join(lines(item))))
        return "\n".join("> " + line for line in text.split("\n")) + "\n\n"

    def _summary(self, note: SummaryNote) -> None:
        """A version's summary, collapsed, in a fence no line of it can close."""
        title = _summary("◆ " + self.redact(note.title))
        problems = "".join(literal("✗ " + self.redact(problem)) + "\n\n" for problem in note.problems)
        body = self.redact(note.summary)
        inner = fence(body) if body else literal("(empty summary)")
        self._write(f"<details>\n<summary>{title}</summary>\n\n{problems}{inner}\n\n</details>\n\n")

    def _segment(self, segment: Segment) -> str:
        body = "\n".join(segment.lines)
        if segment.kind == "prose":
            return literal(body)
        if segment.kind == "code":
            return fence(body)
        if segment.kind == "line":
            return literal(body)
        if segment.omitted:
            return literal(segment.summary + " (output left out)")
        summary = _summary(segment.summary)
        inner = fence(body) if body else literal("(empty)")
        return f"<details>\n<summary>{summary}</summary>\n\n{inner}\n\n</details>"

    def end_session(self, head: SessionHead) -> None:
        for record, context, owner in self.contexts.flush():
            self._record(record, context, owner)
        for note in self.summaries.close(str(head.row["id"])):
            self._summary(note)
        if head.depth:
            self._write(f"*end of delegated session {literal(clean(head.row['id']))}*\n\n")

    def finish(self) -> None:
        """Nothing trails a Markdown document."""


__all__ = ["MarkdownWriter", "cell", "fence", "literal"]
