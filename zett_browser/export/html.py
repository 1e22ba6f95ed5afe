"""Provides the HTML export: one self-contained file, every store string escaped.

The page needs nothing but itself: the style sheet is inline, there is no script, no
image, font or link to fetch, and a Content-Security-Policy of ``default-src 'none'`` tells
the browser to load nothing even if something slipped through. Every string from the
store is escaped with :func:`html.escape` (quotes too) and only ever placed in element
text; attributes hold the exporter's own words (kinds, depths), never store text.
Tool calls, results and reasoning are ``<details>``, open on a click.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, TextIO

from .. import __version__
from ..model.notes import Annotation
from ..model.outcomes import Outcome
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

STYLE = """
.review { border-left: 3px solid #c90; padding-left: .6em; margin: .4em 0; }
body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:1rem;color:#1f2328;background:#fff}
h1,h2,h3,h4,h5,h6{margin:1.2em 0 .4em}
.facts{color:#59636e;font-size:.9em}
section.delegated{border-left:3px solid #8250df;padding-left:1rem;margin:1rem 0}
article{border-top:1px solid #d1d9e0;padding:.3rem 0}
article h3,article h4,article h5,article h6{font-size:1em;margin:.4em 0}
.kind-user h3,.kind-user h4,.kind-user h5,.kind-user h6{color:#0969da}
.kind-assistant h3,.kind-assistant h4,.kind-assistant h5,.kind-assistant h6{color:#1a7f37}
.kind-tool h3,.kind-tool h4,.kind-tool h5,.kind-tool h6{color:#9a6700}
.kind-unreadable h3,.kind-unreadable h4{color:#cf222e}
.prose{white-space:pre-wrap;overflow-wrap:anywhere}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f8fa;padding:.5rem;border-radius:6px;margin:.3rem 0}
details{margin:.3rem 0}summary{cursor:pointer;font-family:ui-monospace,monospace;font-size:.9em}
.failed summary{color:#cf222e}.skipped summary,.cancelled summary{color:#8250df;font-style:italic}
.interrupted summary{color:#9a6700;font-weight:bold}.aborted summary{color:#0550ae;font-weight:bold}
.line{color:#59636e;font-size:.9em;white-space:pre-wrap}
.problem{color:#cf222e}
table.totals{border-collapse:collapse;font-size:.9em;margin:.5rem 0}
table.totals th,table.totals td{padding:.1rem .6rem;border-bottom:1px solid #d1d9e0;text-align:right}
table.totals th:first-child,table.totals td:first-child{text-align:left}
nav.contents ul{margin:.2rem 0;padding-left:1.2rem}
details.summary{border-left:3px solid #0969da;padding-left:.6rem;margin:.6rem 0}
details.summary>summary{font-weight:bold;color:#0969da}
@media (prefers-color-scheme:dark){body{color:#e6edf3;background:#0d1117}pre{background:#161b22}
.facts,.line{color:#9198a1}article,table.totals td,table.totals th{border-color:#30363d}
details.summary>summary{color:#4493f8}}
"""
#: Result classes (CSS above): one per outcome but ok, so a skipped call never reads as failed.
_OUTCOMES = frozenset(outcome.value for outcome in Outcome if outcome is not Outcome.OK)
_HEAD = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="zett-browser {version}">
<title>{title}</title>
<style>{style}</style>
</head>
<body>
"""


def esc(text: object) -> str:
    """Store text for element content: cleaned, then escaped (quotes too)."""
    return html.escape(clean(text), quote=True)


class HtmlWriter:
    """Writes one HTML document to ``out`` as the walk goes."""

    def __init__(self, out: TextIO, choices: ExportChoices, redactor: Redactor) -> None:
        self.out = out
        self.choices = choices
        self.redact = redactor
        self.contexts: RecordContexts[SessionHead] = RecordContexts()
        self.started = False
        #: Per open session: its summaries not written yet.
        self.summaries = OpenSummaries()
        #: Pins, labels and notes to carry (``--notes``), or None.
        self.review: Review | None = None

    def _text(self, value: object) -> str:
        return html.escape(self.redact(clean(value)), quote=True)

    def start_session(self, head: SessionHead) -> None:
        row = head.row
        name = session_name(row, head.label)
        if not self.started:
            self.started = True
            title = f"zett-browser export: {self.redact(name)}"
            self.out.write(_HEAD.format(version=__version__, title=html.escape(title, quote=True), style=STYLE))
            self.out.write(f'<p class="facts">exported {datetime.now(UTC):%Y-%m-%d %H:%M:%S} UTC</p>\n')
        level = min(1 + head.depth, 2)
        css = "session delegated" if head.depth else "session"
        ident = f' id="{head.anchor}"' if head.anchor else ""  # the exporter's own ASCII (story.anchor)
        self.out.write(f'<section class="{css}"{ident}>\n<h{level}>{"↳ " * head.depth}{self._text(name)}</h{level}>\n')
        facts = [f"session {row['id']}"]
        for label, key in (("agent", "agent_name"), ("type", "session_type"), ("delegated by", "parent_session_id")):
            if row.get(key):
                facts.append(f"{label} {row[key]}")
        if head.call_id:
            facts.append(f"task call {head.call_id}")
        facts += [f"created {row['created_at']}", f"updated {row['updated_at']}"]
        self.out.write(f'<p class="facts">{self._text(" · ".join(str(fact) for fact in facts))}</p>\n')
        if self.review is not None:
            self._review(head)
        if head.own is not None and head.depth == 0:
            self._totals(head)
        elif head.own is not None:
            self.out.write(f'<p class="facts">{esc(brief(head.own))}</p>\n')
        if head.plan is not None and head.plan.children:
            self.out.write(f'<nav class="contents"><strong>Contents</strong>\n{self._contents(head.plan)}</nav>\n')
        if head.snapshots:
            self.out.write('<ul class="facts">\n')
            for snapshot in head.snapshots:
                line = (
                    f"snapshot v{snapshot['version']}: compacted through "
                    f"#{snapshot['compacted_through_sequence']} at {snapshot['created_at']}"
                )
                self.out.write(f"<li>{esc(line)}</li>\n")
            self.out.write("</ul>\n")
        self.summaries.open(str(row["id"]), head.notes)

    def _totals(self, head: SessionHead) -> None:
        assert head.own is not None
        columns = ["this session"] if head.subtree is None else ["this session", "with delegated sessions"]
        out = ['<table class="totals">', "<tr><th></th>" + "".join(f"<th>{esc(c)}</th>" for c in columns) + "</tr>"]
        for cells in totals_table(head.own, head.subtree):
            out.append("<tr>" + "".join(f"<td>{esc(cell)}</td>" for cell in cells) + "</tr>")
        self.out.write("\n".join([*out, "</table>"]) + "\n")

    def _contents(self, node: PlanNode) -> str:
        """The table of contents: nested lists of links, as the sessions nest."""
        link = f'<a href="#{anchor(node.session_id)}">{self._text(session_name(node.row, node.label))}</a>'
        inner = "".join(self._contents(child) for child in node.children)
        totals = f" · {esc(brief(node.own_totals()))}" if self.choices.usage else ""
        return f"<ul><li>{link}{totals}{inner}</li></ul>\n"

    def message(self, row: Mapping[str, Any], head: SessionHead) -> None:
        for record, context, owner in self.contexts.push(record_of(row), head):
            self._record(record, context, owner)

    def _record(self, record: RawMessageRecord, context: RequestContext, head: SessionHead) -> None:
        for note in self.summaries.before(record.session_id, record.sequence):
            self._summary(note)
        parts, segments = render_record(record, self.choices, head.compacted_through, self.redact, context)
        kind = next((role[5:] for _text, role in parts if role.startswith("kind.")), "unknown")
        level = min(3 + head.depth, 6)
        title = html.escape(" · ".join(text for text, _role in parts), quote=True)
        self.out.write(f'<article class="kind-{html.escape(kind, quote=True)}">\n<h{level}>{title}</h{level}>\n')
        for segment in segments:
            self.out.write(self._segment(segment))
        if self.review is not None and (item := self.review.of(record.session_id, record.sequence)) is not None:
            self.out.write(self._aside(item))
        self.out.write("</article>\n")

    def _review(self, head: SessionHead) -> None:
        """The Review section (the exported session) or the mark of a delegated session."""
        assert self.review is not None
        session_id = str(head.row["id"])
        if head.depth:
            item = self.review.of(session_id, None)
            if item is not None:
                self.out.write(self._aside(item))
            return
        items = self.review.within(plan_ids(head.plan, session_id))
        if items:
            entries = "".join(f"<li>{self._text(' · '.join([where(item), *lines(item)]))}</li>" for item in items)
            self.out.write(f'<section class="review"><strong>Review</strong><ul>{entries}</ul></section>\n')

    def _aside(self, item: Annotation) -> str:
        """A mark beside its message or session."""
        return (
            '<aside class="review">' + "".join(f"<div>{self._text(line)}</div>" for line in lines(item)) + "</aside>\n"
        )

    def _summary(self, note: SummaryNote) -> None:
        """A version's summary at its boundary, collapsed."""
        problems = "".join(f'<div class="line problem">{self._text("✗ " + p)}</div>' for p in note.problems)
        body = self._text(note.summary) if note.summary else "(empty summary)"
        self.out.write(
            f'<details class="summary"><summary>{self._text("◆ " + note.title)}</summary>{problems}'
            f'<div class="prose">{body}</div></details>\n'
        )

    def _segment(self, segment: Segment) -> str:
        body = html.escape("\n".join(segment.lines), quote=True)
        if segment.kind == "prose":
            return f'<div class="prose">{body}</div>\n'
        if segment.kind == "code":
            return f"<pre>{body}</pre>\n"
        if segment.kind == "line":
            css = "line problem" if segment.role in ("problem", "error") else "line"
            return f'<div class="{css}">{body}</div>\n'
        summary = html.escape(segment.summary, quote=True)
        if segment.omitted:
            return f'<div class="line">{summary} (output left out)</div>\n'
        outcome = segment.role.removeprefix("tool.result.")  # the exporter's own words: ok, failed, skipped…
        css = f' class="{outcome}"' if outcome in _OUTCOMES else ""
        return f"<details{css}><summary>{summary}</summary><pre>{body}</pre></details>\n"

    def end_session(self, head: SessionHead) -> None:
        for record, context, owner in self.contexts.flush():
            self._record(record, context, owner)
        for note in self.summaries.close(str(head.row["id"])):
            self._summary(note)
        self.out.write("</section>\n")

    def finish(self) -> None:
        self.out.write("</body>\n</html>\n")
