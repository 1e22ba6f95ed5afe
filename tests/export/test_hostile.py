"""Hostile store strings stay inert in Markdown and HTML exports.

A session is written (through the storage API) with markup, HTML, scripts, event handlers,
Markdown structure, fence breakers and terminal escapes in its title, agent name, message
text, reasoning, tool names, arguments and results, and metadata. The HTML export is
parsed with ``html.parser`` (no element or attribute comes from store text) and loaded in
a real headless Chromium (the DOM it builds holds no such element, and the text is there
literally); the Markdown export escapes or fences every one.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.export.helpers import export_text
from tests.export.hostile_helpers import (
    ANCHOR,
    MD_OWN_ATTRIBUTES,
    MD_OWN_TAGS,
    OWN_ATTRIBUTES,
    OWN_TAGS,
    SESSION,
    Elements,
    hostile_store,
    own_links,
)
from zett_browser.export.markdown import literal


@pytest.mark.parametrize("subtree", [False, True])
async def test_html_holds_no_element_or_attribute_from_the_store(tmp_path: Path, subtree: bool) -> None:
    store = await hostile_store(tmp_path / "hostile.sqlite3")
    text, _ = await export_text(store, SESSION, format="html", subtree=subtree)
    parser = Elements()
    parser.feed(text)
    assert parser.tags <= OWN_TAGS
    assert parser.attributes <= OWN_ATTRIBUTES
    assert own_links(parser.links), parser.links
    shown = "".join(parser.text)
    # The summaries are there, literally, each in its own collapsed block.
    assert text.count('<details class="summary">') == (2 if subtree else 1)
    assert shown.count("</details></summary></pre><script>alert(1)</script>") == (2 if subtree else 1)
    if subtree:  # the table of contents links the hostile child by a hashed anchor
        assert "[toc](javascript:x)<script>alert(1)</script>" in shown
        assert len({value for name, value in parser.links if name == "href"}) == 2
    assert "<script>alert(1)</script>" in shown and "onerror=alert(2)" in shown
    assert "\x1b" not in text and "␛]0;PWN" in shown
    assert "content=\"default-src 'none'; style-src 'unsafe-inline'\"" in text


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed (.ci/run installs it)")
async def test_html_in_a_real_headless_browser(tmp_path: Path) -> None:
    store = await hostile_store(tmp_path / "hostile.sqlite3")
    text, _ = await export_text(store, SESSION, format="html", subtree=True)
    page = tmp_path / "export.html"
    page.write_text(text, encoding="utf-8")
    result = subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    dom = Elements()
    dom.feed(result.stdout)
    assert dom.tags <= OWN_TAGS and dom.attributes <= OWN_ATTRIBUTES and own_links(dom.links)
    assert "<script>alert(1)</script>" in "".join(dom.text)
    assert "</details></summary></pre>" in "".join(dom.text)


def _outside_fences(markdown: str) -> str:
    """The document with fenced blocks removed (fences of 3+ backticks, closed by the same run)."""
    out, fence = [], None
    for line in markdown.split("\n"):
        match = re.match(r"^(`{3,})", line)
        if fence is None and match:
            fence = match.group(1)
        elif fence is not None and line.strip() == fence:
            fence = None
        elif fence is None:
            out.append(line)
    assert fence is None, "a fence was left open"
    return "\n".join(out)


def _own_blocks(markdown: str) -> str:
    """The document without the exporter's own totals table (after ``**Totals**``) and anchors."""
    out: list[str] = []
    table = False
    for line in markdown.split("\n"):
        table = line == "**Totals**" or (table and (not out or not line.strip() or line.startswith("|")))
        if table and line.startswith("|"):
            continue
        out.append(re.sub(f' <a id="{ANCHOR}"></a>$', "", line))
    return "\n".join(out)


@pytest.mark.parametrize("subtree", [False, True])
async def test_markdown_escapes_or_fences_every_hostile_string(tmp_path: Path, subtree: bool) -> None:
    store = await hostile_store(tmp_path / "hostile.sqlite3")
    text, report = await export_text(store, SESSION, format="md", subtree=subtree)
    assert "\x1b" not in text
    outside = _own_blocks(_outside_fences(text))
    # Raw HTML outside fences: only the exporter's own details/summary tags.
    tags = set(re.findall(r"(?<!\\)<(/?[A-Za-z][A-Za-z0-9]*)", outside))
    assert tags <= {"details", "/details", "summary", "/summary"}
    # No heading other than the exporter's own (session and per-message headings).
    headings = [line for line in outside.split("\n") if line.startswith("#")]
    assert len(headings) == report.sessions + report.messages
    links = re.findall(r"(?<!\\)\]\(([^)]*)\)", outside)  # every unescaped "](": a link
    assert all(re.fullmatch("#" + ANCHOR, link) for link in links), links  # the table of contents only
    assert len(links) == (2 if subtree else 0)
    assert not re.search(r"(?m)^\|", outside), "a table"
    assert "</details>\n<details open>" not in outside
    # Each summary sits in its own collapsed block, in a fence its text cannot close.
    assert text.count("<summary>◆ compaction summary v1 · through #") == (2 if subtree else 1)
    assert text.count("</details></summary></pre>&lt;script") == 0  # in a fence, never raw
    assert text.count("</details></summary></pre><script>alert(1)</script>") == (2 if subtree else 1)


def test_literal_escapes_structure_and_keeps_text() -> None:
    assert literal("# x") == "\\# x"
    assert literal("1. a\n- b") == "1\\. a\\\n\\- b"
    assert literal("  code") == "&nbsp;&nbsp;code"
    assert literal("<b>&amp;</b>") == "\\<b\\>\\&amp;\\</b\\>"
    assert literal("a $x$ ~~s~~ | `c`") == "a \\$x\\$ \\~\\~s\\~\\~ \\| \\`c\\`"


async def test_markdown_rendered_by_a_commonmark_parser_makes_no_element_from_the_store(tmp_path: Path) -> None:
    """markdown-it-py (CommonMark with GitHub's tables and strikethrough, raw HTML on, as GitHub
    parses before sanitizing) renders the export: only the exporter's own elements appear, and
    the hostile text is there literally."""
    from markdown_it import MarkdownIt

    store = await hostile_store(tmp_path / "hostile.sqlite3")
    text, report = await export_text(store, SESSION, format="md", subtree=True)
    rendered = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"]).render(text)
    parser = Elements()
    parser.feed(rendered)
    assert parser.tags <= MD_OWN_TAGS, parser.tags - MD_OWN_TAGS
    assert parser.attributes <= MD_OWN_ATTRIBUTES
    assert own_links(parser.links), parser.links
    assert rendered.count("<table>") == 1  # the totals, none from the store
    assert "</details></summary></pre><script>alert(1)</script>" in "".join(parser.text)
    shown = "".join(parser.text)
    assert "<script>alert(1)</script>" in shown and "[link](javascript:alert(4))" in shown
    assert "# Fake heading" in shown and "| a | b |" in shown and "$x^2$ &amp; &lt;" in shown
    assert rendered.count("<h3>") + rendered.count("<h4>") == report.messages
