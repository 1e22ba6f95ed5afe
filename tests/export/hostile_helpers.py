"""Shared by the hostile-export tests: strings that try HTML, Markdown and terminal tricks, and an HTML reader."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

from zett_browser.storage import (
    AssistantMessage,
    CompactedMessage,
    SQLiteSessionStorage,
    ToolCall,
    ToolMessage,
    UserMessage,
)

EVIL = '<script>alert(1)</script><img src=x onerror=alert(2)><a href="javascript:alert(3)">x</a>'
MARKDOWN = (
    "# Fake heading\n\n```\n</details>\n<details open>\n[link](javascript:alert(4)) ![i](http://x/y.png)\n"
    "| a | b |\n|---|---|\n$x^2$ &amp; &lt;"
)
ESCAPES = "\x1b]0;PWN\x07\x1b[2J\x1b]52;c;ZXZpbA==\x07"


class Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.attributes: set[str] = set()
        #: Values of ``id`` and ``href`` (anchors and the table of contents' links).
        self.links: list[tuple[str, str | None]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attributes.update(name for name, _ in attrs)
        self.links.extend((name, value) for name, value in attrs if name in ("id", "href"))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


#: Every element and attribute the HTML export writes itself.
OWN_TAGS = {
    "html",
    "head",
    "meta",
    "title",
    "style",
    "body",
    "section",
    "p",
    "ul",
    "li",
    "article",
    "div",
    "pre",
    "details",
    "summary",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    # The totals, the table of contents and its anchors (tbody: a browser adds it).
    "table",
    "tbody",
    "tr",
    "th",
    "td",
    "nav",
    "strong",
    "a",
}
OWN_ATTRIBUTES = {"lang", "charset", "http-equiv", "content", "name", "class", "id", "href"}
#: Every element a CommonMark renderer makes of a Markdown export: headings, prose, fences, the
#: collapsed parts, the totals table, the table of contents and the anchors.
MD_OWN_TAGS = {"h1", "h2", "h3", "h4", "p", "br", "pre", "code", "details", "summary", "ul", "li", "em", "a", "strong"}
MD_OWN_TAGS |= {"table", "thead", "tbody", "tr", "th", "td"}
#: Fences' language class, the anchors and links, the totals' alignment.
MD_OWN_ATTRIBUTES = {"class", "id", "href", "style"}
#: The only ids and link targets an export writes: its sessions' anchors (story.anchor).
ANCHOR = r"session-[A-Za-z0-9-]{1,72}"


def own_links(links: list[tuple[str, str | None]]) -> bool:
    """Every id is a session anchor and every link goes to one in the page."""
    import re

    return all(
        value is not None and re.fullmatch(("#" if name == "href" else "") + ANCHOR, value) for name, value in links
    )


SESSION = "hostile-session"
#: A delegated session whose id, title and summary are hostile too (the table of contents).
CHILD = 'child"><script>alert(5)</script>'
#: A compaction summary that tries to leave its block: closing tags, a fence, a heading, escapes.
SUMMARY = "</details></summary></pre>" + EVIL + "\n````\n" + MARKDOWN + ESCAPES


async def hostile_store(path: Path) -> Path:
    """A store whose one session (and its child) hold every hostile string above."""
    storage = SQLiteSessionStorage(path)
    try:
        await storage.create_session(session_id=SESSION, title="<b>title</b>" + ESCAPES, agent_name="<i>agent</i>")
        await storage.append(SESSION, "r1", UserMessage(content=EVIL + "\n" + MARKDOWN + ESCAPES), metadata={"k": EVIL})
        call = ToolCall("c<1>", "read_<file>", {"path": EVIL, "note": "``````"})
        await storage.append(
            SESSION, "r1", AssistantMessage(content=MARKDOWN, reasoning=EVIL + ESCAPES, tool_calls=(call,))
        )
        result = ToolMessage(tool_call_id="c<1>", name="read_<file>", content=EVIL + "\n````\n" + MARKDOWN)
        await storage.append(SESSION, "r1", result)
        await storage.snapshot(SESSION, CompactedMessage(content=SUMMARY), 2, 0)
        await storage.append(SESSION, "r2", UserMessage(content="after the summary"))
        await storage.create_session(session_id=CHILD, parent_session_id=SESSION, title="[toc](javascript:x)" + EVIL)
        await storage.append(CHILD, "r3", UserMessage(content="child " + MARKDOWN), parent_session_id=SESSION)
        await storage.snapshot(CHILD, CompactedMessage(content=SUMMARY), 1, 0)
    finally:
        await storage.close()
    return path
