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
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attributes.update(name for name, _ in attrs)

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
}
OWN_ATTRIBUTES = {"lang", "charset", "http-equiv", "content", "name", "class"}
