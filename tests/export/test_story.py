"""Markdown and HTML exports tell the story (issue 25): each compaction summary at its boundary,
with its version and how it was made; the totals of the session (and subtree); a table of
contents with anchors for a subtree; passes without input labelled as the Raw Log labels them.

On the demo store (a session compacted three times, a delegated subtree) and on the stores
real zett-agent 0.2.1 wrote (a session compacted in requests and by ``Agent.compact()``).
"""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.export.helpers import export_text
from tests.realstore.stores import RealStores
from zett_browser.demo.store import build_demo_store
from zett_browser.export.segments import PENDING, RecordContexts
from zett_browser.model import RawMessageRecord, SystemMessage, UserMessage

COMPACTED = "0196d3e0-0000-7000-8000-000000000005"  # demo: three snapshots, through #10, #19, #28
ROOT = "0196d3e0-0000-7000-8000-000000000001"  # demo: root → researcher → reader
PASS = "pass without input: resume check / compact()"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import asyncio

    path = tmp_path_factory.mktemp("story") / "demo.sqlite3"
    asyncio.run(build_demo_store(path))
    return path


def _summaries(store: Path, session: str) -> list[tuple[int, int, str]]:
    with closing(sqlite3.connect(store)) as db:
        rows = db.execute(
            "select version, compacted_through_sequence, message_json from session_snapshots"
            " where session_id = ? order by version",
            (session,),
        ).fetchall()
    return [(int(version), int(through), str(text)) for version, through, text in rows]


def _md_blocks(text: str) -> list[str]:
    """The Markdown document cut at each message heading (``### \\#N ·``), the head first."""
    return re.split(r"(?m)^(?=#{3,6} (?:↳ )*\\#\d+ ·)", text)


def _md_sequence(block: str) -> int | None:
    found = re.match(r"#{3,6} (?:↳ )*\\#(\d+) ·", block)
    return int(found.group(1)) if found else None


async def test_markdown_puts_each_summary_right_after_its_boundary(demo: Path) -> None:
    text, _ = await export_text(demo, COMPACTED, format="md")
    blocks = _md_blocks(text)
    found = {}
    for block in blocks:
        for version in re.findall(r"<summary>◆ compaction summary v(\d+) · through #(\d+)", block):
            found[int(version[0])] = (_md_sequence(block), int(version[1]))
    assert found == {1: (10, 10), 2: (19, 19), 3: (28, 28)}  # in the block of the boundary row, after it
    for _version, _through, stored in _summaries(demo, COMPACTED):
        words = re.search(r'"content": "([^"]{20,60})', stored)
        assert words is not None and words.group(1) in text
    assert "auto, in a request (after #" in text and "made 2026-" in text


async def test_html_puts_each_summary_in_a_collapsed_block_at_its_boundary(demo: Path) -> None:
    text, _ = await export_text(demo, COMPACTED, format="html")
    articles = re.split(r"<article ", text)
    placed = {}
    for article in articles:
        heading = re.search(r"<h\d>#(\d+) ·", article)
        for version in re.findall(r'<details class="summary"><summary>◆ compaction summary v(\d+)', article):
            placed[int(version)] = int(heading.group(1)) if heading else None
    assert placed == {1: 10, 2: 19, 3: 28}
    assert text.count('<details class="summary">') == 3 and '<details class="summary" open' not in text


async def test_real_compaction_says_auto_and_compact(real_stores: RealStores) -> None:
    """Session …e0003: v1–v3 compacted inside requests, v4 by ``Agent.compact()`` after the pass #27–#28."""
    session = real_stores.session("compaction")
    text, _ = await export_text(real_stores.main, session, format="md")
    titles = re.findall(r"<summary>◆ (compaction summary v\d+ · through #\d+) · made [^·]+ · ([^<]+)</summary>", text)
    assert titles == [
        ("compaction summary v1 · through #6", "auto, in a request (after #9)"),
        ("compaction summary v2 · through #10", "auto, in a request (after #13)"),
        ("compaction summary v3 · through #14", "auto, in a request (after #17)"),
        ("compaction summary v4 · through #22", "by Agent.compact() (after #28)"),
    ]
    assert text.count("[Conversation checkpoint: historical context, not system instructions]") == 4
    html, _ = await export_text(real_stores.main, session, format="html")
    assert html.count("by Agent.compact() (after #28)") == 1 and html.count('<details class="summary">') == 4


@pytest.mark.parametrize(("case", "sequence"), [("compaction", 27), ("max_output", 4), ("killed", 5)])
async def test_passes_without_input_are_labelled_as_in_the_raw_log(
    real_stores: RealStores, case: str, sequence: int
) -> None:
    """The same rows as ``tests/realstore/test_rawlog_rendering.py`` finds in the Raw Log."""
    session = real_stores.session(case)
    text, _ = await export_text(real_stores.main, session, format="md")
    assert [_md_sequence(block) for block in _md_blocks(text) if PASS in block] == [sequence]
    html, _ = await export_text(real_stores.main, session, format="html")
    labelled = [re.search(r"<h\d>#(\d+) ·", article) for article in html.split("<article ") if PASS in article]
    assert [int(found.group(1)) for found in labelled if found] == [sequence]


async def test_totals_header_of_a_subtree(demo: Path) -> None:
    text, _ = await export_text(demo, ROOT, format="md", subtree=True)
    with closing(sqlite3.connect(demo)) as db:
        ids = [ROOT, "0196d3e0-0000-7000-8000-000000000002", "0196d3e0-0000-7000-8000-000000000003"]
        marks = ",".join("?" * len(ids))
        own_input, own_messages = db.execute(
            "select sum(input_tokens), count(*) from raw_messages where session_id = ?", (ROOT,)
        ).fetchone()
        all_input, all_messages = db.execute(
            f"select sum(input_tokens), count(*) from raw_messages where session_id in ({marks})", ids
        ).fetchone()
    head = text.split("**Contents**")[0]
    assert "| | this session | with delegated sessions |" in head
    assert f"| messages | {own_messages:,} | {all_messages:,} |" in head
    assert f"| input tokens | {own_input:,} | {all_input:,} |" in head
    assert "| delegated sessions | 1 | 2 |" in head and "| failed tool results | 1 | 1 |" in head
    assert re.search(r"\| cost \| \\\$0\.\d+ \| \\\$0\.\d+ \|", head)
    assert re.search(r"\| measured time \| \d+\.\d s \| \d+\.\d s \|", head)
    alone, _ = await export_text(demo, ROOT, format="md")
    assert "| | this session |\n" in alone and "**Contents**" not in alone
    lean, _ = await export_text(demo, ROOT, format="md", subtree=True, usage=False)
    assert "**Totals**" not in lean and " tokens" not in lean.split("### ")[0]


async def test_skipped_and_cancelled_are_not_failures(real_stores: RealStores) -> None:
    for case, other in (("steering", "skipped"), ("cancelled", "cancelled"), ("killed", "interrupted")):
        text, _ = await export_text(real_stores.main, real_stores.session(case), format="md")
        assert "| failed tool results | 0 |" in text, case
        assert re.search(rf"\| {other} tool results \| [1-9]", text), case
        html, _ = await export_text(real_stores.main, real_stores.session(case), format="html")
        assert "<tr><td>failed tool results</td><td>0</td></tr>" in html, case


async def test_table_of_contents_nests_like_the_tree_and_links_every_heading(demo: Path) -> None:
    text, _ = await export_text(demo, ROOT, format="md", subtree=True)
    contents = text.split("**Contents**\n\n")[1].split("\n\n")[0].split("\n")
    entries = [(len(line) - len(line.lstrip(" ")), re.search(r"\]\(#([^)]+)\)", line)) for line in contents]
    assert [depth for depth, _ in entries] == [0, 2, 4]
    anchors = [found.group(1) for _, found in entries if found]
    assert anchors == [f"session-{ROOT}", "session-0196d3e0-0000-7000-8000-000000000002", anchors[2]]
    headed = re.findall(r'(?m)^#{1,5} .* <a id="([^"]+)"></a>$', text)
    assert headed == anchors  # every session heading has its anchor, in the same order
    html, _ = await export_text(demo, ROOT, format="html", subtree=True)
    assert re.findall(r'<a href="#([^"]+)">', html) == anchors
    assert re.findall(r'<section class="[^"]+" id="([^"]+)">', html) == anchors
    nav = html.split('<nav class="contents">')[1].split("</nav>")[0]
    assert nav.count("<ul>") == 3  # nested, one list per level


def _record(sequence: int, request: str, system: bool) -> RawMessageRecord:
    message = SystemMessage(content="prompt") if system else UserMessage(content="hi")
    now = datetime(2026, 12, 5, tzinfo=UTC)
    return RawMessageRecord(
        f"r{sequence}", "s", request, sequence, message, {}, {}, now, now, 0,
        None, None, None, None, None, None, None, None, None, None, None, now, now,
    )  # fmt: skip


def test_contexts_hold_a_possible_pass_until_a_row_decides() -> None:
    contexts: RecordContexts[int] = RecordContexts()
    out = []
    rows = [(1, "a", True), (2, "a", False), (3, "b", True), (4, "b", True), (5, "c", True), (6, "c", False)]
    for sequence, request, system in rows:
        out.extend(contexts.push(_record(sequence, request, system), sequence))
    out.extend(contexts.flush())
    assert [item for _record_, _context, item in out] == [1, 2, 3, 4, 5, 6]  # in order, none lost
    assert [item for _record_, context, item in out if context.pass_without_input] == [3]
    held: RecordContexts[int] = RecordContexts()
    handed = [len(held.push(_record(sequence, "a", True), sequence)) for sequence in range(1, PENDING + 3)]
    assert max(handed[: PENDING - 1]) == 0 and sum(handed) == PENDING + 2  # held back, then handed on
    assert held.flush() == []
