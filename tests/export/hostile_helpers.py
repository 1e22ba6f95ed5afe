"""Shared by the hostile-export tests: strings that try HTML, Markdown and terminal tricks, and an HTML reader."""

from __future__ import annotations

from html.parser import HTMLParser

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
